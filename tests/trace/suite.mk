# check-trace: exit traces recorded, dumped and converted (tests/trace/cases.sh).
SUITES += check-trace
.PHONY: check-trace
check-trace: $(BUILD)/umbra.elf guests
	@tests/trace/cases.sh
