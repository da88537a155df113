/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for vmm/memslot.c: guest RAM below the hole and above 4 GiB, from fragmented host memory. */
/*
 * Built with MEMSLOT_LOW_MAX at 4 MiB, so a guest of a few dozen MiB already has RAM above
 * 4 GiB. Host "physical" addresses are the test buffer's own addresses (phys_to_virt is the
 * identity), so the allocator and the slots run as in Umbra.
 */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/harness.h"
#include "lib/palloc.h"
#include "vmm/memslot.h"

#define MEM_SIZE (96ull << 20)
#define MIB_PAGES 256u

static u8 *mem;
static u64 base;
static size_t free0;

static void *p2v(u64 pa)
{
	return (void *)(uintptr_t)pa;
}

static int setup(void **state)
{
	(void)state;
	mem = aligned_alloc(2u << 20, MEM_SIZE);
	base = (u64)(uintptr_t)mem;
	palloc_init(p2v);
	palloc_add_free(base, base + MEM_SIZE);
	palloc_finalize();
	free0 = palloc_free_pages();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(mem);
	return 0;
}

/* Every gfn of the guest translates into its slot, the hole and beyond do not, and the host
 * pages behind different gfns are different pages. */
static void check_layout(const struct memslots *m, u64 bytes)
{
	u64 low = bytes < MEMSLOT_LOW_MAX ? bytes : MEMSLOT_LOW_MAX;
	assert_int_equal(m->bytes, bytes);
	assert_int_equal(m->low_bytes, low);
	assert_int_equal(memslots_high_end(m), MEMSLOT_HIGH_BASE + bytes - low);
	u64 pages = 0;
	for (u32 s = 0; s < m->n; s++) {
		const struct mmu_slot *sl = memslots_at(m, s);
		assert_ptr_equal(sl, &m->slot[s]);
		assert_int_equal(m->hpa[s] % (s ? 2u << 20 : PAGE_SIZE), 0);
		pages += sl->npages;
		for (u64 g = sl->base_gfn; g < sl->base_gfn + sl->npages; g += 97) {
			assert_ptr_equal(memslots_find(m, g), sl);
			u64 hpa = memslots_gfn_to_hpa(m, sl, g);
			assert_ptr_equal(memslots_ptr(m, g << PAGE_SHIFT, 8), p2v(hpa));
			*(u64 *)p2v(hpa) = g; /* each page its own: read back below */
		}
	}
	assert_int_equal(pages, bytes >> PAGE_SHIFT);
	for (u32 s = 0; s < m->n; s++)
		for (u64 g = m->slot[s].base_gfn; g < m->slot[s].base_gfn + m->slot[s].npages;
		     g += 97)
			assert_int_equal(*(u64 *)memslots_ptr(m, g << PAGE_SHIFT, 8), g);
	/* The hole from the end of low RAM to 4 GiB, and past the end above. */
	assert_null(memslots_find(m, low >> PAGE_SHIFT));
	assert_null(memslots_find(m, (MEMSLOT_HIGH_BASE >> PAGE_SHIFT) - 1));
	assert_null(memslots_find(m, memslots_high_end(m) >> PAGE_SHIFT));
	assert_null(memslots_ptr(m, low - 4, 8)); /* straddles the end of low RAM */
	assert_null(memslots_ptr(m, MEMSLOT_HIGH_BASE - 8, 8));
}

static void test_low_only(void **state)
{
	(void)state;
	struct memslots m = { 0 };
	assert_int_equal(memslots_init(&m, 3u << 20), 0);
	assert_int_equal(m.n, 1);
	check_layout(&m, 3u << 20);
	memslots_free(&m);
	assert_int_equal(palloc_free_pages(), free0);
}

static void test_high_one_run(void **state)
{
	(void)state;
	struct memslots m = { 0 };
	assert_int_equal(memslots_init(&m, 40u << 20), 0);
	assert_int_equal(m.n, 2); /* 4 MiB below, 36 MiB from 4 GiB in one run */
	assert_int_equal(m.slot[1].base_gfn, MEMSLOT_HIGH_BASE >> PAGE_SHIFT);
	check_layout(&m, 40u << 20);
	memslots_free(&m);
	assert_int_equal(palloc_free_pages(), free0);
}

/* Takes every page, then gives back all but one at every 6 MiB of the buffer: no free run is
 * longer than 6 MiB, and 2 MiB-aligned ones are 4 MiB. Returns the pages kept. */
static unsigned fragment(u64 *kept)
{
	size_t n = palloc_free_pages(), k = 0;
	u64 *all = malloc(n * sizeof(*all));
	for (size_t i = 0; i < n; i++)
		assert_true((all[i] = palloc_alloc()) != 0);
	assert_int_equal(palloc_alloc(), 0);
	for (size_t i = 0; i < n; i++) {
		if ((all[i] - base) % (6u << 20) == 0)
			kept[k++] = all[i];
		else
			palloc_free(all[i]);
	}
	free(all);
	return (unsigned)k;
}

static void test_high_fragmented(void **state)
{
	(void)state;
	u64 kept[32];
	unsigned nkept = fragment(kept);
	size_t before = palloc_free_pages();
	struct memslots m = { 0 };
	/* 4 MiB below, 24 MiB above in 4 MiB runs: six slots there, halved down to. */
	assert_int_equal(memslots_init(&m, 28u << 20), 0);
	assert_int_equal(m.n, 7);
	for (u32 s = 1; s < m.n; s++)
		assert_int_equal(m.slot[s].npages, 4 * MIB_PAGES);
	check_layout(&m, 28u << 20);
	memslots_free(&m);
	assert_int_equal(palloc_free_pages(), before);
	/* 36 MiB above would take nine: refused, and nothing kept. */
	assert_int_equal(memslots_init(&m, 40u << 20), -1);
	assert_int_equal(m.n, 0);
	assert_int_equal(palloc_free_pages(), before);
	for (unsigned i = 0; i < nkept; i++)
		palloc_free(kept[i]);
	assert_int_equal(palloc_free_pages(), free0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_low_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_high_one_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_high_fragmented, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
