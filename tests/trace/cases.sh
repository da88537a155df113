#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-trace: exit traces (trace=NAME, the monitor's trace): a guest's trace holds exactly the
# exits its report counts, none of its neighbour's, and converts to JSON with one event per exit.
set -u
. "$(dirname "$0")/../harness/suite-lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
G=${GUEST_DIR:-build/guests}
out=$root/build/trace

# check NAME OK WHY: a verdict of this script, counted like a case.
check() {
  [ "$2" = 1 ] && echo "PASS $1" || echo "FAIL $1: $3"
  case_count "$1" $((1 - $2))
}

# traced EMU-NAME RUN-CASE-OPTIONS...: healthy traced from its first exit, ctxswitch64 beside it
# on the same CPU untraced; when healthy ends the trace is dumped, and once more by the monitor.
traced() {
  local name=$1-trace; shift
  case_run "$name" "$@" --smp 1 --cmdline "trace=healthy monitor=healthy:trace,healthy,dump" \
    --module "$G/healthy.elf name=healthy" --module "$G/ctxswitch64.elf name=other" \
    --expect guests_passed=2 --expect-log "trace: healthy's exits are recorded"
  local log=$root/build/harness/$name/serial.txt exits frames conv events
  exits=$(sed -nE 's/^guest healthy: ended=.* exits=([0-9]+).*/\1/p' "$log" | tr -d '\r')
  frames=$(sed -nE 's/^trace: end guest=healthy records=([0-9]+).*/\1/p' "$log" | tr -d '\r' | xargs)
  check "$name-records" "$([ -n "$exits" ] && [ "$frames" = "$exits $exits" ] && echo 1 || echo 0)" \
    "the two dumps hold '$frames' records, the report counts ${exits:-no} exits"
  check "$name-only-its-own" "$(grep -a '^trace: begin guest=other' "$log" >/dev/null && echo 0 || echo 1)" \
    "the untraced guest has a trace"
  conv=$(tests/trace/convert.py "$log" "$out/$name" 2>&1)
  events=$(python3 -c 'import json,sys; print(sum(e["ph"] == "X" for e in json.load(open(sys.argv[1]))["traceEvents"]))' \
    "$out/$name/healthy.json" 2>/dev/null)
  check "$name-json" "$([ -n "$exits" ] && [ "$events" = "$exits" ] && echo 1 || echo 0)" \
    "the JSON has ${events:-no} exit events for ${exits:-no} exits ($conv)"
}

traced qemu --cpu max
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
