# SPDX-License-Identifier: GPL-2.0-only
# Shadow MMU host suite: mmu/*.c unchanged + the harness, under ASan+UBSan, plus the -O2 fuzz.
#
#   make check-mmu          scenarios (cmocka), 1,000,000-op differential fuzz with audit,
#                           over guests of 2, 3 and 4 vCPUs (OPS in total)
#   make mmu-soak OPS=100000000 SEED=1   the long soak (prints the mmu-fuzz line; ~25 min here)
#   make mmu-fuzz OPS=N SEED=S VCPUS=V   replay a run (a failure prints its seed and op index)
#   make bench-mmu          callgrind instruction counts per fault fill, CR3 switch, PT write, zap
MMU_OUT := $(BUILD)/host/mmu
MMU_LIB := $(wildcard mmu/*.c)
MMU_HARNESS := tests/mmu/harness.c tests/mmu/cpu.c tests/mmu/ref.c tests/mmu/guest.c \
               tests/unit/harness.c lib/printf.c
MMU_DEPS := $(MMU_LIB) $(MMU_HARNESS) $(wildcard mmu/*.h tests/mmu/*.h lib/*.h)
MMU_FAST_CFLAGS := -std=gnu11 -O2 -g $(WARN) -I. -DUMBRA_HOST
OPS ?= 1000000
SEED ?= 1
VCPUS ?= 2

$(MMU_OUT)/test_scenarios: tests/mmu/test_scenarios.c $(MMU_DEPS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $< $(MMU_LIB) $(MMU_HARNESS) $(HOSTLDLIBS) -lcmocka

# The fuzz engine twice: sanitized (short runs in the cmocka suite) and -O2 (the long runs).
$(MMU_OUT)/test_fuzz_asan: tests/mmu/test_fuzz.c tests/mmu/fuzz.c $(MMU_DEPS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $< tests/mmu/fuzz.c $(MMU_LIB) $(MMU_HARNESS) $(HOSTLDLIBS) -lcmocka

$(MMU_OUT)/mmu_fuzz: tests/mmu/fuzz_main.c tests/mmu/fuzz.c $(MMU_DEPS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(MMU_FAST_CFLAGS) -o $@ $< tests/mmu/fuzz.c $(MMU_LIB) $(MMU_HARNESS)

$(MMU_OUT)/mmu_bench: tests/mmu/bench.c $(MMU_DEPS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(MMU_FAST_CFLAGS) -o $@ $< $(MMU_LIB) $(MMU_HARNESS)

MMU_BINS := $(MMU_OUT)/test_scenarios $(MMU_OUT)/test_fuzz_asan

.PHONY: check-mmu mmu-fuzz mmu-soak bench-mmu
SUITES += check-mmu
check-mmu: $(MMU_BINS) $(MMU_OUT)/mmu_fuzz
	@tests/mmu/run.sh $(MMU_OUT) $(OPS) $(SEED)

mmu-fuzz: $(MMU_OUT)/mmu_fuzz
	$(MMU_OUT)/mmu_fuzz --ops $(OPS) --seed $(SEED) --vcpus $(VCPUS)

mmu-soak: $(MMU_OUT)/mmu_fuzz
	$(MMU_OUT)/mmu_fuzz --ops $(OPS) --seed $(SEED) --vcpus $(VCPUS)

bench-mmu: $(MMU_OUT)/mmu_bench
	@tests/mmu/bench.sh $(MMU_OUT)/mmu_bench
