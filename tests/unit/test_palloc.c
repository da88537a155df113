/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for lib/palloc.c on a 16 MiB host buffer standing in for physical memory. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/harness.h"
#include "lib/palloc.h"

#define MEM_SIZE (16ull << 20)
#define MEM_PAGES (MEM_SIZE / PAGE_SIZE)

static u8 *mem;
static u64 mem_base;   /* fake physical address of mem[0] */

static void *p2v(u64 pa)
{
	if (pa < mem_base || pa >= mem_base + MEM_SIZE)
		fail_msg("p2v(0x%llx) outside the fake RAM", (unsigned long long)pa);
	return mem + (pa - mem_base);
}

static int setup(void **state)
{
	(void)state;
	mem = aligned_alloc(PAGE_SIZE, MEM_SIZE);
	/* Dirty memory so that zeroing on allocation is observable. */
	memset(mem, 0xa5, MEM_SIZE);
	mem_base = 0x40000000;
	palloc_init(p2v);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(mem);
	return 0;
}

static void assert_page_zero(u64 pa, size_t npages)
{
	const u8 *p = p2v(pa);
	for (size_t i = 0; i < npages * PAGE_SIZE; i++)
		if (p[i])
			fail_msg("page 0x%llx not zeroed at +%zu", (unsigned long long)pa, i);
}

/* Allocates until exhaustion; checks every page is fresh and not in [lo, hi). */
static size_t drain(u64 lo, u64 hi)
{
	static u8 seen[MEM_PAGES];
	memset(seen, 0, sizeof(seen));
	size_t n = 0;
	for (u64 pa; (pa = palloc_alloc()); n++) {
		assert_int_equal(pa % PAGE_SIZE, 0);
		assert_true(pa >= mem_base && pa < mem_base + MEM_SIZE);
		assert_false(pa >= lo && pa < hi);
		size_t idx = (pa - mem_base) / PAGE_SIZE;
		assert_int_equal(seen[idx], 0);
		seen[idx] = 1;
	}
	return n;
}

static void test_whole_buffer(void **state)
{
	(void)state;
	palloc_add_free(mem_base, mem_base + MEM_SIZE);
	palloc_finalize();
	/* 4096 pages need a 512-byte bitmap: one page goes to it. */
	assert_int_equal(palloc_total_pages(), MEM_PAGES - 1);
	assert_int_equal(palloc_free_pages(), MEM_PAGES - 1);
	u64 pa = palloc_alloc();
	assert_int_not_equal(pa, 0);
	assert_page_zero(pa, 1);
	assert_int_equal(palloc_free_pages(), MEM_PAGES - 2);
	palloc_free(pa);
	assert_int_equal(palloc_free_pages(), MEM_PAGES - 1);
	assert_int_equal(drain(0, 0), MEM_PAGES - 1);
	assert_int_equal(palloc_free_pages(), 0);
	assert_int_equal(palloc_alloc(), 0);
	assert_int_equal(palloc_alloc_contig(1, 1), 0);
	palloc_free(pa);
	assert_int_equal(palloc_free_pages(), 1);
	memset(p2v(pa), 0xff, PAGE_SIZE);
	assert_int_equal(palloc_alloc(), pa);
	assert_page_zero(pa, 1);
}

static void test_reserve_overlaps(void **state)
{
	(void)state;
	u64 b = mem_base;
	palloc_add_free(b, b + MEM_SIZE);
	/* Rounded outward: removes pages 255..512. */
	palloc_reserve(b + (1 << 20) - 1, b + (2 << 20) + 1);
	/* Overlaps the previous one and extends it to 3 MiB. */
	palloc_reserve(b + (3 << 19), b + (3 << 20));
	/* Outside every range: no effect. */
	palloc_reserve(b + MEM_SIZE, b + 2 * MEM_SIZE);
	palloc_reserve(0, 0x100000);
	/* Empty range: no effect. */
	palloc_reserve(b + (8 << 20), b + (8 << 20));
	/* The last page. */
	palloc_reserve(b + MEM_SIZE - 1, b + MEM_SIZE);
	palloc_finalize();
	size_t expect = MEM_PAGES - (768 - 255) - 1 - 1;
	assert_int_equal(palloc_total_pages(), expect);
	assert_int_equal(drain(b + (1 << 20) - PAGE_SIZE, b + (3 << 20)), expect);
	EXPECT_PANIC(palloc_free(b + (2 << 20)), "never allocatable");
}

