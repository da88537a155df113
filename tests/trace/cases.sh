#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-trace: exit traces (trace=NAME, the monitor's trace): a guest's trace holds exactly the
# exits its report counts, none of its neighbour's, and converts to JSON with one event per exit.
set -u
. "$(dirname "$0")/../harness/suite-lib.sh"
. "$(dirname "$0")/plugin.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
G=${GUEST_DIR:-build/guests}
out=$root/build/trace

# check NAME OK WHY: a verdict of this script, counted like a case.
check() {
  [ "$2" = 1 ] && echo "PASS $1" || echo "FAIL $1: $3"
  case_count "$1" $((1 - $2))
}

# traced EMU-NAME [--plugin] RUN-CASE-OPTIONS...: healthy traced from its first exit, ctxswitch64
# beside it on the same CPU untraced; when healthy ends the trace is dumped, and once more by the
# monitor. --plugin: QEMU TCG under the instruction-counting plugin, the costs joined to its count.
traced() {
  local name=$1-trace plugin=; shift
  [ "${1:-}" = --plugin ] && { plugin=$out/$name.plugin; shift; }
  PLUGIN_OPTS=()
  [ -z "$plugin" ] || trace_plugin "$plugin" || { check "$name" 0 "no plugin arguments"; return; }
  case_run "$name" "$@" "${PLUGIN_OPTS[@]}" --smp 1 --cmdline "trace=healthy monitor=healthy:trace,healthy,dump" \
    --module "$G/healthy.elf name=healthy" --module "$G/ctxswitch64.elf name=other" \
    --expect guests_passed=2 --expect-log "trace: healthy's exits are recorded"
  local log=$root/build/harness/$name/serial.txt exits frames conv events
  exits=$(sed -nE 's/^guest healthy: ended=.* exits=([0-9]+).*/\1/p' "$log" | tr -d '\r')
  frames=$(sed -nE 's/^trace: end guest=healthy records=([0-9]+).*/\1/p' "$log" | tr -d '\r' | xargs)
  check "$name-records" "$([ -n "$exits" ] && [ "$frames" = "$exits $exits" ] && echo 1 || echo 0)" \
    "the two dumps hold '$frames' records, the report counts ${exits:-no} exits"
  check "$name-only-its-own" "$(grep -a '^trace: begin guest=other' "$log" >/dev/null && echo 0 || echo 1)" \
    "the untraced guest has a trace"
  conv=$(tests/trace/convert.py ${plugin:+--plugin "$plugin"} "$log" "$out/$name" 2>&1)
  events=$(python3 -c 'import json,sys; print(sum(e["ph"] == "X" for e in json.load(open(sys.argv[1]))["traceEvents"]))' \
    "$out/$name/healthy.json" 2>/dev/null)
  check "$name-json" "$([ -n "$exits" ] && [ "$events" = "$exits" ] && echo 1 || echo 0)" \
    "the JSON has ${events:-no} exit events for ${exits:-no} exits ($conv)"
  [ -n "$plugin" ] && plugin_join "$name" "$log" "$plugin" "$exits"
}

# plugin_join NAME LOG PLUGIN-OUT EXITS: every exit got the plugin's count (one per record, none
# missing), and their sum is the plugin's own sum over the records of the window (CPU 0's ring:
# healthy's alone, traced from boot, nothing overwritten); a plugin file of another run, here
# this one cut short, with a record's line dropped or an exit of another kind, makes the converter
# fail and say why.
plugin_join() {
  local name=$1 log=$2 plugin=$3 exits=$4 got want bad
  got=$(python3 -c 'import json,sys
e = [x for x in json.load(open(sys.argv[1]))["traceEvents"] if x["ph"] == "X"]
ok = all(x["args"]["cost_unit"] == "instructions" and x["args"]["cost"] > 0 for x in e)
print(len(e), sum(x["args"]["cost"] for x in e) if ok else "unjoined")' "$out/$name/healthy.json" 2>&1)
  want=$(awk '$1 == "R" && $2 == 0 { n++; s += $5 } END { print n + 0, s + 0 }' "$plugin")
  check "$name-insns" "$([ -n "$exits" ] && [ "$got" = "$exits ${want#* }" ] && [ "${want% *}" = "$exits" ] && echo 1 || echo 0)"     "JSON: '$got' (exits, instructions), the plugin's records: '$want', the report: ${exits:-no} exits"
  head -n "$(($(grep -n '^R ' "$plugin" | tail -1 | cut -d: -f1) - 1))" "$plugin" > "$plugin.short"
  bad=$(tests/trace/convert.py --plugin "$plugin.short" "$log" "$out/$name-bad" 2>&1)
  check "$name-plugin-short" "$(grep -q "CPU 0's ring wrote $exits records, .* has $((exits - 1)): not this run's file" <<<"$bad" && echo 1 || echo 0)"     "the converter took a plugin file one record short: $bad"
  awk '$1 == "R" && $3 == 1 { next } 1' "$plugin" > "$plugin.gap"
  bad=$(tests/trace/convert.py --plugin "$plugin.gap" "$log" "$out/$name-bad" 2>&1)
  check "$name-plugin-gap" "$(grep -q "CPU 0's record 2 follows 1 records: not one run's file" <<<"$bad" && echo 1 || echo 0)"     "the converter took a plugin file with a record's line dropped: $bad"
  awk '$1 == "R" && $4 == "io" && !done { $4 = "cpuid"; done = 1 } 1' "$plugin" > "$plugin.kind"
  bad=$(tests/trace/convert.py --plugin "$plugin.kind" "$log" "$out/$name-bad" 2>&1)
  check "$name-plugin-kind" "$(grep -q "is a io exit, .* counts a cpuid one: not this run's file" <<<"$bad" && echo 1 || echo 0)" \
    "the converter took a plugin file whose exit kind contradicts the trace's reason: $bad"
}

traced qemu --cpu max
UMBRA_ACCEL=tcg traced qemu-plugin --plugin --cpu max
traced bochs-vmx --emu bochs --cpu corei7_haswell_4770 --timeout 120

# Bad input: a trace= naming no guest is said and changes nothing; the monitor refuses a word
# other than on, off or dump.
case_run trace-bad --cpu max --smp 1 --cmdline "trace=nosuch monitor=healthy:trace,healthy,bogus" \
  --module "$G/healthy.elf name=healthy" --expect guests_passed=1 \
  --expect-log "trace: no guest named 'nosuch' to trace" \
  --expect-log "monitor: trace healthy: 'bogus' is not on, off or dump"

# The monitor's top (kvm_stat's view): when healthy ends the monitor starts it; its first frame
# gives each guest's exits per second by reason.
case_run monitor-top --cpu max --smp 1 --cmdline "monitor=healthy:top" \
  --module "$G/healthy.elf name=healthy" --expect guests_passed=1 \
  --expect-log "monitor: top: exits per second over [0-9]+ ms" \
  --expect-log "monitor: top healthy result total=[1-9][0-9]* .*io=[1-9]"

suite_end trace
