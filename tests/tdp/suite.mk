# SPDX-License-Identifier: GPL-2.0-only
# Host tests of the two-dimensional-paging MMU (mmu/tdp.c) on a fake platform (cmocka, ASan+UBSan).
TDP_OUT := $(BUILD)/host/tdp
TDP_BINS := $(TDP_OUT)/test_tdp

$(TDP_OUT)/test_tdp: tests/tdp/test_tdp.c mmu/tdp.c mmu/tdp.h mmu/platform.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ tests/tdp/test_tdp.c mmu/tdp.c $(HOSTLDLIBS) -lcmocka

.PHONY: check-tdp
SUITES += check-tdp
check-tdp: $(TDP_BINS)
	@tests/cmocka-run.sh tdp $(TDP_BINS)
