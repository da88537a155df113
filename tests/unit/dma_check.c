/* SPDX-License-Identifier: GPL-2.0-only */
/* What the IOMMU drivers' tests share: a guest's RAM, its domain, and a count of wrong translations through a unit's walk. */
#include "tests/unit/harness.h"
#include "tests/unit/dma_check.h"
#include "tests/unit/fake_pages.h"

const struct dma_range dma_ram[DMA_RAM_RANGES] = {
	{ 0x1000, 0x40001000, 0xfff000 },	  /* 16 MiB less the first page */
	{ 0x100000000ull, 0x80000000, 0x200000 }, /* a second slot above 4 GiB */
};

const u64 dma_probes[DMA_PROBES] = { 0,
				     0x1000000,
				     0x2000000 - 4096,
				     0x40000000,
				     0x7ffffff000ull,
				     0x8000000000ull,
				     0xfffffffff000ull,
				     0x1000000000000ull };

void dma_build(struct iommu_pt *d, const struct iommu_pt_format *f, u8 levels)
{
	assert_int_equal(iommu_pt_init(d, &fake_mem, levels, 7), 0);
	for (u32 i = 0; i < DMA_RAM_RANGES; i++)
		assert_int_equal(iommu_pt_map(d, &fake_mem, f, dma_ram[i].gpa, dma_ram[i].hpa,
					      dma_ram[i].len, f->leaf_rights),
				 0);
	assert_int_equal(d->mapped, dma_ram[0].len + dma_ram[1].len);
}

u32 dma_mismatches(dma_walk walk, const void *entry)
{
	u32 bad = 0;
	for (u32 i = 0; i < DMA_RAM_RANGES; i++)
		for (u64 off = 0; off < dma_ram[i].len; off += 4096)
			for (int w = 0; w < 2; w++) {
				u64 hpa = 0;
				bad += walk(entry, dma_ram[i].gpa + off + 0x18, w, &hpa) != 0 ||
				       hpa != dma_ram[i].hpa + off + 0x18;
			}
	for (u32 p = 0; p < DMA_PROBES; p++)
		for (int w = 0; w < 2; w++) {
			u64 hpa;
			bad += walk(entry, dma_probes[p], w, &hpa) == 0;
		}
	return bad;
}
