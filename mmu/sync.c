/* SPDX-License-Identifier: GPL-2.0-only */
/* Out-of-sync leaf shadows: guest leaf tables written natively, caught up at the guest's flushes. */
#include "mmu/walk.h"

/*
 * A shadowed guest table is write-protected, so each guest store to it exits and is emulated.
 * A leaf table the guest writes (a fork copying or write-protecting a process's PTEs, a page
 * fault handler setting one) is instead left writable at its first write fault: its shadow is
 * then "out of sync" and may hold entries older than the guest's. That is what a TLB may hold
 * too: the guest must flush before it relies on a changed entry, and only then does the shadow
 * catch up. So resync points are the guest's own flushes: a CR3 load, a paging mode change or
 * a PV flush resyncs every out-of-sync page (stricter than a CPU, whose TLB keeps global pages
 * across CR3 loads and is per-CPU), INVLPG(gva) drops the entry for gva in each of them (the
 * only entry a CPU must then re-read). A fault always walks the guest's current tables, so an
 * entry the guest adds or loosens needs no flush, as on hardware.
 *
 * A table's entries may only be stale for the address spaces that could reach it since the
 * guest changed them: a CPU caches nothing of a table it cannot reach, and a guest (Linux
 * tearing down an address space that is not loaded, say) changes such tables without a flush,
 * then links the frame anew. So a lookup that is about to link a table (sp_get) resyncs it.
 * Only a frame whose one shadow is a leaf table goes out of sync: a second shadow of the frame
 * (another role, or its use as a higher-level table, whose links must stay exact) first
 * resyncs it (sp_get). MMU_UNSYNC_MAX bounds the pages out of sync, and with them the work of
 * one resync. Nothing here allocates: an entry that would need a reverse-map descriptor the
 * vCPU's cache lacks is made read-only (a write refaults and fills it).
 */

#define MMU_UNSYNC_MAX 64

static struct mmu_page *frame_shadow(struct mmu_vm *vm, u64 gfn)
{
	struct mmu_page *sp;

	for (sp = vm->gfn_hash[gfn_hash_idx(gfn)]; sp; sp = sp->gfn_next)
		if (sp->gfn == gfn && !sp->role.direct)
			return sp;
	return NULL;
}

void sp_forget_unsync(struct mmu_vm *vm, struct mmu_page *sp)
{
	struct mmu_frame *f = frame_of(vm, sp->gfn);

	sp->unsync = false;
	list_del(&sp->unsync_link);
	vm->nunsync--;
	vm->audit_pages_changed = true; /* the list and the flags are recounted */
	if (f) {
		f->unsync = 0;
		audit_mark_frame(vm, sp->gfn);
	}
	audit_mark_page(vm, sp);
}

/* Bring every present entry of sp up to the guest's table, then write-protect the frame again. */
static void sync_page(struct mmu_vcpu *vcpu, struct mmu_page *sp)
{
	struct mmu_vm *vm = vcpu->vm;
	unsigned esize = sp->role.glevels == GLEVELS_32 ? 4 : 8, chunk = 64, i, k;
	u64 base = (sp->gfn << PAGE_SHIFT) + (esize == 4 ? sp->role.quadrant * 2048u : 0);
	u64 buf[64], gfn = 0, want;
	bool changed = false;

	sp_forget_unsync(vm, sp);
	vm->stats.resyncs++;
	/* Protected first, its flushes complete, then read: a vCPU on another CPU stores to the
	 * table natively while it is out of sync, and a store landing between the read of its
	 * entry and the protection would be lost (found by audit=1, Linux on two vCPUs). */
	rmap_write_protect(vm, sp->gfn);
	for (i = 0; i < SPT_ENTRIES; i += chunk) {
		if (vm->ops->read_gpa(vm->ctx, base + i * esize, buf, chunk * esize))
			memset(buf, 0, sizeof(buf));
		for (k = 0; k < chunk; k++) {
			unsigned idx = i + k;
			u64 e = esize == 4 ? ((u32 *)buf)[k] : buf[k];

			if (!(sp->spt[idx] & PTE_P))
				continue;
			/* The audit checks every entry of a page coming back in sync. */
			audit_mark_entry(vm, sp, idx);
			if (MMU_MUTATED(vm, stale_resync))
				continue;
			want = leaf_of_guest(vcpu, sp, e, &gfn);
			if (want == sp->spt[idx] && sp->gfns[idx] == gfn)
				continue;
			changed = true;
			if (want)
				spte_set_leaf(vcpu, sp, idx, gfn, want);
			else
				spte_clear_leaf(vm, sp, idx);
		}
	}
	if (changed)
		mmu_flush_all(vm);
}

