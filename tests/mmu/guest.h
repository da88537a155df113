/* SPDX-License-Identifier: GPL-2.0-only */
/* Building guest page tables for the tests (through the hypervisor write path, on both machines). */
#ifndef TESTS_MMU_GUEST_H
#define TESTS_MMU_GUEST_H

#include "tests/mmu/harness.h"

enum { G_OFF, G_32, G_PAE, G_LONG };

#define GP BIT(0)
#define GW BIT(1)
#define GU BIT(2)
#define GA BIT(5)
#define GD BIT(6)
#define GPS BIT(7)
#define GNX BIT(63)

struct g_cfg {
	int mode;
	bool pse, wp, nxe, smep, smap;
};

/* Frames handed out for new page tables. */
struct g_frames {
	u64 next, end;
};

unsigned g_levels(int mode);
unsigned g_esize(int mode);
/* Guest-physical address of the level-`level` entry for gva in the table at table_gfn. */
u64 g_entry_gpa(int mode, u64 table_gfn, unsigned level, u64 gva);
/* Apply a paging configuration to vCPU v with the given CR3. */
int g_enter(struct harness *h, unsigned v, const struct g_cfg *c, u64 cr3);
/* A new zeroed table frame. */
u64 g_table(struct harness *h, struct g_frames *f);
/* Map gva with `leaf` at leaf_level (1 = PTE), creating tables with upper flags as needed.
 * Returns the gpa of the leaf entry. */
u64 g_map(struct harness *h, struct g_frames *f, int mode, u64 cr3, u64 gva, u64 leaf,
	  unsigned leaf_level, u64 upper);
/* Guest-physical address of the level-`level` entry for gva, following present upper entries. */
u64 g_entry_at(struct harness *h, int mode, u64 cr3, u64 gva, unsigned level);
/* Write one guest entry (the right width for the mode). */
void g_set(struct harness *h, int mode, u64 gpa, u64 value);
u64 g_get(struct harness *h, int mode, u64 gpa);

#endif
