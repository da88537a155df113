# SPDX-License-Identifier: GPL-2.0-only
# check-attack: hostile guests beside a healthy one (tests/attack/): build rules and the suite.
# Guests of the library (tests/guests/suite.mk, read first), linked with tests/attack/attack.c.
ATTACK_OUT := $(BUILD)/attack
ATTACK_HDR := tests/attack/attack.h $(GUEST_LIB_HDR)

# name:source:arch:mode for every image.
ATTACK_LIST := dr:dr:64:PM_64 dbac64:dbac:64:PM_64 dbac32:dbac:32:PM_OFF \
               insn64:insn:64:PM_64 insn32:insn:32:PM_OFF \
               prefix32:prefix:32:PM_OFF prefix64:prefix:64:PM_64 pio:pio:64:PM_64 \
               ps32:ps:32:PM_32 pspae:ps:32:PM_PAE ps64:ps:64:PM_64 \
               console:console:32:PM_OFF rawterm:rawterm:32:PM_OFF stop:stop:64:PM_64 clock:clock:64:PM_64 \
               toctou:toctou:32:PM_OFF delivery:delivery:32:PM_OFF \
               share:share:32:PM_OFF
ATTACK_NAMES := $(foreach g,$(ATTACK_LIST),$(word 1,$(subst :, ,$(g))))
ATTACK_IMAGES := $(patsubst %,$(ATTACK_OUT)/%.elf,$(ATTACK_NAMES))

define attack_common_rule
$(ATTACK_OUT)/obj$(1)/attack.o: tests/attack/attack.c $(ATTACK_HDR)
	@mkdir -p $$(dir $$@)
	$$(Q)$$(CC) $$(GUEST_CFLAGS) $$(GUEST_CFLAGS_$(1)) -DGUEST_MODE=$(2) -c $$< -o $$@
endef
# attack.c builds its ring-3 pages per paging mode (PM_OFF: none; else its own space).
$(eval $(call attack_common_rule,32,PM_OFF))
$(eval $(call attack_common_rule,64,PM_64))
$(eval $(call attack_common_rule,32pg,PM_32))
$(eval $(call attack_common_rule,32pae,PM_PAE))
GUEST_CFLAGS_32pg := $(GUEST_CFLAGS_32)
GUEST_CFLAGS_32pae := $(GUEST_CFLAGS_32)
attack_obj = $(ATTACK_OUT)/obj$(if $(filter PM_32,$(2)),32pg,$(if $(filter PM_PAE,$(2)),32pae,$(1)))/attack.o

# name, source, arch, mode; 64-bit images become ELF32 as in tests/guests/suite.mk (QEMU's
# multiboot loader takes ELF32 only; the entry runs in 32-bit mode anyway).
define attack_rule
$(ATTACK_OUT)/obj/$(1).o: tests/attack/$(2).c $(ATTACK_HDR)
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  CC      $$< ($(1))")
	$$(Q)$$(CC) $$(GUEST_CFLAGS) $$(GUEST_CFLAGS_$(3)) -DGUEST_MODE=$(4) -DGUEST_NAME='"$(1)"' -c $$< -o $$@
$(ATTACK_OUT)/$(1).elf: $(ATTACK_OUT)/obj/$(1).o $(call attack_obj,$(3),$(4)) $$(GUEST_LIB_OBJ_$(3)) \
		       tests/guests/lib/guest.ld
	@$$(if $$(Q),echo "  LD      $$@")
	$$(Q)$$(CC) $$(GUEST_CFLAGS_$(3)) $$(GUEST_LDFLAGS) -o $$@$(if $(filter 64,$(3)),64) \
	  $$< $(call attack_obj,$(3),$(4)) $$(GUEST_LIB_OBJ_$(3)) -lgcc
	$(if $(filter 64,$(3)),$$(Q)objcopy -O elf32-i386 $$@64 $$@)
endef
attack_f = $(word $(2),$(subst :, ,$(1)))
$(foreach g,$(ATTACK_LIST),$(eval $(call attack_rule,$(call attack_f,$(g),1),$(call attack_f,$(g),2),$(call attack_f,$(g),3),$(call attack_f,$(g),4))))

.PHONY: attack-guests check-attack
attack-guests: $(ATTACK_IMAGES)

SUITES += check-attack
check-attack: $(BUILD)/umbra.elf guests $(ATTACK_IMAGES)
	@tests/attack/cases.sh $(ATTACK_OUT)
