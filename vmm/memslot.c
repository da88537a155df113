/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest RAM as contiguous host frames, so gpa -> hpa is one addition and bounds checks are cheap. */
#include "vmm/memslot.h"
#include "arch/x86/paging.h"
#include "lib/palloc.h"
#include "lib/string.h"

int memslots_init(struct memslots *m, u64 bytes)
{
	u64 npages = bytes >> PAGE_SHIFT;
	u64 frames_pages = ALIGN_UP(npages * sizeof(struct mmu_frame), PAGE_SIZE) >> PAGE_SHIFT;

	m->n = 0;
	m->bytes = 0;
	u64 ram = palloc_alloc_contig(npages, 512);
	if (!ram)
		ram = palloc_alloc_contig(npages, 1);
	if (!ram)
		return -1;
	u64 frames = palloc_alloc_contig(frames_pages, 1);
	if (!frames) {
		for (u64 i = 0; i < npages; i++)
			palloc_free(ram + (i << PAGE_SHIFT));
		return -1;
	}
	m->slot[0] = (struct mmu_slot){ .base_gfn = 0, .npages = npages,
					.frames = phys_to_virt(frames) };
	m->hpa[0] = ram;
	m->n = 1;
	m->bytes = bytes;
	return 0;
}

void memslots_free(struct memslots *m)
{
	for (u32 s = 0; s < m->n; s++) {
		u64 npages = m->slot[s].npages;
		u64 frames_pages = ALIGN_UP(npages * sizeof(struct mmu_frame), PAGE_SIZE) >> PAGE_SHIFT;
		for (u64 i = 0; i < npages; i++)
			palloc_free(m->hpa[s] + (i << PAGE_SHIFT));
		for (u64 i = 0; i < frames_pages; i++)
			palloc_free(virt_to_phys(m->slot[s].frames) + (i << PAGE_SHIFT));
	}
	m->n = 0;
}

const struct mmu_slot *memslots_find(const struct memslots *m, u64 gfn)
{
	for (u32 s = 0; s < m->n; s++)
		if (gfn - m->slot[s].base_gfn < m->slot[s].npages)
			return &m->slot[s];
	for (u32 s = 0; s < m->ndev; s++)
		if (gfn - m->dev[s].base_gfn < m->dev[s].npages)
			return &m->dev[s];
	return NULL;
}

const struct mmu_slot *memslots_at(const struct memslots *m, unsigned i)
{
	if (i < m->n)
		return &m->slot[i];
	i -= m->n;
	for (u32 s = 0; s < m->ndev; s++)
		if (m->dev[s].npages && !i--)
			return &m->dev[s];
	return NULL;
}

int memslots_dev_add(struct memslots *m, u64 hpa, u64 npages)
{
	u64 frames_pages = ALIGN_UP(npages * sizeof(struct mmu_frame), PAGE_SIZE) >> PAGE_SHIFT;
	if (m->ndev == MAX_DEVSLOTS)
		return -1;
	u64 frames = palloc_alloc_contig(frames_pages, 1);
	if (!frames)
		return -1;
	m->dev[m->ndev] = (struct mmu_slot){ .frames = phys_to_virt(frames), .device = true };
	m->dev_hpa[m->ndev] = hpa;
	m->dev_npages[m->ndev] = npages;
	return (int)m->ndev++;
}

/* The frames start zeroed at each placement: the MMU left them empty when the slot went, but
 * for the audit's marks, which name gfns of the old place. */
void memslots_dev_place(struct memslots *m, unsigned i, u64 gfn)
{
	memset(m->dev[i].frames, 0, m->dev_npages[i] * sizeof(struct mmu_frame));
	m->dev[i].base_gfn = gfn;
	m->dev[i].npages = m->dev_npages[i];
}

void memslots_dev_remove(struct memslots *m, unsigned i)
{
	m->dev[i].npages = 0;
}

void *memslots_ptr(const struct memslots *m, u64 gpa, u64 len)
{
	for (u32 s = 0; s < m->n; s++) {
		u64 base = m->slot[s].base_gfn << PAGE_SHIFT;
		u64 size = m->slot[s].npages << PAGE_SHIFT;
		if (gpa - base < size && len <= size - (gpa - base))
			return phys_to_virt(m->hpa[s] + (gpa - base));
	}
	return NULL;
}

u64 memslots_gfn_to_hpa(const struct memslots *m, const struct mmu_slot *s, u64 gfn)
{
	u64 base = s->device ? m->dev_hpa[s - m->dev] : m->hpa[s - m->slot];
	return base + ((gfn - s->base_gfn) << PAGE_SHIFT);
}
