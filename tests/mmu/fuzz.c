/* SPDX-License-Identifier: GPL-2.0-only */
/* Randomized differential test: random guest operations on the MMU and the reference, audit each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/assert.h"
#include "tests/mmu/fuzz.h"
#include "tests/mmu/guest.h"

/*
 * Guest layout (small on purpose, so the audit after every operation stays cheap):
 *   RAM gfn 0..0x17f and 0x200..0x23f, a hole in between and above, and 64 frames at 4 GiB
 *   (as a large guest's RAM above the PCI hole), which PAE and 64-bit leaves also point at.
 *   Page tables come from gfn 0x10..0x7f, data frames are the rest.
 *   Every address space maps a "physmap" at PHYS (all RAM, supervisor, 4 KiB pages, page
 *   tables shared by all spaces) through which the guest writes its own tables, and a user
 *   "window" at WIN whose entries the fuzzer rewrites at random.
 */
#define NAS 4
#define PHYS 0xc0000000ull
#define WIN 0x400000ull
#define WIN_SIZE 0x400000ull
#define RAM_END 0x240ull
#define PT_FIRST 0x10ull
#define PT_END 0x80ull
#define HIGH_GFN 0x100000ull
#define HIGH_PAGES 0x40ull

struct fuzz {
	struct harness h;
	u64 rng;
	int mode;
	bool pse;
	struct g_frames f;
	u64 cr3[NAS];
	unsigned as_of[H_MAX_VCPUS];
	u64 win_pt[NAS][2];  /* window leaf tables */
	u64 win_pde[NAS][2]; /* gpa of the entries pointing at them */
	unsigned nwin;	     /* window tables per space (1 for 32-bit, 2 otherwise) */
	u64 hot;	     /* the window page whose entry the guest last wrote */
	u64 seen; /* the window page last accessed (its shadow entry is likely present) */
	unsigned seen_as;
	unsigned check, check_vcpu; /* the TLB check the last operation calls for */
	u64 check_page;
};

static u64 rnd(struct fuzz *z)
{
	z->rng ^= z->rng >> 12;
	z->rng ^= z->rng << 25;
	z->rng ^= z->rng >> 27;
	return z->rng * 0x2545f4914f6cdd1dull;
}

static u64 below(struct fuzz *z, u64 n)
{
	return rnd(z) % n;
}

static bool chance(struct fuzz *z, unsigned percent)
{
	return below(z, 100) < percent;
}

static u64 ram_gfn(struct fuzz *z)
{
	u64 g = below(z, 0x180 + 0x40);

	return g < 0x180 ? g : 0x200 + g - 0x180;
}

/* One of the frames the builder made page tables of (all of them when paging is off). */
static u64 table_gfn(struct fuzz *z)
{
	return PT_FIRST + below(z, z->f.next > PT_FIRST ? z->f.next - PT_FIRST : PT_END - PT_FIRST);
}

/* A frame for a leaf: mostly data, sometimes a page table (aliasing), sometimes a hole. */
static u64 leaf_gfn(struct fuzz *z)
{
	unsigned c = below(z, 100);

	if (c < 20)
		return table_gfn(z);
	if (c < 25)
		return 0x180 + below(z, 0x80);
	if (c < 35 && z->mode != G_32)
		return HIGH_GFN + below(z, HIGH_PAGES);
	return ram_gfn(z);
}

static u64 random_leaf(struct fuzz *z, bool large, unsigned level)
{
	bool w64 = z->mode != G_32;
	u64 e, base;

	if (large) {
		/* Large pages at 0 or 2/4 MiB (partly RAM, partly hole). */
		base = below(z, 2) * (level == 3 ? 0 : w64 ? 0x200000 : 0x400000);
		e = base | GPS;
	} else {
		e = leaf_gfn(z) << 12;
	}
	if (chance(z, 90))
		e |= GP;
	if (chance(z, 70))
		e |= GW;
	if (chance(z, 70))
		e |= GU;
	if (chance(z, 40))
		e |= GA;
	if (chance(z, 30))
		e |= GD;
	if (w64 && chance(z, 20))
		e |= GNX;
	if (chance(z, 2))
		e |= w64     ? BIT(z->h.vm.cfg.maxphyaddr + below(z, 52 - z->h.vm.cfg.maxphyaddr))
		     : large ? BIT(21)
			     : 0;
	return e;
}

