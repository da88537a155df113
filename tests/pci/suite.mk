# SPDX-License-Identifier: GPL-2.0-only
# check-pci: host PCI enumeration and IOMMU discovery (DMAR, IVRS) on QEMU q35 (ECAM, bridges, edu, intel-iommu, amd-iommu) and Bochs (mechanism #1, no IOMMU); a guest driving its assigned edu.
SUITES += check-pci
.PHONY: check-pci
check-pci: $(BUILD)/umbra.elf $(GUEST_OUT)/healthy.elf $(GUEST_OUT)/edu.elf $(KVM_PROBE)
	@KVM_PROBE=$(KVM_PROBE) tests/pci/cases.sh $(GUEST_OUT)/healthy.elf $(GUEST_OUT)/edu.elf
