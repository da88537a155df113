/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of mmu/tdp.c: a fake platform, and a walker that reads the tables as the CPU would. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mmu/tdp.h"

#define MIB (1ull << 20)
#define MAX_PAGES 64
#define MAX_SLOTS 4

/* The two formats the backends describe: NPT (x86-64 entries, U set; device leaves PCD|PWT)
 * and EPT (RWX, WB; device leaves UC, type 0). */
static const struct tdp_format npt = { .present = BIT(0),
				       .write = BIT(1),
				       .user = BIT(2),
				       .large = BIT(7),
				       .leaf_uc = BIT(4) | BIT(3) };
static const struct tdp_format ept = {
	.present = BIT(0), .write = BIT(1), .exec = BIT(2), .large = BIT(7), .leaf_extra = 6ull << 3
};

/* Host pages get fake addresses (index-based) so nothing can use them as pointers. */
static struct {
	void *va[MAX_PAGES];
	unsigned live;
	long limit; /* pages still allowed; < 0: any */
	struct mmu_slot slot[MAX_SLOTS];
	u64 hpa_base[MAX_SLOTS];
	bool scrambled[MAX_SLOTS]; /* host frames not contiguous */
	unsigned nslots;
	struct mmu_frame frames[4096];
} fk;

#define FAKE_HPA(i) (0x40000000ull + ((u64)(i) << PAGE_SHIFT))

static void *fk_alloc(void *ctx, u64 *hpa)
{
	(void)ctx;
	if (fk.limit == 0)
		return NULL;
	for (unsigned i = 0; i < MAX_PAGES; i++)
		if (!fk.va[i]) {
			fk.va[i] = aligned_alloc(PAGE_SIZE, PAGE_SIZE);
			memset(fk.va[i], 0, PAGE_SIZE);
			*hpa = FAKE_HPA(i);
			fk.live++;
			if (fk.limit > 0)
				fk.limit--;
			return fk.va[i];
		}
	return NULL;
}

static void fk_free(void *ctx, void *va, u64 hpa)
{
	(void)ctx;
	unsigned i = (unsigned)((hpa - FAKE_HPA(0)) >> PAGE_SHIFT);
	assert_true(i < MAX_PAGES);
	assert_ptr_equal(fk.va[i], va);
	free(va);
	fk.va[i] = NULL;
	fk.live--;
}

static const struct mmu_slot *fk_gfn_to_slot(void *ctx, u64 gfn)
{
	(void)ctx;
	for (unsigned i = 0; i < fk.nslots; i++)
		if (gfn - fk.slot[i].base_gfn < fk.slot[i].npages)
			return &fk.slot[i];
	return NULL;
}

static const struct mmu_slot *fk_slot_at(void *ctx, unsigned i)
{
	(void)ctx;
	return i < fk.nslots ? &fk.slot[i] : NULL;
}

static u64 fk_gfn_to_hpa(void *ctx, const struct mmu_slot *s, u64 gfn)
{
	(void)ctx;
	unsigned i = (unsigned)(s - fk.slot);
	u64 off = gfn - s->base_gfn;
	if (fk.scrambled[i])
		off ^= 1; /* neighbouring frames swapped */
	return fk.hpa_base[i] + (off << PAGE_SHIFT);
}

static const struct mmu_platform_ops ops = {
	.alloc_page = fk_alloc,
	.free_page = fk_free,
	.gfn_to_slot = fk_gfn_to_slot,
	.slot_at = fk_slot_at,
	.gfn_to_hpa = fk_gfn_to_hpa,
};

static void add_slot(u64 gpa, u64 bytes, u64 hpa, bool scrambled)
{
	unsigned i = fk.nslots++;
	fk.slot[i] = (struct mmu_slot){ .base_gfn = gpa >> PAGE_SHIFT,
					.npages = bytes >> PAGE_SHIFT,
					.frames = fk.frames };
	fk.hpa_base[i] = hpa;
	fk.scrambled[i] = scrambled;
}

static int setup(void **state)
{
	(void)state;
	memset(&fk, 0, sizeof(fk));
	fk.limit = -1;
	return 0;
}

