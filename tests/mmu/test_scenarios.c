/* SPDX-License-Identifier: GPL-2.0-only */
/* MMU scenarios 1-9 and 11 of issue 3, and the prefetch under large pages (12), each a cmocka
 * test, against the reference machine. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "mmu/internal.h"
#include "tests/mmu/common.h"

/* ---- 1: every mode x every permission combination ---- */

struct matrix_cfg {
	int mode;
	bool pse;
	unsigned leaf_level;
};

/* The emulator's fetch through the shadow (mmu_shadow_fetch_gpa), and a hypercall's read
 * through it (mmu_shadow_read_gpa: a user read, or a supervisor one with SMAP set aside, the
 * only ones gmem asks it for), give what the guest's walk gives, whenever they give anything:
 * here the shadow is in sync (the entries were just set and faulted in), so a leaf they read
 * grants nothing the walk denies, in every mode and control combination of the matrix (SMEP,
 * NX, U/S). */
static void check_shadow(struct harness *h, u64 gva, bool user, bool fetch, unsigned *hits)
{
	u32 access = (fetch ? PFERR_I : user ? 0 : MMU_ACCESS_AC) | (user ? PFERR_U : 0), ec;
	u64 sgpa, wgpa;

	if (fetch ? !mmu_shadow_fetch_gpa(&h->vcpu[0], gva, access, &sgpa)
		  : !mmu_shadow_read_gpa(&h->vcpu[0], gva, user, &sgpa))
		return;
	assert_true(mmu_gva_to_gpa(&h->vcpu[0], gva, access | MMU_ACCESS_PEEK, &wgpa, &ec));
	assert_int_equal(sgpa, wgpa);
	(*hits)++;
}

static void matrix_one(const struct matrix_cfg *mc)
{
	unsigned shadow_fetches = 0, shadow_reads = 0;
	static const struct {
		int kind;
		bool user, ac;
	} accs[] = {
		{ ACC_READ, true, false },   { ACC_WRITE, true, false },
		{ ACC_FETCH, true, false },  { ACC_READ, false, false },
		{ ACC_WRITE, false, false }, { ACC_FETCH, false, false },
		{ ACC_READ, false, true },   { ACC_WRITE, false, true },
	};
	struct harness *h = calloc(1, sizeof(*h));
	struct g_frames f = { 0x300, 0x3ff };
	const u64 gva = 0x40000000ull + 0x21000 + 0x18, data = 0x21;
	unsigned levels = g_levels(mc->mode), l, bits, up, ctl, i;
	u64 cr3, path[5] = { 0 }, leaf_base;
	bool w64 = mc->mode != G_32;

	h_init(h, NULL, 1);
	std_slots(h);
	h_phys_write(h, (data << 12) + 0x18, 8, 0x1122334455667788ull);
	cr3 = g_table(h, &f) << 12;
	leaf_base = mc->leaf_level == 1 ? data << 12 : GPS;
	g_map(h, &f, mc->mode, cr3, gva, leaf_base | GP | GW | GU, mc->leaf_level, GP | GW | GU);
	for (l = levels; l >= mc->leaf_level; l--)
		path[l] = g_entry_at(h, mc->mode, cr3, gva, l);
	for (bits = 0; bits < 17; bits++) {
		u64 leaf =
			leaf_base | (bits & 1 ? GP : 0) | (bits & 2 ? GW : 0) | (bits & 4 ? GU : 0);

		if (bits & 8) {
			if (!w64)
				continue;
			leaf |= GNX;
		}
		if (bits == 16) { /* a reserved bit */
			if (!w64 && mc->leaf_level == 1)
				continue;
			leaf = leaf_base | GP | GW | GU | (w64 ? BIT(45) : BIT(21));
		}
		for (up = 0; up < 4; up++)
			for (ctl = 0; ctl < 16; ctl++) {
				struct g_cfg c = { mc->mode, mc->pse, ctl & 1,
						   ctl & 2,  ctl & 4, ctl & 8 };

				assert_int_equal(g_enter(h, 0, &c, cr3), MMU_OK);
				for (i = 0; i < ARRAY_SIZE(accs); i++) {
					struct h_access a =
						acc_of(gva, accs[i].kind, accs[i].user, 0x99);

					a.ac = accs[i].ac;
					/* Fresh entries (A/D clear) for every access. */
					for (l = levels; l > mc->leaf_level; l--)
						if (!(mc->mode == G_PAE && l == 3))
							g_set(h, mc->mode, path[l],
							      (g_get(h, mc->mode, path[l]) &
							       ~0x7full) |
								      GP | (up & 1 ? GW : 0) |
								      (up & 2 ? GU : 0));
					g_set(h, mc->mode, path[mc->leaf_level], leaf);
					CHECK_ACCESS(h, 0, &a);
					/* Both privileges after each access: the entry one
					 * access filled must not serve the other's. */
					for (int u = 0; u < 2; u++) {
						check_shadow(h, gva, u, true, &shadow_fetches);
						check_shadow(h, gva, u, false, &shadow_reads);
					}
				}
				CHECK_AUDIT(h);
			}
	}
	/* 4-level shadows serve fetches (the check above is not vacuous there). */
	if (mc->mode == G_LONG) {
		assert_true(shadow_fetches > 0);
		assert_true(shadow_reads > 0);
	}
	h_fini(h);
	free(h);
}

static void test_matrix_32(void **st UNUSED)
{
	struct matrix_cfg c = { G_32, false, 1 };
	matrix_one(&c);
}
static void test_matrix_32_pse(void **st UNUSED)
{
	struct matrix_cfg c = { G_32, true, 2 };
	matrix_one(&c);
}
static void test_matrix_pae(void **st UNUSED)
{
	struct matrix_cfg c = { G_PAE, false, 1 };
	matrix_one(&c);
}
static void test_matrix_pae_2m(void **st UNUSED)
{
	struct matrix_cfg c = { G_PAE, false, 2 };
	matrix_one(&c);
}
static void test_matrix_long(void **st UNUSED)
{
	struct matrix_cfg c = { G_LONG, false, 1 };
	matrix_one(&c);
}
static void test_matrix_long_2m(void **st UNUSED)
{
	struct matrix_cfg c = { G_LONG, false, 2 };
	matrix_one(&c);
}
static void test_matrix_long_1g(void **st UNUSED)
{
	struct matrix_cfg c = { G_LONG, false, 3 };
	matrix_one(&c);
}

static void test_matrix_off(void **st UNUSED)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct g_cfg c = { G_OFF, 0, 0, 0, 0, 0 };
	u64 gva;

	h_init(h, NULL, 1);
	std_slots(h);
	assert_int_equal(g_enter(h, 0, &c, 0), MMU_OK);
	for (gva = 0; gva < 0x800000; gva += 0x3000) {
		struct h_access a = acc_of(gva, (int)(gva % 3), gva & 0x4000, gva);

		CHECK_ACCESS(h, 0, &a);
	}
	CHECK_AUDIT(h);
	h_fini(h);
	free(h);
}

/* ---- helpers for the scenarios below ---- */

#define PHYSMAP 0xc0000000ull

/* Scenarios of guest stores to shadowed tables that trap (as every store did before out-of-sync
 * shadows, and as stores to upper-level tables still do); out of sync: scenario 14. */
static const struct mmu_config wp_only = { .no_unsync = true };

static struct harness *mk(const struct mmu_config *cfg)
{
	struct harness *h = calloc(1, sizeof(*h));

	assert_non_null(h);
	h_init(h, cfg, 1);
	std_slots(h);
	return h;
}

static void done(struct harness *h)
{
	CHECK_AUDIT(h);
	h_fini(h);
	free(h);
}

/* A space with the first 4 MiB of RAM mapped supervisor-writable at PHYSMAP (so the guest can
 * write its own tables) and nothing else. */
static u64 new_space(struct harness *h, struct g_frames *f, int mode)
{
	u64 cr3 = g_table(h, f) << 12, g;

	for (g = 0; g < 0x400; g++)
		g_map(h, f, mode, cr3, PHYSMAP + (g << 12), (g << 12) | GP | GW, 1, GP | GW | GU);
	return cr3;
}

static void enter(struct harness *h, int mode, bool pse, u64 cr3)
{
	struct g_cfg c = { mode, pse, true, true, false, false };

	assert_int_equal(g_enter(h, 0, &c, cr3), MMU_OK);
}

/* Guest store of an entry into its own table, through the physmap. */
static void guest_set(struct harness *h, int mode, u64 gpa, u64 value)
{
	struct h_access a = acc_of(PHYSMAP + gpa, ACC_WRITE, false, value);

	a.size = g_esize(mode);
	CHECK_ACCESS(h, 0, &a);
}

static u64 guest_read(struct harness *h, u64 gva, bool user)
{
	struct h_access a = acc_of(gva, ACC_READ, user, 0);
	struct h_result r;

	CHECK_ACCESS(h, 0, &a);
	h_cpu_access(h, 0, &a, &r);
	assert_int_equal(r.kind, R_OK);
	return r.value;
}

static unsigned shadows_of(struct harness *h, u64 gfn)
{
	return h->slot[0].s.frames[gfn].shadowed;
}

static void fill_frame(struct harness *h, u64 gfn, u64 tag)
{
	h_phys_write(h, gfn << 12, 8, tag);
}

/* ---- 2: context switches among 8 address spaces ---- */

static void switch_spaces(int mode, bool nocache)
{
	struct mmu_config cfg = { .nocache = nocache };
	struct harness *h = mk(&cfg);
	struct g_frames f = { 0x300, 0x400 };
	u64 cr3[8], before;
	unsigned as, i, round;

	for (as = 0; as < 8; as++) {
		cr3[as] = g_table(h, &f) << 12;
		for (i = 0; i < 16; i++) {
			u64 gfn = 0x100 + as * 16 + i;

			fill_frame(h, gfn, gfn);
			g_map(h, &f, mode, cr3[as], 0x400000 + i * 0x1000,
			      (gfn << 12) | GP | GW | GU, 1, GP | GW | GU);
		}
	}
	enter(h, mode, false, cr3[0]);
	for (round = 0; round < 2; round++) {
		before = h->shadow_faults;
		for (as = 0; as < 8; as++) {
			assert_int_equal(h_set_cr3(h, 0, cr3[as]), MMU_OK);
			for (i = 0; i < 16; i++)
				assert_int_equal(guest_read(h, 0x400000 + i * 0x1000, true),
						 0x100 + as * 16 + i);
		}
		if (round == 1 && !nocache)
			assert_int_equal(h->shadow_faults - before, 0);
		/* Every space is rebuilt, one fault per page (the baseline does not prefetch). */
		if (round == 1 && nocache)
			assert_true(h->shadow_faults - before >= 8 * 16);
	}
	if (!nocache)
		assert_true(h->vm.stats.root_hits >= 8);
	done(h);
}

static void test_switch_long(void **st UNUSED)
{
	switch_spaces(G_LONG, false);
}
static void test_switch_pae(void **st UNUSED)
{
	switch_spaces(G_PAE, false);
}
static void test_switch_32(void **st UNUSED)
{
	switch_spaces(G_32, false);
}
static void test_switch_nocache(void **st UNUSED)
{
	switch_spaces(G_LONG, true);
}

/* ---- 3: guest writes to a shadowed page table ---- */

