/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest test: scribbles garbage over its own page tables until it dies; never passes. */
/* First the test region's tables (entries far outside RAM included), read through after each
 * write; then the kernel's own tables, and it keeps accessing memory. */
#include "tests/guests/lib/guest.h"

const char guest_name[] = GUEST_NAME;

static uint64_t garbage(void)
{
	uint64_t v = (uint64_t)rand32() << 32 | rand32();
	/* A quarter fully random (mostly reserved bits), a quarter into guest RAM, the rest
	 * well-formed (with NXE on) but pointing anywhere below 1 TiB, far outside RAM. */
	switch (rand32() & 3) {
	case 0:
		return v;
	case 1:
		return (v & ~PTE_ADDR) | ((v & PTE_ADDR) % ram_bytes);
	default:
		return v & (PTE_NX | 0xffffffffffull);
	}
}

void test_main(void)
{
	static struct aspace as;
	fatal_triple = 1;
	as_init(&as, GUEST_MODE);
	for (int i = 0; i < 64; i++)
		map_page(&as, TEST_VA + (ulong)i * PAGE_SIZE, page_alloc(), 1, PTE_P | PTE_W);
	as_activate(&as);
	if (cpu.nx)
		set_efer_bits(EFER_NXE, 0);
	void *tables[5];
	pt_walk(&as, TEST_VA, tables);

	unsigned faults = 0, reads = 0;
	for (int round = 0; round < 2000; round++) {
		/* Page tables first, then every level of the test region. */
		int l = round < 1000 ? 1 : 1 + (int)(rand32() % (unsigned)(as.levels - 1));
		/* Only the test region's tables: entry index random within the table. */
		char *t = (char *)((ulong)tables[l] & ~(PAGE_SIZE - 1));
		unsigned idx = rand32() % 512;
		pte_set(&as, t + idx * as.bytes, garbage());
		write_cr3(read_cr3());
		/* Then reads through the entry just scribbled. */
		uint32_t v;
		ulong sz = level_size(&as, l);
		ulong va = TEST_VA + idx * sz + ((((ulong)rand32() << 20) ^ rand32()) % sz & ~3ul);
		if (probe_read(va, &v))
			faults++;
		else
			reads++;
	}
	kprintf("%s: test region scribbled: %u faults, %u reads; now its own tables\n", guest_name,
		faults, reads);
	volatile uint64_t *root = (volatile uint64_t *)as.root;
	volatile uint64_t *ident = (volatile uint64_t *)(ulong)(root[0] & PTE_ADDR);
	for (int i = 0; i < 512; i++)
		ident[i] = garbage();
	for (int i = 0; i < 512; i++)
		root[i] = garbage();
	write_cr3(read_cr3());
	for (int i = 0; i < 100000; i++)
		(void)*(volatile uint32_t *)(ulong)(garbage() & 0x7ffffffffffful);
	triple_fault();
}
