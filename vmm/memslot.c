/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest RAM in slots of contiguous host frames: one run below the PCI hole, runs above 4 GiB. */
#include "vmm/memslot.h"
#include "arch/x86/paging.h"
#include "lib/palloc.h"
#include "lib/string.h"

static u64 frames_pages(u64 npages)
{
	return ALIGN_UP(npages * sizeof(struct mmu_frame), PAGE_SIZE) >> PAGE_SHIFT;
}

static void free_run(u64 pa, u64 npages)
{
	for (u64 i = 0; i < npages; i++)
		palloc_free(pa + (i << PAGE_SHIFT));
}

/* One slot of npages at gfn from one host run, 2 MiB aligned where the host has such a run
 * (large pages in the nested tables and the IOMMU's); false without room. */
static bool add_slot(struct memslots *m, u64 gfn, u64 npages, bool exact)
{
	if (m->n == MAX_MEMSLOTS)
		return false;
	u64 ram = palloc_alloc_contig(npages, 512);
	if (!ram && exact)
		ram = palloc_alloc_contig(npages, 1);
	if (!ram)
		return false;
	u64 frames = palloc_alloc_contig(frames_pages(npages), 1);
	if (!frames) {
		free_run(ram, npages);
		return false;
	}
	m->slot[m->n] = (struct mmu_slot){ .base_gfn = gfn,
					   .npages = npages,
					   .frames = phys_to_virt(frames) };
	m->hpa[m->n++] = ram;
	return true;
}

int memslots_init(struct memslots *m, u64 bytes)
{
	u64 low = bytes < MEMSLOT_LOW_MAX ? bytes : MEMSLOT_LOW_MAX;

	m->n = 0;
	m->bytes = bytes;
	m->low_bytes = low;
	if (!add_slot(m, 0, low >> PAGE_SHIFT, true))
		return -1;
	/* Above 4 GiB: the largest runs the host has, halving down to 2 MiB, as many as slots allow. */
	u64 gfn = MEMSLOT_HIGH_BASE >> PAGE_SHIFT, left = (bytes - low) >> PAGE_SHIFT;
	u64 chunk = left;
	while (left) {
		if (chunk > left)
			chunk = left;
		if (add_slot(m, gfn, chunk, false)) {
			gfn += chunk;
			left -= chunk;
		} else if (chunk > 512) {
			chunk = ALIGN_UP(chunk / 2, 512);
		} else {
			memslots_free(m);
			return -1;
		}
	}
	return 0;
}

void memslots_free(struct memslots *m)
{
	for (u32 s = 0; s < m->n; s++) {
		free_run(m->hpa[s], m->slot[s].npages);
		free_run(virt_to_phys(m->slot[s].frames), frames_pages(m->slot[s].npages));
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
	if (m->ndev == MAX_DEVSLOTS)
		return -1;
	u64 frames = palloc_alloc_contig(frames_pages(npages), 1);
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
