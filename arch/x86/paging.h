/* Umbra's own page tables: 4 GiB identity map with NX data, read-only text, no page 0. */
#ifndef ARCH_X86_PAGING_H
#define ARCH_X86_PAGING_H

#include "lib/types.h"

/* Physical memory Umbra can touch directly (identity mapped). */
#define HOST_MAPPED_LIMIT (4ull << 30)

void paging_init(void);
/* The CR3 value every CPU loads (below 4 GiB, as the AP trampoline needs). */
u64 paging_host_cr3(void);
/* Lets the CPU execute the low page at pa (the AP trampoline; a page below 8 MiB). */
void paging_allow_exec(u64 pa);

static inline void *phys_to_virt(u64 pa) { return (void *)(uintptr_t)pa; }
static inline u64 virt_to_phys(const void *va) { return (u64)(uintptr_t)va; }

#endif
