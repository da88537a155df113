#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench-shm: the two-guest exchange of tests/guests/shm.c (a million 16-byte messages each
# way) on two CPUs and on one: messages and bytes per exit, doorbells per message; OUT/shm.csv.
# bench.sh SHM_ELF OUTDIR
set -u
shm=$1 out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
mkdir -p "$out"
n=1000000
csv="$out/shm.csv"
echo "placement,messages,exits,hypercalls,hlts,messages_per_exit,bytes_per_exit,doorbells_per_message" > "$csv"
printf '%-10s %10s %8s %10s %8s %10s %10s %12s\n' placement messages exits doorbells hlts msg/exit bytes/exit doorbell/msg
for placement in 2cpu 1cpu; do
  cpus="cpu=0 cpu=1"; [ $placement = 1cpu ] && cpus="cpu=1 cpu=1"
  set -- $cpus
  name=bench-shm-$placement
  tests/harness/run-case.sh --cpu max --smp 2 --cmdline "shm=ring:64K" --timeout 900 \
    --module "$shm name=a $1 shm=ring -- role=pair n=$n" \
    --module "$shm name=b $2 shm=ring -- role=pair n=$n" --expect guests_passed=2 "$name" \
    > "$out/$name.run" 2>&1 || { echo "bench-shm: $name failed (see $out/$name.run)"; exit 1; }
  # Both peers' exits during the exchange; every hypercall of the exchange is a doorbell.
  read -r exits hcs hlts < <(tr -d '\r' < "build/harness/$name/serial.txt" |
    awk '/shm32: exchange exits=/ { for (i = 1; i <= NF; i++) { split($i, kv, "=");
           if (kv[1] == "exits") e += kv[2]; if (kv[1] == "hypercall") h += kv[2];
           if (kv[1] == "hlt") l += kv[2] } } END { print e + 0, h + 0, l + 0 }')
  msgs=$((2 * n))
  [ "$exits" -gt 0 ] || { echo "bench-shm: $name: no exchange counts in its log"; exit 1; }
  awk -v p=$placement -v m=$msgs -v e=$exits -v h=$hcs -v l=$hlts -v csv="$csv" 'BEGIN {
    printf "%-10s %10d %8d %10d %8d %10.1f %10.0f %12.5f\n", p, m, e, h, l, m / e, 16 * m / e, h / m
    printf "%s,%d,%d,%d,%d,%.2f,%.0f,%.6f\n", p, m, e, h, l, m / e, 16 * m / e, h / m >> csv }'
done
