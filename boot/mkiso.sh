#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds a hybrid GRUB ISO (BIOS and x86-64 UEFI, one grub.cfg): mkiso.sh OUT.iso GRUB.CFG UMBRA.ELF [FILE...] (FILEs go to /boot/).
set -eu
out=$1; cfg=$2; elf=$3; shift 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# grub-mkrescue builds for every GRUB platform installed: both must be, or the ISO is one-legged.
for p in i386-pc x86_64-efi; do
  [ -d "/usr/lib/grub/$p" ] || { echo "mkiso.sh: /usr/lib/grub/$p missing (make deps)"; exit 1; }
done
mkdir -p "$dir/boot/grub"
cp "$cfg" "$dir/boot/grub/grub.cfg"
cp "$elf" "$dir/boot/umbra.elf"
for f in "$@"; do cp "$f" "$dir/boot/"; done
# The same modules for both platforms (biosdisk is BIOS-only and comes with the El Torito image).
# The EFI image's early config probes every partition map; all_video (efi_gop there) lets GRUB set a video mode
# and hand Umbra a framebuffer tag, as on real machines, which Umbra ignores.
modules="multiboot2 normal configfile iso9660 serial terminal test all_video
  part_acorn part_amiga part_apple part_bsd part_dfly part_dvh part_gpt part_msdos part_plan
  part_sun part_sunpc"
grub-mkrescue -o "$out" "$dir" \
  --install-modules="$modules" \
  --fonts= --locales= --themes= >/dev/null 2>&1 || {
  echo "grub-mkrescue failed for $out"; grub-mkrescue -o "$out" "$dir" 2>&1 | tail -5; exit 1; }
