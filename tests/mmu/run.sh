#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-mmu: the cmocka programs (ASan+UBSan) and the -O2 fuzz: OPS operations in total, split
# over guests of 2, 3 and 4 vCPUs (seeds SEED, SEED+1, SEED+2); last line is the total.
set -u
out=$1; ops=$2; seed=$3
log=$(mktemp)
tests/cmocka-run.sh mmu-cmocka "$out/test_scenarios" "$out/test_fuzz_asan" | tee "$log"
p=$(sed -nE 's/^mmu-cmocka: ([0-9]+) passed, ([0-9]+) failed$/\1/p' "$log")
f=$(sed -nE 's/^mmu-cmocka: ([0-9]+) passed, ([0-9]+) failed$/\2/p' "$log")
rm -f "$log"
start=$(date +%s)
for n in 2 3 4; do
	if "$out/mmu_fuzz" --ops $(( (ops + 2) / 3 )) --seed $(( seed + n - 2 )) --vcpus $n; then
		p=$((p + 1))
	else
		f=$((f + 1))
	fi
done
echo "mmu-fuzz: $(( $(date +%s) - start ))s"
echo "mmu: ${p:-0} passed, ${f:-1} failed"
[ "${f:-1}" -eq 0 ]
