#!/usr/bin/env bash
set -u
. "$(dirname "$0")/../harness/suite-lib.sh"
L=build/linux
case_run linux-e1000e --cpu max --mem 384 --cmdline "timeout=200" --timeout 400 \
  --qemu-arg -device --qemu-arg intel-iommu \
  --module "$L/vmlinuz name=nic mem=160 pci=00:02.0 -- console=ttyS0 nic" \
  --module "$L/initrd.gz for=nic" --expect guests_passed=1
suite_end tmp
