/* SPDX-License-Identifier: GPL-2.0-only */
/* Harness platform: host pages with fake hpas, guest memory slots (MMU copy + reference copy). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/assert.h"
#include "lib/printf.h"
#include "tests/mmu/harness.h"

#define HPA_BASE 0x1000000ull /* MMU pages: below 4 GiB, never 0 */
#define HPAGES_MAX 0x40000u

/* panic, kprintf and log_level come from tests/unit/harness.c, formatting from lib/printf.c. */

static void *h_alloc_page(void *ctx, u64 *hpa)
{
	struct harness *h = ctx;
	unsigned idx;
	void *p;

	if (h->page_limit >= 0 && h->hpages_live >= (unsigned)h->page_limit)
		return NULL;
	if (h->nhfree)
		idx = h->hfree[--h->nhfree];
	else if (h->nhpages < HPAGES_MAX)
		idx = h->nhpages++;
	else
		return NULL;
	p = aligned_alloc(PAGE_SIZE, PAGE_SIZE);
	ASSERT(p);
	memset(p, 0, PAGE_SIZE);
	h->hpages[idx] = p;
	h->hpages_live++;
	*hpa = HPA_BASE + ((u64)idx << PAGE_SHIFT);
	return p;
}

static void h_free_page(void *ctx, void *va, u64 hpa)
{
	struct harness *h = ctx;
	unsigned idx = (unsigned)((hpa - HPA_BASE) >> PAGE_SHIFT);

	ASSERT(hpa >= HPA_BASE && idx < h->nhpages && h->hpages[idx] == va);
	free(va);
	h->hpages[idx] = NULL;
	h->hfree[h->nhfree++] = idx;
	h->hpages_live--;
}

static struct h_slot *slot_of(struct harness *h, u64 gfn)
{
	unsigned i;

	for (i = 0; i < h->nslots; i++)
		if (gfn >= h->slot[i].s.base_gfn &&
		    gfn < h->slot[i].s.base_gfn + h->slot[i].s.npages)
			return &h->slot[i];
	return NULL;
}

static const struct mmu_slot *h_gfn_to_slot(void *ctx, u64 gfn)
{
	struct h_slot *s = slot_of(ctx, gfn);

	return s ? &s->s : NULL;
}

static const struct mmu_slot *h_slot_at(void *ctx, unsigned i)
{
	struct harness *h = ctx;

	return i < h->nslots ? &h->slot[i].s : NULL;
}

static u64 h_gfn_to_hpa(void *ctx UNUSED, const struct mmu_slot *s, u64 gfn)
{
	const struct h_slot *hs = (const struct h_slot *)s;

	return hs->hpa_base + ((gfn - s->base_gfn) << PAGE_SHIFT);
}

/* Host pointer of guest memory at gpa (the MMU's copy or the reference's), NULL in a hole. */
static u8 *gpa_ptr(struct harness *h, u64 gpa, bool ref)
{
	struct h_slot *s = slot_of(h, gpa >> PAGE_SHIFT);

	if (!s)
		return NULL;
	return (ref ? s->ref : s->mem) + (gpa - (s->s.base_gfn << PAGE_SHIFT));
}

/* The MMU's own reads and writes reach RAM only, as Umbra's (vmm/memslot.c): a device slot's
 * frames are registers, never page tables. */
static u8 *ram_ptr(struct harness *h, u64 gpa)
{
	struct h_slot *s = slot_of(h, gpa >> PAGE_SHIFT);

	return s && !s->s.device ? gpa_ptr(h, gpa, false) : NULL;
}

static int copy_gpa(struct harness *h, u64 gpa, void *buf, unsigned len, bool write)
{
	u8 *p = ram_ptr(h, gpa);

	ASSERT((gpa & (PAGE_SIZE - 1)) + len <= PAGE_SIZE);
	if (!p)
		return -1;
	if (write)
		memcpy(p, buf, len);
	else
		memcpy(buf, p, len);
	return 0;
}

static int h_read_gpa(void *ctx, u64 gpa, void *buf, unsigned len)
{
	return copy_gpa(ctx, gpa, buf, len, false);
}

static int h_write_gpa(void *ctx, u64 gpa, const void *buf, unsigned len)
{
	return copy_gpa(ctx, gpa, (void *)buf, len, true);
}

/* Locked as Umbra's (vmm/mmu_host.c) is: test_scenarios races it against another thread. */
static bool h_cmpxchg_gpa(void *ctx, u64 gpa, unsigned len, u64 *old, u64 new_val)
{
	u8 *p = ram_ptr(ctx, gpa);
	u64 o = *old;
	bool ok;

	if (!p || len != 8 || (gpa & 7)) {
		u64 cur = 0;
		if (!p)
			return false;
		memcpy(&cur, p, len);
		if (cur != *old) {
			*old = cur;
			return false;
		}
		memcpy(p, &new_val, len);
		return true;
	}
	ok = __atomic_compare_exchange_n((u64 *)(void *)p, &o, new_val, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST);
	*old = o;
	return ok;
}

/* The request reaches only the vCPU named: its modelled TLB forgets everything. */
static void h_flush_tlb(void *ctx, struct mmu_vcpu *vcpu)
{
	struct harness *h = ctx;
	unsigned v = (unsigned)(vcpu - h->vcpu);

	ASSERT(v < h->nvcpus);
	h->flushes++;
	memset(h->tlb[v], 0, sizeof(h->tlb[v]));
}

/* The harness's flushes take effect when posted: only counted. */
static void h_flush_wait(void *ctx)
{
	((struct harness *)ctx)->flush_waits++;
}

