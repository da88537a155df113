/* SPDX-License-Identifier: GPL-2.0-only */
/* Address spaces in every paging mode: one interface over the 4- and 8-byte instantiations. */
#include "tests/guests/lib/guest.h"

/* Whether bit 7 of an entry at level means a large page (a 32-bit PDE is also the root). */
static int ps_level(const struct aspace *as, int level)
{
	return level > 1 && (as->mode == PM_32 || level < as->levels);
}

#define PTE_BYTES 4
#include "tests/guests/lib/paging_tmpl.h"
#undef PTE_BYTES
#define PTE_BYTES 8
#include "tests/guests/lib/paging_tmpl.h"
#undef PTE_BYTES

uint64_t table_flags(const struct aspace *as, int level)
{
	if (as->mode == PM_PAE && level == 3)
		return PTE_P; /* PAE PDPTEs have no rights bits: the others are reserved */
	return PTE_P | PTE_W | PTE_U;
}

ulong level_size(const struct aspace *as, int level)
{
	return (ulong)(as->bytes == 4 ? level_size_4(level) : level_size_8(level));
}

unsigned pt_index(const struct aspace *as, uint64_t va, int level)
{
	return as->bytes == 4 ? index_4(va, level) : index_8(va, level);
}

void *pt_entry(const struct aspace *as, uint64_t va, int level, int create)
{
	return as->bytes == 4 ? (void *)walk_4(as, va, level, create, 0)
			      : (void *)walk_8(as, va, level, create, 0);
}

uint64_t pte_get(const struct aspace *as, const void *e)
{
	return as->bytes == 4 ? *(const volatile uint32_t *)e : *(const volatile uint64_t *)e;
}

void pte_set(const struct aspace *as, void *e, uint64_t v)
{
	if (as->bytes == 4) {
		*(volatile uint32_t *)e = (uint32_t)v;
	} else {
#ifdef __x86_64__
		*(volatile uint64_t *)e = v;
#else
		/* A 32-bit guest writes an 8-byte entry in halves: one when the high half stays,
		 * else with P clear in between so no mix of old and new is ever present. */
		volatile uint32_t *h = e;
		if (h[1] != (uint32_t)(v >> 32)) {
			h[0] = 0;
			h[1] = (uint32_t)(v >> 32);
		}
		h[0] = (uint32_t)v;
#endif
	}
}

int pt_walk(const struct aspace *as, uint64_t va, void *ents[5])
{
	for (int l = as->levels; l >= 1; l--) {
		void *e = pt_entry(as, va, l, 0);
		if (!e)
			return 0;
		ents[l] = e;
		uint64_t v = pte_get(as, e);
		if (!(v & PTE_P))
			return 0;
		if (l == 1 || (ps_level(as, l) && (v & PTE_PS)))
			return l;
	}
	return 0;
}

int large_level_ok(const struct aspace *as, int level)
{
	if (level == 1)
		return 1;
	if (level == 2)
		return as->mode != PM_32 || cpu.pse;
	return level == 3 && as->mode == PM_64 && cpu.gb;
}

const char *level_name(const struct aspace *as, int level)
{
	static const char *const n32[] = { "", "4K", "4M" }, *const n64[] = { "", "4K", "2M",
									      "1G" };
	return as->mode == PM_32 ? n32[level] : n64[level];
}

void *map_page(const struct aspace *as, uint64_t va, uint64_t pa, int level, uint64_t flags)
{
	void *e = pt_entry(as, va, level, 1);
	if (!e)
		fail("map_page: va %lx is inside a large page", (ulong)va);
	pte_set(as, e, pa | flags | (level > 1 ? PTE_PS : 0));
	return e;
}

void as_init(struct aspace *as, enum pmode mode)
{
	as->mode = mode;
	as->levels = mode == PM_32 ? 2 : mode == PM_PAE ? 3 : 4;
	as->bytes = mode == PM_32 ? 4 : 8;
	as->root = page_alloc();
	if (mode == PM_PAE) {
		/* PDPTEs are loaded with CR3, so all four directories exist from the start. */
		for (int i = 0; i < 4; i++)
			((uint64_t *)as->root)[i] = page_alloc() | PTE_P;
	}
	int lvl = large_level_ok(as, 2) ? 2 : 1;
	ulong step = level_size(as, lvl);
	for (uint64_t pa = 0; pa < ram_bytes; pa += step)
		map_page(as, pa, pa, lvl, PTE_P | PTE_W);
}

void as_clone_kernel(struct aspace *as, const struct aspace *from)
{
	*as = *from;
	as->root = page_alloc();
	int top = from->levels;
	ulong cover = level_size(from, top);
	unsigned n = (unsigned)((ram_bytes + cover - 1) / cover);
	if (from->mode == PM_PAE) {
		/* The first directory holds the identity map; the other three are private. */
		((uint64_t *)as->root)[0] = ((uint64_t *)from->root)[0];
		for (int i = 1; i < 4; i++)
			((uint64_t *)as->root)[i] = page_alloc() | PTE_P;
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		void *d = (char *)as->root + i * from->bytes;
		pte_set(as, d, pte_get(from, (char *)from->root + i * from->bytes));
	}
}

void as_activate(const struct aspace *as)
{
	if (as->mode == PM_64 || (read_cr0() & CR0_PG)) {
		write_cr3(as->root);
		return;
	}
	if (as->mode == PM_PAE)
		set_cr4_bits(CR4_PAE, 0);
	else
		set_cr4_bits(cpu.pse ? CR4_PSE : 0, CR4_PAE);
	write_cr3(as->root);
	set_cr0_bits(CR0_PG, 0);
}
