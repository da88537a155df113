/* SPDX-License-Identifier: GPL-2.0-only */
/* What the VT-d and AMD-Vi drivers share: the page allocator they are given and a guest's DMA page table. */
#ifndef ARCH_X86_IOMMU_PT_H
#define ARCH_X86_IOMMU_PT_H

#include "lib/types.h"

/* How the tables get memory: zeroed pages by physical address, and a pointer to each. */
struct iommu_mem {
	u64 (*alloc)(void *ctx); /* one zeroed 4 KiB page, 0 when none is left */
	void (*free)(void *ctx, u64 pa);
	void *(*p2v)(void *ctx, u64 pa);
	void *ctx;
	/* n zeroed pages, contiguous and aligned to n (a power of two), 0 when none are; only
	 * AMD-Vi needs it (its device table is one block). Freed page by page. */
	u64 (*alloc_contig)(void *ctx, u32 n);
};

/* One domain: a page table in the unit's format and the domain ID its device entries carry. */
struct iommu_pt {
	u64 root;  /* physical address of the top table */
	u8 levels; /* 3 (39-bit) or 4 (48-bit) */
	u16 did;
	u64 table_pages;
	u64 mapped; /* bytes */
};

/* How a format marks its entries: what says present, a directory entry's bits beside the next
 * table's address (level is the directory's own, 2 and up), and a leaf's beside the page's. */
struct iommu_pt_format {
	u64 present;
	u64 (*dir)(u32 level);
	u64 leaf_rights; /* the rights bits a leaf may carry */
	u64 leaf;	 /* bits every leaf carries */
};

#define IOMMU_PT_ADDR_MASK 0x000ffffffffff000ull

/* An empty domain of 3 (39-bit) or 4 (48-bit) levels, 4 KiB pages, 512 entries a table; -1
 * for another depth or without memory. */
int iommu_pt_init(struct iommu_pt *d, const struct iommu_mem *m, u8 levels, u16 did);
/* Maps [gpa, gpa + len) to hpa, 4 KiB pages, with rights (a subset of f->leaf_rights); -1 when
 * unaligned, beyond what the levels reach, or a table's memory ran out (what was mapped stays,
 * iommu_pt_free takes it back). */
int iommu_pt_map(struct iommu_pt *d, const struct iommu_mem *m, const struct iommu_pt_format *f,
		 u64 gpa, u64 hpa, u64 len, u64 rights);
void iommu_pt_free(struct iommu_pt *d, const struct iommu_mem *m, const struct iommu_pt_format *f);

#endif
