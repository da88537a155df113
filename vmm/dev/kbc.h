/* SPDX-License-Identifier: GPL-2.0-only */
/* The 8042 keyboard controller as far as kernels use it without a keyboard: reset and the A20 gate. */
#ifndef VMM_DEV_KBC_H
#define VMM_DEV_KBC_H

#include "lib/types.h"

#define KBC_DATA 0x60
#define KBC_CMD 0x64 /* reads: status */

struct kbc {
	u8 cmd_byte; /* the controller's command byte (0x20 reads it, 0x60 writes it) */
	u8 out_port; /* bit 0: the CPU's reset line (0 asserts it), bit 1: A20 */
	u8 pending;  /* a command waiting for its data byte on port 0x60 (0: none) */
	u8 data;     /* the output buffer */
	bool data_full;
	bool last_cmd; /* status bit 3: the last write went to the command port */
};

/* As the BIOS leaves it: system flag set, A20 on, nothing in the output buffer. */
void kbc_reset(struct kbc *k);
/* One byte in from KBC_DATA or KBC_CMD (status). */
u8 kbc_read(struct kbc *k, u16 port);
/* One byte out; true when it asked the controller to pulse the CPU's reset line (command 0xFE,
 * any pulse command with bit 0 clear, or an output port written with bit 0 clear). */
bool kbc_write(struct kbc *k, u16 port, u8 val);
/* The A20 gate as the guest last set it through the controller. */
bool kbc_a20(const struct kbc *k);

#endif
