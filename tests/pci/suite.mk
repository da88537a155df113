# SPDX-License-Identifier: GPL-2.0-only
# check-pci: host PCI enumeration and IOMMU discovery (DMAR, IVRS) on QEMU q35 (ECAM, bridges, edu, intel-iommu, amd-iommu) and Bochs (mechanism #1, no IOMMU).
# The guest side's cases run the edu guest (tests/guests/edu.c).
check-pci: export EDU_ELF := $(GUEST_OUT)/edu.elf
check-pci: export MSIX_ELF := $(GUEST_OUT)/msix.elf
check-pci: $(GUEST_OUT)/edu.elf $(GUEST_OUT)/msix.elf
SUITES += check-pci
.PHONY: check-pci

# The DMA test image: once the guests have ended, Umbra drives QEMU's edu devices itself
# (vmm/dma_selftest.c): DMA from a function nobody owns, and at Umbra's own addresses.
$(BUILD)/dmatest/umbra.elf: $(KSRC) linker.ld
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/dmatest EXTRA_KCFLAGS=-DUMBRA_TEST_DMA \
	  $(BUILD)/dmatest/umbra.elf

check-pci: $(BUILD)/umbra.elf $(BUILD)/dmatest/umbra.elf $(GUEST_OUT)/healthy.elf $(KVM_PROBE)
	@KVM_PROBE=$(KVM_PROBE) tests/pci/cases.sh $(GUEST_OUT)/healthy.elf $(BUILD)/dmatest/umbra.elf
