/* SPDX-License-Identifier: GPL-2.0-only */
/* Physical page allocator: free ranges recorded at boot, then one bit per page (set = in use).
 * Single pages and runs shorter than a large page are packed first-fit from the bottom; runs of
 * a large page or more come from the top: small allocations, which come and go with guests'
 * page tables, then never split the free 2 MiB blocks a later guest's RAM needs. */
#include "lib/palloc.h"
#include "lib/assert.h"
#include "lib/bitmap.h"
#include "lib/spinlock.h"
#include "lib/string.h"

struct range {
	u64 start, end;
};

static struct {
	spinlock_t lock;
	void *(*p2v)(u64 pa);
	struct range ranges[PALLOC_MAX_RANGES];
	size_t nranges;
	bool finalized;
	u64 base_pfn; /* bit i describes page base_pfn + i */
	size_t nbits;
	u64 *map;
	struct range map_range; /* the bitmap's own pages */
	size_t total, nfree;
	size_t hint; /* every bit below it is set: first-fit starts here */
} pa;

void palloc_init(void *(*p2v)(u64 pa))
{
	memset(&pa, 0, sizeof(pa));
	pa.p2v = p2v;
}

static void check_booting(const char *fn)
{
	if (pa.finalized)
		panic("palloc: %s after palloc_finalize", fn);
}

static void remove_range(size_t i)
{
	pa.ranges[i] = pa.ranges[--pa.nranges];
}

static void insert_range(u64 start, u64 end)
{
	if (pa.nranges == PALLOC_MAX_RANGES)
		panic("palloc: more than %d free ranges", PALLOC_MAX_RANGES);
	pa.ranges[pa.nranges++] = (struct range){ start, end };
}

void palloc_add_free(u64 start, u64 end)
{
	spin_lock(&pa.lock);
	check_booting("palloc_add_free");
	if (start < PAGE_SIZE)
		start = PAGE_SIZE; /* 0 is the allocator's failure value */
	start = ALIGN_UP(start, PAGE_SIZE);
	end = ALIGN_DOWN(end, PAGE_SIZE);
	if (start >= end || start == 0) { /* start == 0: ALIGN_UP wrapped */
		spin_unlock(&pa.lock);
		return;
	}
	/* Firmware maps may overlap or touch: absorb every such range into the new one. */
	for (size_t i = 0; i < pa.nranges;) {
		struct range *r = &pa.ranges[i];
		if (r->start <= end && start <= r->end) {
			start = r->start < start ? r->start : start;
			end = r->end > end ? r->end : end;
			remove_range(i);
		} else {
			i++;
		}
	}
	insert_range(start, end);
	spin_unlock(&pa.lock);
}

u64 palloc_boot_take(size_t npages, u64 below)
{
	u64 bytes = (u64)npages << PAGE_SHIFT;
	u64 got = 0;

	spin_lock(&pa.lock);
	check_booting("palloc_boot_take");
	for (size_t i = 0; i < pa.nranges && npages; i++) {
		struct range *r = &pa.ranges[i];
		u64 top = r->end < below ? r->end : below;
		if (top > r->start && top - r->start >= bytes && top - bytes > got)
			got = top - bytes;
	}
	spin_unlock(&pa.lock);
	if (got)
		palloc_reserve(got, got + bytes);
	return got;
}

void palloc_reserve(u64 start, u64 end)
{
	spin_lock(&pa.lock);
	check_booting("palloc_reserve");
	start = ALIGN_DOWN(start, PAGE_SIZE);
	end = end > ALIGN_DOWN(~0ull, PAGE_SIZE) ? ~0ull : ALIGN_UP(end, PAGE_SIZE);
	struct range old[PALLOC_MAX_RANGES];
	size_t n = pa.nranges;
	memcpy(old, pa.ranges, sizeof(old));
	pa.nranges = 0;
	for (size_t i = 0; i < n; i++) {
		struct range r = old[i];
		if (end <= r.start || r.end <= start) {
			insert_range(r.start, r.end);
			continue;
		}
		if (r.start < start)
			insert_range(r.start, start);
		if (end < r.end)
			insert_range(end, r.end);
	}
	spin_unlock(&pa.lock);
}

static void mark_range(u64 start, u64 end, bool used)
{
	for (u64 pfn = start >> PAGE_SHIFT; pfn < end >> PAGE_SHIFT; pfn++) {
		if (used)
			bitmap_set(pa.map, pfn - pa.base_pfn);
		else
			bitmap_clear(pa.map, pfn - pa.base_pfn);
	}
}

void palloc_finalize(void)
{
	spin_lock(&pa.lock);
	check_booting("palloc_finalize");
	if (!pa.p2v)
		panic("palloc: palloc_init was not called");
	if (!pa.nranges)
		panic("palloc: no free memory");
	u64 lo = ~0ull, hi = 0;
	for (size_t i = 0; i < pa.nranges; i++) {
		lo = pa.ranges[i].start < lo ? pa.ranges[i].start : lo;
		hi = pa.ranges[i].end > hi ? pa.ranges[i].end : hi;
	}
	pa.base_pfn = lo >> PAGE_SHIFT;
	pa.nbits = (size_t)((hi - lo) >> PAGE_SHIFT);
	u64 map_bytes = ALIGN_UP((u64)BITMAP_WORDS(pa.nbits) * 8, PAGE_SIZE);

	/* Carve the bitmap from the highest range that holds it: low memory is the scarcer kind. */
	struct range *home = NULL;
	for (size_t i = 0; i < pa.nranges; i++)
		if (pa.ranges[i].end - pa.ranges[i].start >= map_bytes &&
		    (!home || pa.ranges[i].end > home->end))
			home = &pa.ranges[i];
	if (!home)
		panic("palloc: no free range holds the %llu-byte page bitmap",
		      (unsigned long long)map_bytes);
	pa.map_range = (struct range){ home->end - map_bytes, home->end };
	pa.map = pa.p2v(pa.map_range.start);

	memset(pa.map, 0xff, map_bytes);
	for (size_t i = 0; i < pa.nranges; i++) {
		mark_range(pa.ranges[i].start, pa.ranges[i].end, false);
		pa.total += (size_t)((pa.ranges[i].end - pa.ranges[i].start) >> PAGE_SHIFT);
	}
	mark_range(pa.map_range.start, pa.map_range.end, true);
	pa.total -= (size_t)(map_bytes >> PAGE_SHIFT);
	pa.nfree = pa.total;
	pa.finalized = true;
	spin_unlock(&pa.lock);
}

