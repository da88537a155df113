/* SPDX-License-Identifier: GPL-2.0-only */
/* Instantiates the guest walker for 32-bit and 64-bit entries and dispatches on the paging mode. */
#include "mmu/walk.h"

#define PTTYPE 32
#include "mmu/walk_tmpl.h"
#undef PTTYPE
#define PTTYPE 64
#include "mmu/walk_tmpl.h"
#undef PTTYPE

u64 walk_pdpte_rsvd(const struct mmu_vm *vm)
{
	return vm->rsvd_phys | PDPTE_RSVD_FIXED;
}

u64 walk_leaf_rsvd(const struct mmu_vm *vm, union mmu_role r)
{
	if (r.glevels == GLEVELS_32)
		return 0;
	return vm->rsvd_phys | (r.nxe ? 0 : PTE_NX);
}

void walk_entry_info(union mmu_role r, unsigned level, u64 e, u64 gva, struct walk_entry *out)
{
	if (r.glevels == GLEVELS_32)
		walk32_entry_info(r, level, e, gva, out);
	else
		walk64_entry_info(r, level, e, gva, out);
}

bool mmu_walk(struct mmu_vcpu *vcpu, u64 gva, u32 access, struct mmu_walk *w)
{
	switch (vcpu->base_role.glevels) {
	case GLEVELS_32:
		return walk32_walk(vcpu, gva, access, w);
	case GLEVELS_PAE:
	case GLEVELS_LONG:
		return walk64_walk(vcpu, gva, access, w);
	default:
		/* Paging off: identity, every right; "level 5" puts every shadow table under it. */
		w->top = 4;
		w->level = 5;
		w->gfn = (gva & 0xffffffffull) >> PAGE_SHIFT;
		w->acc[5] = ACC_ALL;
		w->dirty = true;
		return true;
	}
}

bool mmu_gva_to_gpa(struct mmu_vcpu *vcpu, u64 gva, u32 access, u64 *gpa, u32 *error_code)
{
	struct mmu_walk w;

	if (!mmu_walk(vcpu, gva, access, &w)) {
		*error_code = w.error_code;
		return false;
	}
	*gpa = (w.gfn << PAGE_SHIFT) | (gva & (PAGE_SIZE - 1));
	return true;
}
