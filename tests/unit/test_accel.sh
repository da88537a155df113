#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Unit test of tests/harness/machine.sh: the KVM/TCG choice on made-up hosts, and the QEMU options.
#
# The hosts are directories standing in for /dev, /sys and /proc. The machines CI and the
# developers use have no /dev/kvm that nests (or none at all), so a real KVM run is not part of
# the suites; what is tested here is every reason to choose or refuse KVM, with the real
# kvm-probe helper refusing a /dev/kvm that is not a KVM device (its ioctls fail as a
# KVM_CREATE_VM on a broken or paravirtual-only KVM would), and a stand-in probe for the host
# where it succeeds. Output: TAP lines for tests/cmocka-run.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
real_probe=${KVM_PROBE:-$here/../../build/host/kvm-probe}
. "$here/../harness/machine.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

check() {  # check NAME WANT GOT
  n=$((n + 1))
  if [ "$2" = "$3" ]; then echo "ok $n - $1"
  else echo "not ok $n - $1: want '$2', got '$3'"; failed=$((failed + 1)); fi
}

# host NAME VENDOR FLAGS MODULE NESTED: a made-up host with /dev/kvm (unless MODULE is "nokvm")
# and the module's nested parameter (unless NESTED is "-": the module is not loaded).
host() {
  local r=$tmp/$1
  mkdir -p "$r/proc" "$r/dev"
  printf 'processor\t: 0\nvendor_id\t: %s\nflags\t\t: %s\n\n' "$2" "$3" > "$r/proc/cpuinfo"
  [ "$4" = nokvm ] || touch "$r/dev/kvm"
  if [ "$5" != - ]; then
    mkdir -p "$r/sys/module/$4/parameters"
    echo "$5" > "$r/sys/module/$4/parameters/nested"
  fi
  echo "$r"
}

# choose ROOT [ACCEL] [PROBE]: "accel virt why" as machine_accel leaves them.
choose() {
  local rc
  ACCEL=${2:-} KVM_PROBE=${3:-$tmp/probe-ok} machine_accel "$1"; rc=$?
  echo "$UMBRA_ACCEL $UMBRA_HOST_VIRT rc=$rc $UMBRA_ACCEL_WHY"
}

printf '#!/bin/sh\necho "kvm: ok"\n' > "$tmp/probe-ok"
printf '#!/bin/sh\necho "kvm: KVM_CREATE_VM failed: Operation not supported"; exit 1\n' \
  > "$tmp/probe-fail"
chmod +x "$tmp/probe-ok" "$tmp/probe-fail"

amd=$(host amd AuthenticAMD "fpu pae svm npt" kvm_amd 1)
intel=$(host intel GenuineIntel "fpu pae vmx ept" kvm_intel Y)
nonest=$(host nonest AuthenticAMD "fpu svm" kvm_amd 0)
unloaded=$(host unloaded GenuineIntel "fpu vmx" kvm_intel -)
noflag=$(host noflag AuthenticAMD "fpu pae" kvm_amd 1)
other=$(host other CentaurHauls "fpu vmx" kvm_intel Y)
nokvm=$(host nokvm AuthenticAMD "fpu svm" nokvm 1)
empty=$tmp/empty; mkdir -p "$empty"

check "AMD host that nests: KVM" "kvm svm rc=0 kvm_amd with nested=1" "$(choose "$amd")"
check "Intel host that nests: KVM, VMX inside" "kvm vmx rc=0 kvm_intel with nested=Y" \
  "$(choose "$intel")"
check "no /dev/kvm: TCG" "tcg svm rc=0 no /dev/kvm" "$(choose "$nokvm")"
check "nothing at all: TCG" "tcg svm rc=0 no /dev/kvm" "$(choose "$empty")"
check "nested=0: TCG" "tcg svm rc=0 kvm_amd does not allow nested virtualization (nested=0)" \
  "$(choose "$nonest")"
check "module not loaded: TCG" "tcg svm rc=0 kvm_intel not loaded" "$(choose "$unloaded")"
check "CPU flags without svm: TCG" "tcg svm rc=0 the CPU flags lack svm" "$(choose "$noflag")"
check "unknown vendor: TCG" "tcg svm rc=0 CPU vendor 'CentaurHauls' has no KVM module Umbra can nest in" \
  "$(choose "$other")"
check "probe refuses (KVM_CREATE_VM): TCG with its message" \
  "tcg svm rc=0 KVM cannot run an unmodified guest (KVM_CREATE_VM failed: Operation not supported)" \
  "$(choose "$amd" "" "$tmp/probe-fail")"
check "no probe helper: TCG" "tcg svm rc=0 no $tmp/none to try KVM with (make builds it)" \
  "$(choose "$amd" "" "$tmp/none")"
# The real helper on a /dev/kvm that is a plain file: its first ioctl fails, so TCG.
if [ -x "$real_probe" ]; then
  check "real kvm-probe on a fake /dev/kvm: TCG" \
    "tcg svm rc=0 KVM cannot run an unmodified guest (KVM_GET_API_VERSION failed: Inappropriate ioctl for device)" \
    "$(choose "$amd" "" "$real_probe")"
else
  check "real kvm-probe built" "executable" "missing: $real_probe"
fi
check "ACCEL=tcg wins over a KVM host" "tcg svm rc=0 forced by ACCEL=tcg" "$(choose "$amd" tcg)"
check "ACCEL=kvm on an Intel host" "kvm vmx rc=0 forced by ACCEL=kvm" "$(choose "$intel" kvm)"
check "ACCEL=kvm skips the checks" "kvm svm rc=0 forced by ACCEL=kvm" "$(choose "$nonest" kvm)"
check "ACCEL=auto is the default" "kvm svm rc=0 kvm_amd with nested=1" "$(choose "$amd" auto)"
check "bad ACCEL is an error" "tcg svm rc=1 unknown ACCEL=fast (use tcg or kvm)" \
  "$(choose "$amd" fast)"

UMBRA_ACCEL=kvm machine_accel_args max
check "KVM options" "-accel kvm -cpu host" "${ACCEL_ARGS[*]}"
UMBRA_ACCEL=tcg machine_accel_args qemu64
check "TCG options" "-accel tcg -cpu qemu64" "${ACCEL_ARGS[*]}"

machine_firmware bios "$tmp"
check "BIOS: no firmware options" "0" "${#FIRMWARE_ARGS[@]}"
if machine_firmware uefi "$tmp"; then
  check "UEFI: OVMF code read-only, a private copy of the variables" \
    "if=pflash,format=raw,unit=1,file=$tmp/ovmf-vars.fd yes" \
    "${FIRMWARE_ARGS[3]} $([ -s "$tmp/ovmf-vars.fd" ] && echo yes)"
else
  check "UEFI: OVMF installed" "found" "missing"
fi
machine_firmware coreboot "$tmp" 2>/dev/null
check "unknown firmware is an error" "1" "$?"

echo "1..$n"
[ "$failed" -eq 0 ]
