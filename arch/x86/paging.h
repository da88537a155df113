/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbra's own page tables: 4 GiB identity map with NX data, read-only text, no page 0. */
#ifndef ARCH_X86_PAGING_H
#define ARCH_X86_PAGING_H

#include "lib/types.h"

/* Physical memory Umbra can touch directly (identity mapped). */
#define HOST_MAPPED_LIMIT (4ull << 30)

void paging_init(void);
/* The CR3 value every CPU loads (below 4 GiB, as the AP trampoline needs). */
u64 paging_host_cr3(void);
/* Marks [pa, pa+len) of the identity map uncached (device registers: ECAM, IOMMU units);
 * false if it lies outside the mapped 4 GiB or in the 4 KiB-mapped low region. Boot only,
 * before the APs start: they load the same tables. */
bool paging_map_uncached(u64 pa, u64 len);
/* Lets the CPU execute the low page at pa (the AP trampoline; a page below 8 MiB). */
void paging_allow_exec(u64 pa);

static inline void *phys_to_virt(u64 pa) { return (void *)(uintptr_t)pa; }
static inline u64 virt_to_phys(const void *va) { return (u64)(uintptr_t)va; }

#endif
