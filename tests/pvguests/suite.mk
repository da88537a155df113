# SPDX-License-Identifier: GPL-2.0-only
# PV test guests (tests/pvguests/): build rules and the check-pv suite.
# Built like tests/guests (its flags and library objects, defined before this fragment), plus
# the guest-side PV library pv/guest/ and the shared test helpers here.
PV_OUT := $(BUILD)/pvguests
PV_LIB_SRC := pv/guest/pv_ops.c tests/pvguests/pvtest.c tests/pvguests/pvstub.S
PV_HDR := pv/guest/pv_ops.h tests/pvguests/pvtest.h $(GUEST_LIB_HDR)

# name:sources(+ separated):arch:mode for every image.
PV_LIST := pvconf32:conformance+user:32:PM_32 pvconfpae:conformance+user:32:PM_PAE \
           pvconf64:conformance+user:64:PM_64 \
           pvuser32:user-main+user:32:PM_32 pvuser64:user-main+user:64:PM_64 \
           pvmmu32:mmu:32:PM_32 pvmmupae:mmu:32:PM_PAE pvmmu64:mmu:64:PM_64 \
           pvtarget:target:64:PM_64
PV_NAMES := $(foreach g,$(PV_LIST),$(word 1,$(subst :, ,$(g))))
PV_IMAGES := $(patsubst %,$(PV_OUT)/%.elf,$(PV_NAMES))

define pv_lib_rule
PV_LIB_OBJ_$(1) := $(patsubst %,$(PV_OUT)/lib$(1)/%.o,$(PV_LIB_SRC))
$(PV_OUT)/lib$(1)/%.o: % $(PV_HDR)
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  CC      $$< ($(1))")
	$$(Q)$$(CC) $$(GUEST_CFLAGS) $$(GUEST_CFLAGS_$(1)) -c $$< -o $$@
endef
$(eval $(call pv_lib_rule,32))
$(eval $(call pv_lib_rule,64))

# name, sources, arch, mode; 64-bit images converted to ELF32 as in tests/guests.
define pv_rule
PV_OBJ_$(1) := $(patsubst %,$(PV_OUT)/obj/$(1)/%.o,$(subst +, ,$(2)))
$(PV_OUT)/obj/$(1)/%.o: tests/pvguests/%.c $(PV_HDR)
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  CC      $$< ($(1))")
	$$(Q)$$(CC) $$(GUEST_CFLAGS) $$(GUEST_CFLAGS_$(3)) -DGUEST_MODE=$(4) -DGUEST_NAME='"$(1)"' -c $$< -o $$@
$(PV_OUT)/$(1).elf: $$(PV_OBJ_$(1)) $$(PV_LIB_OBJ_$(3)) $$(GUEST_LIB_OBJ_$(3)) tests/guests/lib/guest.ld
	@$$(if $$(Q),echo "  LD      $$@")
	$$(Q)$$(CC) $$(GUEST_CFLAGS_$(3)) $$(GUEST_LDFLAGS) -o $$@$(if $(filter 64,$(3)),64) $$(PV_OBJ_$(1)) $$(PV_LIB_OBJ_$(3)) $$(GUEST_LIB_OBJ_$(3)) -lgcc
	$(if $(filter 64,$(3)),$$(Q)objcopy -O elf32-i386 $$@64 $$@)
endef
$(foreach g,$(PV_LIST),$(eval $(call pv_rule,$(word 1,$(subst :, ,$(g))),$(word 2,$(subst :, ,$(g))),$(word 3,$(subst :, ,$(g))),$(word 4,$(subst :, ,$(g))))))

.PHONY: pvguests check-pv
pvguests: $(PV_IMAGES)

SUITES += check-pv
check-pv: $(BUILD)/umbra.elf pvguests
	@tests/pvguests/cases.sh $(PV_OUT)