static const struct mmu_platform_ops h_ops = {
	.alloc_page = h_alloc_page,
	.free_page = h_free_page,
	.gfn_to_slot = h_gfn_to_slot,
	.slot_at = h_slot_at,
	.gfn_to_hpa = h_gfn_to_hpa,
	.read_gpa = h_read_gpa,
	.write_gpa = h_write_gpa,
	.cmpxchg_gpa = h_cmpxchg_gpa,
	.flush_tlb = h_flush_tlb,
	.flush_wait = h_flush_wait,
};

void h_init(struct harness *h, const struct mmu_config *cfg, unsigned nvcpus)
{
	unsigned i;

	memset(h, 0, sizeof(*h));
	h->page_limit = -1;
	h->hpages = calloc(HPAGES_MAX, sizeof(void *));
	h->hfree = calloc(HPAGES_MAX, sizeof(unsigned));
	ASSERT(h->hpages && h->hfree && nvcpus <= H_MAX_VCPUS);
	ASSERT(mmu_vm_init(&h->vm, &h_ops, h, cfg) == MMU_OK);
	h->nvcpus = nvcpus;
	for (i = 0; i < nvcpus; i++)
		ASSERT(mmu_vcpu_init(&h->vcpu[i], &h->vm) == MMU_OK);
}

void h_fini(struct harness *h)
{
	unsigned i;

	for (i = 0; i < h->nvcpus; i++)
		mmu_vcpu_destroy(&h->vcpu[i]);
	mmu_vm_destroy(&h->vm);
	ASSERT(h->hpages_live == 0);
	for (i = 0; i < h->nslots; i++) {
		free(h->slot[i].mem);
		free(h->slot[i].ref);
		free(h->slot[i].s.frames);
	}
	free(h->hpages);
	free(h->hfree);
}

void h_add_slot(struct harness *h, u64 base_gfn, u64 npages)
{
	struct h_slot *s = &h->slot[h->nslots];

	ASSERT(h->nslots < H_MAX_SLOTS);
	s->s.base_gfn = base_gfn;
	s->s.npages = npages;
	s->s.frames = calloc(npages, sizeof(struct mmu_frame));
	s->mem = calloc(npages, PAGE_SIZE);
	s->ref = calloc(npages, PAGE_SIZE);
	s->hpa_base = (u64)(h->nslots + 1) << 32;
	ASSERT(s->s.frames && s->mem && s->ref);
	h->nslots++;
}

void h_add_device_slot(struct harness *h, u64 base_gfn, u64 npages)
{
	h_add_slot(h, base_gfn, npages);
	h->slot[h->nslots - 1].s.device = true;
}

void h_phys_write(struct harness *h, u64 gpa, unsigned len, u64 value)
{
	u8 *r = gpa_ptr(h, gpa, true);

	ASSERT(mmu_write(&h->vm, gpa, len, value) == MMU_OK);
	if (r)
		memcpy(r, &value, len);
}

u64 h_phys_read(struct harness *h, u64 gpa, unsigned len, bool ref)
{
	u8 *p = gpa_ptr(h, gpa, ref);
	u64 v = 0;

	if (p)
		memcpy(&v, p, len);
	return v;
}

bool h_mem_equal(struct harness *h, u64 *where)
{
	unsigned i;
	u64 off;

	for (i = 0; i < h->nslots; i++) {
		struct h_slot *s = &h->slot[i];

		if (!memcmp(s->mem, s->ref, s->s.npages * PAGE_SIZE))
			continue;
		for (off = 0; off < s->s.npages * PAGE_SIZE; off++)
			if (s->mem[off] != s->ref[off])
				break;
		*where = (s->s.base_gfn << PAGE_SHIFT) + off;
		return false;
	}
	return true;
}

unsigned h_audit(struct harness *h, bool print)
{
	char buf[2048];
	unsigned n = mmu_audit(&h->vm, buf, sizeof(buf));

	if (n && print)
		fprintf(stderr, "audit: %u errors\n%s", n, buf);
	return n;
}

/* Pointer behind a shadow entry's hpa: guest memory only (a leaf to an MMU page is a bug). */
u8 *h_hpa_ptr(struct harness *h, u64 hpa, bool want_guest)
{
	unsigned i;

	if (hpa < (1ull << 32)) {
		unsigned idx = (unsigned)((hpa - HPA_BASE) >> PAGE_SHIFT);

		if (want_guest || hpa < HPA_BASE || idx >= h->nhpages || !h->hpages[idx])
			return NULL;
		return (u8 *)h->hpages[idx] + (hpa & (PAGE_SIZE - 1));
	}
	for (i = 0; i < h->nslots; i++) {
		struct h_slot *s = &h->slot[i];

		if (want_guest && hpa >= s->hpa_base && hpa < s->hpa_base + s->s.npages * PAGE_SIZE)
			return s->mem + (hpa - s->hpa_base);
	}
	return NULL;
}

u64 h_hpa_to_gpa(struct harness *h, u64 hpa)
{
	for (unsigned i = 0; i < h->nslots; i++) {
		struct h_slot *s = &h->slot[i];

		if (hpa >= s->hpa_base && hpa < s->hpa_base + s->s.npages * PAGE_SIZE)
			return (s->s.base_gfn << PAGE_SHIFT) + (hpa - s->hpa_base);
	}
	return ~0ull;
}

u8 *h_gpa_ptr(struct harness *h, u64 gpa, bool ref)
{
	return gpa_ptr(h, gpa, ref);
}
