# check-gdb: real gdb against a guest through the gdb stub on COM2 (tests/gdb/run.sh).
SUITES += check-gdb
.PHONY: check-gdb
check-gdb: $(BUILD)/umbra.elf $(BUILD)/mb1/gdbtarget.elf
	@tests/gdb/run.sh $(BUILD)/mb1
