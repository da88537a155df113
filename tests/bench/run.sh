#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs the benchmark guest in every mode, prints the table, writes results.csv and ctxswitch.png.
# run.sh full|smoke OUTDIR. smoke: tiny sizes, asserts only deterministic relations (no times).
set -u
size=$1 out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
img=build/bench/bench64.elf
# The bench guest is a multiboot v1 kernel and would start on the BIOS's leftovers (vmm/load/bios.c):
# their 18.2 Hz IRQ0, never taken by a guest that keeps interrupts off, would stay pending and
# make every exit do the full interrupt look. The bench measures Umbra's exit path as before.
guest="name=bench mem=64 bios=off"
so=build/bench/exitcount.so
mkdir -p "$out"
csv="$out/results.csv"
echo "mode,workload,params,metric,value" > "$csv"
harness=tests/harness/run-case.sh

# mode -> BENCH lines on stdout
run_mode() {
  local mode=$1 log
  case $mode in
    native)
      log="$out/native.txt"
      timeout 300 qemu-system-x86_64 -accel tcg -machine q35 -cpu max -m 64M -kernel "$img" \
        -append "sizes=$size" -display none -serial "file:$log" -monitor none -no-reboot \
        -device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null >/dev/null 2>&1
      tr -d '\r' < "$log" | grep -a '^BENCH' ;;
    cached|nocache|tdp)
      local cl="" plugin=() accel=${UMBRA_ACCEL:-}; [ $mode != cached ] && cl="mmu=$mode"
      # The cached run carries the instruction-counting plugin (TCG only: under KVM no
      # instruction passes through QEMU).
      if [ $mode = cached ]; then
        plugin=(--qemu-arg -plugin --qemu-arg "$(tests/bench/plugin-args.sh "$so" build/umbra.elf \
          "$out/cached.trace")${BENCH_PROFILE:+,profile=$BENCH_PROFILE}")
        accel=tcg
      fi
      UMBRA_ACCEL=$accel "$harness" --cpu max --smp 1 --cmdline "$cl" --timeout 300 "${plugin[@]}" \
        --module "$img $guest -- sizes=$size" "bench-$size-$mode" > "$out/$mode.run" 2>&1 \
        || { echo "bench: the $mode run failed:" >&2; cat "$out/$mode.run" >&2; }
      tr -d '\r' < "build/harness/bench-$size-$mode/serial.txt" | grep -a '^\[bench\] BENCH' |
        sed 's/^\[bench\] //' | tee "$out/$mode.bench" ;;
    vmx-cached|vmx-nocache)
      # Bochs' Haswell: Umbra's VMX backend, exits exact; its TSC counts instructions.
      local cl=""; [ $mode = vmx-nocache ] && cl="mmu=nocache"
      "$harness" --emu bochs --cpu corei7_haswell_4770 --smp 1 --cmdline "$cl" --timeout 900 \
        --module "$img $guest -- sizes=$size" "bench-$size-$mode" > "$out/$mode.run" 2>&1 \
        || { echo "bench: the $mode run failed:" >&2; cat "$out/$mode.run" >&2; }
      tr -d '\r' < "build/harness/bench-$size-$mode/serial.txt" | grep -a '^\[bench\] BENCH' |
        sed 's/^\[bench\] //' ;;
  esac
}

modes="cached nocache tdp native vmx-cached vmx-nocache"
for m in $modes; do
  run_mode $m | grep -E '^BENCH(_SNAPS)? ' | while read -r tag rest; do
    if [ "$tag" = BENCH_SNAPS ]; then # the line after its workload's
      v=$(sed -nE 's/.*then_cr3_cycles_per_op=([0-9]+).*/\1/p' <<<"$rest")
      [ -n "$v" ] && echo "$m,$wl,$params,then_cr3_cycles_per_op,$v"
      continue
    fi
    wl=$(sed -E 's/.*workload=([^ ]+).*/\1/' <<<"$rest")
    params=$(sed -E 's/workload=[^ ]+ //; s/ ops=.*//' <<<"$rest")
    for metric in cycles_per_op exits_per_op_x1000 faults_per_op_x1000; do
      v=$(sed -E "s/.*$metric=([0-9]+).*/\1/" <<<"$rest")
      echo "$m,$wl,$params,$metric,$v"
    done
  done >> "$csv"
done

