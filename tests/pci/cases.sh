#!/usr/bin/env bash
# check-pci: what Umbra finds of the machine's PCI functions and IOMMUs, printed at boot.
set -u
. "$(dirname "$0")/../harness/suite-lib.sh"
healthy=${1:?usage: cases.sh HEALTHY_ELF}
dev() { for d in "$@"; do printf -- '--qemu-arg\n-device\n--qemu-arg\n%s\n' "$d"; done; }
mapfile -t EDU < <(dev edu,addr=5.0)
# A root port, a PCIe-to-PCI bridge behind it and two edu functions behind that: both DMA as
# the bridge's (secondary bus, 0, 0), which the walk must say.
mapfile -t BRIDGED < <(dev pcie-root-port,id=rp,chassis=1,addr=1c.0 \
  pcie-pci-bridge,bus=rp,id=pb edu,bus=pb,addr=1.0 edu,bus=pb,addr=2.0)

# q35: ECAM from the MCFG; edu's one 1 MiB memory BAR sized; a functions count.
case_run pci-q35-ecam --cpu max --module "$healthy name=a" "${EDU[@]}" \
  --expect guests_passed=1 --expect-log "^pci: ECAM at 0xb0000000, buses 00-ff" \
  --expect-log "^pci: 00:00.0 8086:29c0 class 060000 host-bridge" \
  --expect-log "^pci: 00:05.0 1234:11e8 class 00ff00$" \
  --expect-log "^pci:   bar0 mem32 0xfe[0-9a-f]+ size 0x100000$" \
  --expect-log "^pci: [0-9]+ functions" --expect-log "^iommu: no DMAR or IVRS: no IOMMU"
# Buses behind bridges, with the bus numbers the firmware gave and the DMA alias.
case_run pci-q35-bridges --cpu max --module "$healthy name=a" "${BRIDGED[@]}" \
  --expect guests_passed=1 \
  --expect-log "^pci: 00:1c.0 1b36:000c class 060400 bridge buses 01-02" \
  --expect-log "^pci: 01:00.0 1b36:000e class 060400 bridge buses 02-02" \
  --expect-log "^pci: 02:01.0 1234:11e8 class 00ff00 dma-alias 02:00.0" \
  --expect-log "^pci: 02:02.0 1234:11e8 class 00ff00 dma-alias 02:00.0"
# VT-d from the DMAR: QEMU lists each root-bus function, and the root port as a bridge scope
# that takes its buses along; every function is behind the unit.
case_run pci-q35-intel-iommu --cpu max --module "$healthy name=a" "${BRIDGED[@]}" \
  --qemu-arg -device --qemu-arg intel-iommu --expect guests_passed=1 \
  --expect-log "^iommu: unit 0 VT-d at 0xfed90000 segment 0, [0-9]+ ranges, 1 non-PCI scopes" \
  --expect-log "^iommu:   covers 00:1c.0-00:1c.0" --expect-log "^iommu:   covers 01:00.0-02:1f.7" \
  --expect-log "^iommu: 10 of 10 PCI functions behind an IOMMU"
# AMD-Vi from the IVRS: the IOMMU is itself a PCI function (class 0806).
case_run pci-q35-amd-iommu --cpu max --module "$healthy name=a" "${EDU[@]}" \
  --qemu-arg -device --qemu-arg amd-iommu --expect guests_passed=1 \
  --expect-log "^pci: 00:03.0 1022:0018 class 080600" \
  --expect-log "^iommu: unit 0 AMD-Vi at 0xfed80000 segment 0 \(itself 00:03.0\)" \
  --expect-log "^iommu:   covers 00:05.0-00:05.0" \
  --expect-log "^iommu: 8 of 8 PCI functions behind an IOMMU"
# Bochs' i440FX has no MCFG: configuration mechanism #1, the first 256 bytes.
case_run pci-bochs-cf8 --emu bochs --cpu corei7_haswell_4770 --module "$healthy name=a" \
  --expect guests_passed=1 --expect-log "^pci: configuration mechanism #1" \
  --expect-log "^pci: 00:00.0 8086:1237 class 060000 host-bridge" \
  --expect-log "^iommu: no DMAR or IVRS: no IOMMU" --timeout 300

suite_end pci
