/* SPDX-License-Identifier: GPL-2.0-only */
/* The software CPU: translates through the current shadow root like hardware, faults into the MMU. */
#include <string.h>
#include "lib/assert.h"
#include "tests/mmu/harness.h"

#define P BIT(0)
#define W BIT(1)
#define U BIT(2)
#define PS BIT(7)
#define NX BIT(63)
#define ADDR 0x000ffffffffff000ull
#define HW_BROKEN 0xffffffffu /* the shadow points somewhere it must not */
#define HW_OK 0xfffffffeu

/* The rights check of a translation (from a walk or the TLB) under the real control bits the
 * MMU's contract asks for: WP=1, NXE=1, SMEP/SMAP as the guest's while its paging is on. */
bool h_tlb_allows(const struct harness *h, unsigned v, const struct h_tlbe *e,
		  const struct h_access *a)
{
	const struct h_ctl *c = &h->ctl[v];
	bool paging = c->cr0 & BIT(31);
	bool smep = paging && (c->cr4 & BIT(20)), smap = paging && (c->cr4 & BIT(21));
	bool wr = a->kind == ACC_WRITE, fetch = a->kind == ACC_FETCH;

	if (a->user)
		return e->u && (!wr || e->w) && (!fetch || e->x);
	if (fetch)
		return e->x && !(smep && e->u);
	return !(smap && e->u && !a->ac) && (!wr || e->w);
}

/* Walk the current shadow root like hardware. Returns HW_OK with the translation, or the
 * hardware #PF error code. */
static u32 hw_translate(struct harness *h, unsigned v, const struct h_access *a, struct h_tlbe *t)
{
	struct mmu_vcpu *vc = &h->vcpu[v];
	bool wr = a->kind == ACC_WRITE, fetch = a->kind == ACC_FETCH;
	u32 ec = (wr ? 2 : 0) | (a->user ? 4 : 0) | (fetch ? 16 : 0);
	u64 table = mmu_root_hpa(vc), e = 0;
	int level = 4;

	t->w = t->u = t->x = true;
	if (mmu_root_is_pae(vc)) {
		u64 *root = (u64 *)h_hpa_ptr(h, table, false);

		if (!root)
			return HW_BROKEN;
		e = root[(a->gva >> 30) & 3];
		if (!(e & P))
			return ec;
		if (e & ~(ADDR | P))
			return HW_BROKEN; /* PAE PDPTEs: only P and the address */
		table = e & ADDR;
		level = 2;
	}
	for (; level >= 1; level--) {
		u64 *tb = (u64 *)h_hpa_ptr(h, table, false);

		if (!tb)
			return HW_BROKEN;
		e = tb[(a->gva >> (12 + 9 * (level - 1))) & 511];
		if (!(e & P))
			return ec;
		if (e & PS)
			return HW_BROKEN;
		t->w &= !!(e & W);
		t->u &= !!(e & U);
		t->x &= !(e & NX);
		table = e & ADDR;
	}
	if (!h_tlb_allows(h, v, t, a))
		return ec | 1;
	t->vpn = (a->gva >> 12) + 1;
	t->hpa = table;
	return HW_OK;
}

static struct h_tlbe *tlb_slot(struct harness *h, unsigned v, u64 gva)
{
	return &h->tlb[v][(gva >> 12) % H_TLB_ENTRIES];
}

/* The guest's access on the physical translation t (from the TLB or a walk). */
static bool do_access(struct harness *h, const struct h_access *a, const struct h_tlbe *t,
		      struct h_result *r)
{
	u8 *p = h_hpa_ptr(h, t->hpa | (a->gva & 0xfff), true);

	if (!p)
		return false; /* a shadow leaf that is not guest memory */
	r->kind = R_OK;
	r->at = h_hpa_to_gpa(h, t->hpa | (a->gva & 0xfff));
	if (a->kind == ACC_WRITE)
		memcpy(p, &a->value, a->size);
	else
		memcpy(&r->value, p, a->size);
	return true;
}

void h_cpu_access(struct harness *h, unsigned v, const struct h_access *a, struct h_result *r)
{
	struct mmu_vcpu *vc = &h->vcpu[v];
	struct mmu_outcome out;
	struct h_tlbe t, *slot;
	unsigned tries;
	u32 ec;
	u8 *p;

	memset(r, 0, sizeof(*r));
	h->from_tlb = false;
	for (tries = 0; tries < 8; tries++) {
		/* VM entry: the root is reloaded (which may flush this vCPU's TLB). */
		if (mmu_load(vc) != MMU_OK)
			break;
		slot = tlb_slot(h, v, a->gva);
		if (slot->vpn == (a->gva >> 12) + 1) {
			/* A hit is used as it is; one that lacks a right faults, which drops it. */
			if (h_tlb_allows(h, v, slot, a)) {
				h->tlb_hits++;
				h->from_tlb = true;
				if (do_access(h, a, slot, r))
					return;
				break;
			}
			slot->vpn = 0;
		}
		ec = hw_translate(h, v, a, &t);
		if (ec == HW_BROKEN)
			break;
		if (ec == HW_OK) {
			*slot = t;
			if (do_access(h, a, &t, r))
				return;
			break;
		}
		h->shadow_faults++;
		if (mmu_topup(vc) != MMU_OK ||
		    mmu_page_fault(vc, a->gva, ec | (a->ac ? MMU_ACCESS_AC : 0), &out) != MMU_OK)
			break;
		if (out.kind == MMU_FIXED)
			continue;
		if (out.kind == MMU_INJECT) {
			r->kind = R_FAULT;
			r->ec = out.error_code;
			r->cr2 = out.cr2;
			return;
		}
		if (out.mmio) {
			r->kind = R_MMIO;
			r->gpa = out.gpa;
			return;
		}
		/* The emulator: a write goes through the hook; anything else reads memory. */
		r->kind = R_OK;
		r->at = out.gpa;
		if (a->kind == ACC_WRITE) {
			h->emulated_writes++;
			ASSERT(mmu_write(&h->vm, out.gpa, a->size, a->value) == MMU_OK);
		} else {
			p = h_gpa_ptr(h, out.gpa, false);
			memcpy(&r->value, p, a->size);
		}
		return;
	}
	r->kind = R_ERROR;
}

void h_invlpg(struct harness *h, unsigned v, u64 gva)
{
	mmu_invlpg(&h->vcpu[v], gva);
	ref_tlb_invlpg(h, v, gva);
}

void h_flush(struct harness *h, unsigned v)
{
	mmu_flush_tlb(&h->vcpu[v]);
	ref_tlb_flush(h, v);
}
