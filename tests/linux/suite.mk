# SPDX-License-Identifier: GPL-2.0-only
# Debian's stock kernel as an Umbra guest (tests/linux/): the initramfs, check-linux, run-linux.
LINUX_OUT := $(BUILD)/linux
LINUX_IMAGES := $(LINUX_OUT)/vmlinuz $(LINUX_OUT)/vmlinux $(LINUX_OUT)/initrd.gz

# The helpers run in the guest's user space: static, no libc, 64-bit.
LINUX_HELPERS := $(LINUX_OUT)/result $(LINUX_OUT)/ubench $(LINUX_OUT)/ivshm $(LINUX_OUT)/memtest
$(LINUX_OUT)/%: tests/linux/%.c tests/linux/sys.h pv/abi.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -I. -ffreestanding -fno-builtin -nostdlib \
	  -static -fno-pie -no-pie -fno-stack-protector -Wl,--build-id=none -o $@ $<

# The kernel and busybox packages are downloaded once into $(LINUX_OUT)/cache.
$(LINUX_OUT)/initrd.gz: tests/linux/prepare.sh tests/linux/init $(LINUX_HELPERS)
	@tests/linux/prepare.sh $(LINUX_OUT) $(LINUX_HELPERS)
$(LINUX_OUT)/vmlinuz $(LINUX_OUT)/vmlinux: $(LINUX_OUT)/initrd.gz

.PHONY: check-linux run-linux bench-linux
SUITES += check-linux
check-linux: $(BUILD)/umbra.elf guests $(GUEST_OUT)/shm32.elf $(LINUX_IMAGES)
	@tests/linux/cases.sh $(LINUX_OUT)

# Two Linux guests over their own NICs, and the open start-up crash it exposes (not in make
# test: docs/testing.md, "Known open bugs"). PAIR_STARTS=N sets the number of short starts.
.PHONY: check-linux-pair
check-linux-pair: deps $(BUILD)/umbra.elf $(LINUX_IMAGES)
	@tests/linux/pair.sh $(LINUX_OUT)

# Interactive: Umbra in QEMU with one Linux guest; the terminal is its serial console.
run-linux: deps $(BUILD)/umbra.elf $(LINUX_IMAGES)
	@tests/linux/run.sh $(LINUX_OUT) $(or $(BOOT),bzimage)

# The Linux workloads in the four modes (part of make bench): build/bench/linux.csv.
bench-linux: deps $(BUILD)/umbra.elf $(LINUX_IMAGES) $(BENCH_PLUGIN)
	@tests/linux/bench.sh $(LINUX_OUT) $(BUILD)/bench
bench: bench-linux
