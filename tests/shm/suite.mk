# SPDX-License-Identifier: GPL-2.0-only
# check-shm: guests sharing memory (vmm/shm.c), with the shm guest (tests/guests/shm.c), on SVM
# (QEMU) and VMX (Bochs).
check-shm: export SHM_ELF := $(GUEST_OUT)/shm32.elf
check-shm: $(BUILD)/umbra.elf $(GUEST_OUT)/shm32.elf $(GUEST_OUT)/healthy.elf
	@tests/shm/cases.sh $(GUEST_OUT)/healthy.elf
SUITES += check-shm
.PHONY: check-shm

# make bench-shm (part of make bench): messages per exit of the two-guest exchange.
.PHONY: bench-shm
bench-shm: deps $(BUILD)/umbra.elf $(GUEST_OUT)/shm32.elf
	@tests/shm/bench.sh $(GUEST_OUT)/shm32.elf $(BUILD)/bench
bench: bench-shm