get() { # mode workload params metric
  awk -F, -v m="$1" -v w="$2" -v p="$3" -v k="$4" '$1==m && $2==w && $3==p && $4==k {print $5}' "$csv"
}
ratio() { # a b -> a/b with two decimals, or n/a
  if [[ $1 =~ ^[0-9.]+$ ]] && [[ $2 =~ ^[0-9.]+$ ]] && [ "$2" != 0 ] && [ "$2" != 0.000 ]; then awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; else echo "n/a"; fi
}
milli() { [ -n "$1" ] && awk -v a="$1" 'BEGIN{printf "%.3f", a/1000}' || echo "n/a"; }

printf '\n%-10s %-22s %-8s %12s %10s %10s %10s\n' workload params mode cycles/op exits/op "x native" "x cached"
rows=$(awk -F, 'NR>1 {print $2","$3}' "$csv" | awk '!seen[$0]++')
while IFS=, read -r wl params; do
  for m in $modes; do
    c=$(get $m "$wl" "$params" cycles_per_op)
    e=$(get $m "$wl" "$params" exits_per_op_x1000)
    [ -z "$c" ] && continue
    printf '%-10s %-22s %-8s %12s %10s %10s %10s\n' "$wl" "$params" $m "$c" "$(milli "$e")" \
      "$(ratio "$c" "$(get native "$wl" "$params" cycles_per_op)")" \
      "$(ratio "$c" "$(get cached "$wl" "$params" cycles_per_op)")"
  done
done <<<"$rows"
echo "(tdp: nested paging, NPT under QEMU -cpu max; cycles are guest TSC cycles under QEMU TCG;"
echo " vmx-*: Umbra's VMX backend under Bochs' Haswell, whose TSC counts instructions)"

# Umbra's instructions, from the plugin's trace of the cached run (rows join results.csv).
insns=$(tests/bench/insns.py "$out/cached.trace" "$out/cached.bench" "$csv" build/umbra.elf) ||
  echo "bench: no instruction counts (tests/bench/insns.py failed)" >&2
grep -v '^INSNS ' <<<"$insns"
insn_of() { sed -nE "s/^INSNS .*$1=(-?[0-9]+).*/\1/p" <<<"$insns"; }

# Targets: marks, not assertions (smoke mode asserts the deterministic relations instead).
mark() { if [ "$1" = 1 ]; then echo "[met]"; else echo "[missed]"; fi; }
num() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; }
cmp_le() { num "$1" && awk -v a="$1" -v b="$2" 'BEGIN{print (a+0 <= b+0) ? 1 : 0}' || echo 0; }
cmp_ge() { num "$1" && awk -v a="$1" -v b="$2" 'BEGIN{print (a+0 >= b+0) ? 1 : 0}' || echo 0; }
ce=$(milli "$(get cached ctxswitch "P=8 W=64" exits_per_op_x1000)")
ne=$(milli "$(get nocache ctxswitch "P=8 W=64" exits_per_op_x1000)")
cc=$(get cached ctxswitch "P=8 W=64" cycles_per_op); nc=$(get nocache ctxswitch "P=8 W=64" cycles_per_op)
tc=$(get tdp ctxswitch "P=8 W=64" cycles_per_op)
fs=$(milli "$(get cached forkflood "entries=512 via=store" exits_per_op_x1000)")
fp=$(milli "$(get cached forkflood "entries=512 via=pv" exits_per_op_x1000)")
echo
echo "targets:"
echo "  cached exits per switch (P=8 W=64) $ce <= 1.05 $(mark "$(cmp_le "$ce" 1.05)")"
echo "  nocache/cached exits $(ratio "$ne" "$ce")x >= 50x $(mark "$(cmp_ge "$(ratio "$ne" "$ce")" 50)")"
echo "  nocache/cached cycles $(ratio "$nc" "$cc")x >= 10x $(mark "$(cmp_ge "$(ratio "$nc" "$cc")" 10)")"
echo "  cached/tdp cycles per switch (P=8 W=64) $(ratio "$cc" "$tc")x <= 1.5x $(mark "$(cmp_le "$(ratio "$cc" "$tc")" 1.5)")"
echo "  forkflood exits per rewrite: stores $fs <= 1.5 $(mark "$(cmp_le "$fs" 1.5)"), pv batch $fp <= 1 $(mark "$(cmp_le "$fp" 1)")"
pi=$(get cached forkflood "entries=512 via=pv" umbra_insns_per_op); si=$(get cached forkflood "entries=512 via=store" umbra_insns_per_op)
pv_vc=$(get vmx-cached forkflood "entries=512 via=pv" cycles_per_op); st_vc=$(get vmx-cached forkflood "entries=512 via=store" cycles_per_op)
echo "  PV batch of 512: $pi Umbra instructions < the stores' $si $(mark "$(cmp_le "$pi" "$((${si:-0} - 1))")"), aim 30000 $(mark "$(cmp_le "$pi" 30000)"); Bochs VMX cycles $pv_vc < the stores' $st_vc $(mark "$(cmp_le "$pv_vc" "$((${st_vc:-0} - 1))")")"
# The stores leave their table out of sync and the CR3 load after the rewrite does their shadow
# work; the batch does its own inside its exit: counted with that load, both do the same work.
pt=$(get cached forkflood "entries=512 via=pv" umbra_insns_then_cr3_per_op); st=$(get cached forkflood "entries=512 via=store" umbra_insns_then_cr3_per_op)
pv_vt=$(get vmx-cached forkflood "entries=512 via=pv" then_cr3_cycles_per_op); st_vt=$(get vmx-cached forkflood "entries=512 via=store" then_cr3_cycles_per_op)
echo "  the same with the CR3 load that follows: $pt Umbra instructions < the stores' $st $(mark "$(cmp_le "$pt" "$((${st:-0} - 1))")"); Bochs VMX cycles $pv_vt < the stores' $st_vt $(mark "$(cmp_le "$pv_vt" "$((${st_vt:-0} - 1))")")"
pc=$(get cached cr3load via=pv umbra_insns_per_op); mc=$(get cached cr3load via=mov umbra_insns_per_op)
pf=$(get cached flush via=pv umbra_insns_per_op); mf=$(get cached flush via=mov umbra_insns_per_op)
echo "  PV new-CR3 call: $pc Umbra instructions <= a MOV CR3's $mc $(mark "$(cmp_le "$pc" "$mc")"); PV flush: $pf <= a CR3 reload's $mf $(mark "$(cmp_le "$pf" "$mf")")"
cs=$(insn_of cr3_switch)
echo "  cached CR3 switch: $cs Umbra instructions from #VMEXIT to VMRUN <= 1000 $(mark "$(cmp_le "$cs" 1000)")"
echo "  shadow fill exit (median, whole exit path): $(insn_of fill_median) Umbra instructions (emulated PT writes: none here, out-of-sync tables take them; see bench-linux)"

