# SPDX-License-Identifier: GPL-2.0-only
# check-trace: exit traces recorded, dumped and converted (tests/trace/cases.sh).
SUITES += check-trace
.PHONY: check-trace
check-trace: $(BUILD)/umbra.elf guests $(BENCH_PLUGIN)
	@tests/trace/cases.sh

# Not in make test: Debian's kernel booted with its exits traced (build/trace/linux-boot.*);
# PLUGIN=1: under the instruction-counting plugin, the costs in Umbra's instructions.
.PHONY: trace-linux
trace-linux: deps $(BUILD)/umbra.elf $(LINUX_IMAGES) $(if $(filter 1,$(PLUGIN)),$(BENCH_PLUGIN))
	@PLUGIN=$(PLUGIN) tests/trace/linux.sh $(LINUX_OUT) $(BUILD)/trace