/* Build every address space for the current mode (only changed words are written). */
static void build(struct fuzz *z)
{
	struct harness *h = &z->h;
	unsigned as, i;
	u64 g, pt0[4] = { 0 }, step = z->mode == G_32 ? 0x400000 : 0x200000;

	z->f.next = PT_FIRST;
	z->f.end = PT_END;
	z->nwin = z->mode == G_32 ? 1 : 2;
	if (z->mode == G_OFF)
		return;
	for (as = 0; as < NAS; as++) {
		z->cr3[as] = g_table(h, &z->f) << 12;
		for (g = 0; g < RAM_END; g++) {
			u64 va = PHYS + (g << 12);

			if (as == 0) {
				g_map(h, &z->f, z->mode, z->cr3[as], va, (g << 12) | GP | GW, 1,
				      GP | GW | GU);
				continue;
			}
			/* Share space 0's physmap tables: copy its directory entries. */
			if ((va & (step - 1)) == 0) {
				u64 pde = pt0[(va - PHYS) / step];

				g_map(h, &z->f, z->mode, z->cr3[as], va, pde, 2, GP | GW | GU);
			}
		}
		if (as == 0)
			for (i = 0; i * step < (RAM_END << 12); i++) {
				u64 gpa = g_entry_at(h, z->mode, z->cr3[0], PHYS + i * step, 2);

				pt0[i] = g_get(h, z->mode, gpa);
			}
		for (i = 0; i < z->nwin; i++) {
			u64 va = WIN + i * step, leaf_gpa;
			unsigned n, k;

			/* Space 2 shares space 1's first window table. */
			if (as == 2 && i == 0) {
				u64 pde = (z->win_pt[1][0] << 12) | GP | GW | GU;

				z->win_pde[as][i] = g_map(h, &z->f, z->mode, z->cr3[as], va, pde, 2,
							  GP | GW | GU);
				z->win_pt[as][i] = z->win_pt[1][0];
				continue;
			}
			leaf_gpa = g_map(h, &z->f, z->mode, z->cr3[as], va,
					 random_leaf(z, false, 1), 1, GP | GW | GU);
			z->win_pt[as][i] = leaf_gpa >> 12;
			n = z->mode == G_32 ? 1024 : 512;
			for (k = 1; k < n; k++)
				g_set(h, z->mode, (z->win_pt[as][i] << 12) + k * g_esize(z->mode),
				      chance(z, 60) ? random_leaf(z, false, 1) : 0);
			z->win_pde[as][i] = g_entry_at(h, z->mode, z->cr3[as], va, 2);
		}
	}
}

static void change_mode(struct fuzz *z)
{
	static const int modes[] = { G_OFF, G_32, G_32, G_PAE, G_LONG, G_LONG };
	unsigned v;

	z->mode = modes[below(z, ARRAY_SIZE(modes))];
	z->seen = 0;
	z->pse = z->mode == G_32 && chance(z, 60);
	build(z);
	for (v = 0; v < z->h.nvcpus; v++) {
		struct g_cfg c = { z->mode,	  z->pse,	 chance(z, 75),
				   chance(z, 60), chance(z, 40), chance(z, 40) };

		z->as_of[v] = below(z, NAS);
		g_enter(&z->h, v, &c, z->mode == G_OFF ? 0 : z->cr3[z->as_of[v]]);
	}
}

/* The guest writes a value into one of its page tables through the physmap. */
static struct h_access pt_write(struct fuzz *z)
{
	unsigned as = below(z, NAS), esize = g_esize(z->mode), c = below(z, 100), w = 0;
	u64 gpa, val, cur;
	struct h_access a;