static u64 *table_at(u64 hpa)
{
	unsigned i = (unsigned)((hpa - FAKE_HPA(0)) >> PAGE_SHIFT);
	assert_true(i < MAX_PAGES);
	assert_non_null(fk.va[i]);
	return fk.va[i];
}

/* The CPU's view: walk from the root by the format's bits alone. Returns the leaf level
 * (1 or 2) with *hpa and *leaf, or 0 if not present. Every entry on the way must carry the
 * full rights, as the hardware combines them across levels. */
static unsigned hw_walk(const struct tdp *t, const struct tdp_format *f, u64 gpa, u64 *hpa,
			u64 *leaf)
{
	u64 all = f->present | f->write | f->exec | f->user, tab = tdp_root_hpa(t);
	for (unsigned l = 4; l >= 1; l--) {
		u64 e = table_at(tab)[(gpa >> (12 + 9 * (l - 1))) & 511];
		if (!(e & f->present))
			return 0;
		assert_int_equal(e & all, all);
		if (l == 1 || (l == 2 && (e & f->large))) {
			u64 size = PAGE_SIZE << (9 * (l - 1));
			*hpa = (e & 0x000ffffffffff000ull & ~(size - 1)) + (gpa & (size - 1));
			*leaf = e;
			return l;
		}
		assert_int_equal(e & f->large, 0);
		assert_int_equal(e & ~0x000ffffffffff000ull & ~all, f->table_extra);
		tab = e & 0x000ffffffffff000ull;
	}
	return 0;
}

/* Both the CPU's walk and tdp_lookup agree that gpa maps to want (at the given level). */
static void expect_mapped(const struct tdp *t, const struct tdp_format *f, u64 gpa, u64 want,
			  unsigned level)
{
	u64 hpa = 0, leaf = 0, hpa2 = 0;
	assert_int_equal(hw_walk(t, f, gpa, &hpa, &leaf), level);
	assert_int_equal(hpa, want);
	assert_true(tdp_lookup(t, gpa, &hpa2));
	assert_int_equal(hpa2, want);
	u64 extra = leaf & ~0x000ffffffffff000ull & ~(f->present | f->write | f->exec | f->user);
	const struct mmu_slot *s = fk_gfn_to_slot(NULL, gpa >> PAGE_SHIFT);
	assert_int_equal(extra, (s && s->device ? f->leaf_uc : f->leaf_extra) |
					(level == 2 ? f->large : 0));
}

/* A nested fault at gpa fills it, mapping it to want. */
static void expect_fill(struct tdp *t, const struct tdp_format *f, u64 gpa, u64 want,
			unsigned level)
{
	assert_int_equal(tdp_fault(t, gpa), TDP_FILLED);
	expect_mapped(t, f, gpa, want, level);
}

static void expect_unmapped(const struct tdp *t, const struct tdp_format *f, u64 gpa)
{
	u64 hpa, leaf;
	assert_int_equal(hw_walk(t, f, gpa, &hpa, &leaf), 0);
	assert_false(tdp_lookup(t, gpa, &hpa));
}

/* Teardown gives back every host page. */
static void destroy_all_freed(struct tdp *t)
{
	tdp_destroy(t);
	assert_int_equal(fk.live, 0);
}

/* Lazy fills: a 2 MiB leaf where the slot allows, 4 KiB frames in a tail too short for one. */
static void test_lazy_large_and_small(const struct tdp_format *f)
{
	struct tdp t;
	add_slot(0, 4 * MIB + 3 * PAGE_SIZE, 0x10000000ull, false);
	assert_int_equal(tdp_init(&t, &ops, NULL, f), 0);
	expect_unmapped(&t, f, 0x1234);
	expect_fill(&t, f, 0x1234, 0x10001234ull, 2);
	expect_mapped(&t, f, 0x1fffff, 0x101fffffull, 2);
	expect_unmapped(&t, f, 2 * MIB);
	expect_fill(&t, f, 4 * MIB + PAGE_SIZE + 8, 0x10000000ull + 4 * MIB + PAGE_SIZE + 8, 1);
	expect_unmapped(&t, f, 4 * MIB);
	assert_int_equal(t.stats.faults_filled, 2);
	assert_int_equal(t.stats.large_pages, 1);
	assert_int_equal(t.stats.small_pages, 1);
	assert_int_equal(t.stats.tables, 4); /* PML4, PDPT, PD, one PT */
	destroy_all_freed(&t);
}

