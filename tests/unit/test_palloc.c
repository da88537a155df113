/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for lib/palloc.c on a host buffer (16 or 256 MiB) standing in for physical memory. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/harness.h"
#include "lib/palloc.h"

#define MEM_SIZE (16ull << 20)
#define MEM_PAGES (MEM_SIZE / PAGE_SIZE)
#define BIG_SIZE (256ull << 20) /* 128 large pages: room for guests to come and go */
#define BLOCK (2ull << 20)

static u8 *mem;
static u64 mem_base; /* fake physical address of mem[0] */
static u64 mem_len;

static void *p2v(u64 pa)
{
	if (pa < mem_base || pa >= mem_base + mem_len)
		fail_msg("p2v(0x%llx) outside the fake RAM", (unsigned long long)pa);
	return mem + (pa - mem_base);
}

static int setup_len(u64 len)
{
	mem_len = len;
	mem = aligned_alloc(PAGE_SIZE, len);
	/* Dirty memory so that zeroing on allocation is observable. */
	memset(mem, 0xa5, len);
	mem_base = 0x40000000;
	palloc_init(p2v);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	return setup_len(MEM_SIZE);
}

static int setup_big(void **state)
{
	(void)state;
	return setup_len(BIG_SIZE);
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
	palloc_add_free(b + 10, b + 20);	       /* no whole page: ignored */
	palloc_add_free(b + (2 << 20), b + (3 << 20)); /* inside: absorbed */
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
	u64 e = palloc_alloc_contig(2, 0); /* 0 means no alignment */
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
	EXPECT_PANIC(palloc_boot_take(1, b + MEM_SIZE), "after palloc_finalize");
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
	EXPECT_PANIC(for (int i = 0; i < PALLOC_MAX_RANGES + 1; i++)
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

static void test_large_runs_from_top(void **state)
{
	(void)state;
	u64 b = mem_base;
	palloc_add_free(b, b + MEM_SIZE);
	palloc_finalize();
	/* The bitmap took the top page, so the highest free 2 MiB block is the one below. */
	u64 big = palloc_alloc_contig(512, 512);
	assert_int_equal(big, b + MEM_SIZE - 2 * BLOCK);
	assert_page_zero(big, 512);
	/* Single pages and short runs start at the bottom. */
	assert_int_equal(palloc_alloc(), b);
	assert_int_equal(palloc_alloc_contig(3, 1), b + PAGE_SIZE);
	/* Unaligned large runs end at the highest free page. */
	u64 odd = palloc_alloc_contig(513, 1);
	assert_int_equal(odd, b + MEM_SIZE - 2 * BLOCK - 513 * PAGE_SIZE);
	/* Around used pages: whole aligned blocks only, from the top down. The odd run holds
	 * block 5 and the top page of block 4; a single page is pinned in block 3. */
	u64 pin = b + 3 * BLOCK + 5 * PAGE_SIZE;
	for (u64 a = b + 4 * PAGE_SIZE; a < pin; a += PAGE_SIZE)
		assert_int_equal(palloc_alloc(), a);
	assert_int_equal(palloc_alloc(), pin);
	for (u64 a = b + 4 * PAGE_SIZE; a < pin; a += PAGE_SIZE)
		palloc_free(a);
	assert_int_equal(palloc_alloc_contig(512, 512), b + 2 * BLOCK);
	assert_int_equal(palloc_alloc_contig(512, 512), b + BLOCK);
	assert_int_equal(palloc_alloc_contig(512, 512), 0);
	/* Unaligned, the space around the pin still holds a large run: [pin + 1, odd). */
	assert_int_equal(palloc_alloc_contig(600, 1), b + (10 << 20) - PAGE_SIZE - 600 * PAGE_SIZE);
	/* The first-fit hint came back down with the frees: singles fill the bottom again. */
	assert_int_equal(palloc_alloc(), b + 4 * PAGE_SIZE);
}

static void test_boot_take(void **state)
{
	(void)state;
	u64 b = mem_base;
	palloc_add_free(b, b + (4 << 20));
	palloc_add_free(b + (8 << 20), b + MEM_SIZE);
	palloc_reserve(b + (3 << 20), b + (4 << 20));
	/* The highest place ending at or below the limit, in whichever range has it. */
	assert_int_equal(palloc_boot_take(2, b + (10 << 20)), b + (10 << 20) - 2 * PAGE_SIZE);
	assert_int_equal(palloc_boot_take(1, b + (6 << 20)), b + (3 << 20) - PAGE_SIZE);
	assert_int_equal(palloc_boot_take(1024, b + (6 << 20)), 0); /* 3 MiB free below */
	assert_int_equal(palloc_boot_take(1, b), 0);
	assert_int_equal(palloc_boot_take(0, b + MEM_SIZE), 0);
	palloc_finalize();
	size_t expect = (3 << 8) - 1 + (8 << 8) - 2 - 1; /* less the taken pages and bitmap */
	assert_int_equal(palloc_total_pages(), expect);
	assert_int_equal(drain(b + (3 << 20) - PAGE_SIZE, b + (8 << 20)), expect);
	EXPECT_PANIC(palloc_free(b + (10 << 20) - PAGE_SIZE), "never allocatable");
}

/* Owner of each page of the big buffer by the tests below: 0 free, else an allocation's tag. */
static u32 owner[BIG_SIZE / PAGE_SIZE];
static bool short_page[BIG_SIZE / PAGE_SIZE]; /* held by an allocation under a large page */

struct held {
	u64 pa;
	size_t npages;
	u32 tag;
};

static size_t page_index(u64 pa)
{
	return (size_t)((pa - mem_base) / PAGE_SIZE);
}

static void claim(struct held *h)
{
	size_t first = page_index(h->pa);
	assert_true(h->pa >= mem_base && h->pa + h->npages * PAGE_SIZE <= mem_base + mem_len);
	for (size_t i = 0; i < h->npages; i++) {
		if (owner[first + i])
			fail_msg("page 0x%llx handed out twice", (unsigned long long)h->pa);
		owner[first + i] = h->tag;
		short_page[first + i] = h->npages < PALLOC_LARGE_PAGES;
		u64 *p = p2v(h->pa + i * PAGE_SIZE);
		assert_int_equal(p[0] | p[PAGE_SIZE / 8 - 1], 0);
		p[0] = h->tag;
	}
}

static void release(struct held *h)
{
	size_t first = page_index(h->pa);
	for (size_t i = 0; i < h->npages; i++) {
		/* Nobody else wrote the page while it was this allocation's. */
		assert_int_equal(*(u64 *)p2v(h->pa + i * PAGE_SIZE), h->tag);
		assert_int_equal(owner[first + i], h->tag);
		owner[first + i] = 0;
		short_page[first + i] = false;
		palloc_free(h->pa + i * PAGE_SIZE);
	}
}

/* Allocates per kind: single page, short run, aligned large run, unaligned large run. */
static bool alloc_kind(struct held *h, int kind, u32 tag)
{
	static const size_t npages[] = { 1, 5, 512, 600 };
	static const size_t align[] = { 1, 1, 512, 1 };
	h->npages = npages[kind];
	h->tag = tag;
	h->pa = kind ? palloc_alloc_contig(npages[kind], align[kind]) : palloc_alloc();
	if (!h->pa)
		return false;
	assert_int_equal(h->pa % (align[kind] * PAGE_SIZE), 0);
	claim(h);
	return true;
}

#define RANDOM_OPS 20000
#define MAX_HELD 4096

static struct held held[MAX_HELD];

/* Random allocate/free of mixed sizes to exhaustion and back: the free count always matches
 * what is held, no page is given twice, every page comes zeroed. */
static void test_random_mixed(void **state)
{
	(void)state;
	memset(owner, 0, sizeof(owner));
	memset(short_page, 0, sizeof(short_page));
	palloc_add_free(mem_base, mem_base + BIG_SIZE / 4); /* 64 MiB: exhaustion is reached */
	palloc_reserve(mem_base + (10 << 20) + 123, mem_base + (11 << 20));
	palloc_finalize();
	size_t nheld = 0, pages = 0, failures = 0;
	u32 tag = 1;
	srand(31);
	for (int op = 0; op < RANDOM_OPS; op++) {
		if (nheld && (nheld == MAX_HELD || rand() % 100 < 45)) {
			size_t i = (size_t)rand() % nheld;
			release(&held[i]);
			pages -= held[i].npages;
			held[i] = held[--nheld];
		} else {
			int r = rand() % 100;
			int kind = r < 70 ? 0 : r < 85 ? 1 : r < 97 ? 2 : 3;
			if (alloc_kind(&held[nheld], kind, tag++))
				pages += held[nheld++].npages;
			else
				failures++;
		}
		assert_int_equal(palloc_free_pages(), palloc_total_pages() - pages);
	}
	/* The random walk did reach exhaustion for some size. */
	assert_true(failures > 0);
	while (nheld)
		release(&held[--nheld]);
	assert_int_equal(palloc_free_pages(), palloc_total_pages());
}

#define GUESTS_MAX 64
#define EVENTS 3000

struct fake_guest {
	struct held part[6 + 2 + 420];
	size_t n;
};

/* Guests come and go, each with its RAM in 2 MiB runs and its page tables and vCPU state in
 * single pages and short runs. With short allocations packed at the bottom, the blocks they
 * touch stay as few as their peak needs, and every other free page can still be had as a 2 MiB
 * run: the property a later large guest depends on. (With next-fit single pages, as before,
 * the page tables spread over every block and no run is left.) */
static void test_fragmentation(void **state)
{
	(void)state;
	static struct fake_guest g[GUESTS_MAX];
	memset(owner, 0, sizeof(owner));
	memset(short_page, 0, sizeof(short_page));
	memset(g, 0, sizeof(g));
	palloc_add_free(mem_base, mem_base + BIG_SIZE);
	palloc_finalize();
	size_t nguests = 0, small_live = 0, small_peak = 0, used = 0;
	size_t budget = palloc_total_pages() * 3 / 4;
	u32 tag = 1;
	srand(7);
	for (int ev = 0; ev < EVENTS; ev++) {
		struct fake_guest *x;
		size_t runs = 1 + (size_t)rand() % 6, singles = 20 + (size_t)rand() % 400;
		size_t need = runs * 512 + singles + 10;
		if (nguests == GUESTS_MAX || used + need > budget || (nguests && rand() % 2)) {
			size_t i = (size_t)rand() % nguests;
			x = &g[i];
			for (size_t k = 0; k < x->n; k++) {
				release(&x->part[k]);
				used -= x->part[k].npages;
				if (x->part[k].npages < 512)
					small_live -= x->part[k].npages;
			}
			g[i] = g[--nguests];
			continue;
		}
		x = &g[nguests++];
		x->n = 0;
		/* Interleaved, as a guest's creation has them. */
		for (size_t k = 0; k < runs + 2; k++) {
			int kind = k < runs ? 2 : 1;
			assert_true(alloc_kind(&x->part[x->n], kind, tag++));
			used += x->part[x->n].npages;
			if (kind == 1)
				small_live += x->part[x->n].npages;
			x->n++;
		}
		for (size_t s = 0; s < singles; s++) {
			assert_true(alloc_kind(&x->part[x->n++], 0, tag++));
			used++;
			small_live++;
		}
		small_peak = small_live > small_peak ? small_live : small_peak;
		/* The blocks any short allocation lies in. */
		size_t touched = 0;
		for (size_t blk = 0; blk < BIG_SIZE / BLOCK; blk++)
			for (size_t i = 0; i < 512; i++)
				if (short_page[blk * 512 + i]) {
					touched++;
					break;
				}
		assert_true(touched <= (small_peak + 511) / 512 + 1);
	}
	/* With the remaining guests alive, all free memory but the blocks short allocations hold
	 * comes out as 2 MiB runs. */
	size_t runs_got = 0;
	for (u64 pa; (pa = palloc_alloc_contig(512, 512)); runs_got++)
		;
	assert_true(nguests > 0);
	assert_true(runs_got * 512 + 512 * ((small_peak + 511) / 512 + 2) >=
		    palloc_total_pages() - used);
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
		T(test_large_runs_from_top),
		T(test_boot_take),
		cmocka_unit_test_setup_teardown(test_random_mixed, setup_big, teardown),
		cmocka_unit_test_setup_teardown(test_fragmentation, setup_big, teardown),
	};
	return cmocka_run_group_tests_name("palloc", tests, NULL, NULL);
}
