/* SPDX-License-Identifier: GPL-2.0-only */
/* A DMA page table of 512-entry levels over 4 KiB pages, built in VT-d's or AMD-Vi's entry format. */
#include "arch/x86/iommu_pt.h"

#define PT_ENTRIES 512

int iommu_pt_init(struct iommu_pt *d, const struct iommu_mem *m, u8 levels, u16 did)
{
	*d = (struct iommu_pt){ .levels = levels, .did = did };
	if (levels != 3 && levels != 4)
		return -1;
	d->root = m->alloc(m->ctx);
	if (!d->root)
		return -1;
	d->table_pages = 1;
	return 0;
}

static u32 pt_index(u64 gpa, u32 level)
{
	return (u32)(gpa >> (12 + 9 * (level - 1))) & (PT_ENTRIES - 1);
}

/* The leaf entry for gpa, creating the tables on the way; NULL when a page ran out. */
static u64 *pt_leaf(struct iommu_pt *d, const struct iommu_mem *m, const struct iommu_pt_format *f,
		    u64 gpa)
{
	u64 *table = m->p2v(m->ctx, d->root);
	for (u32 level = d->levels; level > 1; level--) {
		u64 *e = &table[pt_index(gpa, level)];
		if (!(*e & f->present)) {
			u64 pa = m->alloc(m->ctx);
			if (!pa)
				return NULL;
			d->table_pages++;
			*e = pa | f->dir(level);
		}
		table = m->p2v(m->ctx, *e & IOMMU_PT_ADDR_MASK);
	}
	return &table[pt_index(gpa, 1)];
}

int iommu_pt_map(struct iommu_pt *d, const struct iommu_mem *m, const struct iommu_pt_format *f,
		 u64 gpa, u64 hpa, u64 len, u64 rights)
{
	if ((gpa | hpa | len) & 0xfff || gpa + len > 1ull << (12 + 9 * d->levels))
		return -1;
	for (u64 off = 0; off < len; off += 0x1000) {
		u64 *e = pt_leaf(d, m, f, gpa + off);
		if (!e)
			return -1;
		*e = (hpa + off) | (rights & f->leaf_rights) | f->leaf;
		d->mapped += 0x1000;
	}
	return 0;
}

static void pt_free(const struct iommu_mem *m, const struct iommu_pt_format *f, u64 pa, u32 level)
{
	const u64 *table = m->p2v(m->ctx, pa);
	for (u32 i = 0; level > 1 && i < PT_ENTRIES; i++)
		if (table[i] & f->present)
			pt_free(m, f, table[i] & IOMMU_PT_ADDR_MASK, level - 1);
	m->free(m->ctx, pa);
}

void iommu_pt_free(struct iommu_pt *d, const struct iommu_mem *m, const struct iommu_pt_format *f)
{
	if (d->root)
		pt_free(m, f, d->root, d->levels);
	d->root = 0;
	d->table_pages = 0;
	d->mapped = 0;
}