static void test_npt_mapping(void **state)
{
	(void)state;
	test_lazy_large_and_small(&npt);
}

static void test_ept_mapping(void **state)
{
	(void)state;
	test_lazy_large_and_small(&ept);
}

/* Addresses in no slot are device memory: reported, nothing mapped or allocated. */
/* A device slot (an assigned device's BAR, mmu/platform.h): 4 KiB leaves of the format's
 * uncached type even where a 2 MiB one would fit; tdp_unmap takes them away and nothing else,
 * and the slot placed elsewhere maps there while its old range is a hole again. */
static void device_slot(const struct tdp_format *f)
{
	struct tdp t;
	add_slot(0, 4 * MIB, 0x10000000ull, false);
	add_slot(0xc0000000ull, 2 * MIB, 0xfe000000ull, false);
	fk.slot[1].device = true;
	assert_int_equal(tdp_init(&t, &ops, NULL, f), 0);
	expect_fill(&t, f, 0x1000, 0x10001000ull, 2);
	expect_fill(&t, f, 0xc0000008ull, 0xfe000008ull, 1);
	expect_fill(&t, f, 0xc01ff000ull, 0xfe1ff000ull, 1);
	expect_unmapped(&t, f, 0xc0001000ull); /* one page at a time */
	assert_int_equal(tdp_unmap(&t, 0xc0000, 512), 2);
	expect_unmapped(&t, f, 0xc0000008ull);
	expect_unmapped(&t, f, 0xc01ff000ull);
	expect_mapped(&t, f, 0x1000, 0x10001000ull, 2);
	assert_int_equal(tdp_unmap(&t, 0xc0000, 512), 0);
	fk.slot[1].base_gfn = 0xd0000;
	assert_int_equal(tdp_fault(&t, 0xc0000008ull), TDP_MMIO);
	expect_fill(&t, f, 0xd0000010ull, 0xfe000010ull, 1);
	destroy_all_freed(&t);
}

static void test_device_slot_npt(void **state)
{
	(void)state;
	device_slot(&npt);
}

static void test_device_slot_ept(void **state)
{
	(void)state;
	device_slot(&ept);
}

static void test_holes_are_mmio(void **state)
{
	(void)state;
	struct tdp t;
	add_slot(0, 2 * MIB, 0x10000000ull, false);
	add_slot(8 * MIB, 2 * MIB, 0x20000000ull, false);
	assert_int_equal(tdp_init(&t, &ops, NULL, &npt), 0);
	unsigned before = fk.live;
	assert_int_equal(tdp_fault(&t, 4 * MIB), TDP_MMIO);
	assert_int_equal(tdp_fault(&t, 0xfee00000ull), TDP_MMIO);
	assert_int_equal(tdp_fault(&t, 1ull << 50), TDP_MMIO);
	assert_int_equal(fk.live, before);
	assert_int_equal(t.stats.faults_mmio, 3);
	expect_fill(&t, &npt, 8 * MIB + 5, 0x20000005ull, 2);
	expect_unmapped(&t, &npt, 0);
	expect_unmapped(&t, &npt, 4 * MIB);
	destroy_all_freed(&t);
}

/* No large leaf over host frames that are not contiguous, or not 2 MiB-aligned, or a slot that
 * starts inside the 2 MiB. */
static void test_large_only_when_it_fits(void **state)
{
	(void)state;
	struct tdp t;
	add_slot(0, 2 * MIB, 0x10000000ull, true);
	add_slot(2 * MIB, 2 * MIB, 0x20001000ull, false);
	add_slot(4 * MIB + PAGE_SIZE, 2 * MIB, 0x30000000ull, false);
	assert_int_equal(tdp_init(&t, &ops, NULL, &npt), 0);
	expect_fill(&t, &npt, 0x1000, 0x10000000ull, 1);
	expect_fill(&t, &npt, 2 * MIB, 0x20001000ull, 1);
	expect_fill(&t, &npt, 4 * MIB + PAGE_SIZE, 0x30000000ull, 1);
	assert_int_equal(t.stats.large_pages, 0);
	destroy_all_freed(&t);
	/* Nor where the format has none. */
	struct tdp_format small = ept;
	small.large = 0;
	add_slot(8 * MIB, 2 * MIB, 0x50000000ull, false);
	assert_int_equal(tdp_init(&t, &ops, NULL, &small), 0);
	expect_fill(&t, &small, 8 * MIB, 0x50000000ull, 1);
	destroy_all_freed(&t);
}

