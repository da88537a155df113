#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Boots one Umbra configuration in QEMU or Bochs and judges it from the exit status and summary.
#
# run-case.sh [options] NAME
#   --emu qemu|bochs      emulator (default qemu)
#   --cpu MODEL           qemu: max|qemu64|...; bochs: corei7_haswell_4770|ryzen|...
#                         (qemu under KVM: max becomes -cpu host; another model is a fact of
#                         TCG's emulation, so that case runs under TCG)
#   --firmware bios|uefi  qemu: SeaBIOS or OVMF (default: $FIRMWARE, else bios)
#   --smp N               CPUs (default 1)
#   --mem MB              the emulated machine's memory (default 256)
#   --elf PATH            Umbra image (default build/umbra.elf)
#   --cmdline "ARGS"      Umbra's command line
#   --module "FILE ARGS"  a guest module with its command line (repeatable)
#   --expect key=value    a key the summary line must carry (repeatable)
#   --expect-log REGEX    a line the serial log must contain (repeatable)
#   --expect-fail         the run must be judged failed (harness self-tests)
#   --timeout S           wall-clock limit (default 60)
#   --qemu-arg ARG        qemu: one more argument (repeatable), e.g. -plugin for make bench
#   --serial2 SPEC        the second serial port (COM2, the gdb stub's) as QEMU spells it, e.g.
#                         tcp:127.0.0.1:PORT,server,nowait; Bochs takes tcp:HOST:PORT only, as
#                         its socket-server mode, which waits for the client before it boots
#   --input FILE          qemu: bytes typed on Umbra's serial line (the serial port is stdio)
#   --input-after REGEX FILE  qemu: types FILE once the serial log, from where the previous
#                         step typed its bytes on (the start for the first), has a line matching
#                         REGEX (repeatable: a script of steps, in order; --input goes first)
#   --qmp-helper "CMD"    qemu: give QEMU a QMP socket and run CMD (words split, the socket's
#                         path appended) beside it; it must exit 0 once QEMU has gone, else the
#                         case fails (e.g. tests/harness/qmp-stopcont.py: stop/cont in a loop)
# Prints "PASS NAME" or "FAIL NAME: why" followed by the serial log; exits 0 or 1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/machine.sh"
serial2="" emu=qemu cpu="" firmware=${FIRMWARE:-bios} smp=1 mem=256 elf="$root/build/umbra.elf" cmdline="" timeout_s=60 expect_fail=0 input="" qmp_helper="" helper_rc=0 terminal="" driver_rc=0
modules=() qemu_extra=() expects=() expect_logs=() after_res=() after_files=()
while [ $# -gt 1 ]; do
  case $1 in
    --emu) emu=$2; shift 2;;
    --cpu) cpu=$2; shift 2;;
    --firmware) firmware=$2; shift 2;;
    --smp) smp=$2; shift 2;;
    --mem) mem=$2; shift 2;;
    --elf) elf=$2; shift 2;;
    --cmdline) cmdline=$2; shift 2;;
    --module) modules+=("$2"); shift 2;;
    --expect) expects+=("$2"); shift 2;;
    --expect-log) expect_logs+=("$2"); shift 2;;
    --expect-fail) expect_fail=1; shift;;
    --timeout) timeout_s=$2; shift 2;;
    --qemu-arg) qemu_extra+=("$2"); shift 2;;
    --serial2) serial2=$2; shift 2;;
    --input) input=$2; shift 2;;
    --qmp-helper) qmp_helper=$2; shift 2;;
    --terminal) terminal=$2; shift 2;;
    --input-after) after_res+=("$2") after_files+=("${3:?--input-after REGEX FILE}"); shift 3;;
    *) echo "run-case.sh: unknown option $1"; exit 2;;
  esac
done
name=$1
work="$root/build/harness/$name"
rm -rf "$work"; mkdir -p "$work"
log="$work/serial.txt"

