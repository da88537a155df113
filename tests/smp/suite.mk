# check-smp: guests with several vCPUs (vcpus=, cpus=) sharing page tables, on QEMU (SVM) and Bochs (VMX).
.PHONY: check-smp
SUITES += check-smp
check-smp: $(BUILD)/umbra.elf guests
	@tests/smp/cases.sh
