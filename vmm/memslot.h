/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest-physical memory: slots of host frames (RAM, zeroed, private to one guest; device BARs). */
#ifndef VMM_MEMSLOT_H
#define VMM_MEMSLOT_H

#include "lib/types.h"
#include "mmu/platform.h"

/* RAM below the PCI hole (vmm/dev/pci_bus.h's PCI_BUS_HOLE_BASE), the rest from 4 GiB up, as
 * on a PC. The low part is one host run (the loaders copy images into it in one piece); the part
 * above 4 GiB may come from several runs, each a slot, so a large guest needs no run as large. */
#ifndef MEMSLOT_LOW_MAX /* the host test makes it small */
#define MEMSLOT_LOW_MAX 0xc0000000ull
#endif
#define MEMSLOT_HIGH_BASE 0x100000000ull
#define MAX_MEMSLOTS 8
#define MAX_DEVSLOTS 16

struct memslots {
	u32 n;
	struct mmu_slot slot[MAX_MEMSLOTS];
	u64 hpa[MAX_MEMSLOTS]; /* host-physical base of each slot (contiguous host frames) */
	u64 bytes;	       /* total guest RAM */
	u64 low_bytes;	       /* RAM at [0, low_bytes); the rest at [4 GiB, 4 GiB + rest) */
	/* Device memory (mmu/platform.h): one slot per memory BAR of the guest's PCI functions,
	 * present (npages != 0) while the guest has the BAR decoding, at its address. */
	u32 ndev;
	struct mmu_slot dev[MAX_DEVSLOTS];
	u64 dev_hpa[MAX_DEVSLOTS];
	u64 dev_npages[MAX_DEVSLOTS];
};

/* Gives the guest `bytes` of RAM (2 MiB multiple above MEMSLOT_LOW_MAX): 0, or <0 when the host
 * has no room (nothing is kept then). */
int memslots_init(struct memslots *m, u64 bytes);
/* Where guest RAM ends: below 4 GiB, and above it (MEMSLOT_HIGH_BASE when there is none). */
static inline u64 memslots_high_end(const struct memslots *m)
{
	return MEMSLOT_HIGH_BASE + (m->bytes - m->low_bytes);
}
void memslots_free(struct memslots *m);
/* The slot holding gfn, RAM or device; NULL for a hole. */
const struct mmu_slot *memslots_find(const struct memslots *m, u64 gfn);
/* The i-th slot: RAM slots first, then the device slots present; NULL past the last. */
const struct mmu_slot *memslots_at(const struct memslots *m, unsigned i);
/* A device slot for npages host frames at hpa (its frame array allocated now, once), absent
 * until placed; its index, or -1 without room. */
int memslots_dev_add(struct memslots *m, u64 hpa, u64 npages);
/* Device slot i appears at gfn, or goes (once nothing maps it any more). */
void memslots_dev_place(struct memslots *m, unsigned i, u64 gfn);
void memslots_dev_remove(struct memslots *m, unsigned i);
/* Host pointer for [gpa, gpa + len) when it lies inside one RAM slot, else NULL. */
void *memslots_ptr(const struct memslots *m, u64 gpa, u64 len);
u64 memslots_gfn_to_hpa(const struct memslots *m, const struct mmu_slot *s, u64 gfn);

#endif
