/* SPDX-License-Identifier: GPL-2.0-only */
/* The reset control register at port 0xCF9 (Intel's PCH, PIIX4): a write with RST_CPU resets the machine. */
#include "vmm/dev/rcr.h"

#define RCR_SYS_RST (1u << 1)
#define RCR_RST_CPU (1u << 2)
#define RCR_FULL_RST (1u << 3)

void rcr_reset(struct rcr *r)
{
	r->val = 0;
}

u8 rcr_read(const struct rcr *r)
{
	return r->val;
}

bool rcr_write(struct rcr *r, u8 val)
{
	/* RST_CPU reads back 0: the reset it started has completed by the next read. */
	r->val = val & (RCR_SYS_RST | RCR_FULL_RST);
	return val & RCR_RST_CPU;
}
