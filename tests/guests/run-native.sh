#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-guests-native: boots every guest image directly under QEMU (no Umbra), checks results.
# The last line is "guests-native: N passed, M failed".
set -u
out=${1:?usage: run-native.sh OUTDIR "NAMES" "CRASH_NAMES" "QEMU64_NAMES"}
names=$2 crash=" $3 " qemu64=$4
logs=$out/native-logs
mkdir -p "$logs"
pass=0 failn=0 cases=()

# TCG is one thread per guest: a few more runs than cores at a time.
jobs_max=$(( $(nproc 2>/dev/null || echo 2) + 2 ))

# The minimal machine: no PSE, PGE, NX, CMPXCHG16B, SMEP, SMAP or 1G pages, and the 16 MiB
# Umbra gives a guest: every skip path, and proof that 16 MiB is enough.
min_cpu=qemu64,-pse,-pge,-nx,-cx16

# One run in the background: name, cpu model.
start() {
  local name=$1 cpu=$2 log=$logs/$1-$2.log mem=64M
  [ "$cpu" = "$min_cpu" ] && { mem=16M; log=$logs/$1-min.log; }
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  rm -f "$log" "$log.rc"
  ( timeout 60 qemu-system-x86_64 -accel tcg -machine q35 -cpu "$cpu" -m $mem \
      -kernel "$out/$name.elf" -display none -serial "file:$log" -monitor none -no-reboot \
      -device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null >"$log.qemu" 2>&1
    echo $? >"$log.rc" ) &
  cases+=("$name:$cpu:$log")
}

for n in $names; do start "$n" max; done
for n in $qemu64; do start "$n" qemu64; done
for n in $names; do start "$n" "$min_cpu"; done
wait

for c in "${cases[@]}"; do
  IFS=: read -r name cpu log <<<"$c"
  [ "$cpu" = "$min_cpu" ] && cpu="$cpu -m 16M"
  rc=$(cat "$log.rc" 2>/dev/null || echo none)
  why=
  if [[ $crash == *" $name "* ]]; then
    [ "$rc" = 0 ] || why="expected a triple fault (qemu status 0), got status $rc"
    ! grep -q 'RESULT: PASS' "$log" 2>/dev/null || why="a crash guest reported PASS"
  else
    [ "$rc" = 33 ] || why="qemu status $rc, expected 33"
    grep -q 'RESULT: PASS' "$log" 2>/dev/null || why="${why:+$why; }no 'RESULT: PASS' in the log"
  fi
  if [ -z "$why" ]; then
    pass=$((pass + 1))
    summary=$(grep -E '^(cases|note|skipped)' "$log" | tr '\n' ' ')
    echo "PASS $name (-cpu $cpu) $summary"
  else
    failn=$((failn + 1))
    echo "FAIL $name (-cpu $cpu): $why"
    echo "---- $log"; cat "$log" "$log.qemu" 2>/dev/null | tail -n 60; echo "----"
  fi
done
echo "guests-native: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