	if (z->mode == G_OFF)
		c = 99;
	if (c < 65) {
		unsigned i = below(z, z->nwin);

		gpa = (z->win_pt[as][i] << 12) + below(z, PAGE_SIZE / esize) * esize;
		if (z->seen && chance(z, 40)) {
			/* The entry of a page just used: the shadow likely holds the old one. */
			u64 step = z->mode == G_32 ? 0x400000 : 0x200000;

			i = (unsigned)((z->seen - WIN) / step);
			gpa = (z->win_pt[z->seen_as][i] << 12) +
			      ((z->seen - WIN) % step >> 12) * esize;
		}
		val = random_leaf(z, false, 1);
		z->hot = WIN + i * (z->mode == G_32 ? 0x400000 : 0x200000) +
			 (gpa & 0xfff) / esize * PAGE_SIZE;
	} else if (c < 85) {
		unsigned i = below(z, z->nwin), k = below(z, 5);

		gpa = z->win_pde[as][i];
		if (k == 0)
			val = random_leaf(z, true, 2);
		else if (k == 1)
			val = 0;
		else if (k == 2) /* another space's window table, or any table (role mixing) */
			val = table_gfn(z) << 12 | GP | GW | GU;
		else
			val = (z->win_pt[below(z, NAS)][below(z, z->nwin)] << 12) | GP | GW | GU |
			      (chance(z, 20) ? GA : 0);
		if (chance(z, 20))
			val &= ~(GW | GU);
	} else {
		/* Any entry of any table: flip one bit of what is there. */
		static const u64 flips[] = { GP, GW, GU, GA, GD, GPS, GNX, BIT(13) };

		gpa = (table_gfn(z) << 12) + below(z, PAGE_SIZE / esize) * esize;
		cur = h_phys_read(&z->h, gpa, esize, false);
		val = cur ^ flips[below(z, esize == 8 ? 8 : 6)];
	}
	a = acc_of(PHYS + gpa, ACC_WRITE, false, val);
	a.size = esize;
	w = below(z, 100);
	if (w < 10) { /* half an entry */
		a.size = esize / 2;
		if (chance(z, 50)) {
			a.gva += a.size;
			a.value >>= 8 * a.size;
		}
	} else if (w < 14) {
		a.size = 1;
		a.gva += below(z, esize);
	} else if (w < 20 && (gpa & 0xfff) + 8 < PAGE_SIZE) {
		a.size = 8; /* crosses entries: misaligned */
		a.gva += esize == 8 ? 4 : 0;
		a.value = rnd(z) & ~(esize == 8 ? 0 : 0ull);
	}
	if (z->mode == G_OFF)
		a.gva -= PHYS;
	return a;
}

/*
 * A paravirtual batch (MMU_UPDATE): entries of one table rewritten in guest memory, noted to the
 * MMU, their shadows dropped at the batch's end. It takes effect at once, as the hypervisor's own
 * write does: the reference gets the new values with no older ones to stand in. A whole table
 * or a whole 64-entry run takes the batch's word-at-a-time path (named once, as pv/hypercall.c
 * names a one-table batch); a few scattered entries, duplicates included, the per-entry notes.
 */
static void pv_batch(struct fuzz *z, struct fuzz_result *r)
{
	struct harness *h = &z->h;
	unsigned esize = g_esize(z->mode), n = PAGE_SIZE / esize, k = below(z, 3), count, i;
	u64 gfn = chance(z, 70) ? z->win_pt[below(z, NAS)][below(z, z->nwin)] : table_gfn(z);
	u64 first = k == 0 ? 0 : k == 1 ? below(z, n / 64) * 64 : 0;
	struct mmu_batch b;

	count = k == 0 ? n : k == 1 ? 64 : 1 + (unsigned)below(z, 8);
	mmu_batch_begin(&b);
	if (k < 2)
		mmu_batch_table(&h->vm, &b, gfn);
	for (i = 0; i < count; i++) {
		u64 idx = k < 2 ? first + i : below(z, n), gpa = (gfn << 12) + idx * esize;
		u64 val = chance(z, 50)
				  ? random_leaf(z, false, 1)
				  : h_phys_read(h, gpa, esize, false) ^ (chance(z, 50) ? GA : GW);

		if (k < 2)
			mmu_batch_note_in(&b, (unsigned)(gpa & 0xfff), esize);
		else
			ASSERT(mmu_batch_note(&h->vm, &b, gpa, esize) == MMU_OK);
		memcpy(h_gpa_ptr(h, gpa, false), &val, esize);
		memcpy(h_gpa_ptr(h, gpa, true), &val, esize);
	}
	mmu_batch_end(&h->vm, &b);
	r->batches++;
}

