/* SPDX-License-Identifier: GPL-2.0-only */
/* The reference machine: an independent walk of the guest's own tables in the reference memory. */

/*
 * With a TLB per vCPU. The shadow MMU lets a guest write its leaf tables natively (out-of-sync
 * shadows, mmu/sync.c) and catches up at the guest's flushes, and each vCPU's hardware TLB keeps
 * what it cached until the MMU asks that vCPU to flush; so between two flushes of vCPU v an
 * access on v may use an entry older than the guest's, as a CPU's TLB may. The reference keeps,
 * for each vCPU, every value a guest entry held since that vCPU's last flush that covers it
 * (h->old[v]) and accepts an access served by one of them in place of the leaf entry: present,
 * accessed, dirty for a write (a TLB entry that lacks D walks again to set it), no A/D written.
 * A flush is the architectural one, on the vCPU that does it: a CR3 load, a mode change or a
 * PV flush covers every entry (stricter than a CPU, whose TLB keeps global pages), INVLPG(gva)
 * every entry at gva's index in its table. A guest that changes an entry another vCPU may use
 * must shoot it down there (an IPI whose handler flushes): only then must that vCPU see it.
 */
#include <stdio.h>
#include <string.h>
#include "lib/assert.h"
#include "tests/mmu/harness.h"

/* An older value standing in for one entry (ref_access with a stale leaf). */
static struct {
	bool on;
	u64 gpa, val;
} ovr;

/* Reads a guest entry in reference memory (0 in a hole) and records where it was. */
static u64 rd(struct harness *h, u64 gpa, unsigned size)
{
	u64 v = 0;
	u8 *p = h_gpa_ptr(h, gpa, true);

	if (h->ntouched < 16)
		h->touched[h->ntouched++] = gpa & ~7ull;
	if (ovr.on && gpa == ovr.gpa)
		return ovr.val;
	if (p)
		memcpy(&v, p, size);
	return v;
}

static unsigned ent_size(const struct harness *h, unsigned v)
{
	return h->ctl[v].cr4 & BIT(5) ? 8 : 4;
}

/* Every vCPU may still hold the old value until its own flush. */
static void remember(struct harness *h, u64 gpa, u64 val, unsigned size)
{
	for (unsigned v = 0; v < h->nvcpus; v++) {
		struct h_old *old = h->old[v];
		unsigned i;

		for (i = 0; i < h->nold[v]; i++)
			if (old[i].gpa == gpa && old[i].val == val && old[i].size == size)
				break;
		if (i < h->nold[v])
			continue;
		ASSERT(h->nold[v] < H_OLD_MAX);
		old[h->nold[v]++] = (struct h_old){ gpa, val, size };
	}
}

/* Stores len bytes (within a page) into reference memory: the entries it changes keep their
 * old values for the TLB, and h->logging keeps what it overwrote for an undo. */
static void ref_store(struct harness *h, unsigned v, u64 gpa, const void *src, unsigned len)
{
	u8 *p = h_gpa_ptr(h, gpa, true), *page;
	unsigned es = ent_size(h, v), off;
	u64 before[2] = { 0, 0 }, after;

	if (!p)
		return;
	page = p - (gpa & 0xfff);
	off = (unsigned)(gpa & 0xfff) & ~(es - 1);
	memcpy(before, page + off, ((gpa & 0xfff) + len - off + es - 1) / es * es);
	if (h->logging) {
		ASSERT(h->nundo < ARRAY_SIZE(h->undo));
		h->undo[h->nundo] = (struct h_old){ gpa, 0, len };
		memcpy(&h->undo[h->nundo++].val, p, len);
	}
	memcpy(p, src, len);
	for (unsigned k = 0; off + k * es < (gpa & 0xfff) + len; k++) {
		u64 old = 0;

		after = 0;
		memcpy(&after, page + off + k * es, es);
		memcpy(&old, (u8 *)before + k * es, es);
		if (old != after)
			remember(h, (gpa & ~0xfffull) + off + k * es, old, es);
	}
}

static void ref_undo(struct harness *h, const unsigned nold[H_MAX_VCPUS])
{
	while (h->nundo) {
		struct h_old *u = &h->undo[--h->nundo];

		memcpy(h_gpa_ptr(h, u->gpa, true), &u->val, u->size);
	}
	memcpy(h->nold, nold, sizeof(h->nold));
}

