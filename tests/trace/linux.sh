#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make trace-linux: Debian's kernel booted with its exits traced; the timeline of its boot as
# OUT/linux-boot.json (Perfetto) and OUT/linux-boot.png, the boot phases marked.
set -u
. "$(dirname "$0")/../harness/suite-lib.sh"
L=${1:?usage: linux.sh LINUX_OUT OUT} out=${2:?usage: linux.sh LINUX_OUT OUT}
root=$(cd "$(dirname "$0")/../.." && pwd)
case_run trace-linux --cpu max --timeout 900 --cmdline trace=linux \
  --module "$L/vmlinuz name=linux mem=160 -- console=ttyS0 loops=0 expect_mem=160" \
  --module "$L/initrd.gz for=linux" --expect guests_passed=1 \
  --expect-log "trace: end guest=linux"
mkdir -p "$out"
tests/trace/convert.py "$root/build/harness/trace-linux/serial.txt" "$out" || exit 1
for f in json png; do [ -f "$out/linux.$f" ] && mv "$out/linux.$f" "$out/linux-boot.$f"; done
rm -f "$out/linux.png.dat"
echo "trace-linux: wrote $out/linux-boot.json$([ -f "$out/linux-boot.png" ] && echo " and $out/linux-boot.png")"