static struct h_access random_access(struct fuzz *z)
{
	static const unsigned sizes[] = { 1, 2, 4, 8 };
	unsigned c = below(z, 100);
	struct h_access a;

	a.kind = below(z, 3);
	a.user = chance(z, 50);
	a.ac = chance(z, 30);
	a.size = sizes[below(z, 4)];
	a.value = rnd(z);
	if (z->mode == G_OFF)
		a.gva = below(z, 0x300000);
	else if (c < 25) /* what the guest just remapped: old or new, until a flush */
		a.gva = z->hot + below(z, PAGE_SIZE);
	else if (c < 75)
		a.gva = WIN + below(z, z->nwin * (z->mode == G_32 ? 0x400000 : 0x200000));
	else if (c < 90)
		a.gva = PHYS + below(z, RAM_END << 12);
	else
		a.gva = rnd(z) & (z->mode == G_LONG ? 0x7fffffffffffull : 0xffffffffull);
	a.gva &= ~(u64)(a.size - 1);
	if (a.kind != ACC_READ && c >= 75 && c < 90 && chance(z, 80))
		a.kind = ACC_READ; /* random physmap writes would mostly wreck the tables */
	return a;
}

/* One vCPU changes its paging controls (WP, NXE, SMEP, SMAP) in the current mode: its shadows
 * get another role, so the vCPUs' roles differ over the same guest tables. */
static void change_controls(struct fuzz *z, unsigned v)
{
	struct g_cfg c = { z->mode,	  z->pse,	 chance(z, 75),
			   chance(z, 60), chance(z, 40), chance(z, 40) };

	g_enter(&z->h, v, &c, z->mode == G_OFF ? 0 : z->cr3[z->as_of[v]]);
}

/*
 * The guest's TLB shootdown after changing an entry others may use: an IPI whose handler on
 * each target does INVLPG of the page (or, for many pages, reloads CR3 or does the PV flush).
 * Targets are every vCPU or a random subset, as a guest that tracks which CPUs ran the space.
 */
static void shootdown(struct fuzz *z, unsigned from, u64 gva)
{
	struct harness *h = &z->h;
	unsigned how = below(z, 10), all = chance(z, 70);

	for (unsigned t = 0; t < h->nvcpus; t++) {
		if (!all && t != from && chance(z, 50))
			continue;
		if (how < 6 || z->mode == G_OFF)
			h_invlpg(h, t, gva);
		else if (how < 8)
			h_set_cr3(h, t, h->ctl[t].cr3);
		else
			h_flush(h, t);
	}
}

/*
 * Two vCPUs on one entry, in the order that matters for a TLB: v uses a window page (its TLB
 * keeps the translation), u rewrites the page's entry (natively if its table is out of sync)
 * and uses the page (a fault may refill the shared shadow entry from the new value without a
 * flush), then v flushes the way a guest does (PV flush, INVLPG or CR3 reload) and must see the
 * new entry. Returns false on a mismatch.
 */
