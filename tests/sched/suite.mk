# SPDX-License-Identifier: GPL-2.0-only
# check-sched: preemption and time budgets. Guests that spin from their first instruction share a
# CPU with a healthy guest, which must pass; guests that never end are cut off at their budget.
SCHED_OUT := $(BUILD)/sched
SCHED_IMAGES := $(SCHED_OUT)/spin-cli.elf $(SCHED_OUT)/spin-sti.elf $(SCHED_OUT)/input.elf \
  $(SCHED_OUT)/input-reset.elf

# A guest of the guest library (32-bit, paging off) that waits for typed input by interrupt.
$(SCHED_OUT)/input.elf: tests/sched/input.c $(GUEST_LIB_OBJ_32) $(GUEST_LIB_HDR) tests/guests/lib/guest.ld
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(GUEST_CFLAGS) $(GUEST_CFLAGS_32) -DGUEST_MODE=PM_OFF $(GUEST_LDFLAGS) -o $@ \
	  $< $(GUEST_LIB_OBJ_32) -lgcc

# The same guest resetting its FIFOs first, as a driver does, after input was typed ahead.
$(SCHED_OUT)/input-reset.elf: tests/sched/input.c $(GUEST_LIB_OBJ_32) $(GUEST_LIB_HDR) tests/guests/lib/guest.ld
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(GUEST_CFLAGS) $(GUEST_CFLAGS_32) -DGUEST_MODE=PM_OFF -DFIFO_RESET $(GUEST_LDFLAGS) \
	  -o $@ $< $(GUEST_LIB_OBJ_32) -lgcc

$(SCHED_OUT)/spin-cli.elf: tests/sched/spin.S
	@mkdir -p $(dir $@)
	$(Q)$(CC) -m32 -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-Ttext=0x100000 \
	  -Wl,-z,noexecstack -o $@ $<
$(SCHED_OUT)/spin-sti.elf: tests/sched/spin.S
	@mkdir -p $(dir $@)
	$(Q)$(CC) -m32 -DSTI -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-Ttext=0x100000 \
	  -Wl,-z,noexecstack -o $@ $<

.PHONY: check-sched
SUITES += check-sched
check-sched: $(BUILD)/umbra.elf guests $(SCHED_IMAGES)
	@tests/sched/cases.sh $(SCHED_OUT)
