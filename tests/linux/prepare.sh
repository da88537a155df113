#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fetches Debian's current linux-image-amd64 kernel and busybox-static (cached in OUT/cache) and
# builds the test initramfs: busybox, tests/linux/init as /init, the helpers given (in /bin) and
# the kernel modules the tests load (in /lib/modules).
# The same kernel is also unpacked to OUT/vmlinux, the ELF that PVH boots (no decompressor).
# prepare.sh OUT HELPER...  ->  OUT/vmlinuz, OUT/vmlinux, OUT/initrd.gz, OUT/kernel-version
set -eu
out=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
cache=$out/cache
mkdir -p "$cache"

# The kernel package the metapackage points at today, e.g. linux-image-6.1.0-57-amd64.
kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
       awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
[ -n "$kpkg" ] || { echo "prepare.sh: apt knows no linux-image-amd64 (run apt-get update)"; exit 1; }
for p in "$kpkg" busybox-static; do
  if ! ls "$cache/${p}_"*.deb >/dev/null 2>&1; then
    (cd "$cache" && apt-get download -q "$p") || { echo "prepare.sh: cannot download $p"; exit 1; }
  fi
done

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The kernel and the modules the tests load (tests/linux/init: the uio modules the ivshmem test
# binds its device with, the assigned e1000e's driver, whose PTP and PPS dependencies are built
# in, and the assigned virtio disk's drivers with ext4 and what it needs, in their load order).
modules="drivers/uio/uio drivers/uio/uio_pci_generic drivers/net/ethernet/intel/e1000e/e1000e
  drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev
  drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci drivers/block/virtio_blk
  lib/crc16 crypto/crc32c_generic fs/mbcache fs/jbd2/jbd2 fs/ext4/ext4"
patterns=()
for m in $modules; do patterns+=("./lib/modules/*/kernel/$m.ko"); done
dpkg-deb --fsys-tarfile "$(ls "$cache/${kpkg}_"*.deb | head -n 1)" |
  tar -x -C "$tmp" --wildcards './boot/vmlinuz-*' "${patterns[@]}"
cp "$tmp"/boot/vmlinuz-* "$out/vmlinuz"
basename "$tmp"/boot/vmlinuz-* | sed 's/^vmlinuz-//' > "$out/kernel-version"
# The bzImage's payload (setup header: payload_offset at 0x248, payload_length at 0x24c, after
# setup_sects + 1 sectors) is the compressed vmlinux.
u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$out/vmlinuz" | tr -d ' ')
poff=$(( (sects + 1) * 512 + $(u32 "$out/vmlinuz" $((0x248))) ))
plen=$(u32 "$out/vmlinuz" $((0x24c)))
tail -c +$((poff + 1)) "$out/vmlinuz" | head -c "$plen" > "$tmp/payload"
case $(od -An -tx1 -N4 "$tmp/payload" | tr -d ' ') in
  fd377a58) unpack="xz -dc --single-stream";;
  1f8b*) unpack="gzip -dc";;
  28b52ffd) unpack="zstd -dcq";;
  *) echo "prepare.sh: unknown compression of the kernel's payload"; exit 1;;
esac
$unpack < "$tmp/payload" > "$out/vmlinux" 2>/dev/null || true
[ "$(head -c 4 "$out/vmlinux" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] ||
  { echo "prepare.sh: the kernel's payload did not unpack to an ELF vmlinux"; exit 1; }
dpkg-deb --fsys-tarfile "$(ls "$cache/busybox-static_"*.deb | head -n 1)" | tar -x -C "$tmp" ./bin/busybox

root=$tmp/root
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/lib/modules"
for m in $modules; do cp "$tmp"/lib/modules/*/kernel/$m.ko "$root/lib/modules/"; done
cp "$tmp/bin/busybox" "$root/bin/busybox"
for h in "$@"; do install -m 755 "$h" "$root/bin/$(basename "$h")"; done
install -m 755 "$here/init" "$root/init"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -9 > "$out/initrd.gz"
echo "prepare.sh: $kpkg ($(stat -c %s "$out/vmlinuz") bytes), initramfs $(stat -c %s "$out/initrd.gz") bytes"