static bool entry_race(struct fuzz *z, unsigned v, struct fuzz_result *r)
{
	struct harness *h = &z->h;
	unsigned u = (v + 1 + (unsigned)below(z, h->nvcpus - 1)) % h->nvcpus,
		 esize = g_esize(z->mode);
	u64 step = z->mode == G_32 ? 0x400000 : 0x200000;
	u64 gva = WIN + below(z, z->nwin * step), gpa, e1, e2;
	struct h_access a =
		acc_of(gva, chance(z, 60) ? ACC_WRITE : ACC_READ, chance(z, 40), rnd(z));
	a.gva &= ~7ull;
	/* Mostly two threads of one process: u loads v's address space. Often from a clean
	 * slate: v's CR3 reload brings every table back in sync, so that the flush at the end has
	 * only this entry's changes to find. */
	if (chance(z, 70) && h->ctl[u].cr3 != h->ctl[v].cr3 &&
	    h_set_cr3(h, u, h->ctl[v].cr3) == MMU_OK)
		z->as_of[u] = z->as_of[v];
	if (chance(z, 50))
		h_set_cr3(h, v, h->ctl[v].cr3);
	if (!h_check_access(h, v, &a, r->msg, sizeof(r->msg)))
		return false;
	/* The 4 KiB leaf entry v's walk used (the window's directory entries are rewritten too). */
	if ((gpa = h->leaf_gpa) == ~0ull)
		return true;
	/* A new entry, or the old one write-protected and opened to user mode and execution (a
	 * right it lacked: u's access then faults and refills the shadow entry with fewer rights
	 * than v cached). */
	e1 = h_phys_read(h, gpa, esize, false);
	e2 = chance(z, 50) ? random_leaf(z, false, 1) | GA : (e1 & ~(GW | GNX)) | GU | GA;
	a = acc_of(PHYS + gpa, ACC_WRITE, false, e2);
	a.size = esize;
	if (!h_check_access(h, u, &a, r->msg, sizeof(r->msg)))
		return false;
	/* Often the writer drops its mapping of the table at once (a temporary kernel mapping):
	 * then a resync finds no writable mapping of it to take away, hence nothing to flush. */
	if (chance(z, 50))
		h_invlpg(h, u, PHYS + gpa);
	a = acc_of(gva & ~7ull, ACC_READ, chance(z, 80), 0);
	if ((e2 & GU) && !(e1 & GU))
		a.user = true; /* the right it gained */
	else if ((e1 & GNX) && !(e2 & GNX))
		a.kind = ACC_FETCH;
	if (!h_check_access(h, u, &a, r->msg, sizeof(r->msg)))
		return false;
	switch (below(z, 4)) {
	case 0:
	case 1:
		h_flush(h, v);
		break;
	case 2:
		h_invlpg(h, v, gva);
		break;
	default:
		h_set_cr3(h, v, h->ctl[v].cr3);
	}
	z->hot = gva & ~0xfffull;
	return true;
}

/* What was just done on vCPU v: the TLB check it calls for. */
enum { CHECK_PAGE, CHECK_VCPU, CHECK_ALL };

