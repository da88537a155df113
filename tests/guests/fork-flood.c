/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest test: fork-like page-table floods, misaligned entry writes, a recursive mapping. */
/* A whole page table is rewritten in a row (remap, write-protect, remap); stores straddle two
 * entries or hit an entry's middle; one page serves as page directory and page table at once
 * and is modified through both views. */
#include "tests/guests/lib/guest.h"

const char guest_name[] = GUEST_NAME;

#define NPOOL 16

static struct aspace as;
static ulong pool;    /* NPOOL frames, 64 KiB aligned: bits 12-15 pick one */
static unsigned nent; /* entries in a page table */
static unsigned long cases;

static ulong frame(unsigned k)
{
	return pool + (ulong)(k % NPOOL) * PAGE_SIZE;
}
static ulong va_of(unsigned i)
{
	return TEST_VA + (ulong)i * PAGE_SIZE;
}
static void *pte_of(unsigned i)
{
	return pt_entry(&as, va_of(i), 1, 0);
}

static void flood(void)
{
	for (unsigned i = 0; i < nent; i++)
		pte_set(&as, pte_of(i), frame(i) | PTE_P | PTE_W);
	write_cr3(read_cr3());
	for (unsigned i = 0; i < nent; i++, cases++)
		expect_maps(va_of(i), frame(i), "filled table");
	/* Fork: every entry rewritten in a row, read-only and remapped, then one flush. */
	for (unsigned i = 0; i < nent; i++)
		pte_set(&as, pte_of(i), frame(i + 5) | PTE_P);
	write_cr3(read_cr3());
	for (unsigned i = 0; i < nent; i++, cases++) {
		expect_maps(va_of(i), frame(i + 5), "after the flood");
		if (i % 37)
			continue;
		int f = probe_write(va_of(i) + 8, 0xdead);
		CHECK(f && last_fault.error == (PF_P | PF_W) && last_fault.cr2 == va_of(i) + 8,
		      "write to write-protected entry %u: fault=%d err=%lx cr2=%lx", i, f,
		      last_fault.error, last_fault.cr2);
	}
	/* And back to writable, other frames, the way a COW break does it entry by entry. */
	for (unsigned i = 0; i < nent; i++)
		pte_set(&as, pte_of(i), frame(i + 9) | PTE_P | PTE_W);
	write_cr3(read_cr3());
	for (unsigned i = 0; i < nent; i++, cases++) {
		expect_maps(va_of(i), frame(i + 9), "after the second flood");
		CHECK(!probe_write(va_of(i) + 8, i) && *phys32(frame(i + 9) + 8) == i,
		      "write through remapped entry %u", i);
	}
	kprintf("flood: %u entries rewritten 3 times\n", nent);
}

/* One store of `width` bytes at byte offset `off` from va_a's entry, changing the entries of
 * va_a and va_b (adjacent in memory) to want_a, want_b, which must differ from them only
 * inside that window. */
static void misaligned(ulong va_a, ulong va_b, unsigned off, unsigned width, uint64_t want_a,
		       uint64_t want_b)
{
	uint8_t img[16];
	unsigned eb = (unsigned)as.bytes;
	char *ea = pt_entry(&as, va_a, 1, 0), *eb_ = pt_entry(&as, va_b, 1, 0);
	if (eb_ != ea + eb)
		fail("misaligned: entries of %lx and %lx are not adjacent", va_a, va_b);
	for (unsigned b = 0; b < eb; b++) {
		img[b] = (uint8_t)(want_a >> (8 * b));
		img[eb + b] = (uint8_t)(want_b >> (8 * b));
	}
	uint64_t v = 0;
	for (unsigned b = 0; b < width; b++)
		v |= (uint64_t)img[off + b] << (8 * b);
	ulong p = (ulong)ea + off;
	if (width == 2)
		asm volatile("movw %1, (%0)" : : "r"(p), "r"((uint16_t)v) : "memory");
	else if (width == 4)
		asm volatile("movl %1, (%0)" : : "r"(p), "r"((uint32_t)v) : "memory");
#ifdef __x86_64__
	else
		asm volatile("movq %1, (%0)" : : "r"(p), "r"(v) : "memory");
#endif
	CHECK(pte_get(&as, ea) == want_a && pte_get(&as, eb_) == want_b,
	      "misaligned %u-byte write at +%u: entries %llx %llx", width, off,
	      (unsigned long long)pte_get(&as, ea), (unsigned long long)pte_get(&as, eb_));
	invlpg(va_a);
	invlpg(va_b);
	expect_maps(va_a, (ulong)(want_a & PTE_ADDR), "entry before a misaligned write");
	expect_maps(va_b, (ulong)(want_b & PTE_ADDR), "entry after a misaligned write");
	cases++;
}