static void test_add_rounds_and_merges(void **state)
{
	(void)state;
	u64 b = mem_base;
	palloc_add_free(b + 1, b + (8 << 20) + 100);
	palloc_add_free(b + (4 << 20), b + MEM_SIZE - 1);
	palloc_add_free(b + 10, b + 20);          /* no whole page: ignored */
	palloc_add_free(b + (2 << 20), b + (3 << 20));  /* inside: absorbed */
	palloc_finalize();
	assert_int_equal(palloc_total_pages(), MEM_PAGES - 2 - 1);
	assert_int_equal(drain(0, b + PAGE_SIZE), MEM_PAGES - 3);
}

static void test_page_zero_never_used(void **state)
{
	(void)state;
	mem_base = 0;
	palloc_add_free(0, MEM_SIZE);
	palloc_finalize();
	assert_int_equal(palloc_total_pages(), MEM_PAGES - 2);
	assert_int_equal(drain(0, PAGE_SIZE), MEM_PAGES - 2);
}

static void test_contig_alignment(void **state)
{
	(void)state;
	/* A base that is 4 KiB but not 64 KiB aligned: alignment is physical, not relative. */
	mem_base = 0x40003000;
	palloc_add_free(mem_base, mem_base + MEM_SIZE);
	palloc_finalize();
	u64 one = palloc_alloc();
	assert_int_equal(one, mem_base);
	u64 a = palloc_alloc_contig(3, 1);
	assert_int_equal(a, mem_base + PAGE_SIZE);
	assert_page_zero(a, 3);
	u64 c = palloc_alloc_contig(16, 16);
	assert_int_not_equal(c, 0);
	assert_int_equal(c % (16 * PAGE_SIZE), 0);
	assert_page_zero(c, 16);
	u64 d = palloc_alloc_contig(1, 512);
	assert_int_equal(d % (2 << 20), 0);
	u64 e = palloc_alloc_contig(2, 0);  /* 0 means no alignment */
	assert_int_not_equal(e, 0);
	assert_int_equal(palloc_alloc_contig(0, 1), 0);
	assert_int_equal(palloc_alloc_contig(MEM_PAGES, 1), 0);
	assert_int_equal(palloc_alloc_contig(MEM_PAGES * 4, 1), 0);
	size_t before = palloc_free_pages();
	for (size_t i = 0; i < 16; i++)
		palloc_free(c + i * PAGE_SIZE);
	assert_int_equal(palloc_free_pages(), before + 16);
}

static void test_contig_runs(void **state)
{
	(void)state;
	u64 b = mem_base;
	palloc_add_free(b, b + (1 << 20));
	palloc_reserve(b + 4 * PAGE_SIZE, b + 5 * PAGE_SIZE);
	palloc_reserve(b + 9 * PAGE_SIZE, b + 10 * PAGE_SIZE);
	palloc_finalize();
	/* The bitmap took the top page; runs are [0,4) [5,9) [10,255). */
	assert_int_equal(palloc_alloc_contig(4, 1), b);
	assert_int_equal(palloc_alloc_contig(5, 1), b + 10 * PAGE_SIZE);
	assert_int_equal(palloc_alloc_contig(4, 1), b + 5 * PAGE_SIZE);
	assert_int_equal(palloc_alloc_contig(241, 1), 0);
	assert_int_equal(palloc_alloc_contig(240, 1), b + 15 * PAGE_SIZE);
	assert_int_equal(palloc_free_pages(), 0);
}

