/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest's PC board: which device model answers which port and MMIO range, and the IRQ wiring. */
#ifndef VMM_BOARD_H
#define VMM_BOARD_H

#include "lib/types.h"
#include "vmm/dev/board.h"

struct vm;
struct vcpu;

/* Power-on state of every device (the vm's memory size is known). */
void board_reset(struct vm *vm, u64 now_ns);
/* One IN or OUT of 1, 2 or 4 bytes. A device narrower than the access sees consecutive byte
 * accesses, as on the ISA bus; ports nobody models read as all ones and are listed in the
 * guest's report. */
u32 board_pio_in(struct vcpu *v, u16 port, unsigned size);
void board_pio_out(struct vcpu *v, u16 port, unsigned size, u32 val);
/* One access of 1-8 bytes within a page, outside guest RAM. */
void board_mmio_read(struct vcpu *v, u64 gpa, void *buf, unsigned len);
void board_mmio_write(struct vcpu *v, u64 gpa, const void *buf, unsigned len);
/* Time-driven device events up to now (timer ticks, console input) onto the IRQ lines. */
void board_update(struct vcpu *v, u64 now_ns);
/* When a device next needs board_update (absolute ns), or 0 if none will by itself. */
u64 board_next_event_ns(struct vcpu *v, u64 now_ns);

#endif
