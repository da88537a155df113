#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds L1's initramfs for check-kvm from installed and cached Debian packages only: busybox,
# kvm/kvm-amd and the virtio disk modules (with the modules they depend on) from the kernel
# package tests/linux/prepare.sh cached, QEMU's binary with its libraries and firmware, and
# tests/kvm/init as /init.  prepare.sh OUT LINUX_OUT  ->  OUT/initrd.gz
set -eu
out=$1 linux=$2
here=$(cd "$(dirname "$0")" && pwd)
kver=$(cat "$linux/kernel-version")
kdeb=$(ls "$linux/cache/linux-image-${kver}_"*.deb | head -n 1)
bdeb=$(ls "$linux/cache/busybox-static_"*.deb | head -n 1)
qemu=/usr/bin/qemu-system-x86_64
[ -x "$qemu" ] || { echo "kvm/prepare.sh: $qemu missing (make deps)"; exit 1; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/lib/modules"
dpkg-deb --fsys-tarfile "$bdeb" | tar -x -C "$tmp" ./bin/busybox
cp "$tmp/bin/busybox" "$root/bin/busybox"
dpkg-deb --fsys-tarfile "$kdeb" | tar -x -C "$tmp" --wildcards "./lib/modules/$kver/kernel/*.ko"

# The package has no modules.dep (depmod writes it at install time): each module's .modinfo
# section names the modules it needs. mods lists them dependencies first, as insmod wants them.
mods=()
mod_path() {
  find "$tmp/lib/modules/$kver/kernel" -name '*.ko' |
    awk -v m="$1" '{ n = $0; sub(/.*\//, "", n); sub(/\.ko$/, "", n); gsub(/-/, "_", n) }
                   n == m { print; exit }'
}
add_mod() {
  local m=$1 p d
  for d in "${mods[@]+"${mods[@]}"}"; do [ "$(basename "$d" .ko | tr - _)" = "$m" ] && return 0; done
  p=$(mod_path "$m"); [ -n "$p" ] || { echo "kvm/prepare.sh: no module $m in $kdeb"; exit 1; }
  for d in $(objcopy -O binary --only-section=.modinfo "$p" /dev/stdout | tr '\0' '\n' |
             sed -n 's/^depends=//p' | tr , ' '); do
    add_mod "$d"
  done
  mods+=("$p")
}
for m in kvm_amd virtio_pci virtio_blk; do add_mod "$m"; done
: > "$root/lib/modules/order"
for p in "${mods[@]}"; do
  cp "$p" "$root/lib/modules/"; basename "$p" >> "$root/lib/modules/order"
done

# QEMU, the libraries ldd lists (and the loader), and the firmware an -accel kvm q35 machine
# without VGA or NIC reads, found where QEMU looks for them (symlinks followed).
copy() { mkdir -p "$root$(dirname "$1")"; cp -L "$1" "$root$1"; }
copy "$qemu"
for l in $(ldd "$qemu" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
  copy "$l"
done
for f in bios-256k.bin kvmvapic.bin; do
  src=""
  for d in /usr/share/qemu /usr/share/seabios; do [ -e "$d/$f" ] && { src=$d/$f; break; }; done
  [ -n "$src" ] || { echo "kvm/prepare.sh: QEMU's firmware $f is missing"; exit 1; }
  copy "$src"
done
install -m 755 "$here/init" "$root/init"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -6 > "$out/initrd.gz"
echo "kvm/prepare.sh: modules $(tr '\n' ' ' < "$root/lib/modules/order")initramfs $(stat -c %s "$out/initrd.gz") bytes"
