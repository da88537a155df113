#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-pv: the PV guests on Umbra (QEMU SVM, Bochs VMX) and natively (QEMU -kernel, GRUB multiboot2).
# cases.sh PVGUEST_DIR; UMBRA_ELF overrides build/umbra.elf, PV_BOCHS=0 skips Bochs.
# Last line: "pv: N passed, M failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/harness/suite-lib.sh"
P=${1:?usage: cases.sh PVGUEST_DIR}
elf=${UMBRA_ELF:-$root/build/umbra.elf}
logs=$root/build/harness/pv-native
mkdir -p "$logs"

# count NAME OK WHY: one case judged here rather than by run-case.sh.
count() {
  if [ "$2" = 1 ]; then echo "PASS $1"; suite_passed=$((suite_passed + 1))
  else echo "FAIL $1: $3"; suite_failed=$((suite_failed + 1)); suite_failures+=("$1"); fi
}

# The bad console writes name buffers holding "LEAK": none of it may reach the log.
no_leak() {
  local log=$root/build/harness/$1/serial.txt ok=1
  [ -s "$log" ] && ! grep -aq LEAK "$log" || ok=0
  count "$1-no-leak" $ok "console bytes of a refused write reached the log"
}

# umbra_cases PREFIX RUN-CASE-OPTIONS...: the four Umbra boots.
# The PV guests are multiboot v1 kernels that take their timer from Umbra and program no 8259:
# with the BIOS's leftovers (vmm/load/bios.c) its 18.2 Hz IRQ0 would reach them at vector 8, their
# #DF, as it would on a PC whose BIOS left it running. They run with bios=off.
umbra_cases() {
  local pre=$1 nobios=bios=off; shift
  case_run "$pre-pv-conformance" --elf "$elf" "$@" --smp 2 \
    --module "$P/pvconf32.elf name=pvconf32 $nobios" --module "$P/pvconfpae.elf name=pvconfpae $nobios" \
    --module "$P/pvconf64.elf name=pvconf64 $nobios" --expect guests_passed=3 --expect guests_failed=0 \
    --expect-log '^\[pvconf64\] cases: pvconf64 [0-9]+' --expect-log 'pv console: hello through pv_ops' \
    --expect-log '^\[pvconf32\] pv-user: hello from ring 3'
  no_leak "$pre-pv-conformance"
  # Cross-guest calls with the capabilities: STATS_OF and STOP_GUEST on a guest expecting it.
  case_run "$pre-pv-caps" --elf "$elf" "$@" --smp 2 \
    --module "$P/pvconf64.elf name=pvconf64 $nobios caps=stats,stop" \
    --module "$P/pvtarget.elf name=pvtarget $nobios expect=stop" \
    --expect guests_passed=1 --expect guests_stopped=1 --expect guests_failed=0 \
    --expect-log 'guest pvtarget: stopped by guest pvconf64' --expect-log 'cross-guest: .*caps 3'
  case_run "$pre-pv-user" --elf "$elf" "$@" --smp 2 \
    --module "$P/pvuser32.elf name=pvuser32 $nobios" --module "$P/pvuser64.elf name=pvuser64 $nobios" \
    --expect guests_passed=2 --expect guests_failed=0
  case_run "$pre-pv-mmu-audit" --elf "$elf" "$@" --smp 2 --cmdline audit=1 \
    --module "$P/pvmmu32.elf name=pvmmu32 $nobios" --module "$P/pvmmupae.elf name=pvmmupae $nobios" \
    --module "$P/pvmmu64.elf name=pvmmu64 $nobios" --expect guests_passed=3 --expect guests_failed=0 \
    --expect-log 'pvmmu64\] pv phase: writes_emulated \+0'
}

# Native boots run in the background meanwhile: QEMU -kernel (multiboot v1) for every image
# but the target, GRUB multiboot2 for the conformance images.
native_pids=() native_names=()
native() {
  local name=$1 how=$2 img=$P/$1.elf log=$logs/$1-$2.log
  rm -f "$log" "$log.rc"
  if [ "$how" = grub ]; then
    printf 'set timeout=0\nset default=0\nmenuentry "pv" {\n  multiboot2 /boot/umbra.elf\n  boot\n}\n' \
      > "$logs/$name.cfg"
    "$root/boot/mkiso.sh" "$logs/$name.iso" "$logs/$name.cfg" "$img" || { echo 1 > "$log.rc"; return; }
    set -- -cdrom "$logs/$name.iso" -boot d
  else
    set -- -kernel "$img"
  fi
  ( timeout 60 qemu-system-x86_64 -accel tcg -machine q35 -cpu max -m 64M "$@" -display none \
      -serial "file:$log" -monitor none -no-reboot -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
      </dev/null >"$log.qemu" 2>&1; echo $? > "$log.rc" ) &
  native_pids+=($!) native_names+=("$name-$how")
}
for g in pvconf32 pvconfpae pvconf64 pvuser32 pvuser64 pvmmu32 pvmmupae pvmmu64; do native $g kernel; done
for g in pvconf32 pvconf64; do native $g grub; done

umbra_cases qemu --cpu max

wait "${native_pids[@]}" 2>/dev/null
for n in "${native_names[@]}"; do
  log=$logs/$n.log rc=$(cat "$logs/$n.log.rc" 2>/dev/null || echo none) ok=1 why=""
  [ "$rc" = 33 ] || { ok=0; why="qemu status $rc"; }
  grep -aq 'RESULT: PASS' "$log" 2>/dev/null || { ok=0; why="$why; no RESULT: PASS"; }
  grep -aq 'not on Umbra' "$log" 2>/dev/null || { ok=0; why="$why; did not run native"; }
  [[ $n != *-grub ]] || grep -aq 'booted by GRUB multiboot2' "$log" || { ok=0; why="$why; not booted by multiboot2"; }
  count "native-$n" $ok "$why"
  [ $ok = 1 ] && grep -a '^cases:\|^note:' "$log" | sed 's/^/    /'
  [ $ok = 1 ] || { echo "---- $log"; tail -n 40 "$log" "$log.qemu" 2>/dev/null; echo "----"; }
done

if [ "${PV_BOCHS:-1}" = 1 ] && command -v bochs-bin >/dev/null; then
  umbra_cases bochs-haswell --emu bochs --cpu corei7_haswell_4770 --timeout 90
else
  echo "note: Bochs cases skipped (PV_BOCHS=0 or no bochs-bin)"
fi
suite_end pv
