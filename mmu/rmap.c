/* SPDX-License-Identifier: GPL-2.0-only */
/* Reverse map: for each guest frame, the writable present leaf shadow entries that map it. */
#include "mmu/internal.h"

/*
 * Only writable leaves are tracked: write-protecting a frame when it becomes a page table is the
 * one thing the reverse map is for. Every change of a leaf entry goes through the two functions
 * below so the map stays exact (the audit checks it).
 */

struct mmu_frame *frame_of(struct mmu_vm *vm, u64 gfn)
{
	const struct mmu_slot *s = vm->ops->gfn_to_slot(vm->ctx, gfn);

	return s ? &s->frames[gfn - s->base_gfn] : NULL;
}

struct mmu_frame *table_frame_of(struct mmu_vm *vm, u64 gfn)
{
	const struct mmu_slot *s = vm->ops->gfn_to_slot(vm->ctx, gfn);

	return s && !s->device ? &s->frames[gfn - s->base_gfn] : NULL;
}

u64 spte_leaf_gfn(const struct mmu_page *sp, unsigned idx)
{
	return sp->role.direct ? sp->gfn + idx : sp->gfns[idx];
}

static void rmap_remove(struct mmu_vm *vm, u64 gfn, u64 *sptep)
{
	struct mmu_frame *f = frame_of(vm, gfn);

	ASSERT(f);
	audit_mark_frame(vm, gfn);
	pset_remove(&f->rmap, sptep, &vm->rmap_slab);
}

void spte_set_leaf(struct mmu_vcpu *vcpu, struct mmu_page *sp, unsigned idx, u64 gfn, u64 spte)
{
	struct mmu_vm *vm = vcpu->vm;
	u64 *sptep = &sp->spt[idx];

	audit_mark_entry(vm, sp, idx);
	if ((*sptep & PTE_P) && *sptep != spte)
		spte_changed(vm);
	if (spte_writable_leaf(*sptep))
		rmap_remove(vm, spte_leaf_gfn(sp, idx), sptep);
	if (!sp->role.direct)
		sp->gfns[idx] = gfn;
	*sptep = spte;
	if (spte_writable_leaf(spte)) {
		audit_mark_frame(vm, gfn);
		pset_add(&frame_of(vm, gfn)->rmap, sptep, &vcpu->rmap_descs, &vm->rmap_slab);
	}
}

void spte_clear_leaf(struct mmu_vm *vm, struct mmu_page *sp, unsigned idx)
{
	u64 *sptep = &sp->spt[idx];

	audit_mark_entry(vm, sp, idx);
	if (*sptep & PTE_P)
		spte_changed(vm);
	if (spte_writable_leaf(*sptep))
		rmap_remove(vm, spte_leaf_gfn(sp, idx), sptep);
	*sptep = 0;
}

void spte_clear_leaves(struct mmu_vm *vm, struct mmu_page *sp, const u64 drop[SPT_ENTRIES / 64])
{
	union spt_marks rmapped;
	u64 present = 0;

	_Static_assert(PTE_P == 1 && PTE_W == 2, "writable and present: e & e >> 1 & 1");
	/* Cleared first: the reverse maps hold the entries' addresses, not their values. A whole
	 * word of drop (a batch rewriting a table) takes its 64 entries without a branch each. */
	for (unsigned w = 0; w < SPT_ENTRIES / 64; w++) {
		u64 *spt = &sp->spt[w * 64];
		u8 *rm = &rmapped.b[w * 64];

		if (drop[w] == ~0ull) {
#pragma GCC unroll 4
			for (unsigned k = 0; k < 64; k++) {
				u64 e = spt[k];

				present |= e;
				rm[k] = (u8)(e & e >> 1 & 1);
				spt[k] = 0;
			}
		} else {
			for (unsigned k = 0; k < 8; k++)
				rmapped.w[w * 8 + k] = 0;
			for (u64 bits = drop[w]; bits; bits &= bits - 1) {
				unsigned k = (unsigned)__builtin_ctzll(bits);
				u64 e = spt[k];

				present |= e;
				rm[k] = spte_writable_leaf(e);
				spt[k] = 0;
			}
		}
		if (vm->audit_track)
			for (u64 bits = drop[w]; bits; bits &= bits - 1)
				audit_track_entry(vm, sp, w * 64 + (unsigned)__builtin_ctzll(bits));
	}
	if (present & PTE_P)
		spte_changed(vm); /* once for all cleared here */
	/* The writable ones leave their frames' reverse maps, one pass per frame: a pass takes out
	 * every marked entry that maps that frame and unmarks it. */
	for (unsigned i = 0; i < SPT_ENTRIES / 8; i++)
		while (rmapped.w[i]) {
			unsigned idx = i * 8 + (unsigned)__builtin_ctzll(rmapped.w[i]) / 8;
			u64 gfn = spte_leaf_gfn(sp, idx);

			audit_mark_frame(vm, gfn);
			pset_remove_marked(&frame_of(vm, gfn)->rmap, &vm->rmap_slab, sp->spt,
					   &rmapped);
			ASSERT(!rmapped.b[idx]);
		}
}

static void clear_writable(void *vm, u64 *sptep)
{
	audit_mark_sptep(vm, sptep);
	*sptep &= ~PTE_W;
}

void rmap_write_protect(struct mmu_vm *vm, u64 gfn)
{
	struct mmu_frame *f = frame_of(vm, gfn);

	if (!f || !f->rmap)
		return;
	audit_mark_frame(vm, gfn);
	pset_drain(&f->rmap, &vm->rmap_slab, clear_writable, vm);
	mmu_flush_all(vm);
	/* The caller reads the guest's table next (to shadow or resync it). A vCPU on another CPU
	 * could still store to it through a writable translation its TLB kept until it
	 * acknowledges, and that store would slip past the shadow entries made from the old
	 * value: as KVM does, the flush completes before the table is read. */
	vm->ops->flush_wait(vm->ctx);
}
