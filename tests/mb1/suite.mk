# SPDX-License-Identifier: GPL-2.0-only
# Multiboot v1 differential kernels (tests/mb1/): build rules and the check-mb1 suite.
# Each kernel boots under qemu -kernel and as a guest of Umbra; output and exit status must agree.
MB1_OUT := $(BUILD)/mb1
# name:source:arch:mode for every image (mode only matters to the paging kernels).
MB1_LIST := serial:serial:32:PM_OFF devices:devices:32:PM_OFF cpu:cpu:64:PM_64 cpu32:cpu:32:PM_OFF \
            unmodelled:unmodelled:32:PM_OFF boot:boot:32:PM_OFF \
            exceptions32:exceptions:32:PM_OFF exceptions64:exceptions:64:PM_64 \
            mmio32:mmio:32:PM_OFF mmio64:mmio:64:PM_64 \
            paging32:paging:32:PM_32 pagingpae:paging:32:PM_PAE paging64:paging:64:PM_64 \
            pit:pit:32:PM_OFF pic:pic:32:PM_OFF uart:uart:32:PM_OFF \
            lapic:lapic:32:PM_OFF lapic64:lapic:64:PM_64 \
            intr32:intr:32:PM_32 intrpae:intr:32:PM_PAE intr64:intr:64:PM_64 \
            pvh:pvh:32:PM_OFF pvh64:pvh:32:PM_OFF gdbtarget:gdbtarget:32:PM_OFF \
            gdbtarget64:gdbtarget:64:PM_64 realmode:realmode:32:PM_OFF \
            bios:bios:32:PM_OFF nmi:nmi:32:PM_OFF
MB1_NAMES := $(foreach k,$(MB1_LIST),$(firstword $(subst :, ,$(k))))
MB1_IMAGES := $(patsubst %,$(MB1_OUT)/%.elf,$(MB1_NAMES))

define mb1_common_rule
$(MB1_OUT)/obj$(1)/mb1.o: tests/mb1/mb1.c tests/mb1/mb1.h $(GUEST_LIB_HDR)
	@mkdir -p $$(dir $$@)
	$$(Q)$$(CC) $$(GUEST_CFLAGS) $$(GUEST_CFLAGS_$(1)) -c $$< -o $$@
endef
$(eval $(call mb1_common_rule,32))
$(eval $(call mb1_common_rule,64))

# The PVH kernels (pvh.c) link their own entry, with the Xen note and no multiboot header, by
# their own linker script; pvh64 is the same 32-bit code in an ELF64 file (an 8-byte note).
MB1_PVH := pvh pvh64
$(foreach k,$(MB1_PVH),$(eval MB1_EXTRA_$(k) := $(MB1_OUT)/obj/$(k)-entry.o))
$(foreach k,$(MB1_PVH),$(eval MB1_LDS_$(k) := tests/mb1/pvh.ld))
MB1_POST_pvh64 := elf64-x86-64
$(patsubst %,$(MB1_OUT)/obj/%-entry.o,$(MB1_PVH)): $(MB1_OUT)/obj/%-entry.o: tests/mb1/pvh_entry.S
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< ($*)")
	$(Q)$(CC) $(GUEST_CFLAGS) $(GUEST_CFLAGS_32) -DPVH_DESC_BYTES=$(if $(MB1_POST_$*),8,4) \
	  -c $< -o $@
# The real-mode kernel's 16-bit half (and its way down and up).
MB1_EXTRA_realmode := $(MB1_OUT)/obj/realmode16.o
$(MB1_OUT)/obj/realmode16.o: tests/mb1/realmode16.S
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(GUEST_CFLAGS) $(GUEST_CFLAGS_32) -c $< -o $@
# The BIOS kernel's 16-bit half.
MB1_EXTRA_bios := $(MB1_OUT)/obj/bios16.o
$(MB1_OUT)/obj/bios16.o: tests/mb1/bios16.S
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(GUEST_CFLAGS) $(GUEST_CFLAGS_32) -c $< -o $@
mb1_lds = $(or $(MB1_LDS_$(1)),tests/guests/lib/guest.ld)

# name, source, arch, mode; 64-bit images become ELF32 as in tests/guests/suite.mk.
define mb1_rule
$(MB1_OUT)/obj/$(1).o: tests/mb1/$(2).c tests/mb1/mb1.h $(GUEST_LIB_HDR)
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  CC      $$< ($(1))")
	$$(Q)$$(CC) $$(GUEST_CFLAGS) $$(GUEST_CFLAGS_$(3)) -DGUEST_MODE=$(4) -c $$< -o $$@
$(MB1_OUT)/$(1).elf: $(MB1_OUT)/obj/$(1).o $(MB1_EXTRA_$(1)) $(MB1_OUT)/obj$(3)/mb1.o \
		     $$(GUEST_LIB_OBJ_$(3)) $(call mb1_lds,$(1))
	@$$(if $$(Q),echo "  LD      $$@")
	$$(Q)$$(CC) $$(GUEST_CFLAGS_$(3)) $$(filter-out -T tests/guests/lib/guest.ld,$$(GUEST_LDFLAGS)) \
	  -T $(call mb1_lds,$(1)) -o $$@$(if $(filter 64,$(3)),64)$(if $(MB1_POST_$(1)),32) \
	  $$< $(MB1_EXTRA_$(1)) $(MB1_OUT)/obj$(3)/mb1.o $$(GUEST_LIB_OBJ_$(3)) -lgcc
	$(if $(filter 64,$(3)),$$(Q)objcopy -O elf32-i386 $$@64 $$@)
	$(if $(MB1_POST_$(1)),$$(Q)objcopy -O $(MB1_POST_$(1)) $$@32 $$@)
endef
# Field N of name:source:arch:mode, and the rules of one list entry.
mb1_f = $(word $(2),$(subst :, ,$(1)))
mb1_call = $(call mb1_rule,$(call mb1_f,$(1),1),$(call mb1_f,$(1),2),$(call mb1_f,$(1),3),$(call mb1_f,$(1),4))
$(foreach k,$(MB1_LIST),$(eval $(call mb1_call,$(k))))

.PHONY: mb1 check-mb1
mb1: $(MB1_IMAGES)

SUITES += check-mb1
check-mb1: $(BUILD)/umbra.elf mb1
	@tests/mb1/run.sh $(MB1_OUT)