static void test_pt_writes(void **st UNUSED)
{
	static const int modes[] = { G_32, G_PAE, G_LONG };
	unsigned m;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		int mode = modes[m];
		struct harness *h = mk(&wp_only);
		struct g_frames f = { 0x300, 0x400 };
		u64 cr3 = new_space(h, &f, mode), x = 0x40000000, pte, pde;
		struct h_access wr = acc_of(x, ACC_WRITE, true, 5);

		fill_frame(h, 0x100, 0xa);
		fill_frame(h, 0x101, 0xb);
		pte = g_map(h, &f, mode, cr3, x, (0x100 << 12) | GP | GW | GU, 1, GP | GW | GU);
		pde = g_entry_at(h, mode, cr3, x, 2);
		enter(h, mode, false, cr3);
		assert_int_equal(guest_read(h, x, true), 0xa);
		guest_set(h, mode, pte, (0x101 << 12) | GP | GW | GU); /* remap */
		assert_int_equal(guest_read(h, x, true), 0xb);
		guest_set(h, mode, pte, (0x101 << 12) | GP | GU); /* read-only */
		CHECK_ACCESS(h, 0, &wr);
		guest_set(h, mode, pte, 0); /* not present */
		CHECK_ACCESS(h, 0, &wr);
		guest_set(h, mode, pte, (0x100 << 12) | GP | GW | GU);
		assert_int_equal(guest_read(h, x, true), 0xa);
		if (mode == G_LONG) {
			/* The directory entry above it: drop the user bit. */
			guest_set(h, mode, pde, (g_get(h, mode, pde) & ~GU));
			CHECK_ACCESS(h, 0, &wr);
		}
		done(h);
	}
}

/* ---- the locked read-modify-write hook (mmu_cmpxchg) ---- */

/* A swap of a shadowed page-table entry zaps its shadow as mmu_write does; a failed compare
 * reports what memory holds and changes nothing; an operand anywhere inside one aligned 8
 * bytes swaps only its own bytes; bad sizes, places and holes are refused. */
static void test_cmpxchg_hook(void **st UNUSED)
{
	struct harness *h = mk(&wp_only);
	struct g_frames f = { 0x300, 0x400 };
	u64 cr3 = new_space(h, &f, G_LONG), x = 0x40000000, pte, old, want;
	u64 data = 0x123000;

	fill_frame(h, 0x100, 0xa);
	fill_frame(h, 0x101, 0xb);
	pte = g_map(h, &f, G_LONG, cr3, x, (0x100 << 12) | GP | GW | GU, 1, GP | GW | GU);
	enter(h, G_LONG, false, cr3);
	assert_int_equal(guest_read(h, x, true), 0xa);
	want = (0x101 << 12) | GP | GW | GU;
	old = (0x102 << 12) | GP | GW | GU; /* not what it holds */
	assert_int_equal(mmu_cmpxchg(&h->vm, pte, 8, &old, want), MMU_OK);
	assert_int_equal(old, h_phys_read(h, pte, 8, false));
	assert_int_equal(guest_read(h, x, true), 0xa);
	assert_int_equal(mmu_cmpxchg(&h->vm, pte, 8, &old, want), MMU_OK);
	assert_int_equal(h_phys_read(h, pte, 8, false), want);
	memcpy(h_gpa_ptr(h, pte, true), &want, 8);     /* the reference's copy */
	assert_int_equal(guest_read(h, x, true), 0xb); /* the old shadow entry is gone */

	h_phys_write(h, data, 8, 0x8877665544332211ull);
	old = 0x5544;
	assert_int_equal(mmu_cmpxchg(&h->vm, data + 3, 2, &old, 0xbeef), MMU_OK);
	assert_int_equal(h_phys_read(h, data, 8, false), 0x887766beef332211ull);
	old = 0x55;
	assert_int_equal(mmu_cmpxchg(&h->vm, data + 5, 1, &old, 0), MMU_OK);
	assert_int_equal(old, 0x66);
	assert_int_equal(h_phys_read(h, data, 8, false), 0x887766beef332211ull);
	h_phys_write(h, data, 8, 0x887766beef332211ull); /* the reference's copy */
	assert_int_equal(mmu_cmpxchg(&h->vm, data + 6, 4, &old, 0), MMU_EINVAL);
	assert_int_equal(mmu_cmpxchg(&h->vm, data + 1, 8, &old, 0), MMU_EINVAL);
	assert_int_equal(mmu_cmpxchg(&h->vm, data, 0, &old, 0), MMU_EINVAL);
	assert_int_equal(mmu_cmpxchg(&h->vm, data, 9, &old, 0), MMU_EINVAL);
	assert_int_equal(mmu_cmpxchg(&h->vm, 0x7ff00000ull, 8, &old, 0), MMU_EINVAL); /* hole */
	done(h);
}

#define RACE_ROUNDS 200000

struct race {
	u32 *word;	     /* bytes 4..7 of the 8 */
	unsigned stop, done; /* set by the test; the thread's increments */
};

static void *race_neighbour(void *arg)
{
	struct race *r = arg;
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		__atomic_fetch_add(r->word, 1, __ATOMIC_SEQ_CST);
		r->done++;
	}
	return NULL;
}

/* An emulated LOCK INC of byte 0 (read, compute, mmu_cmpxchg, again on failure, as the
 * emulator does) beside another CPU's locked increments of bytes 4..7 of the same 8 bytes:
 * neither loses one. A compare and a plain write in its place loses some of the other's
 * (checked once: 675,309 of 1,918,916 lost). */
