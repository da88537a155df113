#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-monitor: a scripted monitor session on QEMU (SVM) through Umbra's serial input: Ctrl-A c,
# then every command on a running guest, each typed once the log shows the answer to the one
# before (run-case.sh --input-after), and the monitor= option at a guest's end.
# The last line is "monitor: N passed, M failed".
#
# run.sh MB1_OUTDIR
set -u
out=${1:?usage: run.sh MB1_OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$root/build/monitor
mkdir -p "$work"
pass=0 fail=0

check() { # name, regex that the log must contain
  if tr -d '\r' < "$log" | grep -qE -- "$2"; then
    echo "PASS monitor-$1"; pass=$((pass + 1))
  else
    echo "FAIL monitor-$1: log lacks /$2/"; fail=$((fail + 1))
  fi
}

# The session: "regex|typed text" (\x01 is Ctrl-A, \r Enter), each step once the log since the
# previous step matches its regex. "worker" is a 64-bit kernel (paging on) that loops until
# stopped; "idle" a second one that keeps running so the summary can be judged.
steps=(
  'gdbtarget: booted .*on Umbra|\x01c'
  'umbra: monitor \(help|help\r'
  'monitor: commands:|guests\r'
  'monitor: guest idle state=|mem\r'
  'monitor: memory: |regs worker\r'
  'monitor:   cr0=|walk worker 0x104000\r'
  'monitor:   shadow L1|shadow worker\r'
  'monitor:   shadowed=|audit worker\r'
  'monitor: audit worker|pause worker\r'
  'monitor: worker paused|guests\r'
  'monitor: guest idle state=|resume worker\r'
  'monitor: worker resumed|log worker\r'
  'monitor: log worker|nmi worker\r'
  'worker\] nmi 1 taken|focus idle\r'
  'console input goes to idle|bogus\r'
  'monitor: unknown command|regs nobody\r'
  'monitor: no guest called|nmi\r'
  'monitor: usage: nmi NAME|walk worker\r'
  'monitor: usage: walk NAME GVA|stop worker\r'
  'monitor: worker stopped|stop idle\r'
)
args=()
i=0
for s in "${steps[@]}"; do
  printf '%b' "${s#*|}" > "$work/step$i"
  args+=(--input-after "${s%%|*}" "$work/step$i")
  i=$((i + 1))
done
"$root/tests/harness/run-case.sh" --timeout 240 --cmdline "monitor=worker:regs,worker" \
  --module "$out/gdbtarget64.elf name=worker expect=stop -- loops=0" \
  --module "$out/gdbtarget64.elf name=idle expect=stop -- loops=0" \
  --expect guests_stopped=2 "${args[@]}" monitor-session >"$work/harness.txt" 2>&1
log=$root/build/harness/monitor-session/serial.txt
if grep -q "^PASS monitor-session" "$work/harness.txt"; then
  echo "PASS monitor-session"; pass=$((pass + 1))
else
  echo "FAIL monitor-session"; fail=$((fail + 1)); cat "$work/harness.txt"
fi
check open 'umbra: monitor \(help lists the commands'
check help 'monitor: commands: guests \| regs NAME'
check guests 'monitor: guest worker state=running cpu=[0-9]+ exits=[0-9]+ faults_fixed=[0-9]+'
# Two guests of 16 MiB each; the worker's shadow tables are in its pool.
check mem "monitor: memory: [0-9]+ MiB free of 25[0-9] MiB; guests' RAM 32 MiB \\(2 guests\\), shadow pools [1-9][0-9]* KiB, Umbra's own [1-9][0-9]* KiB"
check regs 'monitor: worker vcpu0 \(running\) rip=0x[0-9a-f]+'
check walk-guest 'monitor:   guest L4 \[ *0\] @0x[0-9a-f]+ = 0x[0-9a-f]+ P'
check walk-guest-leaf 'monitor:   guest L[12] \[ *[0-9]+\] @0x[0-9a-f]+ = 0x[0-9a-f]+ P'
check walk-translation 'monitor:   guest translation: gpa 0x104000'
check walk-shadow 'monitor:   shadow L1 \[ *260\] @0x[0-9a-f]+ = 0x[0-9a-f]+ P'
check shadow 'monitor: shadow worker: mode=shadow pages=[1-9][0-9]* pool=[0-9]+/[0-9]+ pages rmap_descs=[0-9]+'
check shadow-levels 'monitor:   by level \(shadowing\+direct\): L5 0\+0 L4 [1-9][0-9]*\+0 .* L1 [0-9]+\+[0-9]+; roots=[1-9][0-9]* parent_links=[1-9]'
check audit 'monitor: audit worker: 0 errors'
check paused 'monitor: guest worker state=paused'
check log 'monitor:   gdbtarget: booted'
check focus 'umbra: console input goes to idle'
check unknown "monitor: unknown command 'bogus'"
check no-guest "monitor: no guest called 'nobody'"
check usage 'monitor: usage: walk NAME GVA'
check stopped 'guest worker: ended=stopped status=0 \(stopped from the monitor\) expected-stop PASS'
check at-end 'monitor> regs worker'
echo "monitor: $pass passed, $fail failed"
[ "$fail" = 0 ]