if [ "$size" = full ]; then
  if command -v gnuplot >/dev/null; then
    dat="$out/ctxswitch.dat"
    { echo "# W cached nocache native tdp"
      for w in 16 64 256; do
        echo "$w $(get cached ctxswitch "P=8 W=$w" cycles_per_op) $(get nocache ctxswitch "P=8 W=$w" cycles_per_op) $(get native ctxswitch "P=8 W=$w" cycles_per_op) $(get tdp ctxswitch "P=8 W=$w" cycles_per_op)"
      done; } > "$dat"
    gnuplot <<GP
set terminal png size 800,500
set output "$out/ctxswitch.png"
set title "Guest cycles per context switch (P=8 address spaces, QEMU TCG)"
set xlabel "pages touched per switch (W)"
set ylabel "guest TSC cycles per switch"
set logscale xy
set key top left
set xtics (16, 64, 256)
plot "$dat" using 1:2 with linespoints title "Umbra shadow (cached)", \
     "$dat" using 1:3 with linespoints title "Umbra nocache", \
     "$dat" using 1:4 with linespoints title "native", \
     "$dat" using 1:5 with linespoints title "Umbra nested paging (tdp)"
GP
    chart=" and $out/ctxswitch.png"
  else
    chart=" (gnuplot missing: no chart)"
  fi
  # make bench runs bench-linux first (tests/linux/bench.sh): its rows join, as linux-*.
  [ -f "$out/linux.csv" ] &&
    tail -n +2 "$out/linux.csv" | awk -F, -v OFS=, '{ $2 = "linux-" $2; print }' >> "$csv"
  echo "wrote $csv$chart"
  exit 0
fi

