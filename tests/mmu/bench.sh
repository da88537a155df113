#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-mmu: runs each phase of the MMU benchmark under callgrind and prints instructions per op.
set -eu
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() { # name phase nocache label
  local out="$dir/$1.out" ops ir
  ops=$(valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$out" "$bin" "$2" "$3" 2>/dev/null |
        sed -n 's/^ops=//p')
  ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p;s/^summary: *\([0-9]*\).*/\1/p' "$out" | head -n 1)
  printf 'bench-mmu: %-34s %8d instructions/op (%s ops)\n' "$4" $((ir / ops)) "$ops"
  eval "res_$1=$((ir / ops)) ir_$1=$ir ops_$1=$ops"
}
run fill fill 0 "shadow fault fill, 4-level guest"
run fill1 fill 1 "shadow fault fill, one page (nocache)"
run fillall fillall 0 "fault on every page (7 of 8 prefetched)"
run cr3 cr3 0 "cached CR3 switch"
run write write 0 "emulated PT write (zap one entry)"
run zap zap 0 "zap (misaligned write, 64 leaves)"
run sw switch 0 "switch+16 touches, cached (+soft CPU)"
run swn switch 1 "switch+16 touches, nocache (+soft CPU)"
run audit audit 0 "full audit, 574 pages, 36k leaves"
run auditi auditi 0 "incremental audit after PT write+fault"
# A fault also maps up to 7 neighbours (mmu/fault.c): per page mapped is what a process pays.
fill_page=$((ir_fill / 4096))
printf 'bench-mmu: %-34s %8d instructions/page (4096 pages)\n' "shadow fill per page mapped" $fill_page
# The MMU's own instructions (mmu/ and lib/) apart from the harness' callbacks (guest memory,
# frame lookups: Umbra's vmm/ does those, and the exit plugin counts them in the whole exit).
mmu_own() { # callgrind output -> instructions in mmu/ and lib/ functions
  callgrind_annotate --auto=no --threshold=100 "$1" 2>/dev/null | awk '
    /file:function/ { on = 1; next }
    on && $1 ~ /^[0-9,]+$/ && match($0, /\)  +[^ ]+/) {
      v = $1; gsub(",", "", v); f = substr($0, RSTART, RLENGTH); sub(/^\) +/, "", f)
      split(f, a, ":"); sub("^\\./", "", a[1]); if (a[1] ~ /^(mmu|lib)\//) m += v
    }
    END { print m + 0 }'
}
own1=$(( $(mmu_own "$dir/fill1.out") / 4096 )) own8=$(( $(mmu_own "$dir/fill.out") / ${ops_fill:-1} ))
printf 'bench-mmu: %-34s %8d instructions/op (MMU code only)\n' "shadow fault fill, one page" $own1
printf 'bench-mmu: %-34s %8d instructions/op (MMU code only)\n' "shadow fault fill + prefetch" $own8
mark() { if [ "$1" -le "$2" ]; then echo met; else echo "NOT met"; fi; }
echo "bench-mmu: one-page fill, MMU code only, $own1 <= 1000: $(mark $own1 1000)"
echo "bench-mmu: fill per page mapped, $fill_page <= 1000: $(mark $fill_page 1000)"
echo "bench-mmu: a fault with its prefetch of up to 7 more pages, MMU code only: $own8 (all code: $res_fill)"
