#!/usr/bin/env bash
# Fetches Debian's current linux-image-amd64 kernel and busybox-static (cached in OUT/cache) and
# builds the test initramfs: busybox, tests/linux/init as /init, and the helpers given (in /bin).
# prepare.sh OUT HELPER...  ->  OUT/vmlinuz, OUT/initrd.gz, OUT/kernel-version
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
dpkg-deb --fsys-tarfile "$(ls "$cache/${kpkg}_"*.deb | head -n 1)" |
  tar -x -C "$tmp" --wildcards './boot/vmlinuz-*'
cp "$tmp"/boot/vmlinuz-* "$out/vmlinuz"
basename "$tmp"/boot/vmlinuz-* | sed 's/^vmlinuz-//' > "$out/kernel-version"
dpkg-deb --fsys-tarfile "$(ls "$cache/busybox-static_"*.deb | head -n 1)" | tar -x -C "$tmp" ./bin/busybox

root=$tmp/root
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
cp "$tmp/bin/busybox" "$root/bin/busybox"
for h in "$@"; do install -m 755 "$h" "$root/bin/$(basename "$h")"; done
install -m 755 "$here/init" "$root/init"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -9 > "$out/initrd.gz"
echo "prepare.sh: $kpkg ($(stat -c %s "$out/vmlinuz") bytes), initramfs $(stat -c %s "$out/initrd.gz") bytes"
