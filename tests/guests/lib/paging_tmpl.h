/* SPDX-License-Identifier: GPL-2.0-only */
/* Page-table walk and build for one entry size (4 or 8 bytes), after KVM's paging_tmpl.h. */
#if PTE_BYTES == 4
#define PT_T uint32_t
#define FN(n) n##_4
#define PT_BITS 10
#elif PTE_BYTES == 8
#define PT_T uint64_t
#define FN(n) n##_8
#define PT_BITS 9
#else
#error "PTE_BYTES must be 4 or 8"
#endif

static unsigned FN(index)(uint64_t va, int level)
{
	return (unsigned)(va >> (12 + PT_BITS * (level - 1))) & ((1u << PT_BITS) - 1);
}

static uint64_t FN(level_size)(int level)
{
	return 1ull << (12 + PT_BITS * (level - 1));
}

/* Walks from the root to `level`; with create, missing tables are allocated. Stops (returns
 * 0) at a missing table without create or at a large page above `level`. ents[l] receives the
 * entry used at each level l walked. */
static PT_T *FN(walk)(const struct aspace *as, uint64_t va, int level, int create, void **ents)
{
	ulong table = as->root & ~(ulong)0xfff;
	if (as->mode == PM_PAE)
		table = as->root & ~(ulong)0x1f;
	for (int l = as->levels;; l--) {
		PT_T *e = (PT_T *)table + FN(index)(va, l);
		if (ents)
			ents[l] = e;
		if (l == level)
			return e;
		if (!(*e & PTE_P)) {
			if (!create)
				return 0;
			*e = (PT_T)(page_alloc() | table_flags(as, l));
		} else if (ps_level(as, l) && (*e & PTE_PS)) {
			return 0;
		}
		table = (ulong)(*e & PTE_ADDR);
	}
}

#undef PT_T
#undef FN
#undef PT_BITS
