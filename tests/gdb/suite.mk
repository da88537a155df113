# SPDX-License-Identifier: GPL-2.0-only
# check-gdb: real gdb against a guest through the gdb stub on COM2 (tests/gdb/run.sh).
SUITES += check-gdb
.PHONY: debug
# make debug GUEST=NAME [GDB_ARGS=...]: boot/grub.cfg's guests with NAME held for gdb (README).
debug: $(BUILD)/umbra.elf $(DEMO_GUESTS)
	@tests/gdb/debug.sh $(BUILD) $(BUILD)/umbra.elf "$(GUEST)" $(GDB_ARGS)
.PHONY: check-gdb
check-gdb: $(BUILD)/umbra.elf $(patsubst %,$(BUILD)/mb1/%.elf,gdbtarget gdbtarget64 exceptions32 exceptions64)
	@tests/gdb/run.sh $(BUILD)/mb1
