/* The reference machine: an independent walk of the guest's own tables in the reference memory. */
#include <stdio.h>
#include <string.h>
#include "lib/assert.h"
#include "tests/mmu/harness.h"

/* Reads a guest entry in reference memory (0 in a hole) and records where it was. */
static u64 rd(struct harness *h, u64 gpa, unsigned size)
{
	u64 v = 0;
	u8 *p = h_gpa_ptr(h, gpa, true);

	if (h->ntouched < 16)
		h->touched[h->ntouched++] = gpa & ~7ull;
	if (p)
		memcpy(&v, p, size);
	return v;
}

static void wr(struct harness *h, u64 gpa, unsigned size, u64 v)
{
	u8 *p = h_gpa_ptr(h, gpa, true);

	if (p)
		memcpy(p, &v, size);
}

static u64 maxpa_mask(struct harness *h)
{
	return (1ull << h->vm.cfg.maxphyaddr) - 1;
}

/* PAE PDPTE check as the CPU does on a CR3 load. */
static bool ref_load_pdptes(struct harness *h, unsigned v, u64 cr3)
{
	u64 pd[4];
	unsigned i;

	for (i = 0; i < 4; i++) {
		pd[i] = rd(h, (cr3 & 0xffffffe0ull) + 8 * i, 8);
		if ((pd[i] & 1) && (pd[i] & (~maxpa_mask(h) | 0x1e6)))
			return false;
	}
	memcpy(h->ctl[v].pdptes, pd, sizeof(pd));
	return true;
}

int h_set_cr3(struct harness *h, unsigned v, u64 cr3)
{
	struct h_ctl *c = &h->ctl[v];
	bool pae_legacy = (c->cr0 & BIT(31)) && (c->cr4 & BIT(5)) && !(c->efer & BIT(10));
	bool ref_ok = !pae_legacy || ref_load_pdptes(h, v, cr3);
	int rc = mmu_new_cr3(&h->vcpu[v], cr3);

	h->ntouched = 0;
	if (ref_ok != (rc != MMU_EBADPDPTE))
		h->ctl_mismatches++;
	if (ref_ok)
		c->cr3 = cr3;
	return rc;
}

int h_set_mode(struct harness *h, unsigned v, u64 cr0, u64 cr4, u64 efer, u64 cr3)
{
	struct h_ctl *c = &h->ctl[v], save = *c;
	bool ref_ok;
	int rc;

	c->cr0 = cr0;
	c->cr4 = cr4;
	c->efer = efer & ~BIT(10);
	if ((efer & BIT(8)) && (cr0 & BIT(31)) && (cr4 & BIT(5)))
		c->efer |= BIT(10);	/* LMA follows LME once paging is on with PAE */
	ref_ok = !(cr0 & BIT(31)) || !(cr4 & BIT(5)) || (c->efer & BIT(10)) ||
		 ref_load_pdptes(h, v, cr3);
	rc = mmu_reset_context(&h->vcpu[v], c->cr0, c->cr4, c->efer, cr3);
	h->ntouched = 0;
	if (ref_ok != (rc != MMU_EBADPDPTE))
		h->ctl_mismatches++;
	if (ref_ok)
		c->cr3 = cr3;
	else
		*c = save;
	return rc;
}

struct ref_walk {
	u64 ent_gpa[5];
	unsigned ent_size, n;
	u64 gpa;
	u32 ec;
};

