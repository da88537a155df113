/* SPDX-License-Identifier: GPL-2.0-only */
/* The reset control register at port 0xCF9 (Intel's PCH, PIIX4): a write with RST_CPU resets the machine. */
#ifndef VMM_DEV_RCR_H
#define VMM_DEV_RCR_H

#include "lib/types.h"

#define RCR_PORT 0xcf9
/* What a kernel writes to reset through it (Linux's "reboot=pci"; the FADT's RESET_VALUE). */
#define RCR_RESET_VALUE 0x06

struct rcr {
	u8 val; /* SYS_RST (bit 1) and FULL_RST (bit 3) as last written */
};

void rcr_reset(struct rcr *r);
u8 rcr_read(const struct rcr *r);
/* true when the write asks for a reset: RST_CPU (bit 2) set; bits 1 and 3 choose a hard or
 * soft, full or not reset, which here are all the same whole-guest reset. */
bool rcr_write(struct rcr *r, u8 val);

#endif
