#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make run-linux: Umbra in QEMU with Debian's kernel as its only guest; this terminal is the
# guest's serial console (its busybox shell). Type `poweroff -f` to end the guest; Ctrl-A X
# quits QEMU. BOOT=pvh boots the unpacked vmlinux through its PVH entry instead of the bzImage.
set -u
L=${1:?usage: run.sh LINUX_OUT [bzimage|pvh]}
kernel=vmlinuz machine_mb=256
case ${2:-bzimage} in
  bzimage) ;;
  pvh) kernel=vmlinux machine_mb=384;;  # the 66 MB module needs room next to the guest
  *) echo "run.sh: boot is bzimage or pvh, not $2"; exit 2;;
esac
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/build/run-linux
mkdir -p "$work"
cat > "$work/grub.cfg" <<CFG
set timeout=0
set default=0
menuentry "umbra-linux" {
  multiboot2 /boot/umbra.elf timeout=3600 term=raw console=linux
  module2 /boot/$kernel name=linux mem=192 -- console=ttyS0 loops=0 expect_mem=192 interactive
  module2 /boot/initrd.gz for=linux
  boot
}
CFG
"$root/boot/mkiso.sh" "$work/umbra.iso" "$work/grub.cfg" "$root/build/umbra.elf" \
  "$L/$kernel" "$L/initrd.gz" || exit 1
qemu-system-x86_64 -accel tcg -machine q35 -cpu max -m ${machine_mb}M -cdrom "$work/umbra.iso" \
  -boot d -display none -serial mon:stdio -no-reboot \
  -device isa-debug-exit,iobase=0xf4,iosize=0x04
rc=$?
# Umbra ends QEMU through isa-debug-exit once its guests have ended: 33 is its pass.
case $rc in
  0|33) echo "umbra: the Linux guest ended (qemu exit $rc)";;
  *) echo "umbra: qemu exit $rc"; exit 1;;
esac