{
  echo "set timeout=0"
  echo "set default=0"
  echo 'if [ "$grub_platform" = efi ]; then insmod all_video; fi'
  echo 'menuentry "umbra-test" {'
  echo "  multiboot2 /boot/umbra.elf $cmdline"
  files=()
  for m in "${modules[@]+"${modules[@]}"}"; do
    f=${m%% *}; args=""; [ "$f" != "$m" ] && args=${m#* }
    files+=("$f")
    echo "  module2 /boot/$(basename "$f") $args"
  done
  echo "  boot"
  echo "}"
} > "$work/grub.cfg"
"$root/boot/mkiso.sh" "$work/umbra.iso" "$work/grub.cfg" "$elf" "${files[@]+"${files[@]}"}" || {
  echo "FAIL $name: could not build the ISO"; exit 1; }

# feed_input (stdout: QEMU's stdin): types --input, then each --input-after step's file once the
# log since the previous step has a line matching its REGEX (polled every 0.2 s); then holds the
# line open like a terminal. Ends at the case's timeout, or when this script is gone.
feed_input() {
  local deadline=$(( $(date +%s) + timeout_s )) off=0 i
  [ -n "$input" ] && cat -- "$input"
  for i in "${!after_res[@]}"; do
    until tail -c +$((off + 1)) "$log" 2>/dev/null | tr -d '\r' | grep -aqE -- "${after_res[$i]}"; do
      [ "$(date +%s)" -lt "$deadline" ] && kill -0 $$ 2>/dev/null || return 0
      sleep 0.2
    done
    off=$(wc -c < "$log")
    cat -- "${after_files[$i]}" || return 1
  done
  while [ "$(date +%s)" -lt "$deadline" ] && kill -0 $$ 2>/dev/null; do sleep 1; done
}

# run_in_terminal (qemu[] set; returns QEMU's exit status): QEMU in a detached tmux session
# whose pane stays after it ends (the driver reads the last screen), the driver beside it.
# The driver's failure ends QEMU at once: the guest would otherwise wait for keys until the
# case's timeout. The whole pane, history included, is kept in screen.txt.
run_in_terminal() {
  local sock=$work/tmux.sock tmux status=exit-terminal driver
  tmux=(tmux -S "$sock" -f "$work/tmux.conf")
  printf 'set -g remain-on-exit on\nset -g history-limit 5000\n' > "$work/tmux.conf"
  # timeout --foreground: QEMU stays in the pane's foreground process group, so it may read
  # the terminal and set it raw.
  { printf 'timeout --foreground %q' "$timeout_s"; printf ' %q' "${qemu[@]}"
    printf ' 2>%q\necho $? > %q\n' "$work/emu.txt" "$work/emu.rc"; } > "$work/emu.sh"
  "${tmux[@]}" new-session -d -s umbra -x 80 -y 24 "bash $work/emu.sh" </dev/null ||
    { echo "run-case.sh: tmux could not start a session" > "$work/terminal.txt"; driver_rc=125
      return 125; }
  $terminal "$sock" >"$work/terminal.txt" 2>&1 </dev/null &
  driver=$!
  until [ -e "$work/emu.rc" ]; do
    if [ -n "$driver" ] && ! kill -0 "$driver" 2>/dev/null; then
      wait "$driver"; driver_rc=$? driver=""
      [ "$driver_rc" = 0 ] || break
    fi
    "${tmux[@]}" has-session -t umbra 2>/dev/null || break
    sleep 0.2
  done
  [ -e "$work/emu.rc" ] && status=$(cat "$work/emu.rc")
  if [ -n "$driver" ]; then  # QEMU is gone: the driver sees the pane dead and ends
    for _ in $(seq 50); do kill -0 "$driver" 2>/dev/null || break; sleep 0.2; done
    kill "$driver" 2>/dev/null
    wait "$driver"; driver_rc=$?
  fi
  "${tmux[@]}" capture-pane -p -S - -t umbra > "$work/screen.txt" 2>/dev/null
  "${tmux[@]}" kill-server 2>/dev/null
  [[ $status =~ ^[0-9]+$ ]] && return "$status"
  return 125
}

start=$(date +%s%N)
case $emu in
  qemu)
    if [ -n "$terminal" ] && { [ -n "$input" ] || [ ${#after_res[@]} -gt 0 ]; }; then
      echo "FAIL $name: --terminal types its own input, not --input or --input-after"; exit 1
    fi
    # With input, the serial port is QEMU's stdio: the file feeds it, the log takes its output.
    serial=("file:$log") in_file=/dev/null out_file=$work/emu.txt feeder=""
    [ -n "$input" ] && serial=(stdio) in_file=$input out_file=$log
    if [ ${#after_res[@]} -gt 0 ]; then
      # Scripted input: a fifo is QEMU's stdin, written by feed_input as the log asks for it.
      serial=(stdio) in_file=$work/input.fifo out_file=$log
      mkfifo "$in_file" || { echo "FAIL $name: could not make $in_file"; exit 1; }
      feed_input >"$in_file" &
      feeder=$!
    fi
    # The helper connects once QEMU listens; it ends when QEMU closes the socket.
    qmp_args=() helper=""
    if [ -n "$qmp_helper" ]; then
      qmp_args=(-qmp "unix:$work/qmp.sock,server=on,wait=off")
      $qmp_helper "$work/qmp.sock" >"$work/qmp-helper.txt" 2>&1 &
      helper=$!
    fi
    # suite-lib.sh chooses the accelerator once per suite and exports it; alone, choose here.
    [ -n "${UMBRA_ACCEL:-}" ] || machine_accel || { echo "FAIL $name: $UMBRA_ACCEL_WHY"; exit 1; }
    accel=$UMBRA_ACCEL
    [ "${cpu:-max}" = max ] || accel=tcg
    UMBRA_ACCEL=$accel machine_accel_args "${cpu:-max}"
    machine_firmware "$firmware" "$work" || { echo "FAIL $name: no $firmware firmware"; exit 1; }
    # A terminal: the serial port is QEMU's stdio, the tmux pane; the log is its copy.
    [ -n "$terminal" ] && serial=(chardev:com1) qemu_extra+=(-chardev "stdio,id=com1,signal=off,logfile=$log")
    qemu=(qemu-system-x86_64 "${ACCEL_ARGS[@]}" "${FIRMWARE_ARGS[@]}" -machine q35 \
      -smp "$smp" -m "${mem}M" -cdrom "$work/umbra.iso" -boot d -display none \
      -serial "${serial[@]}" ${serial2:+-serial "$serial2"} -monitor none -no-reboot \
      -device isa-debug-exit,iobase=0xf4,iosize=0x04 "${qmp_args[@]}" "${qemu_extra[@]}")
    if [ -n "$terminal" ]; then
      run_in_terminal; rc=$?
    else
      timeout "$timeout_s" "${qemu[@]}" <"$in_file" >"$out_file" 2>&1
      rc=$?
    fi
    if [ -n "$helper" ]; then
      # QEMU is gone, so its socket is closed: the helper ends now (killed if it hangs).
      for _ in $(seq 50); do kill -0 "$helper" 2>/dev/null || break; sleep 0.2; done
      kill "$helper" 2>/dev/null
      wait "$helper"; helper_rc=$?
    fi
    [ -n "$feeder" ] && { kill "$feeder"; wait "$feeder"; } 2>/dev/null
    case $rc in 33) status=pass;; 35) status=fail;; 124) status=timeout;; *) status="exit$rc";; esac
    ;;
  bochs)
    [ ${#after_res[@]} -eq 0 ] || { echo "FAIL $name: --input-after needs --emu qemu"; exit 1; }
    [ -z "$qmp_helper" ] || { echo "FAIL $name: --qmp-helper needs --emu qemu"; exit 1; }
    [ -z "$terminal" ] || { echo "FAIL $name: --terminal needs --emu qemu"; exit 1; }
    [ "$firmware" = bios ] || { echo "FAIL $name: --firmware $firmware needs --emu qemu"; exit 1; }
    accel=bochs
    cat > "$work/bochsrc" <<BX
megs: $mem
cpu: model=${cpu:-corei7_haswell_4770}, count=$smp, ips=50000000, reset_on_triple_fault=0, ignore_bad_msrs=0
clock: sync=none
romimage: file=/usr/share/bochs/BIOS-bochs-latest, options=fastboot
vgaromimage: file=/usr/share/vgabios/vgabios.bin
ata0-master: type=cdrom, path=$work/umbra.iso, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev=$log
$(if [[ $serial2 =~ ^tcp:([^:]+):([0-9]+) ]]; then
    echo "com2: enabled=1, mode=socket-server, dev=${BASH_REMATCH[1]}:${BASH_REMATCH[2]}"; fi)
display_library: term
magic_break: enabled=1
port_e9_hack: enabled=1
sound: driver=dummy
panic: action=fatal
error: action=report
log: $work/bochs.log
BX
    printf 'c\nquit\n' > "$work/cmds"
    # Bochs wants a terminal for its display; script gives it one without a network listener.
    (cd "$work" && timeout "$timeout_s" script -qec "bochs-bin -q -f bochsrc -rc cmds" /dev/null \
      </dev/null >"$work/emu.txt" 2>&1)
    rc=$?
    # The magic break quits with 0 (pass); the shutdown port makes Bochs exit 1 (fail).
    case $rc in 0) status=pass;; 1) status=fail;; 124) status=timeout;; *) status="exit$rc";; esac
    ;;
  *) echo "FAIL $name: unknown emulator $emu"; exit 1;;