static void test_cmpxchg_race(void **st UNUSED)
{
	struct harness *h = mk(&wp_only);
	u64 data = 0x124000;
	struct race r = { (u32 *)(void *)h_gpa_ptr(h, data + 4, false), 0, 0 };
	pthread_t t;

	h_phys_write(h, data, 8, 0);
	assert_int_equal(pthread_create(&t, NULL, race_neighbour, &r), 0);
	while (!__atomic_load_n(r.word, __ATOMIC_SEQ_CST))
		; /* the neighbour is running */
	/* MMU_EBUSY (the neighbour stored between every read and swap of CMPXCHG_TRIES) is
	 * legitimate when the host schedules the two threads just so: Umbra then lets the guest
	 * run the instruction again (vmm/exit.c unshadows the frame and does not advance RIP),
	 * which is what the outer loop does. Lost increments are what may not happen. */
	for (unsigned i = 0; i < RACE_ROUNDS; i++) {
		int e;
		do {
			u64 cur = h_phys_read(h, data, 1, false), seen;
			do {
				seen = cur;
				e = mmu_cmpxchg(&h->vm, data, 1, &cur, (seen + 1) & 0xff);
			} while (e == MMU_OK && cur != seen);
		} while (e == MMU_EBUSY);
		assert_int_equal(e, MMU_OK);
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(h_phys_read(h, data, 1, false), RACE_ROUNDS & 0xff);
	assert_int_equal(h_phys_read(h, data + 4, 4, false), r.done);
	h_phys_write(h, data, 8, h_phys_read(h, data, 8, false)); /* the reference's copy */
	done(h);
}

/* ---- 4: one frame aliased by 10,000 entries ---- */

static void test_aliases(void **st UNUSED)
{
	struct harness *h = mk(&wp_only);
	struct g_frames f = { 0x200, 0x400 };
	u64 cr3 = new_space(h, &f, G_LONG), d = 0x150, n = 10000, i, *order;
	struct mmu_frame *fr = &h->slot[0].s.frames[d];

	for (i = 0; i < n; i++)
		g_map(h, &f, G_LONG, cr3, 0x40000000 + i * 0x1000,
		      (d << 12) | GP | GW | GU | GA | GD, 1, GP | GW | GU);
	enter(h, G_LONG, false, cr3);
	for (i = 0; i < n; i++) {
		struct h_access a = acc_of(0x40000000 + i * 0x1000, ACC_WRITE, true, i);

		CHECK_ACCESS(h, 0, &a);
	}
	assert_int_equal(pset_count(fr->rmap), n + 0);
	CHECK_AUDIT(h);
	/* Remove half in a random order. */
	order = malloc(n * sizeof(*order));
	for (i = 0; i < n; i++)
		order[i] = i;
	srand(4);
	for (i = n - 1; i > 0; i--) {
		u64 j = (u64)rand() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n / 2; i++) {
		h_invlpg(h, 0, 0x40000000 + order[i] * 0x1000);
		if (i % 1000 == 999) {
			assert_int_equal(pset_count(fr->rmap), n - i - 1);
			CHECK_AUDIT(h);
		}
	}
	/* The frame becomes a page table: every writable mapping goes, and the flushes that
	 * takes complete before the table is read (on Umbra, another CPU's vCPU could still
	 * store through its TLB: the harness's flushes are immediate, so only the call shows). */
	u64 waits = h->flush_waits;
	g_map(h, &f, G_LONG, cr3, 0x7f0000000000ull, (d << 12) | GP | GW | GU, 2, GP | GW | GU);
	assert_int_equal(h_set_cr3(h, 0, cr3), MMU_OK);
	{
		struct h_access a = acc_of(0x7f0000000000ull, ACC_READ, true, 0);

		CHECK_ACCESS(h, 0, &a);
	}
	assert_true(shadows_of(h, d) > 0);
	assert_int_equal(fr->rmap, 0);
	assert_true(h->flush_waits > waits);
	CHECK_AUDIT(h);
	{
		u64 before = h->emulated_writes;
		struct h_access a = acc_of(0x40000000 + order[n - 1] * 0x1000, ACC_WRITE, true, 77);

		CHECK_ACCESS(h, 0, &a);
		assert_int_equal(h->emulated_writes, before + 1);
	}
	free(order);
	done(h);
}

/* ---- 5: misaligned write, flood ---- */

/* A long-mode guest that has read x = 0x40000000 through its leaf table, shadowed once and
 * kept write-protected (flood detection is for such tables); *pte is the gpa of x's entry. */
static struct harness *one_shadowed_leaf(u64 *pte)
{
	struct harness *h = mk(&wp_only);
	struct g_frames f = { 0x300, 0x400 };
	u64 cr3 = new_space(h, &f, G_LONG), x = 0x40000000;

	*pte = g_map(h, &f, G_LONG, cr3, x, (0x100 << 12) | GP | GW | GU, 1, GP | GW | GU);
	enter(h, G_LONG, false, cr3);
	guest_read(h, x, true);
	assert_int_equal(shadows_of(h, *pte >> 12), 1);
	return h;
}

static void test_misaligned_flood(void **st UNUSED)
{
	u64 x = 0x40000000, pte, t, before, faults, zaps;
	struct harness *h = one_shadowed_leaf(&pte);
	struct h_access a;
	unsigned i;

	t = pte >> 12;

	/* An 8-byte write across two entries zaps the shadow page. */
	zaps = h->vm.stats.misaligned_zaps;
	a = acc_of(PHYSMAP + (t << 12) + 0x104, ACC_WRITE, false, 0);
	CHECK_ACCESS(h, 0, &a);
	assert_int_equal(h->vm.stats.misaligned_zaps, zaps + 1);
	assert_int_equal(shadows_of(h, t), 0);
	CHECK_AUDIT(h);

	/* Shadow it again, then three writes in a row: the third zaps it, the fourth runs native. */
	guest_read(h, x, true);
	assert_int_equal(shadows_of(h, t), 1);
	zaps = h->vm.stats.flood_zaps;
	for (i = 0; i < 3; i++) {
		before = h->emulated_writes;
		guest_set(h, G_LONG, (t << 12) + 0x800 + i * 8, 0);
		assert_int_equal(h->emulated_writes, before + 1);
	}
	assert_int_equal(h->vm.stats.flood_zaps, zaps + 1);
	assert_int_equal(shadows_of(h, t), 0);
	before = h->emulated_writes;
	guest_set(h, G_LONG, (t << 12) + 0x900, 0);
	assert_int_equal(h->emulated_writes, before);
	faults = h->shadow_faults;
	guest_set(h, G_LONG, (t << 12) + 0x908, 0);
	assert_int_equal(h->shadow_faults, faults);
	assert_int_equal(guest_read(h, x, true), 0); /* and x still maps right */
	done(h);
}

/* A paravirtual batch rewriting a shadowed table zaps the entries it changes, like emulated
 * writes, but is neither counted as emulated nor taken for a flood: the table stays shadowed
 * however many entries it rewrites, and an emulated write after it starts a fresh count. */
static void batch_write(struct harness *h, u64 gpa, u64 value)
{
	struct mmu_batch b;

	mmu_batch_begin(&b);
	assert_int_equal(mmu_batch_note(&h->vm, &b, gpa, 8), MMU_OK);
	assert_int_equal(h->vm.ops->write_gpa(h->vm.ctx, gpa, &value, 8), 0);
	mmu_batch_end(&h->vm, &b);
	memcpy(h_gpa_ptr(h, gpa, true), &value, 8); /* the reference machine's memory too */
}

static void test_batch_no_flood(void **st UNUSED)
{
	u64 x = 0x40000000, pte, t, emulated, zaps;
	struct harness *h = one_shadowed_leaf(&pte);
	unsigned i;

	t = pte >> 12;
	emulated = h->vm.stats.writes_emulated;
	zaps = h->vm.stats.flood_zaps;
	for (i = 0; i < 16; i++)
		batch_write(h, (t << 12) + 0x800 + i * 8, 0);
	assert_int_equal(h->vm.stats.writes_emulated, emulated);
	assert_int_equal(h->vm.stats.flood_zaps, zaps);
	assert_int_equal(shadows_of(h, t), 1);
	CHECK_AUDIT(h);
	/* The entry x uses (at gpa pte), rewritten by the batch to another frame: its shadow
	 * entry is dropped, and the next access maps the new frame. */
	batch_write(h, pte, (0x180 << 12) | GP | GW | GU);
	CHECK_AUDIT(h);
	h_invlpg(h, 0, x); /* as the guest's flush after its batch */
	guest_read(h, x, true);
	CHECK_AUDIT(h);
	assert_int_equal(shadows_of(h, t), 1);
	/* Two emulated writes after the batch: counted, but no flood yet (it needs three). */
	guest_set(h, G_LONG, (t << 12) + 0x900, 0);
	guest_set(h, G_LONG, (t << 12) + 0x908, 0);
	assert_int_equal(h->vm.stats.writes_emulated, emulated + 2);
	assert_int_equal(shadows_of(h, t), 1);
	done(h);
}

/* A batch rewriting many entries that map one frame takes them out of its reverse map in one
 * pass (pset_remove_marked) and leaves the other tables' entries there: 1024 entries in two
 * leaf tables alias frame d; the batch drops every third of the first table's, then the rest. */
static void batch_of(struct harness *h, const u64 *gpa, unsigned n, unsigned step, u64 value)
{
	struct mmu_batch b;

	mmu_batch_begin(&b);
	for (unsigned i = 0; i < n; i += step) {
		assert_int_equal(mmu_batch_note(&h->vm, &b, gpa[i], 8), MMU_OK);
		assert_int_equal(h->vm.ops->write_gpa(h->vm.ctx, gpa[i], &value, 8), 0);
		memcpy(h_gpa_ptr(h, gpa[i], true), &value, 8);
	}
	mmu_batch_end(&h->vm, &b);
}

static void test_batch_aliases(void **st UNUSED)
{
	struct harness *h = mk(&wp_only);
	struct g_frames f = { 0x200, 0x400 };
	u64 cr3 = new_space(h, &f, G_LONG), d = 0x150, n = 1024, i, pte[1024];
	struct mmu_frame *fr = &h->slot[0].s.frames[d];

	for (i = 0; i < n; i++)
		pte[i] = g_map(h, &f, G_LONG, cr3, 0x40000000 + i * 0x1000,
			       (d << 12) | GP | GW | GU | GA | GD, 1, GP | GW | GU);
	enter(h, G_LONG, false, cr3);
	for (i = 0; i < n; i++) {
		struct h_access a = acc_of(0x40000000 + i * 0x1000, ACC_WRITE, true, i);

		CHECK_ACCESS(h, 0, &a);
	}
	assert_int_equal(pset_count(fr->rmap), n + 0);
	/* The incremental audit tracks from here: the batch's marks must cover what it changed. */
	assert_int_equal(mmu_audit_incremental(&h->vm, NULL, 0), 0);
	/* Read-only from now on (as fork's copy-on-write): 171 of the first table's 512. */
	batch_of(h, pte, 512, 3, (d << 12) | GP | GU | GA);
	assert_int_equal(pset_count(fr->rmap), n - 171);
	assert_int_equal(mmu_audit_incremental(&h->vm, NULL, 0), 0);
	CHECK_AUDIT(h);
	batch_of(h, pte, 512, 1, (d << 12) | GP | GU | GA);
	assert_int_equal(pset_count(fr->rmap), n - 512);
	assert_int_equal(mmu_audit_incremental(&h->vm, NULL, 0), 0);
	CHECK_AUDIT(h);
	h_set_cr3(h, 0, cr3); /* the guest's flush after its batch */
	for (i = 0; i < n; i++) {
		struct h_access a = acc_of(0x40000000 + i * 0x1000, ACC_READ, true, 0);

		CHECK_ACCESS(h, 0, &a);
	}
	CHECK_AUDIT(h);
	/* The second table's entries, all of them: the reverse map empties, one pass. */
	batch_of(h, pte + 512, 512, 1, 0);
	assert_int_equal(pset_count(fr->rmap), 0);
	CHECK_AUDIT(h);
	done(h);
}

/* ---- 6: 32-bit tables over all quadrants ---- */

static void test_quadrants(void **st UNUSED)
{
	static const u64 vas[] = { 0x00401000, 0x00601000, 0x40401000, 0x80401000, 0xc0801000 };
	struct harness *h = calloc(1, sizeof(*h));
	struct g_frames f = { 0x300, 0x400 };
	u64 cr3, pt, pd, g, faults;
	unsigned i;

	h_init(h, NULL, 1);
	std_slots(h);
	cr3 = g_table(h, &f) << 12;
	pd = cr3 >> 12;
	for (g = 0; g < 0x400; g++)
		g_map(h, &f, G_32, cr3, 0xe0000000 + (g << 12), (g << 12) | GP | GW, 1,
		      GP | GW | GU);
	for (i = 0; i < ARRAY_SIZE(vas); i++) {
		fill_frame(h, 0x100 + i, 0x100 + i);
		g_map(h, &f, G_32, cr3, vas[i], ((0x100 + i) << 12) | GP | GW | GU, 1,
		      GP | GW | GU);
	}
	pt = g_get(h, G_32, g_entry_gpa(G_32, pd, 2, vas[0])) >> 12;
	enter(h, G_32, false, cr3);
	for (i = 0; i < ARRAY_SIZE(vas); i++)
		assert_int_equal(guest_read(h, vas[i], true), 0x100 + i);
	assert_int_equal(shadows_of(h, pd), 4); /* one per quadrant */
	assert_int_equal(shadows_of(h, pt), 2); /* both halves */
	/* The upper half of the PT: only that mapping refaults. */
	fill_frame(h, 0x120, 0x120);
	{
		struct h_access a = acc_of(0xe0000000 + g_entry_gpa(G_32, pt, 1, vas[1]), ACC_WRITE,
					   false, (0x120 << 12) | GP | GW | GU);

		a.size = 4;
		CHECK_ACCESS(h, 0, &a);
	}
	faults = h->shadow_faults;
	assert_int_equal(guest_read(h, vas[0], true), 0x100);
	assert_int_equal(h->shadow_faults, faults);
	assert_int_equal(guest_read(h, vas[1], true), 0x120);
	assert_true(h->shadow_faults > faults);
	/* A directory entry in the third quadrant. */
	{
		struct h_access a = acc_of(0xe0000000 + g_entry_gpa(G_32, pd, 2, vas[3]), ACC_WRITE,
					   false, g_get(h, G_32, g_entry_gpa(G_32, pd, 2, vas[2])));

		a.size = 4;
		CHECK_ACCESS(h, 0, &a);
	}
	faults = h->shadow_faults;
	assert_int_equal(guest_read(h, vas[2], true), 0x102);
	assert_int_equal(h->shadow_faults, faults);
	assert_int_equal(guest_read(h, vas[3], true), 0x102); /* now through quadrant 1's PT */
	CHECK_AUDIT(h);
	done(h);
}

/* ---- 7: one frame as page directory and page table at once ---- */

static void test_two_roles(void **st UNUSED)
{
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	u64 cr3 = new_space(h, &f, G_LONG), x = 0x40000000, pd, pte, self = 0x40a00000, before;
	unsigned i;

	fill_frame(h, 0x100, 0xa);
	pte = g_map(h, &f, G_LONG, cr3, x, (0x100 << 12) | GP | GW | GU, 1, GP | GW | GU);
	pd = g_entry_at(h, G_LONG, cr3, x, 2) >> 12;
	/* PDE 5 of the directory points back at the directory: it is also a page table. */
	g_set(h, G_LONG, g_entry_gpa(G_LONG, pd, 2, self), (pd << 12) | GP | GW | GU);
	enter(h, G_LONG, false, cr3);
	assert_int_equal(guest_read(h, x, true), 0xa);
	/* Through the self map, PDE 0 is read as a PTE: the page table frame itself. */
	for (i = 0; i < 6; i++) {
		struct h_access a = acc_of(self + i * 0x1000, ACC_READ, true, 0);

		CHECK_ACCESS(h, 0, &a);
	}
	assert_int_equal(shadows_of(h, pd), 2);
	before = h->emulated_writes;
	guest_set(h, G_LONG, g_entry_gpa(G_LONG, pd, 2, x), 0); /* hits both roles */
	assert_int_equal(h->emulated_writes, before + 1);
	for (i = 0; i < 6; i++) {
		struct h_access a = acc_of(self + i * 0x1000, ACC_READ, true, 0);

		CHECK_ACCESS(h, 0, &a);
	}
	{
		struct h_access a = acc_of(x, ACC_READ, true, 0);

		CHECK_ACCESS(h, 0, &a);
	}
	(void)pte;
	done(h);
}

/* A write the emulator cannot do: unshadowing the frame (both of its roles here) lets the guest
 * write it natively; using it as a table again shadows and write-protects it again. */
static void test_unshadow(void **st UNUSED)
{
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	u64 cr3 = new_space(h, &f, G_LONG), x = 0x40000000, self = 0x40a00000, pd, emul, n;
	struct h_access rd = acc_of(x, ACC_READ, true, 0), rs = acc_of(self, ACC_READ, true, 0);

	fill_frame(h, 0x100, 0xa);
	g_map(h, &f, G_LONG, cr3, x, (0x100 << 12) | GP | GW | GU, 1, GP | GW | GU);
	pd = g_entry_at(h, G_LONG, cr3, x, 2) >> 12;
	g_set(h, G_LONG, g_entry_gpa(G_LONG, pd, 2, self), (pd << 12) | GP | GW | GU);
	enter(h, G_LONG, false, cr3);
	CHECK_ACCESS(h, 0, &rd);
	CHECK_ACCESS(h, 0, &rs);
	assert_int_equal(shadows_of(h, pd), 2);
	n = h->vm.stats.unshadowed;

	mmu_unshadow_gfn(&h->vm, pd);
	assert_int_equal(shadows_of(h, pd), 0);
	for (struct list_head *l = h->vm.lru.next; l != &h->vm.lru; l = l->next)
		assert_false(sp_of_lru(l)->gfn == pd && !sp_of_lru(l)->role.direct);
	assert_int_equal(h->vm.stats.unshadowed, n + 1);
	CHECK_AUDIT(h);
	mmu_unshadow_gfn(&h->vm, pd); /* nothing left to zap: not counted */
	assert_int_equal(h->vm.stats.unshadowed, n + 1);

	/* Two writes through the physmap (the first may refault to map it writable): native. */
	emul = h->emulated_writes;
	guest_set(h, G_LONG, (pd << 12) + 0x800, 0);
	guest_set(h, G_LONG, (pd << 12) + 0x808, 0);
	assert_int_equal(h->emulated_writes, emul);
	CHECK_AUDIT(h);

	/* Back in use as a directory: shadowed again, and its writes trap again. */
	CHECK_ACCESS(h, 0, &rd);
	assert_int_equal(shadows_of(h, pd), 1);
	assert_int_equal(pset_count(h->slot[0].s.frames[pd].rmap), 0);
	CHECK_AUDIT(h);
	guest_set(h, G_LONG, (pd << 12) + 0x810, 0);
	assert_int_equal(h->emulated_writes, emul + 1);
	CHECK_ACCESS(h, 0, &rs);
	assert_int_equal(shadows_of(h, pd), 2);
	done(h);
}

/* ---- 8: large pages, and an entry switching between large and small ---- */

static void large_small(int mode, bool pse, unsigned level)
{
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	u64 cr3 = new_space(h, &f, mode), x = 0x40000000 + 0x21000, ent, pt, small;
	unsigned i;

	for (i = 0; i < 0x40; i++)
		fill_frame(h, i, 0x1000 + i);
	fill_frame(h, 0x100, 0xa);
	ent = g_map(h, &f, mode, cr3, x, GPS | GP | GW | GU, level, GP | GW | GU);
	pt = g_table(h, &f);
	g_set(h, mode, (pt << 12) + ((x >> 12) & (mode == G_32 ? 0x3ff : 0x1ff)) * g_esize(mode),
	      (0x100 << 12) | GP | GW | GU);
	small = (pt << 12) | GP | GW | GU;
	if (level == 3) {
		u64 pt2 = g_table(h, &f);

		g_set(h, mode, (pt2 << 12) + ((x >> 21) & 0x1ff) * 8, small);
		small = (pt2 << 12) | GP | GW | GU;
	}
	enter(h, mode, pse, cr3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(guest_read(h, x, true), 0x1021);
		guest_set(h, mode, ent, small);
		assert_int_equal(guest_read(h, x, true), 0xa);
		guest_set(h, mode, ent, GPS | GP | GW | GU);
	}
	{
		struct h_access a = acc_of(x, ACC_WRITE, true, 3);

		CHECK_ACCESS(h, 0, &a);
		guest_set(h, mode, ent, GPS | GP | GU); /* the large page turns read-only */
		CHECK_ACCESS(h, 0, &a);
	}
	done(h);
}

/* Without Page1GB in the guest's CPUID (QEMU's qemu64, Bochs' Lynnfield) PS in a PDPTE is a
 * reserved bit: every access faults with RSVD, where a CPU with 1 GiB pages maps it. */
static void test_1g_without_page1gb(void **st UNUSED)
{
	for (int no_1g = 0; no_1g < 2; no_1g++) {
		struct mmu_config cfg = { .no_1g = no_1g };
		struct harness *h = mk(&cfg);
		struct g_frames f = { 0x300, 0x400 };
		u64 cr3 = new_space(h, &f, G_LONG), x = 0x40000000 + 0x21000;
		struct h_result r;

		for (unsigned i = 0; i < 0x40; i++)
			fill_frame(h, i, 0x1000 + i);
		g_map(h, &f, G_LONG, cr3, x, GPS | GP | GW | GU, 3, GP | GW | GU);
		enter(h, G_LONG, false, cr3);
		for (int kind = ACC_READ; kind <= ACC_WRITE; kind++) {
			struct h_access a = acc_of(x, kind, true, 5);

			CHECK_ACCESS(h, 0, &a);
			h_cpu_access(h, 0, &a, &r);
			if (no_1g) {
				assert_int_equal(r.kind, R_FAULT);
				assert_int_equal(r.ec & 9, 9);
			} else {
				assert_int_equal(r.kind, R_OK);
			}
		}
		done(h);
	}
}

static void test_large_2m(void **st UNUSED)
{
	large_small(G_LONG, false, 2);
}
static void test_large_1g(void **st UNUSED)
{
	large_small(G_LONG, false, 3);
}
static void test_large_pae(void **st UNUSED)
{
	large_small(G_PAE, false, 2);
}
static void test_large_4m(void **st UNUSED)
{
	large_small(G_32, true, 2);
}

/* The monitor's census: one 4 KiB page of a long-mode guest is shadowed by one table per level,
 * linked in a chain under one root; a 2 MiB guest page adds a direct leaf table. */
static void test_census(void **st UNUSED)
{
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	u64 cr3 = new_space(h, &f, G_LONG), x = 0x40000000 + 0x21000;
	struct mmu_census c;

	fill_frame(h, 0x100, 0xa);
	g_map(h, &f, G_LONG, cr3, x, (0x100 << 12) | GP | GW | GU, 1, GP | GW | GU);
	enter(h, G_LONG, false, cr3);
	assert_int_equal(guest_read(h, x, true), 0xa);
	mmu_census(&h->vm, &c);
	for (unsigned l = 1; l <= 4; l++) {
		assert_int_equal(c.shadowing[l], 1);
		assert_int_equal(c.direct[l], 0);
	}
	assert_int_equal(c.shadowing[5] + c.direct[5], 0);
	assert_int_equal(c.roots, 1);
	assert_int_equal(c.parent_links, 3);
	g_map(h, &f, G_LONG, cr3, 0x80000000ull, GPS | GP | GW | GU, 2, GP | GW | GU);
	guest_read(h, 0x80000000ull, true);
	mmu_census(&h->vm, &c);
	assert_int_equal(c.direct[1], 1);
	assert_int_equal(c.shadowing[1] + c.shadowing[2] + c.shadowing[3] + c.shadowing[4] +
				 c.direct[1],
			 h->vm.npages);
	CHECK_AUDIT(h);
	h_fini(h);
	free(h);
}

/* ---- 9: a pool of a few pages under a large working set ---- */

static void test_small_pool(void **st UNUSED)
{
	struct mmu_config cfg = { .pool_max_pages = 16 };
	struct harness *h = mk(&cfg);
	struct g_frames f = { 0x200, 0x400 };
	u64 cr3[4];
	unsigned as, i, round;

	for (as = 0; as < 4; as++) {
		cr3[as] = g_table(h, &f) << 12;
		for (i = 0; i < 32; i++)
			g_map(h, &f, G_LONG, cr3[as], ((u64)as << 39) + (u64)i * 0x40200000ull,
			      ((0x100ull + i) << 12) | GP | GW | GU, 1, GP | GW | GU);
	}
	enter(h, G_LONG, false, cr3[0]);
	for (round = 0; round < 3; round++)
		for (as = 0; as < 4; as++) {
			assert_int_equal(h_set_cr3(h, 0, cr3[as]), MMU_OK);
			for (i = 0; i < 32; i++) {
				struct h_access a = acc_of(((u64)as << 39) + (u64)i * 0x40200000ull,
							   ACC_WRITE, true, i);

				CHECK_ACCESS(h, 0, &a);
				assert_true(h->vm.pool_used <= 16);
			}
			CHECK_AUDIT(h);
		}
	assert_true(h->vm.stats.pages_reclaimed > 0);
	done(h);
}

/* Host memory exhausted: errors, never a crash, and recovery once memory is back. */
static void test_out_of_memory(void **st UNUSED)
{
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	u64 cr3 = new_space(h, &f, G_LONG);
	struct h_access a = acc_of(PHYSMAP + 0x5000, ACC_READ, false, 0);
	struct h_result r;
	struct mmu_outcome out;

	enter(h, G_LONG, false, cr3);
	mmu_zap_all(&h->vm);
	vcpu_caches_release(&h->vcpu[0]);
	h->page_limit = (long)h->hpages_live;
	assert_int_equal(mmu_topup(&h->vcpu[0]), MMU_ENOMEM);
	assert_int_equal(mmu_page_fault(&h->vcpu[0], a.gva, 0, &out), MMU_ENOMEM);
	h_cpu_access(h, 0, &a, &r);
	assert_int_equal(r.kind, R_ERROR);
	CHECK_AUDIT(h);
	h->page_limit = -1;
	CHECK_ACCESS(h, 0, &a);
	done(h);
}

/* Translation for the emulator and the debugger, and the PAE PDPTE check at CR3 load. */
static void test_gva_to_gpa(void **st UNUSED)
{
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	u64 cr3 = g_table(h, &f) << 12, pte, gpa = 0;
	u32 ec = 0;

	pte = g_map(h, &f, G_LONG, cr3, 0x40000000, (0x123ull << 12) | GP | GU, 1, GP | GW | GU);
	enter(h, G_LONG, false, cr3);
	assert_true(mmu_gva_to_gpa(&h->vcpu[0], 0x40000abc, PFERR_U | MMU_ACCESS_PEEK, &gpa, &ec));
	assert_int_equal(gpa, 0x123abc);
	assert_int_equal(h_phys_read(h, pte, 8, false) & GA, 0); /* a peek sets nothing */
	assert_true(mmu_gva_to_gpa(&h->vcpu[0], 0x40000abc, PFERR_U, &gpa, &ec));
	assert_int_equal(h_phys_read(h, pte, 8, false) & GA, GA);
	assert_false(mmu_gva_to_gpa(&h->vcpu[0], 0x40000abc, PFERR_U | PFERR_W, &gpa, &ec));
	assert_int_equal(ec, PFERR_P | PFERR_W | PFERR_U);
	assert_false(mmu_gva_to_gpa(&h->vcpu[0], 0x50000000, 0, &gpa, &ec));
	assert_int_equal(ec, 0);
	h_phys_write(h, pte, 8, h_phys_read(h, pte, 8, false)); /* keep the reference equal */
	done(h);
}

static void test_bad_pdpte(void **st UNUSED)
{
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	u64 good = g_table(h, &f) << 12, bad = g_table(h, &f) << 12;
	struct g_cfg c = { G_PAE, false, true, true, false, false };

	g_map(h, &f, G_PAE, good, 0x1000, (0x100ull << 12) | GP, 1, GP | GW);
	h_phys_write(h, bad + 8, 8, (0x101ull << 12) | GP | GW); /* bit 1 is reserved in a PDPTE */
	assert_int_equal(g_enter(h, 0, &c, bad), MMU_EBADPDPTE);
	assert_int_equal(g_enter(h, 0, &c, good), MMU_OK);
	assert_int_equal(h_set_cr3(h, 0, bad), MMU_EBADPDPTE);
	assert_int_equal(h->vcpu[0].cr3, good);
	assert_int_equal(h->ctl_mismatches, 0);
	assert_int_equal(guest_read(h, 0x1000, false), 0);
	done(h);
}

/* QEMU TCG sets A in the PAE root's entries as it walks them, and KVM's nested VMRUN refuses a
 * root with that reserved bit: mmu_load (before every entry) clears the architecture's reserved
 * bits, and only those. The audit tolerates them between entries and nothing else. */
static void test_pae_root_scrub(void **st UNUSED)
{
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	struct mmu_vcpu *vc = &h->vcpu[0];
	u64 cr3 = g_table(h, &f) << 12, want[4], hw = PTE_A | BIT(1) | BIT(2) | PTE_D | BIT(8);
	char buf[256];
	unsigned i;

	fill_frame(h, 0x100, 0x5);
	g_map(h, &f, G_PAE, cr3, 0x1000, (0x100ull << 12) | GP, 1, GP | GW);
	g_map(h, &f, G_PAE, cr3, 0xc0001000, (0x100ull << 12) | GP, 1, GP | GW);
	enter(h, G_PAE, false, cr3);
	assert_int_equal(guest_read(h, 0x1000, false), 0x5);
	assert_true(mmu_root_is_pae(vc));
	for (i = 0; i < 4; i++) {
		want[i] = vc->pae_root[i];
		if (want[i] & PTE_P)
			vc->pae_root[i] |= hw; /* as the emulator's walker (and worse) left them */
	}
	assert_true(want[0] & PTE_P);
	assert_int_equal(mmu_audit(&h->vm, buf, sizeof(buf)), 0);
	assert_int_equal(mmu_load(vc), MMU_OK);
	for (i = 0; i < 4; i++)
		assert_int_equal(vc->pae_root[i], want[i]);
	/* An available bit (9) is no emulator's to set, and ours is never set: the audit says so,
	 * and the entry is left as it is for the audit to see again. */
	vc->pae_root[0] |= BIT(9);
	assert_int_equal(mmu_audit(&h->vm, buf, sizeof(buf)), 1);
	assert_int_equal(mmu_load(vc), MMU_OK);
	assert_int_equal(vc->pae_root[0], want[0] | BIT(9));
	vc->pae_root[0] = want[0];
	assert_int_equal(guest_read(h, 0xc0001000, false), 0x5);
	done(h);
}

/* A root in use by two vCPUs is zapped (misaligned write to the PML4): both reload safely. */
static void test_root_zap(void **st UNUSED)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct g_frames f = { 0x300, 0x400 };
	struct g_cfg c = { G_LONG, false, true, true, false, false };
	u64 cr3, root_hpa;
	struct h_access a;
	unsigned v;

	h_init(h, NULL, 2);
	std_slots(h);
	cr3 = new_space(h, &f, G_LONG);
	fill_frame(h, 0x100, 0xa);
	g_map(h, &f, G_LONG, cr3, 0x40000000, (0x100 << 12) | GP | GW | GU, 1, GP | GW | GU);
	for (v = 0; v < 2; v++)
		assert_int_equal(g_enter(h, v, &c, cr3), MMU_OK);
	assert_int_equal(guest_read(h, 0x40000000, true), 0xa);
	root_hpa = mmu_root_hpa(&h->vcpu[1]);
	assert_int_equal(root_hpa, mmu_root_hpa(&h->vcpu[0]));
	a = acc_of(PHYSMAP + cr3 + 0x7fc, ACC_WRITE, false, 0); /* crosses PML4 entries 255/256 */
	CHECK_ACCESS(h, 0, &a);
	assert_false(h->vcpu[0].root_valid);
	assert_false(h->vcpu[1].root_valid);
	CHECK_AUDIT(h);
	for (v = 0; v < 2; v++) {
		struct h_access r = acc_of(0x40000000, ACC_READ, true, 0);

		CHECK_ACCESS(h, v, &r);
	}
	assert_true(h->vcpu[1].root_valid);
	done(h);
}

