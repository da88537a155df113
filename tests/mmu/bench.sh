#!/usr/bin/env bash
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
  eval "res_$1=$((ir / ops))"
}
run fill fill 0 "shadow fault fill, 4-level guest"
run cr3 cr3 0 "cached CR3 switch"
run write write 0 "emulated PT write (zap one entry)"
run zap zap 0 "zap (misaligned write, 64 leaves)"
run sw switch 0 "switch+16 touches, cached (+soft CPU)"
run swn switch 1 "switch+16 touches, nocache (+soft CPU)"
run audit audit 0 "full audit, 574 pages, 36k leaves"
run auditi auditi 0 "incremental audit after PT write+fault"
if [ "$res_fill" -le 3000 ]; then echo "bench-mmu: fault fill goal <= 3000: met"; else echo "bench-mmu: fault fill goal <= 3000: NOT met"; fi
