/* SPDX-License-Identifier: GPL-2.0-only */
/* Busy-wait delays timed by the PIT (channel 2), usable before any interrupt is set up. */
#ifndef ARCH_X86_DELAY_H
#define ARCH_X86_DELAY_H

#include "lib/types.h"

void udelay(u32 us);
static inline void mdelay(u32 ms)
{
	while (ms--)
		udelay(1000);
}

#endif