static bool step(struct fuzz *z, u64 op, struct fuzz_result *r)
{
	struct harness *h = &z->h;
	unsigned v = below(z, h->nvcpus), c = below(z, 1000), check = CHECK_PAGE;
	u64 where, page = z->hot;
	struct h_access a;

	if (c < 2) {
		change_mode(z);
		r->mode_changes++;
		check = CHECK_ALL;
	} else if (c < 5 && z->mode != G_OFF) {
		change_controls(z, v);
		r->mode_changes++;
		check = CHECK_VCPU;
	} else if (c < 40 && z->mode != G_OFF) {
		z->as_of[v] = below(z, NAS);
		h_set_cr3(h, v, z->cr3[z->as_of[v]]);
		check = CHECK_VCPU;
	} else if (c < 60) {
		page = WIN + below(z, WIN_SIZE);
		h_invlpg(h, v, page);
		check = CHECK_VCPU;
	} else if (c < 66) {
		h_flush(h, v); /* the PV flush */
		check = CHECK_VCPU;
	} else if (c < 68 && z->mode != G_OFF) {
		pv_batch(z, r);
		check = CHECK_ALL;
	} else if (c < 70) {
		/* The hypervisor itself writes guest memory (a loader, a hypercall). */
		u64 gpa = ((PT_FIRST + below(z, 0x20)) << 12) + below(z, 512) * 8;

		h_phys_write(h, gpa, 8, h_phys_read(h, gpa, 8, false) ^ GA);
	} else if (c < 90 && h->nvcpus > 1) {
		shootdown(z, v, z->hot);
		r->shootdowns++;
		check = CHECK_ALL;
	} else if (c < 110 && h->nvcpus > 1 && z->mode != G_OFF) {
		if (!entry_race(z, v, r))
			return false;
		r->races++;
		check = CHECK_VCPU;
	} else {
		a = c < 350 ? pt_write(z) : random_access(z);
		if (c >= 350 && a.gva >= WIN && a.gva < WIN + WIN_SIZE && z->mode != G_OFF &&
		    a.gva - WIN < z->nwin * (z->mode == G_32 ? 0x400000ull : 0x200000ull)) {
			z->seen = a.gva & ~0xfffull;
			z->seen_as = z->as_of[v];
		}
		if (!h_check_access(h, v, &a, r->msg, sizeof(r->msg)))
			return false;
		page = c < 350 ? z->hot : a.gva;
	}
	if (h->ctl_mismatches) {
		snprintf(r->msg, sizeof(r->msg),
			 "CR3/mode load: MMU and reference disagree on the PDPTEs");
		return false;
	}
	if (op % 1024 == 0 && !h_mem_equal(h, &where)) {
		snprintf(r->msg, sizeof(r->msg), "memory differs at gpa %llx",
			 (unsigned long long)where);
		return false;
	}
	/* The emulator's fetch through the shadow, as an exit would make it: its memo must stay
	 * true across whatever the next operations change (the audit compares it). */
	u64 fetch_gpa;
	mmu_shadow_fetch_gpa(&h->vcpu[v], page, PFERR_I | (op % 5 == 0 ? PFERR_U : 0), &fetch_gpa);
	/* A hypercall's read through the shadow (and its memo) gives what the guest's walk gives
	 * now, or nothing: never a page the walk would not, whatever was left out of sync. */
	u64 read_gpa, walk_gpa = ~0ull;
	u32 ec;
	bool user = op % 3 == 0;
	if (mmu_shadow_read_gpa(&h->vcpu[v], page, user, &read_gpa) &&
	    (!mmu_gva_to_gpa(&h->vcpu[v], page, (user ? PFERR_U : MMU_ACCESS_AC) | MMU_ACCESS_PEEK,
			     &walk_gpa, &ec) ||
	     walk_gpa != read_gpa)) {
		snprintf(r->msg, sizeof(r->msg),
			 "vcpu %u's shadow read of %llx gives %llx, the walk %llx", v,
			 (unsigned long long)page, (unsigned long long)read_gpa,
			 (unsigned long long)walk_gpa);
		return false;
	}
	z->check = op % 64 == 0 ? CHECK_ALL : check;
	z->check_vcpu = v;
	z->check_page = page;
	return true;
}

/* After the operation (and its audit): no vCPU's TLB gives more than the guest allows it. The
 * flushing vCPU's whole TLB after a flush (it must see fresh translations), every vCPU's entry
 * for the page just used or remapped after other operations, and every TLB entry now and then. */
static bool check_tlbs(struct fuzz *z, struct fuzz_result *r)
{
	struct harness *h = &z->h;

	for (unsigned u = 0; u < h->nvcpus; u++) {
		if (z->check == CHECK_VCPU && u != z->check_vcpu)
			continue;
		r->tlb_checks++;
		if (!h_check_tlb(h, u, z->check == CHECK_PAGE ? z->check_page : ~0ull, r->msg,
				 sizeof(r->msg)))
			return false;
	}
	return true;
}

