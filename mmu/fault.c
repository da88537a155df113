/* SPDX-License-Identifier: GPL-2.0-only */
/* The shadow page fault: walk the guest, then fill the shadow path or report what must happen. */
#include "mmu/walk.h"

/* The shadow table that a level-`level` shadow entry must point to for this walk. */
static void child_key(const struct mmu_vcpu *vcpu, const struct mmu_walk *w, u64 gva,
		      unsigned level, u64 *gfn, union mmu_role *role)
{
	*role = vcpu->base_role;
	role->level = level;
	if (level < w->level) {
		/* Under a guest large page (or paging off): the frames it covers, its rights. */
		role->direct = 1;
		role->access = leaf_access(w->acc[w->level], w->dirty, role->cr0_wp);
		*gfn = w->gfn & ~(BIT(9 * level) - 1);
		return;
	}
	role->access = w->acc[level + 1];
	if (role->glevels == GLEVELS_32)
		role->quadrant = (gva >> (PAGE_SHIFT + 9 * level)) & (BIT(level) - 1);
	*gfn = w->table_gfn[level];
}

u64 make_leaf(u64 hpa, unsigned acc)
{
	u64 spte = hpa | PTE_P | PTE_A;

	if (acc & ACC_W)
		spte |= PTE_W | PTE_D;
	if (acc & ACC_U)
		spte |= PTE_U;
	if (!(acc & ACC_X))
		spte |= PTE_NX;
	return spte;
}

/* The leaf for gfn of slot s: a device's registers uncached (PAT entry 3, UC at reset and in
 * Linux's layout), whatever the guest's entry asks, since no cache may hold them. */
u64 slot_leaf(struct mmu_vm *vm, const struct mmu_slot *s, u64 gfn, unsigned acc)
{
	return make_leaf(vm->ops->gfn_to_hpa(vm->ctx, s, gfn), s->readonly ? acc & ~ACC_W : acc) |
	       (slot_uncached(s) ? PTE_PCD | PTE_PWT : 0);
}

/*
 * Under a guest large page (or with paging off) every 4 KiB piece of a direct shadow table has
 * the rights of the faulting one, so the rest of the table is filled now rather than one exit
 * per piece: the kernel's direct map and a decompressor's identity map are touched page after
 * page. MMIO frames stay unmapped (their accesses must exit); guest page tables stay read-only.
 * It stops when a writable entry could need a reverse-map descriptor the cache no longer has:
 * the fault path never allocates.
 */
static void prefetch_direct(struct mmu_vcpu *vcpu, struct mmu_page *sp, unsigned acc)
{
	struct mmu_vm *vm = vcpu->vm;

	for (unsigned i = 0; i < SPT_ENTRIES; i++) {
		u64 gfn = sp->gfn + i;
		const struct mmu_slot *slot;
		unsigned a = acc;

		if (sp->spt[i] & PTE_P || !(slot = vm->ops->gfn_to_slot(vm->ctx, gfn)))
			continue;
		if (!frame_may_map_writable(&slot->frames[gfn - slot->base_gfn]))
			a &= ~ACC_W;
		if ((a & ACC_W) && !vcpu->rmap_descs.n)
			return;
		spte_set_leaf(vcpu, sp, i, gfn, slot_leaf(vm, slot, gfn, a));
		vm->stats.prefetched++;
	}
}

/*
 * A fault in a guest leaf table also maps the other present entries of its aligned group of
 * PREFETCH_LEAVES (KVM's choice too): a process touches its pages in runs, and each would
 * otherwise cost an exit. Only what a walk would give without changing the guest: the entry
 * must be present, accessed, free of reserved bits and name guest RAM; a clean entry stays
 * read-only (its first write must fault to set D), and so does a frame that is shadowed.
 * Entries already present are left alone, and a writable entry is made read-only when the
 * reverse-map descriptor it could need is not in the cache: the fault path never allocates.
 */
#define PREFETCH_LEAVES 8

u64 leaf_of_guest(struct mmu_vcpu *vcpu, const struct mmu_page *sp, u64 e, u64 *gfn)
{
	struct mmu_vm *vm = vcpu->vm;
	const struct mmu_slot *slot;
	struct walk_entry we;
	unsigned acc;

	if ((e & (PTE_P | PTE_A)) != (PTE_P | PTE_A) || (e & walk_leaf_rsvd(vm, sp->role)))
		return 0;
	walk_entry_info(sp->role, 1, e, 0, &we);
	if (!(slot = vm->ops->gfn_to_slot(vm->ctx, we.gfn)))
		return 0;
	*gfn = we.gfn;
	acc = leaf_access(sp->role.access & we.rights, e & PTE_D, sp->role.cr0_wp);
	/* Keep one descriptor for the entry of a fault in progress (a resync may run inside). */
	if (!frame_may_map_writable(&slot->frames[we.gfn - slot->base_gfn]) ||
	    vcpu->rmap_descs.n < 2)
		acc &= ~ACC_W;
	return slot_leaf(vm, slot, we.gfn, acc);
}

