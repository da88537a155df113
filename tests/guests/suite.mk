# SPDX-License-Identifier: GPL-2.0-only
# Guest test programs (tests/guests/): build rules and the check-guests-native suite.
# Natively (QEMU -kernel, no Umbra) each guest validates itself against the architecture.
GUEST_OUT := $(BUILD)/guests
GUEST_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-builtin -fno-pic \
                -fno-pie -nostdlib -fno-stack-protector -mgeneral-regs-only \
                -fno-asynchronous-unwind-tables -fno-strict-aliasing -I.
GUEST_CFLAGS_32 := -m32 -march=i686
GUEST_CFLAGS_64 := -m64 -mcmodel=small -mno-red-zone
GUEST_LDFLAGS := -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-z,max-page-size=0x1000 \
                 -Wl,-z,noexecstack -Wl,--no-warn-rwx-segments -T tests/guests/lib/guest.ld
GUEST_LIB_SRC := tests/guests/lib/entry.S tests/guests/lib/lib.c tests/guests/lib/paging.c
GUEST_LIB_HDR := $(wildcard tests/guests/lib/*.h) pv/abi.h

# name:source:arch:mode for every image.
GUEST_LIST := paging-off:paging-off:32:PM_OFF \
              perm32:perm:32:PM_32 permpae:perm:32:PM_PAE perm64:perm:64:PM_64 \
              ptwrite32:ptwrite:32:PM_32 ptwritepae:ptwrite:32:PM_PAE ptwrite64:ptwrite:64:PM_64 \
              ctxswitch32:ctxswitch:32:PM_32 ctxswitchpae:ctxswitch:32:PM_PAE \
              ctxswitch64:ctxswitch:64:PM_64 \
              fork-flood32:fork-flood:32:PM_32 fork-floodpae:fork-flood:32:PM_PAE \
              fork-flood64:fork-flood:64:PM_64 \
              invlpg-global32:invlpg-global:32:PM_32 invlpg-globalpae:invlpg-global:32:PM_PAE \
              invlpg-global64:invlpg-global:64:PM_64 \
              crash-triple:crash-triple:32:PM_OFF crash-scribble:crash-scribble:64:PM_64 \
              healthy:healthy:64:PM_64 \
              smp32:smp:32:PM_32 smppae:smp:32:PM_PAE
GUEST_NAMES := $(foreach g,$(GUEST_LIST),$(word 1,$(subst :, ,$(g))))
# Guests that reboot (Umbra restarts them): not run natively, where a reset ends QEMU.
GUEST_REBOOT_LIST := reboot:reboot:32:PM_OFF
# Guests of an assigned device (check-pci): only Umbra gives them their PCI bus.
GUEST_PCI_LIST := edu:edu:64:PM_64 msix:msix:64:PM_64 shm32:shm:32:PM_32
# Guests that must crash (triple fault): run, but must not pass.
GUEST_CRASH := crash-triple crash-scribble
# Guests also run with -cpu qemu64 (no SMEP, SMAP, 1G pages: the skip paths).
GUEST_QEMU64 := perm32 permpae perm64
# What the Umbra suites pass as modules (each wants mem=16 or more); the crash images are
# expected to end in a triple fault and never pass.
GUEST_IMAGES := $(patsubst %,$(GUEST_OUT)/%.elf,$(GUEST_NAMES))
GUEST_CRASH_IMAGES := $(patsubst %,$(GUEST_OUT)/%.elf,$(GUEST_CRASH))
export GUEST_IMAGES GUEST_CRASH_IMAGES

# The library, once per architecture.
define guest_lib_rule
$(GUEST_OUT)/lib$(1)/%.o: tests/guests/lib/% $(GUEST_LIB_HDR)
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  CC      $$< ($(1))")
	$$(Q)$$(CC) $$(GUEST_CFLAGS) $$(GUEST_CFLAGS_$(1)) -c $$< -o $$@
GUEST_LIB_OBJ_$(1) := $(patsubst tests/guests/lib/%,$(GUEST_OUT)/lib$(1)/%.o,$(GUEST_LIB_SRC))
endef
$(eval $(call guest_lib_rule,32))
$(eval $(call guest_lib_rule,64))

# name, source, arch, mode. 64-bit images are linked as ELF64 and converted: QEMU's multiboot
# loader takes ELF32 only, and the entry runs in 32-bit mode anyway.
define guest_rule
$(GUEST_OUT)/obj/$(1).o: tests/guests/$(2).c $(GUEST_LIB_HDR)
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  CC      $$< ($(1))")
	$$(Q)$$(CC) $$(GUEST_CFLAGS) $$(GUEST_CFLAGS_$(3)) -DGUEST_MODE=$(4) -DGUEST_NAME='"$(1)"' -c $$< -o $$@
$(GUEST_OUT)/$(1).elf: $(GUEST_OUT)/obj/$(1).o $$(GUEST_LIB_OBJ_$(3)) tests/guests/lib/guest.ld
	@$$(if $$(Q),echo "  LD      $$@")
	$$(Q)$$(CC) $$(GUEST_CFLAGS_$(3)) $$(GUEST_LDFLAGS) -o $$@$(if $(filter 64,$(3)),64) $$< $$(GUEST_LIB_OBJ_$(3)) -lgcc
	$(if $(filter 64,$(3)),$$(Q)objcopy -O elf32-i386 $$@64 $$@)
endef
$(foreach g,$(GUEST_LIST) $(GUEST_REBOOT_LIST) $(GUEST_PCI_LIST),$(eval $(call guest_rule,$(word 1,$(subst :, ,$(g))),$(word 2,$(subst :, ,$(g))),$(word 3,$(subst :, ,$(g))),$(word 4,$(subst :, ,$(g))))))

.PHONY: guests check-guests-native check-guests-bochs
guests: $(GUEST_IMAGES) $(GUEST_OUT)/reboot.elf

SUITES += check-guests-native
check-guests-native: guests
	@tests/guests/run-native.sh $(GUEST_OUT) "$(GUEST_NAMES)" "$(GUEST_CRASH)" "$(GUEST_QEMU64)"

# Not in SUITES (minutes, not seconds): the same guests under Bochs, BOCHS_CPU=ryzen for AMD.
check-guests-bochs: guests
	@tests/guests/run-bochs.sh $(GUEST_OUT) "$(GUEST_NAMES)" "$(GUEST_CRASH)" $(BOCHS_CPU)
