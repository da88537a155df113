# SPDX-License-Identifier: GPL-2.0-only
# Umbra under KVM's nested SVM, KVM itself inside QEMU TCG (tests/kvm/): make check-kvm.
# Not in SUITES, nor in .ci/run: its four cases take longer than a CI run may (docs/testing.md).
KVM_OUT := $(BUILD)/kvm

# L1's initramfs takes the kernel package tests/linux/prepare.sh downloaded into $(BUILD)/linux
# (that fragment is included after this one: its variables are not set yet here).
$(KVM_OUT)/initrd.gz: tests/kvm/prepare.sh tests/kvm/init $(BUILD)/linux/initrd.gz
	@mkdir -p $(dir $@)
	@tests/kvm/prepare.sh $(KVM_OUT) $(BUILD)/linux

.PHONY: check-kvm
check-kvm: $(BUILD)/umbra.elf $(DEMO_GUESTS) $(BUILD)/linux/initrd.gz $(KVM_OUT)/initrd.gz
	@KVM_ONLY='$(KVM_ONLY)' tests/kvm/cases.sh $(KVM_OUT) $(BUILD)/linux