static void prefetch_leaves(struct mmu_vcpu *vcpu, struct mmu_page *sp, unsigned idx)
{
	struct mmu_vm *vm = vcpu->vm;
	unsigned esize = sp->role.glevels == GLEVELS_32 ? 4 : 8,
		 first = idx & ~(PREFETCH_LEAVES - 1u);
	unsigned gfirst = (sp->role.glevels == GLEVELS_32 ? sp->role.quadrant * 512u : 0) + first;
	u64 ge[PREFETCH_LEAVES], gfn = 0, spte;
	u32 *ge32 = (u32 *)ge;

	if (vm->ops->read_gpa(vm->ctx, (sp->gfn << PAGE_SHIFT) + gfirst * esize, ge,
			      PREFETCH_LEAVES * esize))
		return;
	for (unsigned i = 0; i < PREFETCH_LEAVES; i++) {
		if (first + i == idx || sp->spt[first + i] & PTE_P)
			continue;
		spte = leaf_of_guest(vcpu, sp, esize == 4 ? ge32[i] : ge[i], &gfn);
		if (spte) {
			spte_set_leaf(vcpu, sp, first + i, gfn, spte);
			vm->stats.prefetched++;
		}
	}
}

/* Link (or find linked) every table down to the leaf table for gva. */
static struct mmu_page *fill_path(struct mmu_vcpu *vcpu, const struct mmu_walk *w, u64 gva)
{
	struct mmu_vm *vm = vcpu->vm;
	struct mmu_page *sp = vcpu_top_sp(vcpu, gva), *child;
	union mmu_role role;
	bool created;
	u64 gfn, *sptep;

	sp_touch(vm, sp);
	while (sp->role.level > 1) {
		unsigned idx = spt_index(gva, sp->role.level);

		sptep = &sp->spt[idx];
		child_key(vcpu, w, gva, sp->role.level - 1, &gfn, &role);
		if (*sptep & PTE_P) {
			child = sp_from_hpa(vm, *sptep & PTE_ADDR);
			if (child->gfn == gfn && child->role.word == role.word) {
				sp_touch(vm, child);
				sp = child;
				continue;
			}
			/* Stale link (e.g. the context changed under a cached table): replace it. */
			sp_drop_spte(vm, sp, idx);
			mmu_flush_all(vm);
		}
		child = sp_get(vcpu, gfn, role, &created);
		sp_link(vcpu, sp, idx, child);
		sp = child;
	}
	return sp;
}

int mmu_page_fault(struct mmu_vcpu *vcpu, u64 gva, u32 error_code, struct mmu_outcome *out)
{
	struct mmu_vm *vm = vcpu->vm;
	u32 access = error_code & (PFERR_W | PFERR_U | PFERR_I | MMU_ACCESS_AC);
	const struct mmu_slot *slot;
	struct mmu_frame *frame;
	struct mmu_walk w;
	struct mmu_page *sp;
	unsigned acc, idx;
	u64 spte;

	if (!vcpu_caches_ready(vcpu) || (!vcpu->root_valid && vcpu_load_root(vcpu)))
		return MMU_ENOMEM;
	memset(out, 0, sizeof(*out));
	if (!mmu_walk(vcpu, gva, access, &w)) {
		out->kind = MMU_INJECT;
		out->error_code = w.error_code;
		out->cr2 = gva;
		vm->stats.faults_guest++;
		return MMU_OK;
	}
	out->gpa = (w.gfn << PAGE_SHIFT) | (gva & (PAGE_SIZE - 1));
	slot = vm->ops->gfn_to_slot(vm->ctx, w.gfn);
	if (!slot) {
		out->kind = MMU_EMULATE;
		out->mmio = true;
		vm->stats.faults_emulate++;
		return MMU_OK;
	}

	sp = fill_path(vcpu, &w, gva);
	idx = spt_index(gva, 1);
	acc = leaf_access(w.acc[w.level], w.dirty, vcpu->base_role.cr0_wp);
	frame = &slot->frames[w.gfn - slot->base_gfn];
	/* A store to a guest page table: a leaf table goes out of sync rather than trap each. */
	if (slot->readonly && (access & PFERR_W) && (acc & ACC_W)) {
		/* The guest's entry allows the store, the slot does not: the host decides. */
		out->kind = MMU_EMULATE;
		out->mmio = true;
		vm->stats.faults_emulate++;
		return MMU_OK;
	}
	if (!frame_may_map_writable(frame) &&
	    !((access & PFERR_W) && (acc & ACC_W) && sp_unsync_frame(vcpu, frame, w.gfn)))
		acc &= ~ACC_W;
	spte = slot_leaf(vm, slot, w.gfn, acc);
	if (sp->spt[idx] != spte || (!sp->role.direct && sp->gfns[idx] != w.gfn))
		spte_set_leaf(vcpu, sp, idx, w.gfn, spte);
	if (sp->role.direct)
		prefetch_direct(vcpu, sp,
				leaf_access(w.acc[w.level], w.dirty, vcpu->base_role.cr0_wp));
	else if (!vm->cfg.nocache) /* the baseline predates leaf prefetch */
		prefetch_leaves(vcpu, sp, idx);

	if ((access & PFERR_W) && !(acc & ACC_W)) {
		out->kind = MMU_EMULATE;
		vm->stats.faults_emulate++;
	} else {
		out->kind = MMU_FIXED;
		vm->stats.faults_fixed++;
	}
	return MMU_OK;
}
