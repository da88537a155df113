# SPDX-License-Identifier: GPL-2.0-only
# Host unit tests for lib/, the multiboot2 parser, the trampoline page choice, the harness's accelerator choice, the ACPI parser, the guest's ACPI tables, a guest's module-line options, guest memory slots and the MSR policy against CPUID, the backends' exit lists and entry checks (cmocka, ASan+UBSan).
UNIT_OUT := $(BUILD)/host/unit
UNIT_TESTS := printf string list_bitmap cmdline palloc memslot mb2 lowmem acpi acpi_tables abi_doc gdb_packet msr_policy exit_tables entry_checks pci iommu pci_assign guest_options vtd amdvi
UNIT_COMMON := tests/unit/harness.c lib/printf.c

# Per-test extra sources and flags.
unit_src_string := lib/string.c
unit_src_cmdline := lib/cmdline.c
unit_src_palloc := lib/palloc.c
unit_src_memslot := vmm/memslot.c lib/palloc.c
unit_cflags_memslot := -DMEMSLOT_LOW_MAX=0x400000ull
unit_src_mb2 := boot/mb2.c
unit_src_lowmem := boot/lowmem.c
unit_src_acpi := arch/x86/acpi.c
unit_src_acpi_tables := vmm/load/acpi_tables.c arch/x86/acpi.c arch/x86/pci.c
unit_src_pci := arch/x86/pci.c
unit_src_iommu := arch/x86/iommu.c arch/x86/dmar.c arch/x86/ivrs.c arch/x86/pci.c arch/x86/acpi.c
unit_src_pci_assign := vmm/pci_assign.c lib/cmdline.c $(unit_src_iommu)
# The guest's option parser alone: it fills a struct vm_config and never reaches vmm/vm.c.
unit_src_guest_options := vmm/guest_options.c $(unit_src_pci_assign)
unit_src_abi_doc := pv/classes.c
unit_src_entry_checks := arch/x86/svm_check.c arch/x86/vmx_check.c
unit_src_vtd := arch/x86/vtd.c arch/x86/vtd_tables.c arch/x86/iommu_pt.c tests/unit/fake_pages.c tests/unit/dma_check.c
unit_src_amdvi := arch/x86/amdvi.c arch/x86/amdvi_tables.c arch/x86/iommu_pt.c tests/unit/fake_pages.c tests/unit/dma_check.c
unit_src_gdb_packet := vmm/debug/gdb_packet.c lib/cmdline.c
# The MSR policy over the CPUID policy, with the APIC and KVM clock models behind it.
unit_src_msr_policy := vmm/msr.c vmm/cpuid.c vmm/dev/lapic.c vmm/kvmclock.c vmm/pv_eoi.c
# lib/string.c would clash with libc's names: build it (and its users here) under renames.
unit_cflags_string := -fno-builtin $(foreach f,memset memcpy memmove memcmp strlen strnlen strcmp strncmp strchr,-D$(f)=lib_$(f))
unit_libs_palloc := -pthread

define unit_rule
$(UNIT_OUT)/test_$(1): tests/unit/test_$(1).c $(UNIT_COMMON) $(unit_src_$(1)) $(wildcard tests/unit/*.h lib/*.h boot/*.h arch/x86/*.h pv/*.h vmm/*.h vmm/dev/*.h) docs/abi.md
	@mkdir -p $$(dir $$@)
	$$(HOSTCC) $$(HOSTCFLAGS) $(unit_cflags_$(1)) -o $$@ $$< $(UNIT_COMMON) $(unit_src_$(1)) $$(HOSTLDLIBS) $(unit_libs_$(1)) -lcmocka
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_rule,$(t))))

UNIT_BINS := $(patsubst %,$(UNIT_OUT)/test_%,$(UNIT_TESTS))

.PHONY: check-unit
SUITES += check-unit
# test_accel.sh: the harness's KVM/TCG choice on made-up hosts, with the real kvm-probe.
check-unit: $(UNIT_BINS) $(KVM_PROBE)
	@KVM_PROBE=$(KVM_PROBE) tests/cmocka-run.sh unit $(UNIT_BINS) tests/unit/test_accel.sh