/* ---- 12: prefetch under guest large pages (and paging off) ---- */

/*
 * A fault that fills a leaf of a direct shadow table (a guest 2/4 MiB or 1 GiB page, or paging
 * off) fills every other not-present entry of that table with the same rights: frames in no slot
 * stay not present, shadowed guest tables are mapped read-only, and it stops when a writable
 * entry could need a reverse-map descriptor the vCPU's cache no longer has.
 */

static u64 prefetched(struct harness *h)
{
	struct mmu_stats st;

	mmu_stats(&h->vm, &st);
	return st.prefetched;
}

static u64 rmap_descs_in_use(struct harness *h)
{
	struct mmu_stats st;

	mmu_stats(&h->vm, &st);
	return st.rmap_desc_in_use;
}

/* The shadow leaf table the software CPU would go through for gva (NULL: no path to it yet). */
static u64 *shadow_table_of(struct harness *h, u64 gva)
{
	struct mmu_vcpu *vc = &h->vcpu[0];
	u64 table = mmu_root_hpa(vc), *t, e;
	unsigned level = 4;

	if (!vc->root_valid)
		return NULL;
	if (mmu_root_is_pae(vc)) {
		t = (u64 *)h_hpa_ptr(h, table, false);
		e = t[(gva >> 30) & 3];
		if (!(e & PTE_P))
			return NULL;
		table = e & PTE_ADDR;
		level = 2;
	}
	for (; level > 1; level--) {
		t = (u64 *)h_hpa_ptr(h, table, false);
		assert_non_null(t);
		e = t[spt_index(gva, level)];
		if (!(e & PTE_P))
			return NULL;
		assert_false(e & PTE_PS);
		table = e & PTE_ADDR;
	}
	t = (u64 *)h_hpa_ptr(h, table, false);
	assert_non_null(t);
	return t;
}

