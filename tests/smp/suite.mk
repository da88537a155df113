# SPDX-License-Identifier: GPL-2.0-only
# check-smp: guests with several vCPUs (vcpus=, cpus=) sharing page tables, on QEMU (SVM) and Bochs (VMX).
.PHONY: check-smp
SUITES += check-smp
check-smp: $(BUILD)/umbra.elf guests
	@tests/smp/cases.sh

# make soak-smp [ROUNDS=N]: the SMP guest's shootdown rounds for minutes (not in make test).
.PHONY: soak-smp
soak-smp: $(BUILD)/umbra.elf guests
	@ROUNDS=$(or $(ROUNDS),1500) tests/smp/soak.sh