void ref_tlb_flush(struct harness *h, unsigned v)
{
	h->nold[v] = 0;
}

void ref_tlb_invlpg(struct harness *h, unsigned v, u64 gva)
{
	unsigned i, n = 0, idx = (gva >> 12) & 511;
	struct h_old *old = h->old[v];

	for (i = 0; i < h->nold[v]; i++)
		if ((((old[i].gpa & 0xfff) / old[i].size) & 511) != idx)
			old[n++] = old[i];
	h->nold[v] = n;
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
	if (ref_ok) {
		c->cr3 = cr3;
		ref_tlb_flush(h, v);
	}
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
		c->efer |= BIT(10); /* LMA follows LME once paging is on with PAE */
	ref_ok = !(cr0 & BIT(31)) || !(cr4 & BIT(5)) || (c->efer & BIT(10)) ||
		 ref_load_pdptes(h, v, cr3);
	rc = mmu_reset_context(&h->vcpu[v], c->cr0, c->cr4, c->efer, cr3);
	h->ntouched = 0;
	if (ref_ok != (rc != MMU_EBADPDPTE))
		h->ctl_mismatches++;
	if (ref_ok) {
		c->cr3 = cr3;
		ref_tlb_flush(h, v);
	} else
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
static bool ref_translate(struct harness *h, unsigned v, const struct h_access *a,
			  struct ref_walk *rw, bool set_ad)
{
	const struct h_ctl *c = &h->ctl[v];
	bool pae = c->cr4 & BIT(5), lma = c->efer & BIT(10), nxe = (c->efer & BIT(11)) && pae;
	bool wp = c->cr0 & BIT(16), smep = c->cr4 & BIT(20), smap = c->cr4 & BIT(21);
	bool write = a->kind == ACC_WRITE, fetch = a->kind == ACC_FETCH;
	bool can_w = true, can_u = true, can_x = true, bad;
	u64 e = 0, rsvd_hi = ~maxpa_mask(h) & 0x000fffffffffffffull, table, gpa = 0;
	int level, i;

	rw->n = 0;
	h->leaf_gpa = ~0ull;
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
			gpa = (e & 0xffc00000ull) + (((e >> 13) & 0xff) << 32) +
			      (a->gva & 0x3fffff);
		} else {
			rw->ent_gpa[rw->n] = (e & 0xfffff000ull) + ((a->gva >> 12) & 0x3ff) * 4;
			h->leaf_gpa = rw->ent_gpa[rw->n];
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
			if (level == 1)
				h->leaf_gpa = rw->ent_gpa[rw->n];
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

				gpa = (e & 0x000ffffffffff000ull & ~(size - 1)) +
				      (a->gva & (size - 1));
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
	for (i = 0; set_ad && i < (int)rw->n; i++) {
		u64 old = rd(h, rw->ent_gpa[i], rw->ent_size);
		u64 set = 0x20 | (i == (int)rw->n - 1 && write ? 0x40 : 0);

		if ((old | set) != old) {
			old |= set;
			ref_store(h, v, rw->ent_gpa[i], &old, rw->ent_size);
		}
	}
	rw->gpa = gpa;
	return true;
}

/* set_ad: a walk (A/D bits set), or a TLB hit (ovr: an older leaf entry, nothing written). */
static void ref_access(struct harness *h, unsigned v, const struct h_access *a, struct h_result *r,
		       bool set_ad)
{
	struct ref_walk rw;
	u8 *p;

	memset(r, 0, sizeof(*r));
	h->ntouched = 0;
	if (!ref_translate(h, v, a, &rw, set_ad)) {
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
	r->at = rw.gpa;
	if (a->kind == ACC_WRITE)
		ref_store(h, v, rw.gpa, &a->value, a->size);
	else
		memcpy(&r->value, p, a->size);
}

void h_ref_access(struct harness *h, unsigned v, const struct h_access *a, struct h_result *r)
{
	ref_access(h, v, a, r, true);
}

static bool same_result(const struct h_result *x, const struct h_result *y)
{
	return x->kind == y->kind && x->value == y->value && x->ec == y->ec && x->cr2 == y->cr2 &&
	       x->gpa == y->gpa && x->at == y->at;
}

/* The page-table words (and data) the last reference access touched hold the same on both. */
static bool same_touched(struct harness *h, unsigned *bad)
{
	for (unsigned i = 0; i < h->ntouched; i++)
		if (h_phys_read(h, h->touched[i], 8, false) !=
		    h_phys_read(h, h->touched[i], 8, true)) {
			*bad = i;
			return false;
		}
	return true;
}

/* The MMU's answer differs from a walk of the guest's current tables: is it what a TLB entry
 * made from an older value of the leaf entry would give? */
static bool stale_hit(struct harness *h, unsigned v, const struct h_access *a,
		      const struct h_result *got, const unsigned nold[H_MAX_VCPUS])
{
	u64 leaf = h->leaf_gpa, need = 0x21 | (a->kind == ACC_WRITE ? 0x40 : 0);
	struct h_result alt;
	unsigned i, bad;

	for (i = 0; got->kind == R_OK && leaf != ~0ull && i < nold[v]; i++) {
		const struct h_old o = h->old[v][i];

		if (o.gpa != leaf || o.size != ent_size(h, v) || (o.val & need) != need)
			continue;
		ref_undo(h, nold);
		ovr.on = true;
		ovr.gpa = leaf;
		ovr.val = o.val;
		ref_access(h, v, a, &alt, false);
		ovr.on = false;
		if (same_result(got, &alt) && same_touched(h, &bad)) {
			h->stale_hits++;
			return true;
		}
	}
	return false;
}

/* A CPU caches nothing below a link it has not used since it changed: an access through a
 * directory entry changed since v's last flush (more than its A/D bits) sees the tables below
 * it as they are. Only an access that reached guest memory through a walk counts: one that
 * faults (or is MMIO) links nothing, so the same table reached through an unchanged entry may
 * still serve v older values (the table's old values are kept per frame, not per path). And
 * only the first such access: once the link is used, a CPU may cache below it again. */
static void forget_relinked(struct harness *h, unsigned v, const struct h_access *a)
{
	struct ref_walk rw;
	unsigned i, j, k, n, u;
	struct h_old *old = h->old[v];

	ref_translate(h, v, a, &rw, false);
	for (i = 0; i + 1 < rw.n; i++) {
		u64 cur = h_phys_read(h, rw.ent_gpa[i], rw.ent_size, true);

		for (k = 0; k < h->nold[v]; k++)
			if (old[k].gpa == rw.ent_gpa[i] && ((old[k].val ^ cur) & ~0x60ull))
				break;
		if (k == h->nold[v])
			continue;
		for (k = n = 0; k < h->nold[v]; k++) {
			bool below = old[k].gpa == rw.ent_gpa[i];

			for (j = i + 1; j < rw.n; j++)
				below |= (old[k].gpa >> 12) == (rw.ent_gpa[j] >> 12);
			if (!below)
				old[n++] = old[k];
		}
		h->nold[v] = n;
		break;
	}
	/* The links walked are in use now, and the shadow's links are shared by the vCPUs: from
	 * here on any vCPU may cache what lies below them, so they count as changed for none. */
	for (u = 0; u < h->nvcpus; u++) {
		for (k = n = 0; k < h->nold[u]; k++) {
			bool walked = false;

			for (i = 0; i + 1 < rw.n; i++)
				walked |= h->old[u][k].gpa == rw.ent_gpa[i];
			if (!walked)
				h->old[u][n++] = h->old[u][k];
		}
		h->nold[u] = n;
	}
}

bool h_check_access(struct harness *h, unsigned v, const struct h_access *a, char *msg, size_t n)
{
	static const char *kinds[] = { "ok", "fault", "mmio", "ERROR" };
	struct h_result got, want;
	unsigned i, nold[H_MAX_VCPUS];
	bool ok;

	for (i = 0; i < h->nvcpus; i++)
		if (h->nold[i] > H_OLD_MAX - 32)
			h_flush(h, i); /* a reference TLB is full: the guest flushes there */
	h_cpu_access(h, v, a, &got);
	if (got.kind == R_OK && !h->from_tlb)
		forget_relinked(h, v, a);
	memcpy(nold, h->nold, sizeof(nold));
	h->nundo = 0;
	h->logging = true;
	h_ref_access(h, v, a, &want);
	ok = same_result(&got, &want) && same_touched(h, &i);
	if (!ok && stale_hit(h, v, a, &got, nold))
		ok = true;
	else if (!ok && h->nundo != 0) {
		ref_undo(h, nold); /* back to the walk of the current tables, for the report */
		h_ref_access(h, v, a, &want);
	}
	h->logging = false;
	if (ok)
		return true;
	if (!same_result(&got, &want)) {
		snprintf(
			msg, n,
			"vcpu%u %s %s%s gva %llx: mmu%s %s val %llx ec %x gpa %llx at %llx, ref %s val %llx ec %x gpa %llx at %llx",
			v,
			a->kind == ACC_WRITE   ? "write"
			: a->kind == ACC_FETCH ? "fetch"
					       : "read",
			a->user ? "user" : "sup", a->ac ? "+ac" : "", (unsigned long long)a->gva,
			h->from_tlb ? " (TLB)" : "", kinds[got.kind], (unsigned long long)got.value,
			got.ec, (unsigned long long)got.gpa, (unsigned long long)got.at,
			kinds[want.kind], (unsigned long long)want.value, want.ec,
			(unsigned long long)want.gpa, (unsigned long long)want.at);
		return false;
	}
	if (!same_touched(h, &i)) {
		u64 m = h_phys_read(h, h->touched[i], 8, false),
		    r = h_phys_read(h, h->touched[i], 8, true);

		snprintf(msg, n, "vcpu%u gva %llx: memory at %llx is %llx, reference %llx", v,
			 (unsigned long long)a->gva, (unsigned long long)h->touched[i],
			 (unsigned long long)m, (unsigned long long)r);
		return false;
	}
	return true;
}

/* May vCPU v do access a through gpa page `page`: by a walk of the current tables, or with the
 * leaf entry replaced by an older value v has not flushed? The leaf must be accessed, and dirty
 * for a write (a TLB entry is made by a walk that sets them). Nothing is written. */
static bool ref_allows(struct harness *h, unsigned v, const struct h_access *a, u64 page)
{
	u64 need = 0x20 | (a->kind == ACC_WRITE ? 0x40 : 0), leaf;
	struct ref_walk rw;
	bool ok;

	h->ntouched = 0;
	ok = ref_translate(h, v, a, &rw, false);
	leaf = h->leaf_gpa;
	if (ok && rw.gpa >> 12 == page &&
	    (!rw.n || (rd(h, rw.ent_gpa[rw.n - 1], rw.ent_size) & need) == need))
		return true;
	for (unsigned i = 0; leaf != ~0ull && i < h->nold[v]; i++) {
		const struct h_old o = h->old[v][i];

		if (o.gpa != leaf || o.size != ent_size(h, v) || (o.val & need) != need)
			continue;
		ovr.on = true;
		ovr.gpa = leaf;
		ovr.val = o.val;
		ok = ref_translate(h, v, a, &rw, false) && rw.gpa >> 12 == page;
		ovr.on = false;
		if (ok)
			return true;
	}
	return false;
}

bool h_check_tlb(struct harness *h, unsigned v, u64 gva, char *msg, size_t n)
{
	static const char *kinds[] = { "read", "write", "fetch" };

	for (unsigned i = 0; i < H_TLB_ENTRIES; i++) {
		const struct h_tlbe *e = &h->tlb[v][i];
		u64 page;

		if (!e->vpn || (gva != ~0ull && e->vpn != (gva >> 12) + 1))
			continue;
		page = h_hpa_to_gpa(h, e->hpa) >> 12;
		for (unsigned k = 0; k < 6; k++) {
			/* AC set: the most a supervisor data access may do under SMAP. */
			struct h_access a = { .gva = (e->vpn - 1) << 12,
					      .kind = (int)(k % 3),
					      .user = k >= 3,
					      .ac = true,
					      .size = 1 };

			if (!h_tlb_allows(h, v, e, &a) || ref_allows(h, v, &a, page))
				continue;
			snprintf(msg, n,
				 "vcpu%u TLB: %s %s gva %llx -> gpa %llx, which the guest's "
				 "tables no longer allow it",
				 v, a.user ? "user" : "sup", kinds[a.kind],
				 (unsigned long long)a.gva, (unsigned long long)page << 12);
			return false;
		}
	}
	return true;
}
