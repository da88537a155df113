/* SPDX-License-Identifier: GPL-2.0-only */
/* VT-d's in-memory formats: second-level page tables, root and context entries, fault records. */
#include "arch/x86/vtd.h"

u8 vtd_levels(u64 cap)
{
	u32 sagaw = VTD_CAP_SAGAW(cap);
	if (sagaw & 4)
		return 4;
	if (sagaw & 2)
		return 3;
	return 0;
}

static u64 sl_dir(u32 level)
{
	(void)level;
	return VTD_SL_R | VTD_SL_W; /* a directory needs both to let either through */
}

/* Second-level entries are present when they allow anything. */
const struct iommu_pt_format vtd_sl_format = {
	.present = VTD_SL_R | VTD_SL_W,
	.dir = sl_dir,
	.leaf_rights = VTD_SL_R | VTD_SL_W,
};

struct vtd_entry vtd_root_entry(u64 context_table)
{
	return (struct vtd_entry){ (context_table & VTD_ADDR_MASK) | VTD_PRESENT, 0 };
}

struct vtd_entry vtd_context_entry(const struct iommu_pt *d)
{
	/* AW: 1 for 3 levels (39 bits), 2 for 4 (48 bits); DID in bits 87:72. */
	return (struct vtd_entry){ (d->root & VTD_ADDR_MASK) | VTD_PRESENT,
				   (u64)(d->levels - 2) | (u64)d->did << 8 };
}

bool vtd_fault_decode(struct vtd_entry rec, struct vtd_fault *f)
{
	/* FI in bits 63:12, SID 79:64, FR 103:96, T 126 (1: read), F 127. */
	*f = (struct vtd_fault){ .sid = (u16)rec.hi,
				 .reason = (u8)(rec.hi >> 32),
				 .read = (rec.hi >> 62) & 1,
				 .addr = rec.lo & ~0xfffull };
	return rec.hi >> 63;
}

const char *vtd_fault_reason(u8 reason)
{
	/* VT-d spec 7.1.3, the legacy-mode reasons. */
	static const char *const names[] = {
		[1] = "root entry not present",
		[2] = "context entry not present",
		[3] = "invalid context entry",
		[4] = "address beyond the domain's width",
		[5] = "write to a page not writable",
		[6] = "read from a page not readable",
		[7] = "page-table entry unreadable",
		[8] = "root table unreadable",
		[9] = "context table unreadable",
		[10] = "reserved bit in a root entry",
		[11] = "reserved bit in a context entry",
		[12] = "reserved bit in a page-table entry",
		[13] = "translation type blocked",
	};
	if (reason < sizeof(names) / sizeof(names[0]) && names[reason])
		return names[reason];
	return "other";
}
