/* SPDX-License-Identifier: GPL-2.0-only */
/* Fake physical memory for the IOMMU drivers' host tests: pages by address, a limit, a live count. */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/harness.h"
#include "tests/unit/fake_pages.h"

static u8 (*pool)[4096];
static bool used[FAKE_NPAGES];
u32 fake_live, fake_limit;

void fake_pages_reset(void)
{
	if (!pool)
		pool = aligned_alloc(4096, sizeof(*pool) * FAKE_NPAGES);
	memset(used, 0, sizeof(used));
	fake_live = 0;
	fake_limit = FAKE_NPAGES;
}

/* n free pages in a row starting on a multiple of n, or 0. */
static u64 fake_alloc_contig(void *ctx, u32 n)
{
	(void)ctx;
	if (fake_live + n > fake_limit)
		return 0;
	for (u32 i = 0; i + n <= FAKE_NPAGES; i += n) {
		u32 k = 0;
		while (k < n && !used[i + k])
			k++;
		if (k < n)
			continue;
		for (k = 0; k < n; k++) {
			used[i + k] = true;
			memset(pool[i + k], 0, 4096);
		}
		fake_live += n;
		return FAKE_PA_BASE + 4096ull * i;
	}
	return 0;
}

static u64 fake_alloc(void *ctx)
{
	return fake_alloc_contig(ctx, 1);
}

static void fake_free(void *ctx, u64 pa)
{
	(void)ctx;
	u32 i = (u32)((pa - FAKE_PA_BASE) / 4096);
	assert_true(pa >= FAKE_PA_BASE && i < FAKE_NPAGES && used[i]);
	used[i] = false;
	fake_live--;
}

bool fake_page_live(u64 pa)
{
	u64 i = (pa - FAKE_PA_BASE) / 4096;
	return pa >= FAKE_PA_BASE && i < FAKE_NPAGES && used[i];
}

void *fake_p2v(void *ctx, u64 pa)
{
	(void)ctx;
	assert_true(fake_page_live(pa));
	return pool[(pa - FAKE_PA_BASE) / 4096] + (pa & 0xfff);
}

const struct iommu_mem fake_mem = {
	.alloc = fake_alloc, .free = fake_free, .p2v = fake_p2v, .alloc_contig = fake_alloc_contig
};
