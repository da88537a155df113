/* SPDX-License-Identifier: GPL-2.0-only */
/* Picks the AP trampoline's page from the boot memory map (BIOS e820 or UEFI, alike). */
#include "boot/lowmem.h"
#include "boot/mb2.h"

static bool overlaps(u64 a, u64 a_end, u64 b, u64 b_end)
{
	return a < b_end && b < a_end;
}

/* Under UEFI low memory is not all RAM: firmware keeps reserved and runtime pages there, and
 * the map, not a legacy layout, says which pages Umbra may write. */
static bool page_free(const struct boot_info *bi, u64 p, const struct lowmem_range *busy, u32 nbusy)
{
	u64 end = p + 0x1000;
	bool in_ram = false;

	for (u32 i = 0; i < bi->nmmap; i++) {
		const struct mb2_mmap_entry *e = &bi->mmap[i];
		u64 e_end = e->base + e->len < e->base ? ~0ull : e->base + e->len;
		if (!overlaps(p, end, e->base, e_end))
			continue;
		if (e->type != MB2_MMAP_AVAILABLE)
			return false;
		if (e->base <= p && end <= e_end)
			in_ram = true;
	}
	for (u32 i = 0; in_ram && i < nbusy; i++)
		if (overlaps(p, end, busy[i].start, busy[i].end))
			return false;
	return in_ram;
}

u64 lowmem_pick_page(const struct boot_info *bi, const struct lowmem_range *busy, u32 nbusy)
{
	for (u64 p = 0x1000; p < LOWMEM_LIMIT; p += 0x1000)
		if (page_free(bi, p, busy, nbusy))
			return p;
	return 0;
}