# Smoke: deterministic relations only, and upper bounds on Umbra's instructions per exit, as
# medians over the exits of each workload's window (the plugin counts each exit exactly, but a
# window's mean takes in the few exits that do time-driven work, whose number follows the host's
# load: the CR3 switch's mean read 1003 or 1044 on one build). The bounds sit a little above the
# counts measured when they were set (docs/bench.md): a change that makes an exit dearer
# fails here.
LIMIT_CR3=1080 LIMIT_FILL=2150 LIMIT_NULL=820 LIMIT_FORK=6200 LIMIT_PV_BATCH=30000
LIMIT_PV_CR3=1320 LIMIT_PV_FLUSH=1080
p=0 f=0
check() { if [ "$1" = 1 ]; then p=$((p+1)); echo "PASS $2"; else f=$((f+1)); echo "FAIL $2"; fi; }
cf=$(get cached ctxswitch "P=8 W=16" faults_per_op_x1000)
check "$([ "$cf" = 0 ] && echo 1)" "bench-smoke: cached switches after warm-up take 0 shadow faults (got $cf/1000)"
cx=$(get cached ctxswitch "P=8 W=16" exits_per_op_x1000); nx=$(get nocache ctxswitch "P=8 W=16" exits_per_op_x1000)
check "$([ -n "$cx" ] && [ -n "$nx" ] && [ "$nx" -gt "$cx" ] && echo 1)" "bench-smoke: nocache exits per switch ($nx/1000) > cached ($cx/1000)"
fx=$(get cached forkflood "entries=512 via=store" exits_per_op_x1000)
check "$([ -n "$fx" ] && [ "$fx" -le 1500 ] && echo 1)" "bench-smoke: cached 512-store PT rewrite <= 1.5 exits (out-of-sync leaf table; got $fx/1000)"
tx=$(get tdp ctxswitch "P=8 W=16" exits_per_op_x1000)
check "$([ "$tx" = 0 ] && echo 1)" "bench-smoke: tdp switches take 0 exits: a CR3 load does not exit with nested paging (got $tx/1000)"
check "$([ -n "$(get native touch pages=fresh cycles_per_op)" ] && echo 1)" "bench-smoke: the native run reported"
# VMX (Bochs): the same exact relations through the other backend.
vf=$(get vmx-cached ctxswitch "P=8 W=16" faults_per_op_x1000); vx=$(get vmx-cached ctxswitch "P=8 W=16" exits_per_op_x1000)
check "$([ "$vf" = 0 ] && [ "$vx" = 1000 ] && echo 1)" "bench-smoke: vmx cached switch: 1 exit, 0 shadow faults (got $vx/1000, $vf/1000)"
vs=$(get vmx-cached forkflood "entries=512 via=store" exits_per_op_x1000); vp=$(get vmx-cached forkflood "entries=512 via=pv" exits_per_op_x1000)
check "$([ -n "$vs" ] && [ "$vs" -le 1500 ] && [ "$vp" = 1000 ] && echo 1)" "bench-smoke: vmx 512-entry rewrite <= 1.5 exits plain, 1 with the PV batch (got $vs/1000, $vp/1000)"
vn=$(get vmx-nocache ctxswitch "P=8 W=16" exits_per_op_x1000)
check "$([ -n "$vn" ] && [ "$vn" -gt "${vx:-0}" ] && echo 1)" "bench-smoke: vmx nocache exits per switch ($vn/1000) > cached ($vx/1000)"
# The plugin: it sees the exits Umbra counts, and Umbra's instructions stay under their bounds.
pe=$(get cached ctxswitch "P=8 W=16" plugin_exits_per_op_x1000)
check "$([ -n "$pe" ] && [ "$pe" = "$cx" ] && echo 1)" "bench-smoke: the plugin counts the exits Umbra counts (ctxswitch: $pe/1000 vs $cx/1000)"
pt=$(get cached touch pages=fresh plugin_exits_per_op_x1000); ut=$(get cached touch pages=fresh exits_per_op_x1000)
check "$([ -n "$pt" ] && [ "$pt" = "$ut" ] && echo 1)" "bench-smoke: the plugin counts the exits Umbra counts (touch: $pt/1000 vs $ut/1000)"
bound() { # value limit what
  check "$([ -n "$1" ] && [ "$1" -ge 0 ] && [ "$1" -le "$2" ] && echo 1)" "bench-smoke: $3: $1 Umbra instructions <= $2"
}
bound "$(insn_of cr3_switch)" $LIMIT_CR3 "cached CR3 switch, #VMEXIT to VMRUN (median)"
bound "$(insn_of fill_median)" $LIMIT_FILL "shadow fill exit (median)"
bound "$(insn_of null_median)" $LIMIT_NULL "null hypercall exit (median)"
bound "$(get cached forkflood "entries=512 via=store" umbra_insns_per_op)" $LIMIT_FORK "512-store PT rewrite"
bound "$(get cached forkflood "entries=512 via=pv" umbra_insns_per_op)" $LIMIT_PV_BATCH "512-entry PV MMU_UPDATE batch"
bound "$(get cached cr3load via=pv umbra_insns_per_op)" $LIMIT_PV_CR3 "one-op MMU_OP NEW_CR3 call"
bound "$(get cached flush via=pv umbra_insns_per_op)" $LIMIT_PV_FLUSH "one-op MMU_OP FLUSH_ALL call"
echo "bench: $p passed, $f failed"
[ $f = 0 ]
