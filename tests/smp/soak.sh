#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# soak-smp: the SMP guest's shootdown rounds for minutes, 4 vCPUs on QEMU -smp 4, shadow and nested paging side by side.
# ROUNDS=N remap rounds per guest (default 1500: about 3 min here). The two runs share the host,
# so each vCPU thread is often held up longer than a slice, as on a loaded CI machine.
set -u
. "$(dirname "$0")/../harness/suite-lib.sh"
G=${GUEST_DIR:-build/guests}
R=${ROUNDS:-1500}
soak_case() { # NAME [run-case options]
  local name=$1; shift
  "$harness_dir/run-case.sh" --cpu max --smp 4 --timeout 1800 \
    --module "$G/smppae.elf name=smp vcpus=4 time=1500 -- rounds=$R" --expect guests_passed=1 \
    --expect-log "smppae: $R remap and 4 write-protect shootdowns on 4 vCPUs" "$@" "$name"
}
out=$(mktemp)
soak_case soak-smp-shadow >"$out" 2>&1 &
shadow=$!
soak_case soak-smp-tdp --cmdline "mmu=tdp"
tdp=$?
wait "$shadow"
case_count soak-smp-shadow $?
case_count soak-smp-tdp "$tdp"
cat "$out"; rm -f "$out"
suite_end soak-smp