/* A fault on a mapping already present is a race or a stale TLB once; twice in a row it is a
 * wrong entry, which must not loop forever. */
static void test_fault_on_mapped(void **state)
{
	(void)state;
	struct tdp t;
	add_slot(0, 2 * MIB, 0x10000000ull, false);
	assert_int_equal(tdp_init(&t, &ops, NULL, &ept), 0);
	assert_int_equal(tdp_fault(&t, 0x3000), TDP_FILLED);
	assert_int_equal(tdp_fault(&t, 0x3008), TDP_MAPPED);
	assert_int_equal(tdp_fault(&t, 0x3010), TDP_EBROKEN);
	assert_int_equal(tdp_fault(&t, 0x5000), TDP_MAPPED);
	destroy_all_freed(&t);
}

/* Eager mapping covers every frame of every slot, with the fewest leaves. */
static void test_map_all(void **state)
{
	(void)state;
	struct tdp t;
	add_slot(0, 6 * MIB + 2 * PAGE_SIZE, 0x10000000ull, false);
	add_slot(1ull << 32, 2 * MIB, 0x20000000ull, false);
	assert_int_equal(tdp_init(&t, &ops, NULL, &npt), 0);
	assert_int_equal(tdp_map_all(&t), 0);
	for (u64 gpa = 0; gpa < 6 * MIB + 2 * PAGE_SIZE; gpa += 0x7000)
		expect_mapped(&t, &npt, gpa, 0x10000000ull + gpa, gpa < 6 * MIB ? 2 : 1);
	expect_mapped(&t, &npt, (1ull << 32) + 0x1234, 0x20001234ull, 2);
	expect_unmapped(&t, &npt, 6 * MIB + 2 * PAGE_SIZE);
	assert_int_equal(t.stats.large_pages, 4);
	assert_int_equal(t.stats.small_pages, 2);
	assert_int_equal(t.stats.faults_filled, 0);
	assert_int_equal(tdp_fault(&t, 0x1000), TDP_MAPPED);
	destroy_all_freed(&t);
}

/* Running out of host pages fails cleanly at any point, and teardown still frees all. */
static void test_out_of_memory(void **state)
{
	(void)state;
	struct tdp t;
	add_slot(0, 4 * MIB, 0x10000000ull, false);
	fk.limit = 0;
	assert_int_equal(tdp_init(&t, &ops, NULL, &npt), -1);
	assert_int_equal(fk.live, 0);
	for (long limit = 3; limit < 10; limit++) {
		fk.limit = limit;
		assert_int_equal(tdp_init(&t, &ops, NULL, &npt), 0);
		enum tdp_result r = tdp_fault(&t, 0x1000);
		assert_true(r == TDP_FILLED || r == TDP_ENOMEM);
		if (r == TDP_ENOMEM)
			expect_unmapped(&t, &npt, 0x1000);
		else
			expect_mapped(&t, &npt, 0x1000, 0x10001000ull, 2);
		destroy_all_freed(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_npt_mapping, setup),
		cmocka_unit_test_setup(test_ept_mapping, setup),
		cmocka_unit_test_setup(test_holes_are_mmio, setup),
		cmocka_unit_test_setup(test_device_slot_npt, setup),
		cmocka_unit_test_setup(test_device_slot_ept, setup),
		cmocka_unit_test_setup(test_large_only_when_it_fits, setup),
		cmocka_unit_test_setup(test_fault_on_mapped, setup),
		cmocka_unit_test_setup(test_map_all, setup),
		cmocka_unit_test_setup(test_out_of_memory, setup),
	};
	return cmocka_run_group_tests_name("tdp", tests, NULL, NULL);
}
