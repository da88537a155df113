/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest test: with paging off, every RAM page above the image is written and read back. */
#include "tests/guests/lib/guest.h"

const char guest_name[] = GUEST_NAME;

/* Mixes address and pass so a wrong or aliased address shows as a wrong value. */
static uint32_t pattern(ulong a, uint32_t pass)
{
	return (uint32_t)(a * 2654435761u) ^ pass;
}

void test_main(void)
{
	ulong lo = ALIGN_UP(page_alloc_top(), PAGE_SIZE), hi = (ulong)ram_bytes;
	unsigned long words = 0;
	CHECK(!(read_cr0() & CR0_PG), "paging is on at entry");
	for (uint32_t pass = 0; pass < 2; pass++) {
		uint32_t seed = pass ? 0xffffffffu : 0;
		for (ulong a = lo; a < hi; a += 4)
			*phys32(a) = pattern(a, seed);
		for (ulong a = lo; a < hi; a += 4, words++) {
			uint32_t v = *phys32(a);
			CHECK(v == pattern(a, seed), "pass %u: %lx holds %x, wrote %x", pass, a, v,
			      pattern(a, seed));
		}
	}
	/* Byte and word stores and unaligned dwords across a page boundary. */
	volatile uint8_t *b = (volatile uint8_t *)(lo + PAGE_SIZE - 3);
	for (int i = 0; i < 6; i++)
		b[i] = (uint8_t)(0x10 + i);
	CHECK(*(volatile uint32_t *)(lo + PAGE_SIZE - 2) == 0x14131211u,
	      "unaligned read across pages");
	*(volatile uint16_t *)(lo + PAGE_SIZE - 1) = 0xbeef;
	CHECK(b[2] == 0xef && b[3] == 0xbe, "word store across pages");
	/* String copies across pages, forwards. */
	ulong src = lo + 5 * PAGE_SIZE + 100, dst = lo + 9 * PAGE_SIZE + 7;
	for (ulong i = 0; i < 3 * PAGE_SIZE; i++)
		*(volatile uint8_t *)(src + i) = (uint8_t)(i * 7);
	ulong n = 3 * PAGE_SIZE, s = src, d = dst;
	asm volatile("rep movsb" : "+S"(s), "+D"(d), "+c"(n) : : "memory");
	for (ulong i = 0; i < 3 * PAGE_SIZE; i++)
		CHECK(*(volatile uint8_t *)(dst + i) == (uint8_t)(i * 7), "rep movsb byte %lu", i);
	kprintf("cases: %lu dwords checked in [%lx, %lx) twice, plus byte/unaligned/string\n",
		words, lo, hi);
}