/* A write fault on frame gfn, a guest page table: may it stay writable (its shadow unsynced)? */
bool sp_unsync_frame(struct mmu_vcpu *vcpu, struct mmu_frame *f, u64 gfn)
{
	struct mmu_vm *vm = vcpu->vm;
	struct mmu_page *sp;

	if (f->unsync)
		return true;
	if (f->shadowed != 1 || vm->cfg.no_unsync || vm->cfg.nocache ||
	    !(sp = frame_shadow(vm, gfn)) || sp->role.level != 1)
		return false;
	if (vm->nunsync >= MMU_UNSYNC_MAX)
		sync_page(vcpu, container_of(vm->unsync_pages.next, struct mmu_page, unsync_link));
	sp->unsync = true;
	f->unsync = 1;
	list_add_tail(&sp->unsync_link, &vm->unsync_pages);
	vm->nunsync++;
	vm->stats.unsyncs++;
	vm->audit_pages_changed = true;
	audit_mark_page(vm, sp);
	audit_mark_frame(vm, gfn);
	return true;
}

void sp_sync(struct mmu_vcpu *vcpu, struct mmu_page *sp)
{
	if (sp->unsync)
		sync_page(vcpu, sp);
}

/* Frame gfn gets a second shadow: its out-of-sync one (if any) must be in sync first. */
void sp_sync_frame(struct mmu_vcpu *vcpu, u64 gfn)
{
	struct mmu_page *sp = frame_shadow(vcpu->vm, gfn);

	if (sp && sp->unsync)
		sync_page(vcpu, sp);
}

void mmu_sync_all(struct mmu_vcpu *vcpu)
{
	struct mmu_vm *vm = vcpu->vm;

	if (MMU_MUTATED(vm, skip_resync))
		return;
	while (vm->unsync_pages.next != &vm->unsync_pages)
		sync_page(vcpu, container_of(vm->unsync_pages.next, struct mmu_page, unsync_link));
}

void sync_invlpg(struct mmu_vcpu *vcpu, u64 gva)
{
	struct mmu_vm *vm = vcpu->vm;
	unsigned idx = spt_index(gva, 1);
	struct list_head *l;
	bool dropped = false;

	if (MMU_MUTATED(vm, skip_resync))
		return;
	for (l = vm->unsync_pages.next; l != &vm->unsync_pages; l = l->next) {
		struct mmu_page *sp = container_of(l, struct mmu_page, unsync_link);

		if (sp->spt[idx] & PTE_P) {
			spte_clear_leaf(vm, sp, idx);
			dropped = true;
		}
	}
	if (dropped)
		mmu_flush_all(vm);
}

/* The guest asked for its whole TLB on this vCPU: out-of-sync tables catch up, and this vCPU's
 * TLB goes too, since a fault on another vCPU may have narrowed an entry it cached without a
 * flush (an entry of an out-of-sync table, narrowed to what the guest wrote; then the resync
 * finds nothing left to change and requests no flush). */
void mmu_flush_tlb(struct mmu_vcpu *vcpu)
{
	mmu_sync_all(vcpu);
	if (!MMU_MUTATED(vcpu->vm, skip_pv_flush))
		vcpu->vm->ops->flush_tlb(vcpu->vm->ctx, vcpu);
}
