# SPDX-License-Identifier: GPL-2.0-only
# check-trace: exit traces recorded, dumped and converted (tests/trace/cases.sh).
SUITES += check-trace
.PHONY: check-trace
check-trace: $(BUILD)/umbra.elf guests
	@tests/trace/cases.sh

# Not in make test: Debian's kernel booted with its exits traced (build/trace/linux-boot.*).
.PHONY: trace-linux
trace-linux: deps $(BUILD)/umbra.elf $(LINUX_IMAGES)
	@tests/trace/linux.sh $(LINUX_OUT) $(BUILD)/trace
