#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `make run`: boots an ISO in QEMU with Umbra's serial port on this terminal; exits as QEMU did.
# FIRMWARE=bios|uefi and ACCEL=auto|tcg|kvm choose the machine (tests/harness/machine.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/machine.sh"
iso=${1:?usage: run-iso.sh ISO}
firmware=${FIRMWARE:-bios}
machine_accel || { echo "run: $UMBRA_ACCEL_WHY"; exit 2; }
echo "run: QEMU accelerator $UMBRA_ACCEL ($UMBRA_ACCEL_WHY), firmware $firmware"
machine_accel_args max
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
machine_firmware "$firmware" "$work" || exit 2
timeout 300 qemu-system-x86_64 "${ACCEL_ARGS[@]}" "${FIRMWARE_ARGS[@]}" -machine q35 -smp 4 \
  -m 256M -cdrom "$iso" -boot d -display none -serial stdio -monitor none -no-reboot \
  -device isa-debug-exit,iobase=0xf4,iosize=0x04
