/* SPDX-License-Identifier: GPL-2.0-only */
/* Choice of the AP trampoline's page: below 1 MiB and free per the boot memory map. */
#ifndef BOOT_LOWMEM_H
#define BOOT_LOWMEM_H

#include "lib/types.h"

struct boot_info;

#define LOWMEM_LIMIT 0x100000ull /* a SIPI vector names a page below 1 MiB */

struct lowmem_range {
	u64 start, end; /* [start, end) */
};

/*
 * The lowest 4 KiB page in [4 KiB, 1 MiB) that lies wholly inside an available entry of
 * bi's memory map, overlaps no other entry, and none of the nbusy ranges in busy (the
 * kernel, the boot information, the modules). Page 0 is never chosen: it stays unmapped
 * so NULL dereferences fault. Returns 0 when there is no such page.
 */
u64 lowmem_pick_page(const struct boot_info *bi, const struct lowmem_range *busy, u32 nbusy);

#endif