static void misaligned_writes(void)
{
	uint64_t pw = PTE_P | PTE_W | PTE_A; /* A preset: accesses leave the entries alone */
	unsigned eb = (unsigned)as.bytes;
	for (unsigned i = 20; i < 24; i++) {
		pte_set(&as, pte_of(i), frame(i) | pw);
		invlpg(va_of(i));
	}
	for (unsigned i = 20; i < 24; i++)
		expect_maps(va_of(i), frame(i), "before misaligned writes");
	/* 4 bytes straddling entries 20 and 21: 21's frame changes, 20's high bytes are kept. */
	misaligned(va_of(20), va_of(21), eb - 2, 4, frame(20) | pw, frame(3) | pw);
	/* 2 bytes in the middle of entry 22 (bits 8-23): its frame changes. */
	misaligned(va_of(22), va_of(23), 1, 2, frame(7) | pw, frame(23) | pw);
	/* Back again, and in long mode an 8-byte store straddling two entries. */
	misaligned(va_of(20), va_of(21), eb - 2, 4, frame(20) | pw, frame(21) | pw);
#ifdef __x86_64__
	misaligned(va_of(22), va_of(23), 4, 8, frame(7) | pw, frame(11) | pw);
#endif
	/* Across a page: the last entry of one page table and the first of the next, physically
	 * adjacent tables of two neighbouring regions. */
	ulong lsz = level_size(&as, 2), ra = TEST_VA + 4 * lsz, rb = ra + lsz;
	ulong two = page_alloc_aligned(2 * PAGE_SIZE, PAGE_SIZE);
	pte_set(&as, pt_entry(&as, ra, 2, 1), two | table_flags(&as, 2));
	pte_set(&as, pt_entry(&as, rb, 2, 1), (two + PAGE_SIZE) | table_flags(&as, 2));
	ulong va_a = rb - PAGE_SIZE, va_b = rb;
	pte_set(&as, pt_entry(&as, va_a, 1, 0), frame(1) | pw);
	pte_set(&as, pt_entry(&as, va_b, 1, 0), frame(2) | pw);
	expect_maps(va_a, frame(1), "last entry of a page table");
	expect_maps(va_b, frame(2), "first entry of the next page table");
	misaligned(va_a, va_b, eb - 2, 4, frame(1) | pw, frame(6) | pw);
}

/* Region index x of the page directory that maps TEST_VA, as a virtual address. */
static ulong va_pd(unsigned x)
{
	return TEST_VA + (ulong)(x - pt_index(&as, TEST_VA, 2)) * level_size(&as, 2);
}

