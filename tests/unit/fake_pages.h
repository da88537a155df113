/* SPDX-License-Identifier: GPL-2.0-only */
/* Fake physical memory for the IOMMU drivers' host tests: pages by address, a limit, a live count. */
#ifndef TESTS_UNIT_FAKE_PAGES_H
#define TESTS_UNIT_FAKE_PAGES_H

#include <stdbool.h>
#include "arch/x86/iommu_pt.h"

/* Pages at FAKE_PA_BASE + 4 KiB * i, at most fake_limit of them live. */
#define FAKE_PA_BASE 0x10000000ull
#define FAKE_NPAGES 1024

extern u32 fake_live, fake_limit;
extern const struct iommu_mem fake_mem;

/* All pages free, the limit at FAKE_NPAGES. */
void fake_pages_reset(void);
/* The page holding pa is allocated (a table pointer a unit could follow). */
bool fake_page_live(u64 pa);
/* A pointer to pa, which must be in a live page. */
void *fake_p2v(void *ctx, u64 pa);

#endif
