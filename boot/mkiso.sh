#!/usr/bin/env bash
# Builds a BIOS-bootable GRUB ISO: mkiso.sh OUT.iso GRUB.CFG UMBRA.ELF [FILE...] (FILEs go to /boot/).
set -eu
out=$1; cfg=$2; elf=$3; shift 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/boot/grub"
cp "$cfg" "$dir/boot/grub/grub.cfg"
cp "$elf" "$dir/boot/umbra.elf"
for f in "$@"; do cp "$f" "$dir/boot/"; done
grub-mkrescue -o "$out" "$dir" \
  --install-modules="multiboot2 normal configfile iso9660 part_msdos serial terminal" \
  --fonts= --locales= --themes= >/dev/null 2>&1 || {
  echo "grub-mkrescue failed for $out"; grub-mkrescue -o "$out" "$dir" 2>&1 | tail -5; exit 1; }