static u64 spte_at(struct harness *h, u64 gva)
{
	u64 *t = shadow_table_of(h, gva);

	assert_non_null(t);
	return t[spt_index(gva, 1)];
}

static unsigned present_in(struct harness *h, u64 gva)
{
	u64 *t = shadow_table_of(h, gva);
	unsigned i, n = 0;

	assert_non_null(t);
	for (i = 0; i < SPT_ENTRIES; i++)
		n += !!(t[i] & PTE_P);
	return n;
}

static u64 hpa_of_gfn(struct harness *h, u64 gfn)
{
	unsigned i;

	for (i = 0; i < h->nslots; i++) {
		const struct h_slot *s = &h->slot[i];

		if (gfn >= s->s.base_gfn && gfn < s->s.base_gfn + s->s.npages)
			return s->hpa_base + ((gfn - s->s.base_gfn) << PAGE_SHIFT);
	}
	fail_msg("gfn %llx in no slot", (unsigned long long)gfn);
	return 0;
}

/* The shadow leaf for gva maps gfn with exactly the rights acc (ACC_*). */
static void expect_leaf(struct harness *h, u64 gva, u64 gfn, unsigned acc)
{
	u64 e = spte_at(h, gva);

	if (!(e & PTE_P) || (e & PTE_ADDR) != hpa_of_gfn(h, gfn) ||
	    !!(e & PTE_W) != !!(acc & ACC_W) || !!(e & PTE_U) != !!(acc & ACC_U) ||
	    !(e & PTE_NX) != !!(acc & ACC_X))
		fail_msg("gva %llx: spte %llx, want gfn %llx (hpa %llx) rights %x",
			 (unsigned long long)gva, (unsigned long long)e, (unsigned long long)gfn,
			 (unsigned long long)hpa_of_gfn(h, gfn), acc);
}

static void tag_frames(struct harness *h, u64 first, u64 n)
{
	u64 g;

	for (g = first; g < first + n; g++)
		fill_frame(h, g, 0x7a000000 + g);
}

/* 1: one read fault on one 4 KiB piece of a 2 MiB page (or with paging off) maps all 512. */
static void prefetch_2m(int mode)
{
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	u64 x = mode == G_OFF ? 0 : 0x40000000, cr3 = 0, faults, p0, i;

	tag_frames(h, 0, 0x200); /* the guest's tables come from 0x300.., outside the page */
	if (mode != G_OFF) {
		cr3 = g_table(h, &f) << 12;
		g_map(h, &f, mode, cr3, x, GPS | GP | GW | GU | GA | GD, 2, GP | GW | GU);
	}
	enter(h, mode, false, cr3);
	p0 = prefetched(h);
	faults = h->shadow_faults;
	assert_int_equal(guest_read(h, x + 0x5000, true), 0x7a000005);
	assert_int_equal(h->shadow_faults - faults, 1);
	assert_int_equal(prefetched(h) - p0, 511);
	assert_int_equal(present_in(h, x), 512);
	for (i = 0; i < 512; i++)
		expect_leaf(h, x + i * 0x1000, i, ACC_W | ACC_U | ACC_X);
	CHECK_AUDIT(h);
	/* Every other piece, read and written, user and supervisor, without another fault. */
	faults = h->shadow_faults;
	for (i = 0; i < 512; i++) {
		struct h_access w = acc_of(x + i * 0x1000 + 0x40, ACC_WRITE, i & 1, i);

		assert_int_equal(guest_read(h, x + i * 0x1000, i & 1), 0x7a000000 + i);
		CHECK_ACCESS(h, 0, &w);
	}
	assert_int_equal(h->shadow_faults, faults);
	assert_int_equal(prefetched(h) - p0, 511);
	done(h);
}

static void test_prefetch_2m_long(void **st UNUSED)
{
	prefetch_2m(G_LONG);
}
static void test_prefetch_2m_pae(void **st UNUSED)
{
	prefetch_2m(G_PAE);
}
static void test_prefetch_paging_off(void **st UNUSED)
{
	prefetch_2m(G_OFF);
}

/* 2: the prefetched entries carry the large page's rights: D, U/S, NX, and CR0.WP = 0. */
static void prefetch_rights(int mode, u64 flags, bool wp, unsigned want)
{
	static const struct {
		int kind;
		bool user;
	} accs[] = {
		{ ACC_READ, true },   { ACC_READ, false }, { ACC_WRITE, true },
		{ ACC_WRITE, false }, { ACC_FETCH, true }, { ACC_FETCH, false },
	};
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	struct g_cfg c = { mode, false, wp, true, false, false };
	u64 x = 0x40000000, cr3 = g_table(h, &f) << 12, ent, p0, i;
	unsigned k;

	tag_frames(h, 0, 0x200);
	ent = g_map(h, &f, mode, cr3, x, GPS | flags, 2, GP | GW | GU);
	assert_int_equal(g_enter(h, 0, &c, cr3), MMU_OK);
	p0 = prefetched(h);
	assert_int_equal(guest_read(h, x + 0x5000, !!(flags & GU)), 0x7a000005);
	assert_int_equal(prefetched(h) - p0, 511);
	for (i = 0; i < 512; i++)
		expect_leaf(h, x + i * 0x1000, i, want);
	CHECK_AUDIT(h);
	if (!(flags & GD) && (flags & GW)) {
		/* Read-only until the guest's D bit is set: a write faults and is fixed (not emulated),
		 * under a new direct table that is prefetched writable in turn. */
		struct h_access a = acc_of(x + 0x7008, ACC_WRITE, !!(flags & GU), 0x77);
		u64 faults = h->shadow_faults, emul = h->emulated_writes;

		CHECK_ACCESS(h, 0, &a);
		assert_int_equal(h->shadow_faults - faults, 1);
		assert_int_equal(h->emulated_writes, emul);
		assert_true(g_get(h, mode, ent) & GD);
		assert_int_equal(prefetched(h) - p0, 2 * 511);
		for (i = 0; i < 512; i++)
			expect_leaf(h, x + i * 0x1000, i, want | ACC_W);
		faults = h->shadow_faults;
		for (i = 0; i < 512; i += 3) {
			a = acc_of(x + i * 0x1000 + 0x10, ACC_WRITE, !!(flags & GU), i);
			CHECK_ACCESS(h, 0, &a);
		}
		assert_int_equal(h->shadow_faults, faults);
	}
	/* Every kind of access to a sample of pieces agrees with the reference. */
	for (i = 1; i < 512; i += 37)
		for (k = 0; k < ARRAY_SIZE(accs); k++) {
			struct h_access a =
				acc_of(x + i * 0x1000 + 0x100, accs[k].kind, accs[k].user, i);

			CHECK_ACCESS(h, 0, &a);
		}
	done(h);
}

static void test_prefetch_not_dirty(void **st UNUSED)
{
	prefetch_rights(G_LONG, GP | GW | GU | GA, true, ACC_U | ACC_X);
}

static void test_prefetch_supervisor_nx(void **st UNUSED)
{
	prefetch_rights(G_LONG, GP | GW | GA | GD | GNX, true, ACC_W);
}

static void test_prefetch_user_ro_nx_pae(void **st UNUSED)
{
	prefetch_rights(G_PAE, GP | GU | GA | GD | GNX, true, ACC_U);
}

static void test_prefetch_wp0(void **st UNUSED)
{
	/* CR0.WP = 0: the supervisor may write a read-only supervisor page. */
	prefetch_rights(G_LONG, GP | GA | GD, false, ACC_W | ACC_X);
}

