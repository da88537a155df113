/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest page-table builder for the tests. */
#include "lib/assert.h"
#include "tests/mmu/guest.h"

unsigned g_levels(int mode)
{
	return mode == G_32 ? 2 : mode == G_PAE ? 3 : mode == G_LONG ? 4 : 0;
}

unsigned g_esize(int mode)
{
	return mode == G_32 ? 4 : 8;
}

u64 g_entry_gpa(int mode, u64 table_gfn, unsigned level, u64 gva)
{
	unsigned bits = mode == G_32 ? 10 : 9;
	u64 idx = (gva >> (12 + bits * (level - 1))) & ((1u << bits) - 1);

	if (mode == G_PAE && level == 3)
		idx = (gva >> 30) & 3;
	return (table_gfn << 12) + idx * g_esize(mode);
}

int g_enter(struct harness *h, unsigned v, const struct g_cfg *c, u64 cr3)
{
	u64 cr0 = 0x11, cr4 = 0, efer = 0;

	if (c->mode != G_OFF)
		cr0 |= BIT(31);
	if (c->wp)
		cr0 |= BIT(16);
	if (c->mode == G_PAE || c->mode == G_LONG)
		cr4 |= BIT(5);
	if (c->pse)
		cr4 |= BIT(4);
	if (c->smep)
		cr4 |= BIT(20);
	if (c->smap)
		cr4 |= BIT(21);
	if (c->mode == G_LONG)
		efer |= BIT(8);
	if (c->nxe)
		efer |= BIT(11);
	return h_set_mode(h, v, cr0, cr4, efer, cr3);
}

void g_set(struct harness *h, int mode, u64 gpa, u64 value)
{
	h_phys_write(h, gpa, g_esize(mode), value);
}

u64 g_get(struct harness *h, int mode, u64 gpa)
{
	return h_phys_read(h, gpa, g_esize(mode), false);
}

u64 g_table(struct harness *h, struct g_frames *f)
{
	u64 gfn = f->next++, off;

	ASSERT(gfn < f->end);
	for (off = 0; off < PAGE_SIZE; off += 8)
		if (h_phys_read(h, (gfn << 12) + off, 8, false) ||
		    h_phys_read(h, (gfn << 12) + off, 8, true))
			h_phys_write(h, (gfn << 12) + off, 8, 0);
	return gfn;
}

u64 g_map(struct harness *h, struct g_frames *f, int mode, u64 cr3, u64 gva, u64 leaf,
	  unsigned leaf_level, u64 upper)
{
	u64 table = cr3 >> 12, gpa, e;
	unsigned level;

	for (level = g_levels(mode); level > leaf_level; level--) {
		gpa = g_entry_gpa(mode, table, level, gva);
		e = g_get(h, mode, gpa);
		if (!(e & GP) || (e & GPS)) {
			e = (g_table(h, f) << 12) | (mode == G_PAE && level == 3 ? GP : upper);
			g_set(h, mode, gpa, e);
		}
		table = (e & 0x000ffffffffff000ull) >> 12;
	}
	gpa = g_entry_gpa(mode, table, leaf_level, gva);
	g_set(h, mode, gpa, leaf);
	return gpa;
}

u64 g_entry_at(struct harness *h, int mode, u64 cr3, u64 gva, unsigned level)
{
	u64 table = cr3 >> 12;
	unsigned l;

	for (l = g_levels(mode); l > level; l--)
		table = (g_get(h, mode, g_entry_gpa(mode, table, l, gva)) &
			 0x000ffffffffff000ull) >>
			12;
	return g_entry_gpa(mode, table, level, gva);
}
