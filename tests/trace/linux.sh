#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make trace-linux: Debian's kernel booted with its exits traced; the timeline of its boot as
# OUT/linux-boot.json (Perfetto) and OUT/linux-boot.png, the boot phases marked. PLUGIN=1: QEMU
# TCG under the instruction-counting plugin, each exit's cost in Umbra's exact instructions.
set -u
. "$(dirname "$0")/../harness/suite-lib.sh"
. "$(dirname "$0")/plugin.sh"
L=${1:?usage: linux.sh LINUX_OUT OUT} out=${2:?usage: linux.sh LINUX_OUT OUT}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
PLUGIN_OPTS=() plugin=
if [ "${PLUGIN:-0}" = 1 ]; then
  plugin=$out/linux-boot.plugin
  trace_plugin "$plugin" || exit 1
  export UMBRA_ACCEL=tcg
fi
case_run trace-linux --cpu max --timeout 900 --cmdline trace=linux "${PLUGIN_OPTS[@]}" \
  --module "$L/vmlinuz name=linux mem=160 -- console=ttyS0 loops=0 expect_mem=160" \
  --module "$L/initrd.gz for=linux" --expect guests_passed=1 \
  --expect-log "trace: end guest=linux"
tests/trace/convert.py ${plugin:+--plugin "$plugin"} "$root/build/harness/trace-linux/serial.txt" \
  "$out" || exit 1
for f in json png; do [ -f "$out/linux.$f" ] && mv "$out/linux.$f" "$out/linux-boot.$f"; done
rm -f "$out/linux.png.dat"
echo "trace-linux: wrote $out/linux-boot.json$([ -f "$out/linux-boot.png" ] && echo " and $out/linux-boot.png")"