/* 3: the guest's own page tables live inside the large page: read-only, and writes emulated. */
static void test_prefetch_own_tables(void **st UNUSED)
{
	struct harness *h = mk(&wp_only);
	struct g_frames f = { 0x300, 0x400 };
	u64 x = 0x40000000, y = 0x40200000, z = 0x40400000, cr3, pd, p0, emul, faults, i;
	unsigned all = ACC_W | ACC_U | ACC_X;
	struct h_access a;

	tag_frames(h, 0x200, 0x100);
	cr3 = g_table(h, &f) << 12; /* 0x300, then the PDPT 0x301 and the PD 0x302 */
	g_map(h, &f, G_LONG, cr3, x, 0x200000 | GPS | GP | GW | GU | GA | GD, 2, GP | GW | GU);
	pd = g_entry_at(h, G_LONG, cr3, x, 2) >> 12;
	assert_int_equal(pd, 0x302);
	enter(h, G_LONG, false, cr3);
	p0 = prefetched(h);
	assert_int_equal(guest_read(h, x + 0x5000, true), 0x7a000205);
	assert_int_equal(prefetched(h) - p0, 511);
	for (i = 0; i < 512; i++) {
		u64 gfn = 0x200 + i;
		bool table = gfn >= 0x300 && gfn <= 0x302;

		assert_int_equal(shadows_of(h, gfn) > 0, table);
		expect_leaf(h, x + i * 0x1000, gfn, table ? ACC_U | ACC_X : all);
		if (table)
			assert_int_equal(h->slot[0].s.frames[gfn].rmap, 0);
	}
	CHECK_AUDIT(h);

	/* Through the large page, the guest writes its PML4 and its PD: both emulated. */
	for (i = 0; i < 2; i++) {
		emul = h->emulated_writes;
		a = acc_of(x + 0x100000 + 0x800, ACC_WRITE, true, 0); /* PML4[256]: unused */
		CHECK_ACCESS(h, 0, &a);
		assert_int_equal(h->emulated_writes, emul + 1);
		expect_leaf(h, x + 0x100000, 0x300, ACC_U | ACC_X);
	}
	emul = h->emulated_writes;
	a = acc_of(x + 0x102000 + ((y >> 21) & 511) * 8, ACC_WRITE, true,
		   GPS | GP | GW | GU | GA | GD); /* PD: y -> gpa 0 */
	CHECK_ACCESS(h, 0, &a);
	assert_int_equal(h->emulated_writes, emul + 1);
	tag_frames(h, 0, 0x20);
	assert_int_equal(guest_read(h, y + 0x3000, true), 0x7a000003);
	assert_int_equal(prefetched(h) - p0, 2 * 511);
	CHECK_AUDIT(h);

	/* A prefetched writable frame that becomes a page table later loses its write access. */
	expect_leaf(h, x + 0xf0000, 0x2f0, all);
	a = acc_of(x + 0xf0000 + 8, ACC_WRITE, true, (0x210ull << 12) | GP | GW | GU); /* PTE 1 */
	emul = h->emulated_writes;
	faults = h->shadow_faults;
	CHECK_ACCESS(h, 0, &a);
	assert_int_equal(h->emulated_writes, emul); /* native: not a table yet */
	assert_int_equal(h->shadow_faults, faults);
	a = acc_of(x + 0x102000 + ((z >> 21) & 511) * 8, ACC_WRITE, true,
		   (0x2f0ull << 12) | GP | GW | GU);
	CHECK_ACCESS(h, 0, &a);
	assert_int_equal(guest_read(h, z + 0x1000, true), 0x7a000210);
	assert_true(shadows_of(h, 0x2f0) > 0);
	assert_int_equal(h->slot[0].s.frames[0x2f0].rmap, 0);
	expect_leaf(h, x + 0xf0000, 0x2f0, ACC_U | ACC_X);
	emul = h->emulated_writes;
	a = acc_of(x + 0xf0000 + 16, ACC_WRITE, true, 0);
	CHECK_ACCESS(h, 0, &a);
	assert_int_equal(h->emulated_writes, emul + 1);
	done(h);
}

/* 4: frames in no slot (MMIO) inside the large page stay not present; the rest is filled. */
static void test_prefetch_mmio_gap(void **st UNUSED)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct g_frames f = { 0x300, 0x400 };
	u64 x = 0x40000000, cr3, p0, i, faults;
	struct h_result r;

	h_init(h, NULL, 1);
	h_add_slot(h, 0, 0x100);
	h_add_slot(h, 0x140, 0x2c0); /* a hole at gfn 0x100..0x13f, in the middle of the page */
	tag_frames(h, 0, 0x100);
	tag_frames(h, 0x140, 0xc0);
	cr3 = g_table(h, &f) << 12;
	g_map(h, &f, G_LONG, cr3, x, GPS | GP | GW | GU | GA | GD, 2, GP | GW | GU);
	enter(h, G_LONG, false, cr3);
	p0 = prefetched(h);
	assert_int_equal(guest_read(h, x + 0x5000, true), 0x7a000005);
	assert_int_equal(prefetched(h) - p0, 0x200 - 0x40 - 1);
	assert_int_equal(present_in(h, x), 0x200 - 0x40);
	for (i = 0; i < 512; i++) {
		if (i >= 0x100 && i < 0x140)
			assert_int_equal(spte_at(h, x + i * 0x1000), 0);
		else
			expect_leaf(h, x + i * 0x1000, i, ACC_W | ACC_U | ACC_X);
	}
	CHECK_AUDIT(h);
	/* The hole still exits to the emulator as MMIO, and stays unmapped. */
	faults = h->shadow_faults;
	for (i = 0x100; i < 0x140; i += 0x1f) {
		struct h_access a =
			acc_of(x + i * 0x1000 + 8, i & 1 ? ACC_WRITE : ACC_READ, true, 1);

		CHECK_ACCESS(h, 0, &a);
		h_cpu_access(h, 0, &a, &r);
		assert_int_equal(r.kind, R_MMIO);
		assert_int_equal(r.gpa, i * 0x1000 + 8);
		assert_int_equal(spte_at(h, x + i * 0x1000), 0);
	}
	assert_int_equal(prefetched(h) - p0, 0x200 - 0x40 - 1);
	for (i = 0x140; i < 0x200; i += 7)
		assert_int_equal(guest_read(h, x + i * 0x1000, true), 0x7a000000 + i);
	assert_int_equal(h->shadow_faults - faults, 2 * 3); /* only the MMIO accesses exited */
	done(h);
}

/* A device slot (an assigned device's BAR): its frames map straight to the device's pages,
 * uncached, with no exit after the first; a guest table in it is never read (a walk through it
 * faults as not present) and never shadowed; once every shadow is zapped the slot can go and
 * its range is a hole again. */
static void dev_tag(struct h_slot *s, u64 gfn, u64 off, u64 v)
{
	u64 at = ((gfn - s->s.base_gfn) << PAGE_SHIFT) + off;

	memcpy(s->mem + at, &v, 8);
	memcpy(s->ref + at, &v, 8);
}

static void test_device_slot(void **st UNUSED)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct g_frames f = { 0x80, 0x100 };
	u64 x = 0x40000000, y = 0x80000000, cr3, i, faults, pde;
	struct h_result r;
	struct h_slot *dev;

	h_init(h, NULL, 1);
	h_add_slot(h, 0, 0x100);
	h_add_device_slot(h, 0x140, 0x20);
	dev = &h->slot[1];
	tag_frames(h, 0, 0x80);
	for (i = 0x140; i < 0x160; i++)
		dev_tag(dev, i, 0, 0xde000000 + i);
	cr3 = g_table(h, &f) << 12;
	g_map(h, &f, G_LONG, cr3, x, GPS | GP | GW | GU | GA | GD, 2, GP | GW | GU);
	enter(h, G_LONG, false, cr3);
	assert_int_equal(guest_read(h, x + 0x5000, true), 0x7a000005);
	/* The guest's 2 MiB page over RAM, a hole and the device: prefetch maps both kinds, the
	 * device's uncached. */
	for (i = 0; i < 0x160; i++) {
		u64 e = spte_at(h, x + i * 0x1000);
		if (i >= 0x100 && i < 0x140) {
			assert_int_equal(e, 0);
			continue;
		}
		if (i >= 0x80 && i < 0x100)
			continue; /* the guest's tables: read-only */
		expect_leaf(h, x + i * 0x1000, i, ACC_W | ACC_U | ACC_X);
		assert_int_equal(e & (PTE_PCD | PTE_PWT), i >= 0x140 ? PTE_PCD | PTE_PWT : 0);
	}
	faults = h->shadow_faults;
	assert_int_equal(guest_read(h, x + 0x141000, true), 0xde000141);
	struct h_access wr = acc_of(x + 0x15f008, ACC_WRITE, false, 0x5a5a);
	h_cpu_access(h, 0, &wr, &r);
	assert_int_equal(r.kind, R_OK);
	assert_int_equal(h->shadow_faults, faults); /* register accesses take no exit */
	assert_int_equal(*(u64 *)(dev->mem + 0x1f008), 0x5a5a);
	CHECK_AUDIT(h);
	/* A leaf table in device memory: the walk sees nothing there, whatever the device holds. */
	g_map(h, &f, G_LONG, cr3, y, (0x10ull << 12) | GP | GW, 1, GP | GW);
	pde = g_entry_at(h, G_LONG, cr3, y, 2);
	g_set(h, G_LONG, pde, (0x150ull << 12) | GP | GW | GU);
	dev_tag(dev, 0x150, 0, (0x10ull << 12) | GP | GW | GU | GA);
	struct h_access rd = acc_of(y, ACC_READ, false, 0);
	h_cpu_access(h, 0, &rd, &r);
	assert_int_equal(r.kind, R_FAULT);
	assert_int_equal(r.ec & PFERR_P, 0);
	assert_int_equal(dev->s.frames[0x10].shadowed, 0);
	/* A CR3 in device memory: nothing is counted as shadowed there either. */
	enter(h, G_LONG, false, 0x150ull << 12);
	h_cpu_access(h, 0, &rd, &r);
	assert_int_equal(r.kind, R_FAULT);
	CHECK_AUDIT(h);
	enter(h, G_LONG, false, cr3);
	assert_int_equal(guest_read(h, x + 0x151000, true), 0xde000151);
	/* The BAR moves: every shadow goes, then the slot; the range is a hole again. */
	mmu_zap_all(&h->vm);
	dev->s.npages = 0;
	CHECK_AUDIT(h);
	struct h_access again = acc_of(x + 0x141000, ACC_READ, false, 0);
	h_cpu_access(h, 0, &again, &r);
	assert_int_equal(r.kind, R_MMIO);
	assert_int_equal(r.gpa, 0x141000);
	done(h);
}

/* 4b: a large page running past the end of a slot (std_slots: RAM ends, then a hole), 2 MiB and
 * 1 GiB. */
static void test_prefetch_slot_end(void **st UNUSED)
{
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	u64 x = 0x40000000, g1 = 0x80000000, cr3 = g_table(h, &f) << 12, p0, i;

	tag_frames(h, 0x600, 0x80);
	g_map(h, &f, G_LONG, cr3, x, 0x600000 | GPS | GP | GW | GU | GA | GD, 2, GP | GW | GU);
	g_map(h, &f, G_LONG, cr3, g1, 0x40000000 | GPS | GP | GW | GU | GA | GD, 3, GP | GW | GU);
	enter(h, G_LONG, false, cr3);
	p0 = prefetched(h);
	assert_int_equal(guest_read(h, x + 0x7f000, true), 0x7a00067f);
	assert_int_equal(prefetched(h) - p0, 0x7f);
	assert_int_equal(present_in(h, x), 0x80);
	for (i = 0; i < 512; i++)
		if (i < 0x80)
			expect_leaf(h, x + i * 0x1000, 0x600 + i, ACC_W | ACC_U | ACC_X);
		else
			assert_int_equal(spte_at(h, x + i * 0x1000), 0);
	p0 = prefetched(h);
	assert_int_equal(guest_read(h, g1, true), 0);
	assert_int_equal(prefetched(h) - p0, 0x3f); /* the slot at 1 GiB has 0x40 frames */
	assert_int_equal(present_in(h, g1), 0x40);
	for (i = 0; i < 0x40; i++)
		expect_leaf(h, g1 + i * 0x1000, 0x40000 + i, ACC_W | ACC_U | ACC_X);
	{
		struct h_access a = acc_of(g1 + 0x40000, ACC_READ, true, 0);
		struct h_result r;

		CHECK_ACCESS(h, 0, &a);
		h_cpu_access(h, 0, &a, &r);
		assert_int_equal(r.kind, R_MMIO);
	}
	done(h);
}

/* 5: a 32-bit guest's 4 MiB page: two direct shadow tables (2 MiB each), each filled by one
 * fault; the page directory, inside the page, stays read-only and its writes are emulated. */
