#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make debug GUEST=NAME: boots boot/grub.cfg's guests in QEMU with NAME held before its first
# instruction (gdb=NAME gdbwait) and opens gdb on it through COM2 (a TCP socket on 127.0.0.1).
# Umbra's console goes to build/debug/serial.txt. QEMU ends when gdb does.
#
# debug.sh BUILD_DIR UMBRA_ELF GUEST [GDB ARGS...]
set -u
build=$1 elf=$2 guest=${3:?usage: make debug GUEST=NAME}
shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$build/debug
mkdir -p "$work"
grep -q "name=$guest\( \|$\)" "$root/boot/grub.cfg" || {
  echo "debug: boot/grub.cfg has no guest name=$guest; its guests:" \
    "$(grep -o 'name=[^ ]*' "$root/boot/grub.cfg" | cut -d= -f2 | tr '\n' ' ')"; exit 2; }
# The guest's symbols: a 64-bit kernel's ELF64 image (the module is an ELF32 copy).
sym=$build/guests/$guest.elf
[ -f "$sym" ] || sym=$(sed -n "s|.*module2 /boot/\([^ ]*\) .*name=$guest\( .*\)\?$|$build/guests/\1|p" \
  "$root/boot/grub.cfg")
[ -f "${sym}64" ] && sym=${sym}64
arch=auto
[[ $sym == *.elf64 ]] && arch=x86-64
sed "s|\(multiboot2 /boot/umbra.elf.*\)|\1 gdb=$guest gdbwait gdbarch=$arch|" "$root/boot/grub.cfg" > "$work/grub.cfg"
files=()
for f in $(grep -o 'module2 /boot/[^ ]*' "$root/boot/grub.cfg" | cut -d/ -f3); do
  files+=("$build/guests/$f")
done
"$root/boot/mkiso.sh" "$work/umbra.iso" "$work/grub.cfg" "$elf" "${files[@]}" || exit 1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
qemu-system-x86_64 -accel tcg -machine q35 -cpu max -smp 4 -m 256M -boot d -display none \
  -cdrom "$work/umbra.iso" -serial "file:$work/serial.txt" \
  -serial "tcp:127.0.0.1:$port,server,nowait" -monitor none -no-reboot \
  -device isa-debug-exit,iobase=0xf4,iosize=0x04 &
qemu=$!
trap 'kill $qemu 2>/dev/null' EXIT
echo "debug: Umbra's console is in $work/serial.txt; gdb on $guest ($sym), port $port"
for _ in $(seq 120); do
  grep -q "gdb stub for $guest" "$work/serial.txt" 2>/dev/null && break
  kill -0 $qemu 2>/dev/null || { echo "debug: QEMU ended"; cat "$work/serial.txt"; exit 1; }
  sleep 0.5
done
gdb -q -ex "set remotetimeout 20" -ex "target remote 127.0.0.1:$port" "$@" "$sym"