void fuzz_run(const struct fuzz_opts *o, struct fuzz_result *r)
{
	/* Every third seed runs with a 36-bit physical address width (PSE-36 and reserved bits),
	 * every fourth without 1 GiB pages (PS in a PDPTE reserved). */
	struct mmu_config cfg = { .pool_max_pages = o->pool_pages ? o->pool_pages : 96,
				  .nocache = o->nocache,
				  .maxphyaddr = o->seed % 3 ? 40 : 36,
				  .no_1g = o->seed % 4 == 1,
				  .no_unsync = o->no_unsync };
	struct fuzz *z = calloc(1, sizeof(*z));
	struct mmu_stats st;
	char buf[900];
	u64 op;

	ASSERT(z);
	memset(r, 0, sizeof(*r));
	z->rng = o->seed * 0x9e3779b97f4a7c15ull + 1;
	h_init(&z->h, &cfg, o->vcpus ? o->vcpus : 2);
	h_add_slot(&z->h, 0, 0x180);
	h_add_slot(&z->h, 0x200, 0x40);
	h_add_slot(&z->h, HIGH_GFN, HIGH_PAGES);
	z->h.vm.test = o->mut;
	z->h.vm.audit_full_every = 0;
	change_mode(z);
	for (op = 0; op < o->ops; op++) {
		unsigned n;

		r->ops = op + 1;
		if (!step(z, op, r)) {
			r->mismatches = 1;
			r->fail_op = op;
			break;
		}
		r->audits += !o->no_audit;
		if (o->no_audit)
			n = 0;
		else if (!o->incremental)
			n = mmu_audit(&z->h.vm, buf, sizeof(buf));
		else if (!(n = mmu_audit_incremental(&z->h.vm, buf, sizeof(buf))) &&
			 o->cross_check && (n = mmu_audit(&z->h.vm, buf, sizeof(buf))) != 0)
			r->incremental_missed = 1;
		if (n) {
			r->audit_errors = n;
			r->fail_op = op;
			snprintf(r->msg, sizeof(r->msg), "audit: %s", buf);
			break;
		}
		if (!check_tlbs(z, r)) {
			r->mismatches = 1;
			r->fail_op = op;
			break;
		}
	}
	if (o->incremental && !r->mismatches && !r->audit_errors &&
	    (r->audit_errors = mmu_audit(&z->h.vm, buf, sizeof(buf))) != 0) {
		r->incremental_missed = 1;
		snprintf(r->msg, sizeof(r->msg), "final audit: %s", buf);
	}
	mmu_stats(&z->h.vm, &st);
	r->shadow_faults = z->h.shadow_faults;
	r->emulated = z->h.emulated_writes;
	r->reclaimed = st.pages_reclaimed;
	r->flood_zaps = st.flood_zaps;
	r->misaligned_zaps = st.misaligned_zaps;
	r->root_hits = st.root_hits;
	r->prefetched = st.prefetched;
	r->unsyncs = st.unsyncs;
	r->resyncs = st.resyncs;
	r->stale_hits = z->h.stale_hits;
	r->tlb_hits = z->h.tlb_hits;
	h_fini(&z->h);
	free(z);
}

void fuzz_report(const struct fuzz_opts *o, const struct fuzz_result *r)
{
	if (r->mismatches || r->audit_errors)
		printf("mmu-fuzz: FAILED at op %llu (replay: make mmu-fuzz SEED=%llu OPS=%llu VCPUS=%u): %s\n",
		       (unsigned long long)r->fail_op, (unsigned long long)o->seed,
		       (unsigned long long)r->fail_op + 1, o->vcpus ? o->vcpus : 2, r->msg);
	if (!o->quiet)
		printf("mmu-fuzz: shadow_faults=%llu emulated_writes=%llu reclaimed=%llu mode_changes=%llu "
		       "flood_zaps=%llu misaligned_zaps=%llu root_hits=%llu prefetched=%llu unsyncs=%llu "
		       "resyncs=%llu stale_hits=%llu tlb_hits=%llu tlb_checks=%llu shootdowns=%llu "
		       "races=%llu batches=%llu audits=%llu\n",
		       (unsigned long long)r->shadow_faults, (unsigned long long)r->emulated,
		       (unsigned long long)r->reclaimed, (unsigned long long)r->mode_changes,
		       (unsigned long long)r->flood_zaps, (unsigned long long)r->misaligned_zaps,
		       (unsigned long long)r->root_hits, (unsigned long long)r->prefetched,
		       (unsigned long long)r->unsyncs, (unsigned long long)r->resyncs,
		       (unsigned long long)r->stale_hits, (unsigned long long)r->tlb_hits,
		       (unsigned long long)r->tlb_checks, (unsigned long long)r->shootdowns,
		       (unsigned long long)r->races, (unsigned long long)r->batches,
		       (unsigned long long)r->audits);
	printf("mmu-fuzz: ops=%llu mismatches=%llu audit_errors=%llu seed=%llu vcpus=%u%s%s\n",
	       (unsigned long long)r->ops, (unsigned long long)r->mismatches,
	       (unsigned long long)r->audit_errors, (unsigned long long)o->seed,
	       o->vcpus ? o->vcpus : 2, o->incremental ? " audit=incremental" : "",
	       r->incremental_missed ? " INCREMENTAL-MISSED" : "");
}
