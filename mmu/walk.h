/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest page-table walker: one template (walk_tmpl.h) for 4-byte and 8-byte guest entries. */
#ifndef MMU_WALK_H
#define MMU_WALK_H

#include "mmu/internal.h"

/*
 * The walker is hardware: it returns the guest's own answer for an access (gfn and the rights
 * combined over all levels, or the #PF error code) and, unless MMU_ACCESS_PEEK is given, sets the
 * accessed bits of the entries used and the dirty bit of the leaf of a write, with a locked
 * update, only when the access succeeds.
 */

/* One guest entry decoded: its rights, whether it maps a large page, and the frame it points to
 * (for a large page: the frame gva falls in). */
struct walk_entry {
	unsigned rights;
	bool large;
	u64 gfn;
};
void walk_entry_info(union mmu_role r, unsigned level, u64 e, u64 gva, struct walk_entry *out);

/* Bits of a PAE PDPTE reserved whatever MAXPHYADDR is: 2:1, 8:5 and 63:52 (SDM 4.4.1, APM
 * 5.3.3 legacy-mode PAE); the bits from MAXPHYADDR to 51 come on top. */
#define PDPTE_RSVD_FIXED (0xfff0000000000000ull | PDPTE_PAE_RSVD)
/* Reserved bits of a PAE PDPTE (checked once, when CR3 is loaded). */
u64 walk_pdpte_rsvd(const struct mmu_vm *vm);
/* Reserved bits of a 4 KiB leaf entry in tables of role r. */
u64 walk_leaf_rsvd(const struct mmu_vm *vm, union mmu_role r);

static inline unsigned walk_fault_code(const struct mmu_vcpu *vcpu, u32 access, bool nx_format)
{
	u32 ec = access & (PFERR_W | PFERR_U);

	if ((access & PFERR_I) && (vcpu->base_role.smep || (nx_format && vcpu->base_role.nxe)))
		ec |= PFERR_I;
	return ec;
}

/* The hardware's permission rules on the combined rights (SDM 4.6). */
static inline bool walk_permits(const struct mmu_vcpu *vcpu, unsigned acc, u32 access)
{
	union mmu_role r = vcpu->base_role;

	if (access & PFERR_U)
		return (acc & ACC_U) && (!(access & PFERR_W) || (acc & ACC_W)) &&
		       (!(access & PFERR_I) || (acc & ACC_X));
	if (access & PFERR_I)
		return (acc & ACC_X) && !(r.smep && (acc & ACC_U));
	if (r.smap && (acc & ACC_U) && !(access & MMU_ACCESS_AC))
		return false;
	return !(access & PFERR_W) || !r.cr0_wp || (acc & ACC_W);
}

#endif
