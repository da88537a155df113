#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-guests-bochs: boots every guest image directly under Bochs (no Umbra) via GRUB.
# A second opinion on the architecture (Bochs, unlike QEMU TCG, keeps global TLB entries and
# gives P|RSVD); slow, so not part of `make test`. Last line "guests-bochs: N passed, M failed".
set -u
out=${1:?usage: run-bochs.sh OUTDIR "NAMES" "CRASH_NAMES" [CPU_MODEL]}
names=$2 crash=" $3 " model=${4:-corei7_haswell_4770}
work=$out/bochs-runs
mkdir -p "$work"
pass=0 failn=0

run_one() {
  local name=$1 d=$work/$1
  rm -rf "$d"; mkdir -p "$d/iso/boot/grub"
  cp "$out/$name.elf" "$d/iso/boot/"
  printf 'set timeout=0\nmenuentry g {\n multiboot /boot/%s.elf\n boot\n}\n' "$name" \
    >"$d/iso/boot/grub/grub.cfg"
  grub-mkrescue -o "$d/g.iso" "$d/iso" --install-modules="multiboot normal configfile iso9660 biosdisk" \
    --fonts= --locales= --themes= >/dev/null 2>&1 || { echo "grub-mkrescue failed" >"$d/serial.txt"; return; }
  cat >"$d/bochsrc" <<BX
megs: 64
cpu: model=$model, count=1, ips=50000000, reset_on_triple_fault=0, ignore_bad_msrs=0
clock: sync=none
romimage: file=/usr/share/bochs/BIOS-bochs-latest, options=fastboot
vgaromimage: file=/usr/share/vgabios/vgabios.bin
ata0-master: type=cdrom, path=g.iso, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev=serial.txt
display_library: term
magic_break: enabled=1
sound: driver=dummy
panic: action=fatal
error: action=report
log: bochs.log
BX
  printf 'c\nquit\n' >"$d/cmds"
  # Bochs wants a terminal for its display; script gives it one without a network listener.
  (cd "$d" && timeout 300 script -qec "bochs-bin -q -f bochsrc -rc cmds" /dev/null \
     </dev/null >emu.txt 2>&1)
}

jobs_max=$(nproc 2>/dev/null || echo 2)
for n in $names; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  run_one "$n" &
done
wait

for n in $names; do
  log=$work/$n/serial.txt
  why=
  if [[ $crash == *" $n "* ]]; then
    ! grep -aq 'RESULT: PASS' "$log" 2>/dev/null || why="a crash guest reported PASS"
    grep -aq 'exception with no resolution' "$work/$n/bochs.log" 2>/dev/null || why="${why:+$why; }no triple fault in the Bochs log"
  else
    grep -aq 'RESULT: PASS' "$log" 2>/dev/null || why="no 'RESULT: PASS' in the log"
  fi
  if [ -z "$why" ]; then
    pass=$((pass + 1)); echo "PASS $n (bochs $model)"
  else
    failn=$((failn + 1)); echo "FAIL $n (bochs $model): $why"
    echo "---- $log"; tr -d '\r' <"$log" 2>/dev/null | tail -n 40; echo "----"
  fi
done
echo "guests-bochs: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
