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
#define HW_BROKEN 0xffffffffu	/* the shadow points somewhere it must not */
#define HW_OK 0xfffffffeu

/* The real control bits the MMU's contract asks for: WP=1, NXE=1, SMEP/SMAP as the guest's
 * while its paging is on. Returns HW_OK and the leaf hpa, or the hardware #PF error code. */
static u32 hw_translate(struct harness *h, unsigned v, const struct h_access *a, u64 *hpa)
{
	struct mmu_vcpu *vc = &h->vcpu[v];
	const struct h_ctl *c = &h->ctl[v];
	bool paging = c->cr0 & BIT(31);
	bool smep = paging && (c->cr4 & BIT(20)), smap = paging && (c->cr4 & BIT(21));
	bool wr = a->kind == ACC_WRITE, fetch = a->kind == ACC_FETCH;
	u32 ec = (wr ? 2 : 0) | (a->user ? 4 : 0) | (fetch ? 16 : 0);
	u64 table = mmu_root_hpa(vc), e = 0;
	bool w_ok = true, u_ok = true, x_ok = true;
	int level = 4;

	if (mmu_root_is_pae(vc)) {
		u64 *root = (u64 *)h_hpa_ptr(h, table, false);

		if (!root)
			return HW_BROKEN;
		e = root[(a->gva >> 30) & 3];
		if (!(e & P))
			return ec;
		if (e & ~(ADDR | P))
			return HW_BROKEN;	/* PAE PDPTEs: only P and the address */
		table = e & ADDR;
		level = 2;
	}
	for (; level >= 1; level--) {
		u64 *t = (u64 *)h_hpa_ptr(h, table, false);

		if (!t)
			return HW_BROKEN;
		e = t[(a->gva >> (12 + 9 * (level - 1))) & 511];
		if (!(e & P))
			return ec;
		if (e & PS)
			return HW_BROKEN;
		w_ok &= !!(e & W);
		u_ok &= !!(e & U);
		x_ok &= !(e & NX);
		table = e & ADDR;
	}
	if (a->user ? (!u_ok || (wr && !w_ok) || (fetch && !x_ok))
		    : fetch ? (!x_ok || (smep && u_ok))
			    : ((smap && u_ok && !a->ac) || (wr && !w_ok)))
		return ec | 1;
	*hpa = table | (a->gva & 0xfff);
	return HW_OK;
}

void h_cpu_access(struct harness *h, unsigned v, const struct h_access *a, struct h_result *r)
{
	struct mmu_vcpu *vc = &h->vcpu[v];
	struct mmu_outcome out;
	unsigned tries;
	u64 hpa = 0;
	u32 ec;
	u8 *p;

	memset(r, 0, sizeof(*r));
	for (tries = 0; tries < 8; tries++) {
		if (mmu_load(vc) != MMU_OK)
			break;
		ec = hw_translate(h, v, a, &hpa);
		if (ec == HW_BROKEN)
			break;
		if (ec == HW_OK) {
			p = h_hpa_ptr(h, hpa, true);
			if (!p)
				break;	/* a shadow leaf that is not guest memory */
			r->kind = R_OK;
			r->at = h_hpa_to_gpa(h, hpa);
			if (a->kind == ACC_WRITE)
				memcpy(p, &a->value, a->size);
			else
				memcpy(&r->value, p, a->size);
			return;
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
	ref_tlb_flush(h);
}
