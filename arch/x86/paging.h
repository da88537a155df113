/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbra's own page tables: identity map of the low 4 GiB and of RAM above, NX data, read-only
 * text, no page 0. */
#ifndef ARCH_X86_PAGING_H
#define ARCH_X86_PAGING_H

#include "lib/types.h"

/* Below this, everything is identity mapped (RAM and device registers alike); above it, only
 * the RAM paging_map_ram was given. */
#define HOST_MAPPED_LIMIT (4ull << 30)
/* The identity map stays in the lower canonical half. */
#define HOST_MAP_END (1ull << 47)
#define LARGE_PAGE_SIZE 0x200000ull

void paging_init(void);
/* The CR3 value every CPU loads (below 4 GiB, as the AP trampoline needs). */
u64 paging_host_cr3(void);
/* Identity-maps RAM [start, end) above 4 GiB (2 MiB aligned) with 2 MiB pages, writable and NX,
 * taking the tables it needs from free RAM below 4 GiB (palloc_boot_take: boot only, before
 * palloc_finalize). Returns the end of what it mapped, short of end when no table page is left. */
u64 paging_map_ram(u64 start, u64 end);
/* Table pages paging_map_ram took. */
size_t paging_high_table_pages(void);
/* Marks [pa, pa+len) of the identity map uncached (device registers: ECAM, IOMMU units);
 * false if it lies outside the mapped 4 GiB or in the 4 KiB-mapped low region. Boot only,
 * before the APs start: they load the same tables. */
bool paging_map_uncached(u64 pa, u64 len);
/* Lets the CPU execute the low page at pa (the AP trampoline; a page below 8 MiB). */
void paging_allow_exec(u64 pa);

static inline void *phys_to_virt(u64 pa)
{
	return (void *)(uintptr_t)pa;
}
static inline u64 virt_to_phys(const void *va)
{
	return (u64)(uintptr_t)va;
}

#endif
