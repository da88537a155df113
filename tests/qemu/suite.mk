# SPDX-License-Identifier: GPL-2.0-only
# check-qemu: Umbra on QEMU TCG (SVM), plus the harness self-test with a faulting build.
SUITES += check-qemu
.PHONY: check-qemu

# The self-test image: the same kernel built to take a #PF right after paging is set up.
$(BUILD)/fault/umbra.elf: $(KSRC) linker.ld
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/fault EXTRA_KCFLAGS=-DUMBRA_TEST_FAULT \
	  $(BUILD)/fault/umbra.elf

# The entry check's test image: mmu_load leaves the Accessed bits QEMU TCG sets in the shadow
# PDPTEs, which TCG's VMRUN takes and audit=1's check must refuse.
$(BUILD)/keep-pdpte-a/umbra.elf: $(KSRC) linker.ld
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/keep-pdpte-a \
	  EXTRA_KCFLAGS=-DUMBRA_TEST_KEEP_PDPTE_A $(BUILD)/keep-pdpte-a/umbra.elf

# The PVH images (tests/mb1) are the healthy guests of qemu-bad-pvh and the base of its bad ones.
check-qemu: $(BUILD)/umbra.elf $(BUILD)/fault/umbra.elf $(BUILD)/keep-pdpte-a/umbra.elf guests $(BUILD)/mb1/pvh.elf \
	    $(BUILD)/mb1/pvh64.elf $(BUILD)/mb1/bios.elf $(KVM_PROBE)
	@KVM_PROBE=$(KVM_PROBE) tests/qemu/cases.sh $(BUILD)/fault/umbra.elf