static void test_prefetch_4m_32(void **st UNUSED)
{
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	u64 x = 0x40000000, cr3 = g_table(h, &f) << 12, p0, faults, emul, i;
	struct h_access a;

	tag_frames(h, 0, 0x300);
	g_map(h, &f, G_32, cr3, x, GPS | GP | GW | GU | GA | GD, 2, GP | GW | GU);
	enter(h, G_32, true, cr3);
	p0 = prefetched(h);
	faults = h->shadow_faults;
	assert_int_equal(guest_read(h, x + 0x5000, true), 0x7a000005);
	assert_int_equal(prefetched(h) - p0, 511);
	assert_int_equal(present_in(h, x), 512);
	assert_null(shadow_table_of(h, x + 0x200000)); /* the other half: not linked yet */
	assert_int_equal(guest_read(h, x + 0x205000, true), 0x7a000205);
	assert_int_equal(prefetched(h) - p0, 2 * 511);
	assert_int_equal(present_in(h, x + 0x200000), 512);
	assert_int_equal(h->shadow_faults - faults, 2);
	assert_true(shadows_of(h, 0x300) > 0);
	for (i = 0; i < 1024; i++)
		expect_leaf(h, x + i * 0x1000, i,
			    i == 0x300 ? ACC_U | ACC_X : ACC_W | ACC_U | ACC_X);
	CHECK_AUDIT(h);
	faults = h->shadow_faults;
	for (i = 0; i < 0x300; i += 5)
		assert_int_equal(guest_read(h, x + i * 0x1000, true), 0x7a000000 + i);
	assert_int_equal(h->shadow_faults, faults);
	/* The guest writes its page directory through the 4 MiB page: emulated. */
	emul = h->emulated_writes;
	a = acc_of(x + 0x300000 + 0x200 * 4, ACC_WRITE, true, 0);
	a.size = 4;
	CHECK_ACCESS(h, 0, &a);
	assert_int_equal(h->emulated_writes, emul + 1);
	expect_leaf(h, x + 0x300000, 0x300, ACC_U | ACC_X);
	done(h);
}

/* 6: frames already mapped writable elsewhere (a physmap) need a reverse-map descriptor each for
 * another writable mapping: one fault uses up the vCPU's cache and stops there, allocating
 * nothing; read-only entries need none and are all filled. */
static void test_prefetch_rmap_cache(void **st UNUSED)
{
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	struct mmu_vcpu *vc = &h->vcpu[0];
	u64 cr3 = new_space(h, &f, G_LONG), x = 0x40000000, y = 0x40200000, p0, live, descs, faults,
	    i;
	struct mmu_outcome out;

	g_map(h, &f, G_LONG, cr3, x, GPS | GP | GW | GA | GD, 2, GP | GW | GU);
	g_map(h, &f, G_LONG, cr3, y, GPS | GP | GW | GA, 2, GP | GW | GU); /* not dirty */
	enter(h, G_LONG, false, cr3);
	for (i = 0; i < 512; i++) {
		struct h_access a = acc_of(PHYSMAP + (i << 12), ACC_WRITE, false, 0x7a000000 + i);

		CHECK_ACCESS(h, 0, &a);
		assert_int_equal(pset_count(h->slot[0].s.frames[i].rmap), 1);
	}
	CHECK_AUDIT(h);

	/* The fault by hand, to see the cache: topped up, then one read fault. */
	assert_int_equal(mmu_load(vc), MMU_OK);
	assert_int_equal(mmu_topup(vc), MMU_OK);
	assert_int_equal(vc->rmap_descs.n, MMU_CACHE_OBJS);
	p0 = prefetched(h);
	live = h->hpages_live;
	descs = rmap_descs_in_use(h);
	assert_int_equal(mmu_page_fault(vc, x + 0x5000, 0, &out), MMU_OK);
	assert_int_equal(out.kind, MMU_FIXED);
	assert_int_equal(h->hpages_live, live); /* nothing from the host */
	assert_int_equal(vc->rmap_descs.n, 0);	/* the cache, used up */
	assert_int_equal(rmap_descs_in_use(h) - descs, MMU_CACHE_OBJS);
	assert_int_equal(prefetched(h) - p0, MMU_CACHE_OBJS - 1); /* the leaf took one */
	assert_int_equal(present_in(h, x), MMU_CACHE_OBJS);
	for (i = 0; i < 512; i++) {
		if (i < MMU_CACHE_OBJS) /* 5 and the first seven others */
			expect_leaf(h, x + i * 0x1000, i, ACC_W | ACC_X);
		else
			assert_int_equal(spte_at(h, x + i * 0x1000), 0);
	}
	CHECK_AUDIT(h);

	/* Through the harness: each fault fills one cache's worth, and all of it reads right. */
	faults = h->shadow_faults;
	for (i = 0; i < 512; i++)
		assert_int_equal(guest_read(h, x + i * 0x1000, false), 0x7a000000 + i);
	assert_int_equal(h->shadow_faults - faults, 512 / MMU_CACHE_OBJS - 1);
	assert_int_equal(prefetched(h) - p0, 512 - 512 / MMU_CACHE_OBJS);
	assert_int_equal(present_in(h, x), 512);
	for (i = 0; i < 512; i += 17)
		assert_int_equal(pset_count(h->slot[0].s.frames[i].rmap), 2);
	CHECK_AUDIT(h);

	/* A page that is not dirty: read-only entries need no descriptor, all 511 are filled. */
	assert_int_equal(mmu_topup(vc), MMU_OK);
	p0 = prefetched(h);
	descs = rmap_descs_in_use(h);
	live = h->hpages_live;
	assert_int_equal(mmu_page_fault(vc, y + 0x9000, 0, &out), MMU_OK);
	assert_int_equal(out.kind, MMU_FIXED);
	assert_int_equal(h->hpages_live, live);
	assert_int_equal(vc->rmap_descs.n, MMU_CACHE_OBJS);
	assert_int_equal(rmap_descs_in_use(h), descs);
	assert_int_equal(prefetched(h) - p0, 511);
	for (i = 0; i < 512; i++)
		expect_leaf(h, y + i * 0x1000, i, ACC_X);
	faults = h->shadow_faults;
	for (i = 0; i < 512; i += 9)
		assert_int_equal(guest_read(h, y + i * 0x1000, false), 0x7a000000 + i);
	assert_int_equal(h->shadow_faults, faults);
	done(h);
}

/* ---- 13: prefetch in guest leaf tables ---- */

/*
 * A fault in a guest leaf table also maps the other entries of its aligned group of 8 that a
 * walk would give without writing the guest's tables: present, accessed, no reserved bit, in
 * RAM; clean entries and the guest's own tables read-only. At 0x40200000 a 32-bit guest's
 * entries are in the second half (quadrant) of its page table.
 */
static void prefetch_group(int mode)
{
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	const u64 x = 0x40200000;
	bool w64 = mode != G_32;
	u64 cr3, pd, p0, faults, i;

	tag_frames(h, 0x100, 0x10);
	cr3 = g_table(h, &f) << 12;
	g_map(h, &f, mode, cr3, x, 0, 1, GP | GW | GU);
	pd = g_entry_at(h, mode, cr3, x, 2) & ~0xfffull; /* a page directory (PAE: not CR3's) */
	const u64 ents[9] = {
		(0x100ull << 12) | GP | GW | GU | GA | GD, /* writable user */
		(0x101ull << 12) | GP | GW | GU,	   /* never accessed: its own fault */
		(0x102ull << 12) | GP | GW | GU | GA,	   /* clean: read-only */
		(0x103ull << 12) | GP | GW | GU | GA | GD, /* the fault */
		(0x104ull << 12) | GP | GA | GD | (w64 ? GNX : 0), /* supervisor read-only */
		(0x105ull << 12) | GP | GW | GU | GA | GD | (w64 ? BIT(45) : 0), /* reserved */
		(0x500ull << 12) | GP | GW | GU | GA | GD,			 /* a hole */
		pd | GP | GW | GA | GD,			   /* the guest's own table */
		(0x108ull << 12) | GP | GW | GU | GA | GD, /* the next group */
	};
	for (i = 0; i < ARRAY_SIZE(ents); i++)
		g_map(h, &f, mode, cr3, x + i * 0x1000, ents[i], 1, GP | GW | GU);
	enter(h, mode, false, cr3);
	p0 = prefetched(h);
	faults = h->shadow_faults;
	assert_int_equal(guest_read(h, x + 0x3000, true), 0x7a000103);
	assert_int_equal(h->shadow_faults - faults, 1);
	expect_leaf(h, x, 0x100, ACC_W | ACC_U | ACC_X);
	assert_false(spte_at(h, x + 0x1000) & PTE_P);
	expect_leaf(h, x + 0x2000, 0x102, ACC_U | ACC_X);
	expect_leaf(h, x + 0x3000, 0x103, ACC_W | ACC_U | ACC_X);
	expect_leaf(h, x + 0x4000, 0x104, w64 ? 0 : ACC_X);
	if (w64)
		assert_false(spte_at(h, x + 0x5000) & PTE_P);
	else
		expect_leaf(h, x + 0x5000, 0x105, ACC_W | ACC_U | ACC_X);
	assert_false(spte_at(h, x + 0x6000) & PTE_P);
	expect_leaf(h, x + 0x7000, pd >> 12, ACC_X);
	assert_false(spte_at(h, x + 0x8000) & PTE_P);
	assert_int_equal(prefetched(h) - p0, w64 ? 4 : 5);
	CHECK_AUDIT(h);
	/* What the prefetch mapped behaves like the guest's tables, first access or not. */
	for (i = 0; i < ARRAY_SIZE(ents); i++) {
		struct h_access r = acc_of(x + i * 0x1000 + 0x10, ACC_READ, i & 1, 0);
		struct h_access w = acc_of(x + i * 0x1000 + 0x20, ACC_WRITE, !(i & 1), i);

		CHECK_ACCESS(h, 0, &r);
		CHECK_ACCESS(h, 0, &w);
	}
	done(h);
}

static void test_prefetch_group_long(void **st UNUSED)
{
	prefetch_group(G_LONG);
}
static void test_prefetch_group_pae(void **st UNUSED)
{
	prefetch_group(G_PAE);
}
static void test_prefetch_group_32(void **st UNUSED)
{
	prefetch_group(G_32);
}

/* ---- 14: out-of-sync leaf tables ---- */

/*
 * The first guest store to a shadowed leaf table leaves it writable (out of sync): later stores
 * run natively, and until the guest's next flush an access may still use the old entry (the
 * reference accepts what a TLB could hold). INVLPG brings the entry for its address back, a CR3
 * load or a PV flush the whole table, which is then write-protected again. A second shadow of
 * the frame (another role) brings it back in sync first, and then stores trap.
 */
static void unsync_mode(int mode)
{
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	u64 cr3 = new_space(h, &f, mode), x = 0x40000000, y = 0x40400000, pte, pde_y, t, emul,
	    faults;
	unsigned es = g_esize(mode);
	struct h_access wr = acc_of(x, ACC_WRITE, true, 5);
	struct mmu_frame *ft;

	fill_frame(h, 0x100, 0xa);
	fill_frame(h, 0x101, 0xb);
	fill_frame(h, 0x102, 0xc);
	pte = g_map(h, &f, mode, cr3, x, (0x100 << 12) | GP | GW | GU, 1, GP | GW | GU);
	g_map(h, &f, mode, cr3, x + 0x1000, (0x102 << 12) | GP | GW | GU, 1, GP | GW | GU);
	t = pte >> 12;
	ft = &h->slot[0].s.frames[t];
	enter(h, mode, false, cr3);
	assert_int_equal(guest_read(h, x, true), 0xa);
	assert_int_equal(guest_read(h, x + 0x1000, true), 0xc);
	assert_int_equal(ft->shadowed, 1);

	/* The first store faults once and is not emulated; the next ones do not fault. */
	emul = h->emulated_writes;
	guest_set(h, mode, pte, (0x101 << 12) | GP | GW | GU);
	assert_int_equal(h->emulated_writes, emul);
	assert_int_equal(ft->unsync, 1);
	assert_int_equal(h->vm.stats.unsyncs, 1);
	CHECK_AUDIT(h);
	faults = h->shadow_faults;
	guest_set(h, mode, pte + es, (0x100 << 12) | GP | GU);
	assert_int_equal(h->shadow_faults, faults);
	/* Both entries are stale until flushed: INVLPG(x) brings x's back, not the other. */
	assert_int_equal(guest_read(h, x, true), 0xa);
	h_invlpg(h, 0, x);
	assert_int_equal(guest_read(h, x, true), 0xb);
	assert_int_equal(guest_read(h, x + 0x1000, true), 0xc);
	assert_int_equal(ft->unsync, 1);
	CHECK_AUDIT(h);

	/* A CR3 load resyncs the table and write-protects it again. */
	assert_int_equal(h_set_cr3(h, 0, cr3), MMU_OK);
	assert_int_equal(ft->unsync, 0);
	assert_int_equal(h->vm.stats.resyncs, 1);
	assert_int_equal(guest_read(h, x + 0x1000, true), 0xa);
	CHECK_AUDIT(h);
	emul = h->emulated_writes;
	guest_set(h, mode, pte, 0);
	assert_int_equal(h->emulated_writes, emul);
	assert_int_equal(ft->unsync, 1);
	/* The PV flush: the write must fault now (x is not present). */
	h_flush(h, 0);
	assert_int_equal(ft->unsync, 0);
	CHECK_ACCESS(h, 0, &wr);
	CHECK_AUDIT(h);

	/* Out of sync again, then the table also serves y through a read-only directory entry:
	 * a second shadow (another role), so the first comes back in sync, and stores trap. */
	guest_set(h, mode, pte, (0x101 << 12) | GP | GW | GU);
	assert_int_equal(ft->unsync, 1);
	pde_y = g_entry_at(h, mode, cr3, y, 2);
	guest_set(h, mode, pde_y, (t << 12) | GP | GU);
	assert_int_equal(guest_read(h, y, true), 0xb);
	assert_int_equal(ft->shadowed, 2);
	assert_int_equal(ft->unsync, 0);
	CHECK_AUDIT(h);
	emul = h->emulated_writes;
	guest_set(h, mode, pte, (0x102 << 12) | GP | GW | GU);
	assert_int_equal(h->emulated_writes, emul + 1);
	assert_int_equal(guest_read(h, x, true), 0xc);
	assert_int_equal(guest_read(h, y, true), 0xc);
	done(h);
}

