/* SPDX-License-Identifier: GPL-2.0-only */
/* PIT channel 2 one-shot countdowns: exact enough for INIT/SIPI waits, with no calibration. */
#include "arch/x86/delay.h"
#include "arch/x86/cpu.h"

#define PIT_HZ 1193182u

static void pit_wait_ticks(u32 ticks)
{
	/* Gate channel 2 on, speaker off; mode 0 raises OUT2 (port 0x61 bit 5) at terminal count. */
	outb(0x61, (inb(0x61) & ~0x02) | 0x01);
	outb(0x43, 0xb0);
	outb(0x42, ticks & 0xff);
	outb(0x42, (ticks >> 8) & 0xff);
	/* Bounded so a missing PIT cannot hang bring-up. */
	for (u32 i = 0; i < 10000000u && !(inb(0x61) & 0x20); i++)
		;
}

void udelay(u32 us)
{
	while (us) {
		u32 chunk = us > 50000 ? 50000 : us;
		u32 ticks = (u32)(((u64)chunk * PIT_HZ) / 1000000u);
		pit_wait_ticks(ticks ? ticks : 1);
		us -= chunk;
	}
}
