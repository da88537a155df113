/* SPDX-License-Identifier: GPL-2.0-only */
/* What the IOMMU drivers' tests share: a guest's RAM, its domain, and a count of wrong translations through a unit's walk. */
#ifndef TESTS_UNIT_DMA_CHECK_H
#define TESTS_UNIT_DMA_CHECK_H

#include <stdbool.h>
#include "arch/x86/iommu_pt.h"

struct dma_range {
	u64 gpa, hpa, len;
};

#define DMA_RAM_RANGES 2
extern const struct dma_range dma_ram[DMA_RAM_RANGES];
/* Addresses outside dma_ram (next to it and far away); some beyond 3 and 4 levels' reach. */
#define DMA_PROBES 8
extern const u64 dma_probes[DMA_PROBES];

/* The walk a unit makes for one access through entry: 0 and *hpa when the access reaches
 * memory (translated or not), else why it faults. */
typedef int (*dma_walk)(const void *entry, u64 gpa, bool write, u64 *hpa);

/* dma_ram mapped read/write, 4 KiB pages, in a domain of the given depth and ID 7. */
void dma_build(struct iommu_pt *d, const struct iommu_pt_format *f, u8 levels);
/* Every page of dma_ram reaches its host page for reads and writes; every probe faults for
 * both. The number of wrong answers. */
u32 dma_mismatches(dma_walk walk, const void *entry);

#endif
