#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The QEMU machine of `make run` and the harness: firmware (BIOS or UEFI) and accelerator (KVM or TCG).
#
# Sourced. machine_accel ROOT sets UMBRA_ACCEL (kvm|tcg), UMBRA_ACCEL_WHY and UMBRA_HOST_VIRT
# (svm|vmx: what Umbra will find in the virtual CPU). ROOT (normally empty) prefixes /dev, /sys
# and /proc, so tests/unit/test_accel.sh can try the choice on made-up hosts.
# machine_firmware FIRMWARE WORKDIR sets FIRMWARE_ARGS (QEMU options).

# KVM_PROBE: the helper built from tests/harness/kvm-probe.c (make builds it in build/host).
: "${KVM_PROBE:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/host/kvm-probe}"

# KVM runs Umbra only as a guest hypervisor of the host's KVM (nested virtualization), with the
# vendor's virtualization extension passed through by -cpu host. Anything short of that is TCG.
machine_accel() {
  local root=${1:-} vendor mod flag nested out
  UMBRA_ACCEL=tcg UMBRA_HOST_VIRT=svm
  case ${ACCEL:-auto} in
    tcg) UMBRA_ACCEL_WHY="forced by ACCEL=tcg"; return 0;;
    kvm|auto) ;;
    *) UMBRA_ACCEL_WHY="unknown ACCEL=${ACCEL} (use tcg or kvm)"; return 1;;
  esac
  vendor=$(grep -m1 '^vendor_id' "$root/proc/cpuinfo" 2>/dev/null | sed 's/.*: *//')
  case $vendor in
    AuthenticAMD|HygonGenuine) mod=kvm_amd flag=svm;;
    GenuineIntel) mod=kvm_intel flag=vmx;;
    *) mod="" flag="";;
  esac
  if [ "${ACCEL:-auto}" = kvm ]; then
    UMBRA_ACCEL=kvm UMBRA_ACCEL_WHY="forced by ACCEL=kvm"
    [ "$flag" = vmx ] && UMBRA_HOST_VIRT=vmx
    return 0
  fi
  if [ ! -e "$root/dev/kvm" ]; then
    UMBRA_ACCEL_WHY="no /dev/kvm"; return 0
  fi
  if [ ! -r "$root/dev/kvm" ] || [ ! -w "$root/dev/kvm" ]; then
    UMBRA_ACCEL_WHY="/dev/kvm not readable and writable by this user"; return 0
  fi
  if [ -z "$mod" ]; then
    UMBRA_ACCEL_WHY="CPU vendor '${vendor:-unknown}' has no KVM module Umbra can nest in"
    return 0
  fi
  if ! nested=$(cat "$root/sys/module/$mod/parameters/nested" 2>/dev/null); then
    UMBRA_ACCEL_WHY="$mod not loaded"; return 0
  fi
  case $nested in
    1|Y|y) ;;
    *) UMBRA_ACCEL_WHY="$mod does not allow nested virtualization (nested=$nested)"; return 0;;
  esac
  if ! grep -m1 '^flags' "$root/proc/cpuinfo" | grep -qw "$flag"; then
    UMBRA_ACCEL_WHY="the CPU flags lack $flag"; return 0
  fi
  if [ ! -x "$KVM_PROBE" ]; then
    UMBRA_ACCEL_WHY="no $KVM_PROBE to try KVM with (make builds it)"; return 0
  fi
  if ! out=$("$KVM_PROBE" "$root/dev/kvm" 2>&1); then
    UMBRA_ACCEL_WHY="KVM cannot run an unmodified guest (${out#kvm: })"; return 0
  fi
  UMBRA_ACCEL=kvm UMBRA_ACCEL_WHY="$mod with nested=$nested"
  [ "$flag" = vmx ] && UMBRA_HOST_VIRT=vmx
  return 0
}

# QEMU options for the accelerator: -cpu host passes the host's SVM or VMX through under KVM.
# cpu_model is what TCG emulates (max, qemu64...). TCG_THREAD=single runs every emulated CPU in
# one thread (QEMU's default with -smp 2 is a thread per CPU).
machine_accel_args() {
  local cpu_model=$1
  if [ "$UMBRA_ACCEL" = kvm ]; then
    ACCEL_ARGS=(-accel kvm -cpu host)
  else
    ACCEL_ARGS=(-accel "tcg${TCG_THREAD:+,thread=$TCG_THREAD}" -cpu "$cpu_model")
  fi
}

# Debian's ovmf: the 4 MiB build (OVMF_CODE_4M.fd) where present, else the 2 MiB one.
machine_firmware() {
  local fw=$1 work=$2 code vars
  FIRMWARE_ARGS=()
  case $fw in
    bios) return 0;;
    uefi) ;;
    *) echo "unknown FIRMWARE=$fw (use bios or uefi)" >&2; return 1;;
  esac
  for code in /usr/share/OVMF/OVMF_CODE_4M.fd /usr/share/OVMF/OVMF_CODE.fd ""; do
    [ -z "$code" ] || [ -r "$code" ] && break
  done
  [ -n "$code" ] || { echo "no OVMF firmware in /usr/share/OVMF (install ovmf)" >&2; return 1; }
  vars=${code/CODE/VARS}
  # OVMF writes its variable store: every run gets its own copy.
  cp "$vars" "$work/ovmf-vars.fd" || return 1
  FIRMWARE_ARGS=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=$code"
                 -drive "if=pflash,format=raw,unit=1,file=$work/ovmf-vars.fd")
}