static void check_ready(void)
{
	if (!pa.finalized)
		panic("palloc: used before palloc_finalize");
}

static u64 take(size_t bit, size_t npages)
{
	for (size_t i = 0; i < npages; i++)
		bitmap_set(pa.map, bit + i);
	pa.nfree -= npages;
	return (pa.base_pfn + bit) << PAGE_SHIFT;
}

static void zero_pages(u64 phys, size_t npages)
{
	if (phys)
		memset(pa.p2v(phys), 0, npages * PAGE_SIZE);
}

u64 palloc_alloc(void)
{
	u64 phys = 0;
	spin_lock(&pa.lock);
	check_ready();
	size_t bit = bitmap_find_next_zero(pa.map, pa.nbits, pa.hint);
	pa.hint = bit;
	if (bit < pa.nbits) {
		phys = take(bit, 1);
		pa.hint = bit + 1;
	}
	spin_unlock(&pa.lock);
	zero_pages(phys, 1);
	return phys;
}

/* Lowest bit at or after start where npages clear bits begin on an align_pages frame, or nbits. */
static size_t fit_up(size_t start, size_t npages, size_t align_pages)
{
	size_t bit = start;
	while (npages <= pa.nbits) {
		bit = bitmap_find_next_zero(pa.map, pa.nbits, bit);
		/* Round the physical frame number, not the bit index, up to the alignment. */
		u64 pfn = pa.base_pfn + bit;
		bit += (size_t)((align_pages - pfn % align_pages) % align_pages);
		if (bit > pa.nbits - npages)
			break;
		size_t run = 0;
		while (run < npages && !bitmap_test(pa.map, bit + run))
			run++;
		if (run == npages)
			return bit;
		bit += run + 1;
	}
	return pa.nbits;
}

/* Highest bit in [lo, hi) that is set (used) or clear, or hi when none: a word at a time. */
static size_t last_bit(size_t lo, size_t hi, bool used)
{
	size_t bit = hi;
	while (bit > lo) {
		size_t w = (bit - 1) / 64;
		u64 v = used ? pa.map[w] : ~pa.map[w];
		if (bit % 64)
			v &= BIT(bit % 64) - 1;
		if (w * 64 < lo)
			v &= ~0ull << (lo % 64);
		if (v)
			return w * 64 + 63 - (size_t)__builtin_clzll(v);
		bit = w * 64;
	}
	return hi;
}

/* Highest bit where npages clear bits begin on an align_pages frame, or nbits. */
static size_t fit_down(size_t npages, size_t align_pages)
{
	size_t end = pa.nbits;
	while (end >= npages) {
		u64 pfn = pa.base_pfn + end - npages;
		if (pfn % align_pages > end - npages)
			break;
		size_t bit = end - npages - (size_t)(pfn % align_pages);
		size_t used = last_bit(bit, bit + npages, true);
		if (used == bit + npages)
			return bit;
		/* The run ends at or below the highest free page under the used one. */
		size_t free = last_bit(0, used, false);
		if (free == used)
			break;
		end = free + 1;
	}
	return pa.nbits;
}

u64 palloc_alloc_contig(size_t npages, size_t align_pages)
{
	u64 phys = 0;
	if (!npages)
		return 0;
	if (!align_pages)
		align_pages = 1;
	spin_lock(&pa.lock);
	check_ready();
	size_t bit = npages >= PALLOC_LARGE_PAGES ? fit_down(npages, align_pages)
						  : fit_up(pa.hint, npages, align_pages);
	if (bit < pa.nbits)
		phys = take(bit, npages);
	spin_unlock(&pa.lock);
	zero_pages(phys, npages);
	return phys;
}

static bool allocatable(u64 phys)
{
	if (phys >= pa.map_range.start && phys < pa.map_range.end)
		return false;
	for (size_t i = 0; i < pa.nranges; i++)
		if (phys >= pa.ranges[i].start && phys < pa.ranges[i].end)
			return true;
	return false;
}

void palloc_free(u64 phys)
{
	spin_lock(&pa.lock);
	check_ready();
	if ((phys & ~PAGE_MASK) || !allocatable(phys))
		panic("palloc: free of 0x%llx, which was never allocatable",
		      (unsigned long long)phys);
	size_t bit = (size_t)((phys >> PAGE_SHIFT) - pa.base_pfn);
	if (!bitmap_test(pa.map, bit))
		panic("palloc: double free of 0x%llx", (unsigned long long)phys);
	bitmap_clear(pa.map, bit);
	pa.nfree++;
	if (bit < pa.hint)
		pa.hint = bit;
	spin_unlock(&pa.lock);
}

size_t palloc_free_pages(void)
{
	return __atomic_load_n(&pa.nfree, __ATOMIC_RELAXED);
}

size_t palloc_total_pages(void)
{
	return pa.total;
}

size_t palloc_bitmap_pages(void)
{
	return (size_t)((pa.map_range.end - pa.map_range.start) >> PAGE_SHIFT);
}
