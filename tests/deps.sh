#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Checks for the Debian packages Umbra's build and tests need; installs the missing ones as root.
set -u
pkgs="gcc make qemu-system-x86 grub-pc-bin grub-efi-amd64-bin grub-common xorriso mtools ovmf bochs bochsbios vgabios
      libcmocka-dev valgrind gnuplot-nox bochs-term gcc-multilib cpio xz-utils gdb python3 tmux
      clang-format"
missing=()
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "missing packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null || {
    echo "error: apt-get install failed"; exit 1; }
else
  echo "run: sudo apt-get update && sudo apt-get install -y ${missing[*]}"
  exit 1
fi