esac
ms=$(( ($(date +%s%N) - start) / 1000000 ))

summary=$(tr -d '\r' < "$log" 2>/dev/null | grep -a '^UMBRA SUMMARY:' | tail -n 1)
why=""
nsum=$(tr -d '\r' < "$log" 2>/dev/null | grep -ac '^UMBRA SUMMARY:')
if [ "$expect_fail" = 1 ]; then
  case "$status/$summary" in
    pass/*|*/*result=pass*) why="expected a failed run, got status=$status";;
  esac
else
  [ "$driver_rc" != 0 ] &&
    why="the terminal driver failed (exit $driver_rc): $(tail -n 1 "$work/terminal.txt")"
  [ -z "$why" ] && [ "$status" != pass ] && why="emulator status $status"
  [ -z "$why" ] && [ "$helper_rc" != 0 ] &&
    why="the QMP helper failed (exit $helper_rc): $(tr '\n' ' ' < "$work/qmp-helper.txt")"
  [ -z "$why" ] && [ "$nsum" != 1 ] && why="expected exactly one summary line, got $nsum"
  [ -z "$why" ] && ! grep -q 'result=pass' <<<"$summary" && why="summary does not say result=pass"
fi
for e in "${expects[@]+"${expects[@]}"}"; do
  [ -n "$why" ] && break
  grep -qE "(^| )$e( |$)" <<<"$summary" || why="summary lacks $e"
done
for r in "${expect_logs[@]+"${expect_logs[@]}"}"; do
  [ -n "$why" ] && break
  tr -d '\r' < "$log" | grep -aqE "$r" || why="serial log lacks /$r/"
done

if [ -z "$why" ]; then
  echo "PASS $name (${ms} ms, $accel, $firmware) $summary"
  [ -z "$qmp_helper" ] || cat "$work/qmp-helper.txt"
  [ -z "$terminal" ] || cat "$work/terminal.txt"
  exit 0
fi
echo "FAIL $name: $why"
[ -z "$qmp_helper" ] || cat "$work/qmp-helper.txt"
[ -z "$terminal" ] || cat "$work/terminal.txt"
echo "---- serial log of $name ----"
tr -d '\r' < "$log" 2>/dev/null | sed 's/\x1b\[[0-9;]*[A-Za-z]//g'
echo "---- end of $name ----"
exit 1