/*
 * A table of an address space that is not loaded, changed without a flush (a CPU caches
 * nothing of it: Linux tears down such a space so), then linked into the loaded one: its
 * entries must be the guest's at once, not what its out-of-sync shadow still held.
 */
static void unsync_relink(int mode)
{
	struct harness *h = mk(NULL);
	struct g_frames f = { 0x300, 0x400 };
	u64 cra = new_space(h, &f, mode), crb = new_space(h, &f, mode), x = 0x40000000, pte, pde_a;
	struct mmu_frame *ft;

	fill_frame(h, 0x100, 0xa);
	fill_frame(h, 0x101, 0xb);
	pte = g_map(h, &f, mode, crb, x, (0x100 << 12) | GP | GW | GU, 1, GP | GW | GU);
	g_map(h, &f, mode, crb, x + 0x1000, (0x101 << 12) | GP | GW | GU, 1, GP | GW | GU);
	ft = &h->slot[0].s.frames[pte >> 12];
	/* Space a has a directory for x's region but no table for x. */
	g_map(h, &f, mode, cra, x + (mode == G_32 ? 0x400000 : 0x200000), (0x101 << 12) | GP | GU,
	      1, GP | GW | GU);
	pde_a = g_entry_at(h, mode, cra, x, 2);
	enter(h, mode, false, crb);
	assert_int_equal(guest_read(h, x, true), 0xa);
	assert_int_equal(guest_read(h, x + 0x1000, true), 0xb);
	assert_int_equal(h_set_cr3(h, 0, cra), MMU_OK);
	/* b's table, swapped: no flush. */
	guest_set(h, mode, pte, (0x101 << 12) | GP | GW | GU);
	guest_set(h, mode, pte + g_esize(mode), (0x100 << 12) | GP | GW | GU);
	assert_int_equal(ft->unsync, 1);
	guest_set(h, mode, pde_a, (pte & ~0xfffull) | GP | GW | GU);
	/* The first access fills its own entry; the second must not find b's old one. */
	assert_int_equal(guest_read(h, x, true), 0xb);
	assert_int_equal(guest_read(h, x + 0x1000, true), 0xa);
	assert_int_equal(ft->unsync, 0);
	done(h);
}

/* ---- 15: several vCPUs ---- */

/*
 * vCPU 1 caches a supervisor-writable x in its TLB. vCPU 0 rewrites x's entry natively (the
 * table is out of sync) to user read-only and reads x as user: that fault narrows the shared
 * shadow entry to what the guest wrote, without a flush (vCPU 1 may keep the old translation
 * until it flushes). vCPU 1's PV flush finds the table's entries already as the guest's, so its
 * resync changes nothing (and write-protects nothing): the flush must still empty vCPU 1's TLB,
 * or its write goes through.
 * Run again with test_skip_pv_flush to show the check sees the stale write right.
 */
static void smp_pv_flush_narrowed(bool skip_pv_flush)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct g_frames f = { 0x300, 0x400 };
	struct g_cfg c = { G_LONG, false, true, true, false, false };
	struct h_access sup_wr = acc_of(0x40000000, ACC_WRITE, false, 7);
	u64 cr3, pte;
	char msg[512];
	unsigned v;

	h_init(h, NULL, 2);
	std_slots(h);
	h->vm.test.skip_pv_flush = skip_pv_flush;
	cr3 = new_space(h, &f, G_LONG);
	fill_frame(h, 0x100, 0xa);
	pte = g_map(h, &f, G_LONG, cr3, 0x40000000, (0x100 << 12) | GP | GW | GA | GD, 1,
		    GP | GW | GU);
	for (v = 0; v < 2; v++)
		assert_int_equal(g_enter(h, v, &c, cr3), MMU_OK);
	CHECK_ACCESS(h, 1, &sup_wr);
	assert_int_equal(h->tlb[1][(0x40000000 >> 12) % H_TLB_ENTRIES].vpn, (0x40000000 >> 12) + 1);
	guest_set(h, G_LONG, pte, (0x100 << 12) | GP | GU | GA | GD);
	assert_int_equal(h->slot[0].s.frames[pte >> 12].unsync, 1);
	/* vCPU 0 drops its writable mapping of the table (flushing only itself), so that the
	 * resync's write protection finds nothing to flush either. */
	h_invlpg(h, 0, PHYSMAP + pte);
	assert_int_equal(h->slot[0].s.frames[pte >> 12].rmap, 0);
	assert_int_equal(guest_read(h, 0x40000000, true), 7);
	if (!h_check_tlb(h, 1, ~0ull, msg, sizeof(msg))) /* stale, not yet flushed */
		fail_msg("%s", msg);
	h_flush(h, 1);
	if (skip_pv_flush) {
		assert_false(h_check_tlb(h, 1, ~0ull, msg, sizeof(msg)));
		h_fini(h);
		free(h);
		return;
	}
	assert_true(h_check_tlb(h, 1, ~0ull, msg, sizeof(msg)));
	CHECK_ACCESS(h, 1, &sup_wr); /* faults, as the reference's walk says */
	done(h);
}

static void test_smp_pv_flush_narrowed(void **st UNUSED)
{
	smp_pv_flush_narrowed(false);
	smp_pv_flush_narrowed(true);
}

/*
 * Rights taken on one vCPU reach every vCPU's TLB: vCPU 1 caches x writable, vCPU 0's store to
 * the (write-protected) table makes x read-only; after the guest's shootdown (INVLPG on vCPU 1)
 * vCPU 1's write must fault, and before it vCPU 1's TLB must already be empty, since the MMU
 * dropped the shadow entry that INVLPG would otherwise find.
 */
static void test_smp_remote_flush(void **st UNUSED)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct g_frames f = { 0x300, 0x400 };
	struct g_cfg c = { G_LONG, false, true, true, false, false };
	struct h_access wr = acc_of(0x40000000, ACC_WRITE, true, 7);
	u64 cr3, pte;
	unsigned v;

	h_init(h, &wp_only, 2);
	std_slots(h);
	cr3 = new_space(h, &f, G_LONG);
	fill_frame(h, 0x100, 0xa);
	pte = g_map(h, &f, G_LONG, cr3, 0x40000000, (0x100 << 12) | GP | GW | GU | GA | GD, 1,
		    GP | GW | GU);
	for (v = 0; v < 2; v++)
		assert_int_equal(g_enter(h, v, &c, cr3), MMU_OK);
	CHECK_ACCESS(h, 1, &wr);
	assert_int_not_equal(h->tlb[1][(0x40000000 >> 12) % H_TLB_ENTRIES].vpn, 0);
	guest_set(h, G_LONG, pte, (0x100 << 12) | GP | GU | GA | GD);
	assert_int_equal(h->tlb[1][(0x40000000 >> 12) % H_TLB_ENTRIES].vpn, 0);
	h_invlpg(h, 1, 0x40000000);
	CHECK_ACCESS(h, 1, &wr);
	done(h);
}

static void test_unsync_relink_long(void **st UNUSED)
{
	unsync_relink(G_LONG);
}
static void test_unsync_relink_32(void **st UNUSED)
{
	unsync_relink(G_32);
}
static void test_unsync_32(void **st UNUSED)
{
	unsync_mode(G_32);
}
static void test_unsync_pae(void **st UNUSED)
{
	unsync_mode(G_PAE);
}
static void test_unsync_long(void **st UNUSED)
{
	unsync_mode(G_LONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_slot),
		cmocka_unit_test(test_matrix_off),
		cmocka_unit_test(test_matrix_32),
		cmocka_unit_test(test_matrix_32_pse),
		cmocka_unit_test(test_matrix_pae),
		cmocka_unit_test(test_matrix_pae_2m),
		cmocka_unit_test(test_matrix_long),
		cmocka_unit_test(test_matrix_long_2m),
		cmocka_unit_test(test_matrix_long_1g),
		cmocka_unit_test(test_switch_long),
		cmocka_unit_test(test_switch_pae),
		cmocka_unit_test(test_switch_32),
		cmocka_unit_test(test_switch_nocache),
		cmocka_unit_test(test_pt_writes),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_misaligned_flood),
		cmocka_unit_test(test_batch_no_flood),
		cmocka_unit_test(test_batch_aliases),
		cmocka_unit_test(test_cmpxchg_hook),
		cmocka_unit_test(test_cmpxchg_race),
		cmocka_unit_test(test_quadrants),
		cmocka_unit_test(test_two_roles),
		cmocka_unit_test(test_unshadow),
		cmocka_unit_test(test_large_2m),
		cmocka_unit_test(test_large_1g),
		cmocka_unit_test(test_1g_without_page1gb),
		cmocka_unit_test(test_large_pae),
		cmocka_unit_test(test_large_4m),
		cmocka_unit_test(test_small_pool),
		cmocka_unit_test(test_census),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_gva_to_gpa),
		cmocka_unit_test(test_bad_pdpte),
		cmocka_unit_test(test_pae_root_scrub),
		cmocka_unit_test(test_root_zap),
		cmocka_unit_test(test_prefetch_2m_long),
		cmocka_unit_test(test_prefetch_2m_pae),
		cmocka_unit_test(test_prefetch_paging_off),
		cmocka_unit_test(test_prefetch_not_dirty),
		cmocka_unit_test(test_prefetch_supervisor_nx),
		cmocka_unit_test(test_prefetch_user_ro_nx_pae),
		cmocka_unit_test(test_prefetch_wp0),
		cmocka_unit_test(test_prefetch_own_tables),
		cmocka_unit_test(test_prefetch_mmio_gap),
		cmocka_unit_test(test_prefetch_slot_end),
		cmocka_unit_test(test_prefetch_4m_32),
		cmocka_unit_test(test_prefetch_rmap_cache),
		cmocka_unit_test(test_prefetch_group_long),
		cmocka_unit_test(test_prefetch_group_pae),
		cmocka_unit_test(test_prefetch_group_32),
		cmocka_unit_test(test_unsync_32),
		cmocka_unit_test(test_unsync_pae),
		cmocka_unit_test(test_unsync_long),
		cmocka_unit_test(test_unsync_relink_long),
		cmocka_unit_test(test_unsync_relink_32),
		cmocka_unit_test(test_smp_pv_flush_narrowed),
		cmocka_unit_test(test_smp_remote_flush),
	};

	return cmocka_run_group_tests_name("mmu-scenarios", tests, NULL, NULL);
}
