#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-gdb: Debian's gdb (batch mode) against the gdbtarget kernel through Umbra's gdb stub on
# COM2, a TCP socket on 127.0.0.1: on QEMU (SVM) and on Bochs (VMX), each first the raw-protocol
# bad-input script, then a gdb session. The last line is "gdb: N passed, M failed".
#
# run.sh MB1_OUTDIR   (GDB_BOCHS=0 skips the Bochs case)
#
# QEMU's TCG does not honour a guest's DR7 under SVM (tests/attack/README.md, nobp): there the
# session's watchpoint is gdb's software one (single steps); Bochs runs it in a debug register.
# Bochs' socket-server COM2 takes one client, once, and waits for it before booting:
# tests/gdb/relay.py holds that connection for the script and gdb in turn.
set -u
out=${1:?usage: run.sh MB1_OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
elf=$out/gdbtarget.elf
logs=$root/build/gdb
mkdir -p "$logs"
pass=0 fail=0

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

check() { # name, command... (the result counts)
  local name=$1; shift
  if "$@"; then echo "PASS gdb-$name"; pass=$((pass + 1)); else echo "FAIL gdb-$name"; fail=$((fail + 1)); fi
}

one_case() { # emu (qemu|bochs)
  local emu=$1 tag=svm cpu=max port relay="" gdb_port session=$logs/session-$1.txt
  [ "$emu" = bochs ] && tag=vmx cpu=${GDB_BOCHS_CPU:-corei7_haswell_4770}
  local name=gdb-$tag serial=$root/build/harness/gdb-$tag/serial.txt
  port=$(free_port)
  gdb_port=$port
  rm -f "$serial"
  "$root/tests/harness/run-case.sh" --emu "$emu" --cpu "$cpu" --timeout 400 \
    --serial2 "tcp:127.0.0.1:$port,server,nowait" \
    --cmdline "gdb=target gdbwait audit=1" --module "$elf name=target" \
    --expect guests_passed=1 --expect-log "umbra: gdb stub for target on COM2" \
    --expect-log "umbra: gdb detached from target" "$name" >"$logs/harness-$tag.txt" 2>&1 &
  local harness=$!
  if [ "$emu" = bochs ]; then
    gdb_port=$(free_port)
    python3 "$here/relay.py" "$port" "$gdb_port" &
    relay=$!
  fi
  for _ in $(seq 300); do
    [ -f "$serial" ] && tr -d '\r' < "$serial" | grep -q "gdb stub for target" && break
    sleep 1
  done

  protocol() { timeout 300 python3 "$here/protocol.py" "$gdb_port" >"$logs/protocol-$tag.txt" 2>&1; }
  check "$tag-protocol" protocol
  grep -q "PROTOCOL OK" "$logs/protocol-$tag.txt" || tail -5 "$logs/protocol-$tag.txt"

  local ex=() line
  while IFS= read -r line; do
    [[ -z $line || $line == \#* ]] && continue
    case $line in
      qemu:*|bochs:*) [ "${line%%:*}" = "$emu" ] || continue; line=${line#*:};;
    esac
    ex+=(-ex "$line")
  done < "$here/session.gdb"
  timeout 300 gdb -batch -nx -ex "set remotetimeout 30" -ex "target remote 127.0.0.1:$gdb_port" \
    "${ex[@]}" "$elf" \
    >"$session" 2>&1
  # A step's output: from its CHECK line to the next one.
  step() { sed -n "/^CHECK $1\$/,/^CHECK /p" "$session"; }
  has() { step "$1" | grep -qE -- "$2" || { echo "  step $1 lacks /$2/"; return 1; }; }
  check "$tag-connect" has connect 'eip +0x[0-9a-f]+ +0x[0-9a-f]+ <'
  check "$tag-break" has connect 'Breakpoint 1, step_inner \(a=a@entry=[1-8]\)'
  check "$tag-backtrace" has backtrace '#1 .* in step_outer \(a=a@entry=[0-7]\)'
  check "$tag-backtrace-main" has backtrace '#2 .* in test_main \(\)'
  check "$tag-variable" has counter '^\$1 = [0-9]+$'
  check "$tag-stepi" has stepi 'eip +0x[0-9a-f]+ +0x[0-9a-f]+ <step_inner\+4>'
  # Guest memory at 0x10: INT 4's entry in the IVT of the BIOS a multiboot v1 kernel starts on
  # (vmm/load/bios.c: the IRET stub at F000:E000).
  check "$tag-memory" has memory '^\$2 = 0xf000e000$'
  check "$tag-unmapped" has memory 'Cannot access memory at address 0xfffff000'
  check "$tag-control-regs" has memory '^\$3 = (0x)?[0-9a-f]+$'
  if [ "$emu" = bochs ]; then
    check "$tag-watch" has watch '^Hardware watchpoint 2: counter$'
  else
    check "$tag-watch" has watch '^Watchpoint 2: counter$'
  fi
  check "$tag-watch-hit" has watch 'Old value = [0-9]+'
  check "$tag-watch-new" has watch 'New value = [0-9]+'
  check "$tag-watch-again" has watch2 'Old value = [0-9]+'
  [ "$emu" = bochs ] && check "$tag-hbreak" has hbreak 'Breakpoint 3, step_outer'
  check "$tag-set-var" has "set answer" '^\$[0-9]+ = 42$'
  check "$tag-detach" has detach 'Inferior 1 \(Remote target\) detached'

  wait "$harness"
  [ -n "$relay" ] && { kill "$relay"; wait "$relay"; } 2>/dev/null
  check "$tag-guest-ends" grep -q "^PASS $name" "$logs/harness-$tag.txt"
  check "$tag-monitor" grep -aq "monitor: guest target state=held-by-gdb" "$serial"
  # The step uses the monitor trap flag where Umbra found one (VMX, cpu0's "mtf=yes"), else
  # RFLAGS.TF (SVM; Bochs' models here offer no MTF, so hardware is the only place to see it).
  local how="RFLAGS.TF"
  grep -q "^cpu0: .* mtf=yes" "$serial" && how="the monitor trap flag"
  check "$tag-step-by" grep -q "umbra: gdb steps target with $how" "$serial"
  grep -q "^PASS $name" "$logs/harness-$tag.txt" || { cat "$logs/harness-$tag.txt"; cat "$session"; }
}

# x86-64: a 64-bit kernel, which boots in 32-bit mode, described as x86-64 from the start
# (gdbarch=x86-64); the 64-bit registers and a backtrace through 64-bit frames.
case64() {
  local port name=gdb-svm64 serial=$root/build/harness/gdb-svm64/serial.txt s=$logs/session-64.txt
  port=$(free_port)
  rm -f "$serial"
  "$root/tests/harness/run-case.sh" --timeout 200 --serial2 "tcp:127.0.0.1:$port,server,nowait" \
    --cmdline "gdb=target gdbwait gdbarch=x86-64" --module "$out/gdbtarget64.elf name=target" \
    --expect guests_passed=1 "$name" >"$logs/harness-64.txt" 2>&1 &
  local harness=$!
  for _ in $(seq 120); do
    [ -f "$serial" ] && tr -d '\r' < "$serial" | grep -q "gdb stub for target" && break
    sleep 1
  done
  timeout 200 gdb -batch -nx -ex "set remotetimeout 30" -ex "target remote 127.0.0.1:$port" \
    -ex "echo CHECK arch\n" -ex "show architecture" -ex "info registers rip" \
    -ex "break step_inner" -ex "continue" -ex "echo CHECK bt\n" -ex "bt" \
    -ex "echo CHECK regs\n" -ex "print \$rsp" -ex "print/x \$cr4" -ex "set var answer = 42" \
    -ex "delete" -ex "echo CHECK detach\n" -ex "detach" "$out/gdbtarget64.elf64" >"$s" 2>&1
  step() { sed -n "/^CHECK $1\$/,/^CHECK /p" "$s"; }
  has() { step "$1" | grep -qE -- "$2" || { echo "  step $1 lacks /$2/"; return 1; }; }
  check svm64-arch has arch 'i386:x86-64'
  check svm64-rip has arch 'rip +0x100010 '
  check svm64-bt has bt '#1 +0x0000000000[0-9a-f]+ in step_outer'
  check svm64-rsp has regs '^\$1 = \(void \*\) 0x[0-9a-f]+'
  check svm64-cr4 has regs '^\$2 = 0x[0-9a-f]*2[0-9a-f]$'
  check svm64-detach has detach 'detached'
  wait "$harness"
  check svm64-guest-ends grep -q "^PASS $name" "$logs/harness-64.txt"
}

# The guest's own INT3 and INT n while the stub is attached (#BP and, on SVM, INTn
# intercepted): the exceptions kernels' checks (INT3, INT n through good and not-present
# gates, INT3 whose delivery faults on a fresh stack) must pass as without the stub.
own_traps() { # emu kernel
  local tag=svm cpu=max
  [ "$1" = bochs ] && tag=vmx cpu=corei7_haswell_4770
  "$root/tests/harness/run-case.sh" --emu "$1" --cpu "$cpu" --timeout 200 \
    --cmdline "gdb=$2 audit=1" --module "$out/$2.elf name=$2 mem=16" \
    --expect guests_passed=1 --expect-log "umbra: gdb stub for $2" "gdb-own-$tag-$2" \
    >"$logs/own-$tag-$2.txt" 2>&1 || { cat "$logs/own-$tag-$2.txt"; return 1; }
}
check own-traps-svm-32 own_traps qemu exceptions32
check own-traps-svm-64 own_traps qemu exceptions64
[ "${GDB_BOCHS:-1}" = 0 ] || check own-traps-vmx-32 own_traps bochs exceptions32

one_case qemu
case64
[ "${GDB_BOCHS:-1}" = 0 ] || one_case bochs
echo "gdb: $pass passed, $fail failed"
[ "$fail" = 0 ]
