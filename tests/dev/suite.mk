# SPDX-License-Identifier: GPL-2.0-only
# Host tests of the device models (vmm/dev/): cmocka, ASan+UBSan, a fake clock.
# tests/dev/test_X.c tests vmm/dev/X.c; both are found by name.
DEV_OUT := $(BUILD)/host/dev
DEV_TESTS := $(patsubst tests/dev/test_%.c,%,$(wildcard tests/dev/test_*.c))

# A model built from more than its own file names the others in DEV_EXTRA_<name>.
DEV_EXTRA_pci_bus := vmm/dev/pci_fn.c vmm/dev/pci_msi.c vmm/dev/pci_msix.c vmm/dev/msix.c
DEV_EXTRA_pci_msi := vmm/dev/pci_fn.c vmm/dev/pci_bus.c vmm/dev/pci_msix.c vmm/dev/msix.c
DEV_EXTRA_pci_msix := vmm/dev/pci_fn.c vmm/dev/pci_bus.c vmm/dev/pci_msi.c vmm/dev/msix.c
DEV_EXTRA_ivshmem := vmm/dev/msix.c

define dev_rule
$(DEV_OUT)/test_$(1): tests/dev/test_$(1).c vmm/dev/$(1).c $(DEV_EXTRA_$(1)) tests/unit/harness.c lib/printf.c $(wildcard vmm/dev/*.h lib/*.h tests/unit/*.h tests/dev/*.h)
	@mkdir -p $$(dir $$@)
	$$(HOSTCC) $$(HOSTCFLAGS) -o $$@ $$< vmm/dev/$(1).c $(DEV_EXTRA_$(1)) tests/unit/harness.c lib/printf.c $$(HOSTLDLIBS) -lcmocka
endef
$(foreach t,$(DEV_TESTS),$(eval $(call dev_rule,$(t))))

DEV_BINS := $(patsubst %,$(DEV_OUT)/test_%,$(DEV_TESTS))

.PHONY: check-dev
SUITES += check-dev
check-dev: $(DEV_BINS)
	@tests/cmocka-run.sh dev $(DEV_BINS)
