#!/usr/bin/env bash
# check-gdb: Debian's gdb (batch mode) against the gdbtarget kernel through Umbra's gdb stub, on
# QEMU SVM with COM2 as a TCP server on 127.0.0.1; first the raw-protocol bad-input script.
# The last line is "gdb: N passed, M failed".
#
# run.sh MB1_OUTDIR
# Bochs (VMX) is not run: its serial ports offer a socket mode, but a Bochs run here is driven
# by its debugger on a pseudo-terminal and a second listener would have to be raced against
# the boot; see the README ("Debugging guests with gdb").
set -u
out=${1:?usage: run.sh MB1_OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
elf=$out/gdbtarget.elf
logs=$root/build/gdb
mkdir -p "$logs"
pass=0 fail=0

# A free port on the loopback address (the kernel picks it; a race with another user of the
# same port is unlikely and fails the case visibly).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
case_name=gdb-svm
"$root/tests/harness/run-case.sh" --timeout 200 --serial2 "tcp:127.0.0.1:$port,server,nowait" \
  --cmdline "gdb=target gdbwait audit=1" --module "$elf name=target" \
  --expect guests_passed=1 --expect-log "umbra: gdb stub for target on COM2" \
  --expect-log "umbra: gdb detached from target" "$case_name" >"$logs/harness.txt" 2>&1 &
harness=$!
serial=$root/build/harness/$case_name/serial.txt
for _ in $(seq 120); do
  tr -d '\r' < "$serial" 2>/dev/null | grep -q "gdb stub for target" && break
  sleep 1
done

check() { # name, command... (the result counts)
  local name=$1; shift
  if "$@"; then echo "PASS gdb-$name"; pass=$((pass + 1)); else echo "FAIL gdb-$name"; fail=$((fail + 1)); fi
}

check protocol timeout 120 python3 "$here/protocol.py" "$port" >"$logs/protocol.txt" 2>&1
grep -q "PROTOCOL OK" "$logs/protocol.txt" || cat "$logs/protocol.txt"

ex=()
while IFS= read -r line; do
  [[ -z $line || $line == \#* ]] && continue
  ex+=(-ex "$line")
done < "$here/session.gdb"
timeout 150 gdb -batch -nx -ex "target remote 127.0.0.1:$port" "${ex[@]}" "$elf" \
  >"$logs/session.txt" 2>&1
# The step's output: from its CHECK line to the next one.
step() { sed -n "/^CHECK $1\$/,/^CHECK /p" "$logs/session.txt"; }
has() { step "$1" | grep -qE -- "$2" || { echo "  step $1 lacks /$2/"; return 1; }; }
check connect has connect 'eip +0x[0-9a-f]+ +0x[0-9a-f]+ <'
check break has connect 'Breakpoint 1, step_inner \(a=a@entry=[1-8]\)'
check backtrace has backtrace '#1 .* in step_outer \(a=a@entry=[0-7]\)'
check backtrace-main has backtrace '#2 .* in test_main \(\)'
check variable has counter '^\$1 = [0-9]+$'
check stepi has stepi 'eip +0x1010c4 .*<step_inner\+4>'
check memory has memory '^\$2 = 0$'
check unmapped has memory 'Cannot access memory at address 0xfffff000'
check control-regs has memory '^\$3 = (0x)?[0-9a-f]+$'
check watch has watch '^Watchpoint 2: counter$'
check watch-hit has watch 'Old value = [0-9]+'
check watch-new has watch 'New value = [0-9]+'
check watch-again has watch2 'Old value = [0-9]+'
check set-var has "set answer" '^\$[0-9]+ = 42$'
check detach has detach 'Inferior 1 \(Remote target\) detached'

wait "$harness"
check guest-ends grep -q "^PASS $case_name" "$logs/harness.txt"
grep -q "^PASS $case_name" "$logs/harness.txt" || { cat "$logs/harness.txt"; cat "$logs/session.txt"; }
echo "gdb: $pass passed, $fail failed"
[ "$fail" = 0 ]