static void test_misuse_panics(void **state)
{
	(void)state;
	u64 b = mem_base;
	EXPECT_PANIC(palloc_alloc(), "before palloc_finalize");
	palloc_init(NULL);
	palloc_add_free(b, b + MEM_SIZE);
	EXPECT_PANIC(palloc_finalize(), "palloc_init was not called");
	palloc_init(p2v);
	EXPECT_PANIC(palloc_finalize(), "no free memory");
	palloc_init(p2v);
	palloc_add_free(b, b + MEM_SIZE);
	palloc_finalize();
	EXPECT_PANIC(palloc_add_free(b, b + MEM_SIZE), "after palloc_finalize");
	palloc_init(p2v);
	palloc_add_free(b, b + MEM_SIZE);
	palloc_finalize();
	EXPECT_PANIC(palloc_reserve(b, b + PAGE_SIZE), "after palloc_finalize");
	palloc_init(p2v);
	palloc_add_free(b, b + MEM_SIZE);
	palloc_finalize();
	u64 pa = palloc_alloc();
	palloc_free(pa);
	EXPECT_PANIC(palloc_free(pa), "double free");
	palloc_init(p2v);
	palloc_add_free(b, b + MEM_SIZE);
	palloc_finalize();
	pa = palloc_alloc();
	EXPECT_PANIC(palloc_free(pa + 8), "never allocatable");
	palloc_init(p2v);
	palloc_add_free(b, b + MEM_SIZE);
	palloc_finalize();
	/* The bitmap's own page (top of the range) is not the caller's to free. */
	EXPECT_PANIC(palloc_free(b + MEM_SIZE - PAGE_SIZE), "never allocatable");
	palloc_init(p2v);
	palloc_add_free(b, b + MEM_SIZE);
	palloc_finalize();
	EXPECT_PANIC(palloc_free(b + MEM_SIZE), "never allocatable");
}

static void test_too_many_ranges(void **state)
{
	(void)state;
	for (int i = 0; i < PALLOC_MAX_RANGES; i++)
		palloc_add_free(mem_base + 2 * i * PAGE_SIZE, mem_base + (2 * i + 1) * PAGE_SIZE);
	EXPECT_PANIC(palloc_add_free(mem_base + (1 << 20), mem_base + (2 << 20)), "more than 32");
	palloc_init(p2v);
	palloc_add_free(mem_base, mem_base + MEM_SIZE);
	EXPECT_PANIC(
		for (int i = 0; i < PALLOC_MAX_RANGES + 1; i++)
			palloc_reserve(mem_base + (2 * i + 1) * PAGE_SIZE,
				       mem_base + (2 * i + 2) * PAGE_SIZE),
		"more than 32");
}

static void test_bitmap_does_not_fit(void **state)
{
	(void)state;
	/* Two single pages 1 TiB apart: the bitmap for the span needs 32 MiB. */
	palloc_add_free(mem_base, mem_base + PAGE_SIZE);
	palloc_add_free(mem_base + (1ull << 40), mem_base + (1ull << 40) + PAGE_SIZE);
	EXPECT_PANIC(palloc_finalize(), "page bitmap");
}

static void test_sparse_ranges(void **state)
{
	(void)state;
	u64 b = mem_base;
	palloc_add_free(b + (8 << 20), b + MEM_SIZE);
	palloc_add_free(b, b + (2 << 20));
	palloc_add_free(b + (4 << 20), b + (4 << 20) + PAGE_SIZE);
	palloc_finalize();
	size_t expect = 2048 + 512 + 1 - 1;
	assert_int_equal(palloc_total_pages(), expect);
	assert_int_equal(drain(b + (2 << 20), b + (4 << 20)), expect);
}

#define THREADS 4
#define ROUNDS 2000

static void *churn(void *arg)
{
	u64 held[8];
	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < 8; i++) {
			held[i] = palloc_alloc();
			if (!held[i])
				abort();
			/* Ownership check: nobody else may be writing this page. */
			*(volatile u64 *)p2v(held[i]) = held[i];
		}
		for (int i = 0; i < 8; i++) {
			if (*(volatile u64 *)p2v(held[i]) != held[i])
				abort();
			palloc_free(held[i]);
		}
	}
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	palloc_add_free(mem_base, mem_base + MEM_SIZE);
	palloc_finalize();
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, churn, NULL), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(palloc_free_pages(), palloc_total_pages());
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_whole_buffer),
		T(test_reserve_overlaps),
		T(test_add_rounds_and_merges),
		T(test_page_zero_never_used),
		T(test_contig_alignment),
		T(test_contig_runs),
		T(test_misuse_panics),
		T(test_too_many_ranges),
		T(test_bitmap_does_not_fit),
		T(test_sparse_ranges),
		T(test_threads),
	};
	return cmocka_run_group_tests_name("palloc", tests, NULL, NULL);
}
