/* SPDX-License-Identifier: GPL-2.0-only */
/* VT-d's in-memory formats: second-level page tables, root and context entries, fault records. */
#include "arch/x86/vtd.h"

#define SL_ENTRIES 512

u8 vtd_levels(u64 cap)
{
	u32 sagaw = VTD_CAP_SAGAW(cap);
	if (sagaw & 4)
		return 4;
	if (sagaw & 2)
		return 3;
	return 0;
}

int vtd_domain_init(struct vtd_domain *d, const struct vtd_mem *m, u8 levels, u16 did)
{
	*d = (struct vtd_domain){ .levels = levels, .did = did };
	if (levels != 3 && levels != 4)
		return -1;
	d->root = m->alloc(m->ctx);
	if (!d->root)
		return -1;
	d->table_pages = 1;
	return 0;
}

static u32 sl_index(u64 gpa, u32 level)
{
	return (u32)(gpa >> (12 + 9 * (level - 1))) & (SL_ENTRIES - 1);
}

/* The leaf entry for gpa, creating the tables on the way; NULL when a page ran out. */
static u64 *sl_leaf(struct vtd_domain *d, const struct vtd_mem *m, u64 gpa)
{
	u64 *table = m->p2v(m->ctx, d->root);
	for (u32 level = d->levels; level > 1; level--) {
		u64 *e = &table[sl_index(gpa, level)];
		if (!(*e & (VTD_SL_R | VTD_SL_W))) {
			u64 pa = m->alloc(m->ctx);
			if (!pa)
				return NULL;
			d->table_pages++;
			*e = pa | VTD_SL_R | VTD_SL_W;
		}
		table = m->p2v(m->ctx, *e & VTD_ADDR_MASK);
	}
	return &table[sl_index(gpa, 1)];
}

int vtd_map(struct vtd_domain *d, const struct vtd_mem *m, u64 gpa, u64 hpa, u64 len,
	    u64 rights)
{
	if ((gpa | hpa | len) & 0xfff || gpa + len > 1ull << (12 + 9 * d->levels))
		return -1;
	for (u64 off = 0; off < len; off += 0x1000) {
		u64 *e = sl_leaf(d, m, gpa + off);
		if (!e)
			return -1;
		*e = (hpa + off) | (rights & (VTD_SL_R | VTD_SL_W));
		d->mapped += 0x1000;
	}
	return 0;
}

static void sl_free(const struct vtd_mem *m, u64 pa, u32 level)
{
	const u64 *table = m->p2v(m->ctx, pa);
	for (u32 i = 0; level > 1 && i < SL_ENTRIES; i++)
		if (table[i] & (VTD_SL_R | VTD_SL_W))
			sl_free(m, table[i] & VTD_ADDR_MASK, level - 1);
	m->free(m->ctx, pa);
}

void vtd_domain_free(struct vtd_domain *d, const struct vtd_mem *m)
{
	if (d->root)
		sl_free(m, d->root, d->levels);
	d->root = 0;
	d->table_pages = 0;
	d->mapped = 0;
}

struct vtd_entry vtd_root_entry(u64 context_table)
{
	return (struct vtd_entry){ (context_table & VTD_ADDR_MASK) | VTD_PRESENT, 0 };
}

struct vtd_entry vtd_context_entry(const struct vtd_domain *d)
{
	/* AW: 1 for 3 levels (39 bits), 2 for 4 (48 bits); DID in bits 87:72. */
	return (struct vtd_entry){ (d->root & VTD_ADDR_MASK) | VTD_PRESENT,
				   (u64)(d->levels - 2) | (u64)d->did << 8 };
}

bool vtd_fault_decode(struct vtd_entry rec, struct vtd_fault *f)
{
	/* FI in bits 63:12, SID 79:64, FR 103:96, T 126 (1: read), F 127. */
	*f = (struct vtd_fault){ .sid = (u16)rec.hi, .reason = (u8)(rec.hi >> 32),
				 .read = (rec.hi >> 62) & 1, .addr = rec.lo & ~0xfffull };
	return rec.hi >> 63;
}

const char *vtd_fault_reason(u8 reason)
{
	/* VT-d spec 7.1.3, the legacy-mode reasons. */
	static const char *const names[] = {
		[1] = "root entry not present", [2] = "context entry not present",
		[3] = "invalid context entry", [4] = "address beyond the domain's width",
		[5] = "write to a page not writable", [6] = "read from a page not readable",
		[7] = "page-table entry unreadable", [8] = "root table unreadable",
		[9] = "context table unreadable", [10] = "reserved bit in a root entry",
		[11] = "reserved bit in a context entry", [12] = "reserved bit in a page-table entry",
		[13] = "translation type blocked",
	};
	if (reason < sizeof(names) / sizeof(names[0]) && names[reason])
		return names[reason];
	return "other";
}