/* Translate gva like the SDM says; on success set A (and D for a write) in reference memory. */
static bool ref_translate(struct harness *h, unsigned v, const struct h_access *a, struct ref_walk *rw)
{
	const struct h_ctl *c = &h->ctl[v];
	bool pae = c->cr4 & BIT(5), lma = c->efer & BIT(10), nxe = (c->efer & BIT(11)) && pae;
	bool wp = c->cr0 & BIT(16), smep = c->cr4 & BIT(20), smap = c->cr4 & BIT(21);
	bool write = a->kind == ACC_WRITE, fetch = a->kind == ACC_FETCH;
	bool can_w = true, can_u = true, can_x = true, bad;
	u64 e = 0, rsvd_hi = ~maxpa_mask(h) & 0x000fffffffffffffull, table, gpa = 0;
	int level, i;

	rw->n = 0;
	rw->ec = (write ? 2 : 0) | (a->user ? 4 : 0) | (fetch && (smep || nxe) ? 16 : 0);
	if (!(c->cr0 & BIT(31))) {
		rw->gpa = a->gva & 0xffffffffull;
		return true;
	}
	if (!pae) {
		rw->ent_size = 4;
		rw->ent_gpa[rw->n++] = (c->cr3 & 0xfffff000ull) + ((a->gva >> 22) & 0x3ff) * 4;
		e = rd(h, rw->ent_gpa[0], 4);
		if (!(e & 1))
			return false;
		can_w = e & 2;
		can_u = e & 4;
		if ((c->cr4 & BIT(4)) && (e & 0x80)) {
			unsigned hi = h->vm.cfg.maxphyaddr - 32;
			u64 rs = (1ull << 21) | (hi < 8 ? ((1ull << 21) - (1ull << (13 + hi))) : 0);

			if (e & rs) {
				rw->ec |= 9;
				return false;
			}
			gpa = (e & 0xffc00000ull) + (((e >> 13) & 0xff) << 32) + (a->gva & 0x3fffff);
		} else {
			rw->ent_gpa[rw->n] = (e & 0xfffff000ull) + ((a->gva >> 12) & 0x3ff) * 4;
			e = rd(h, rw->ent_gpa[rw->n++], 4);
			if (!(e & 1))
				return false;
			can_w &= !!(e & 2);
			can_u &= !!(e & 4);
			gpa = (e & 0xfffff000ull) + (a->gva & 0xfff);
		}
	} else {
		rw->ent_size = 8;
		if (lma) {
			table = c->cr3 & 0x000ffffffffff000ull;
			level = 4;
		} else {
			e = c->pdptes[(a->gva >> 30) & 3];
			if (!(e & 1))
				return false;
			table = e & 0x000ffffffffff000ull;
			level = 2;
		}
		for (;; level--) {
			u64 rsvd = rsvd_hi | (nxe ? 0 : BIT(63));
			bool leaf;

			rw->ent_gpa[rw->n] = table + ((a->gva >> (3 + 9 * level)) & 511) * 8;
			e = rd(h, rw->ent_gpa[rw->n++], 8);
			if (!(e & 1))
				return false;
			leaf = level == 1 || ((e & 0x80) && level <= 3);
			if (level == 4 || (level == 3 && h->vm.cfg.no_1g))
				rsvd |= 0x80;
			if (leaf && level == 2)
				rsvd |= 0x1fe000;
			if (leaf && level == 3)
				rsvd |= 0x3fffe000;
			if (e & rsvd) {
				rw->ec |= 9;
				return false;
			}
			can_w &= !!(e & 2);
			can_u &= !!(e & 4);
			can_x &= !(nxe && (e & BIT(63)));
			if (leaf) {
				u64 size = 1ull << (3 + 9 * level);

				gpa = (e & 0x000ffffffffff000ull & ~(size - 1)) + (a->gva & (size - 1));
				break;
			}
			table = e & 0x000ffffffffff000ull;
		}
	}
	if (a->user)
		bad = !can_u || (write && !can_w) || (fetch && !can_x);
	else if (fetch)
		bad = !can_x || (smep && can_u);
	else
		bad = (smap && can_u && !a->ac) || (write && wp && !can_w);
	if (bad) {
		rw->ec |= 1;
		return false;
	}
	for (i = 0; i < (int)rw->n; i++) {
		u64 old = rd(h, rw->ent_gpa[i], rw->ent_size);
		u64 set = 0x20 | (i == (int)rw->n - 1 && write ? 0x40 : 0);

		wr(h, rw->ent_gpa[i], rw->ent_size, old | set);
	}
	rw->gpa = gpa;
	return true;
}

void h_ref_access(struct harness *h, unsigned v, const struct h_access *a, struct h_result *r)
{
	struct ref_walk rw;
	u8 *p;

	memset(r, 0, sizeof(*r));
	h->ntouched = 0;
	if (!ref_translate(h, v, a, &rw)) {
		r->kind = R_FAULT;
		r->ec = rw.ec;
		r->cr2 = a->gva;
		return;
	}
	p = h_gpa_ptr(h, rw.gpa, true);
	if (h->ntouched < 16)
		h->touched[h->ntouched++] = rw.gpa & ~7ull;
	if (!p) {
		r->kind = R_MMIO;
		r->gpa = rw.gpa;
		return;
	}
	r->kind = R_OK;
	if (a->kind == ACC_WRITE)
		memcpy(p, &a->value, a->size);
	else
		memcpy(&r->value, p, a->size);
}

bool h_check_access(struct harness *h, unsigned v, const struct h_access *a, char *msg, size_t n)
{
	static const char *kinds[] = { "ok", "fault", "mmio", "ERROR" };
	struct h_result got, want;
	unsigned i;

	h_cpu_access(h, v, a, &got);
	h_ref_access(h, v, a, &want);
	if (got.kind != want.kind || got.value != want.value || got.ec != want.ec ||
	    got.cr2 != want.cr2 || got.gpa != want.gpa) {
		snprintf(msg, n, "vcpu%u %s %s%s gva %llx: mmu %s val %llx ec %x gpa %llx, ref %s val %llx ec %x gpa %llx",
			 v, a->kind == ACC_WRITE ? "write" : a->kind == ACC_FETCH ? "fetch" : "read",
			 a->user ? "user" : "sup", a->ac ? "+ac" : "", (unsigned long long)a->gva,
			 kinds[got.kind], (unsigned long long)got.value, got.ec, (unsigned long long)got.gpa,
			 kinds[want.kind], (unsigned long long)want.value, want.ec, (unsigned long long)want.gpa);
		return false;
	}
	for (i = 0; i < h->ntouched; i++) {
		u64 m = h_phys_read(h, h->touched[i], 8, false), r = h_phys_read(h, h->touched[i], 8, true);

		if (m != r) {
			snprintf(msg, n, "vcpu%u gva %llx: memory at %llx is %llx, reference %llx", v,
				 (unsigned long long)a->gva, (unsigned long long)h->touched[i],
				 (unsigned long long)m, (unsigned long long)r);
			return false;
		}
	}
	return true;
}
