/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest-physical memory: slots of host frames, zeroed, private to one guest. */
#ifndef VMM_MEMSLOT_H
#define VMM_MEMSLOT_H

#include "lib/types.h"
#include "mmu/platform.h"

#define MAX_MEMSLOTS 2

struct memslots {
	u32 n;
	struct mmu_slot slot[MAX_MEMSLOTS];
	u64 hpa[MAX_MEMSLOTS];   /* host-physical base of each slot (contiguous host frames) */
	u64 bytes;               /* total guest RAM */
};

/* Gives the guest [0, bytes) of RAM; 0, or <0 when the host has no room. */
int memslots_init(struct memslots *m, u64 bytes);
void memslots_free(struct memslots *m);
const struct mmu_slot *memslots_find(const struct memslots *m, u64 gfn);
/* Host pointer for [gpa, gpa + len) when it lies inside one slot, else NULL. */
void *memslots_ptr(const struct memslots *m, u64 gpa, u64 len);
u64 memslots_gfn_to_hpa(const struct memslots *m, const struct mmu_slot *s, u64 gfn);

#endif
