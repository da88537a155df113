# SPDX-License-Identifier: GPL-2.0-only
# check-bochs: Umbra on Bochs (VMX on Haswell, SVM on Ryzen).
SUITES += check-bochs
.PHONY: check-bochs
check-bochs: $(BUILD)/umbra.elf guests $(BUILD)/mb1/realmode.elf
	@tests/bochs/cases.sh