static void recursive(void)
{
	void *pde0 = pt_entry(&as, TEST_VA, 2, 0);
	ulong pd = (ulong)pde0 & ~(PAGE_SIZE - 1);
	unsigned i0 = pt_index(&as, TEST_VA, 2), j = i0 + 1, k = i0 + 2, j2 = i0 + 3;
	ulong ptj = page_alloc(), ptj2 = page_alloc(), eb = (ulong)as.bytes;
	for (unsigned i = 0; i < 4; i++) {
		pte_set(&as, (char *)ptj + i * eb, frame(i) | PTE_P | PTE_W);
		pte_set(&as, (char *)ptj2 + i * eb, frame(i + 8) | PTE_P | PTE_W);
	}
	pte_set(&as, (char *)pd + j * eb, ptj | table_flags(&as, 2));
	/* The recursive slot: the directory is also the page table of region k. */
	pte_set(&as, (char *)pd + k * eb, pd | PTE_P | PTE_W);
	ulong rec_ptj = va_pd(k) + (ulong)j * PAGE_SIZE, rec_pd = va_pd(k) + (ulong)k * PAGE_SIZE;

	for (unsigned i = 0; i < 4; i++)
		expect_maps(va_pd(j) + i * PAGE_SIZE, frame(i), "region through its page table");
	uint32_t v;
	CHECK(!probe_read(rec_ptj, &v) && v == *phys32(ptj),
	      "page table read through the recursive slot: %x", v);
	CHECK(!probe_read(rec_pd + k * eb, &v) && v == (uint32_t)(pd | PTE_P | PTE_W | PTE_A),
	      "directory read through itself: %x", v);
	/* A PTE written through the page-table view. */
	pte_set(&as, (void *)(rec_ptj + 1 * eb), frame(7) | PTE_P | PTE_W);
	invlpg(va_pd(j) + PAGE_SIZE);
	expect_maps(va_pd(j) + PAGE_SIZE, frame(7), "PTE written through the recursive view");
	/* A PTE written directly, seen through the view. */
	pte_set(&as, (char *)ptj + 2 * eb, frame(9) | PTE_P | PTE_W);
	invlpg(va_pd(j) + 2 * PAGE_SIZE);
	expect_maps(va_pd(j) + 2 * PAGE_SIZE, frame(9), "PTE written directly");
	CHECK(!probe_read(rec_ptj + 2 * eb, &v) &&
		      (v & ~(uint32_t)(PTE_A | PTE_D)) == (uint32_t)(frame(9) | PTE_P | PTE_W),
	      "directly written PTE through the view: %x", v);
	/* A PDE written through the directory's view of itself: not present -> present. */
	pte_set(&as, (void *)(rec_pd + j2 * eb), ptj2 | table_flags(&as, 2));
	for (unsigned i = 0; i < 4; i++)
		expect_maps(va_pd(j2) + i * PAGE_SIZE, frame(i + 8),
			    "PDE written through the directory view");
	/* The recursive entry made read-only through itself: the view's writes must fault. */
	pte_set(&as, (void *)(rec_pd + k * eb), pd | PTE_P);
	invlpg(rec_pd);
	invlpg(rec_ptj);
	uint32_t cur = *phys32(ptj);
	int f = probe_write(rec_ptj, cur);
	CHECK(f && last_fault.error == (PF_P | PF_W) && last_fault.cr2 == rec_ptj,
	      "write through the read-only recursive slot: fault=%d err=%lx", f, last_fault.error);
	CHECK(!probe_read(rec_ptj, &v) && v == cur, "read through the read-only recursive slot");
	pte_set(&as, (char *)pd + k * eb, pd | PTE_P | PTE_W);
	invlpg(rec_ptj);
	CHECK(!probe_write(rec_ptj + 3 * eb, (uint32_t)(frame(13) | PTE_P | PTE_W)),
	      "write through the writable-again recursive slot");
	invlpg(va_pd(j) + 3 * PAGE_SIZE);
	expect_maps(va_pd(j) + 3 * PAGE_SIZE, frame(13), "PTE after the slot was writable again");
	cases += 14;
	pte_set(&as, (char *)pd + k * eb, 0);
	write_cr3(read_cr3());
}

void test_main(void)
{
	as_init(&as, GUEST_MODE);
	nent = (unsigned)(PAGE_SIZE / (ulong)as.bytes);
	pool = page_alloc_aligned(NPOOL * PAGE_SIZE, NPOOL * PAGE_SIZE);
	for (unsigned k = 0; k < NPOOL; k++)
		frame_mark(frame(k));
	map_page(&as, TEST_VA, frame(0), 1, PTE_P | PTE_W);
	as_activate(&as);
	set_cr0_bits(CR0_WP, 0); /* so supervisor writes honour read-only entries */
	flood();
	misaligned_writes();
	recursive();
	struct umbra_stats st;
	if (on_umbra && !umbra_stats(&st))
		kprintf("umbra: flood zaps %llu, misaligned zaps %llu, writes emulated %llu\n",
			(unsigned long long)st.mmu.flood_zaps,
			(unsigned long long)st.mmu.misaligned_zaps,
			(unsigned long long)st.mmu.writes_emulated);
	kprintf("cases: %s %lu checks\n", pmode_name[as.mode], cases);
}
