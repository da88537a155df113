# SPDX-License-Identifier: GPL-2.0-only
# make bench: the benchmark guest in every mode (tests/bench/run.sh); a smoke run in make test.
BENCH_OUT := $(BUILD)/bench
BENCH_IMAGE := $(BENCH_OUT)/bench64.elf
# The QEMU TCG plugin that counts Umbra's instructions per exit (tests/bench/exitcount.c),
# built against QEMU 7.2's plugin header (tests/bench/qemu/, GPL-2.0-or-later, with its COPYING).
# Defined before any rule names it: make expands prerequisites as it reads them.
BENCH_PLUGIN := $(BENCH_OUT)/exitcount.so

$(BENCH_OUT)/bench64.o: tests/bench/bench.c $(GUEST_LIB_HDR)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(GUEST_CFLAGS) $(GUEST_CFLAGS_64) -DGUEST_MODE=PM_64 -DGUEST_NAME='"bench"' -c $< -o $@
$(BENCH_IMAGE): $(BENCH_OUT)/bench64.o $(GUEST_LIB_OBJ_64) tests/guests/lib/guest.ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(GUEST_CFLAGS_64) $(GUEST_LDFLAGS) -o $@64 $< $(GUEST_LIB_OBJ_64) -lgcc
	$(Q)objcopy -O elf32-i386 $@64 $@

.PHONY: bench check-bench
bench: deps $(BUILD)/umbra.elf $(BENCH_IMAGE) $(BENCH_PLUGIN) bench-mmu
	@tests/bench/run.sh full $(BENCH_OUT)

SUITES += check-bench
check-bench: $(BUILD)/umbra.elf $(BENCH_IMAGE) $(BENCH_PLUGIN)
	@tests/bench/run.sh smoke $(BENCH_OUT)/smoke

$(BENCH_PLUGIN): tests/bench/exitcount.c tests/bench/qemu/qemu-plugin.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(HOSTCC) -std=gnu11 -O2 $(WARN) -shared -fPIC -fvisibility=hidden -Itests/bench/qemu -o $@ $<
