/* SPDX-License-Identifier: GPL-2.0-only */
/* The shadow page cache: pages keyed by (gfn, role), their parent links, zapping and reclaim. */
#include "mmu/internal.h"

/* Host-physical and host-virtual table addresses hash the same way (by page number). */
static inline unsigned hpa_hash_idx(u64 hpa)
{
	u64 pfn = hpa >> PAGE_SHIFT;

	return (unsigned)(pfn ^ (pfn >> 9)) % HASH_BUCKETS;
}

struct mmu_page *sp_find_hpa(struct mmu_vm *vm, u64 hpa)
{
	struct mmu_page *sp;

	for (sp = vm->hpa_hash[hpa_hash_idx(hpa)]; sp; sp = sp->hpa_next)
		if (sp->hpa == hpa)
			return sp;
	return NULL;
}

/* The page holding a shadow entry (reverse-map and parent sets store entry pointers). */
struct mmu_page *sp_of_sptep(struct mmu_vm *vm, const u64 *sptep)
{
	uintptr_t va = (uintptr_t)sptep & ~(uintptr_t)(PAGE_SIZE - 1);
	struct mmu_page *sp;

	for (sp = vm->va_hash[hpa_hash_idx(va)]; sp; sp = sp->va_next)
		if ((uintptr_t)sp->spt == va)
			return sp;
	return NULL;
}

struct mmu_page *sp_from_hpa(struct mmu_vm *vm, u64 hpa)
{
	struct mmu_page *sp = sp_find_hpa(vm, hpa);

	if (sp)
		return sp;
	panic("mmu: no shadow page at hpa %llx", (unsigned long long)hpa);
}

struct mmu_page *sp_lookup(struct mmu_vm *vm, u64 gfn, union mmu_role role)
{
	struct mmu_page *sp;

	for (sp = vm->gfn_hash[gfn_hash_idx(gfn)]; sp; sp = sp->gfn_next)
		if (sp->gfn == gfn && sp->role.word == role.word)
			return sp;
	return NULL;
}

void sp_touch(struct mmu_vm *vm, struct mmu_page *sp)
{
	list_del(&sp->lru);
	list_add_tail(&sp->lru, &vm->lru);
}

/* Look up (gfn, role); on a miss build an empty page from the vCPU's caches. A new shadow of a
 * real guest table write-protects that frame so every later guest write to it traps. */
struct mmu_page *sp_get(struct mmu_vcpu *vcpu, u64 gfn, union mmu_role role, bool *created)
{
	struct mmu_vm *vm = vcpu->vm;
	struct mmu_page *sp = sp_lookup(vm, gfn, role);
	struct mmu_frame *f;
	unsigned b;

	*created = !sp;
	if (sp) {
		/* About to be linked anew (found, not followed): a CPU caches no entry of a table
		 * it could not reach, so an out-of-sync table must match the guest's first. */
		if (sp->unsync)
			sp_sync(vcpu, sp);
		sp_touch(vm, sp);
		return sp;
	}
	/* Only a frame's one shadow may be out of sync. */
	if (!role.direct && (f = frame_of(vm, gfn)) != NULL && f->unsync)
		sp_sync_frame(vcpu, gfn);
	sp = cache_take(&vcpu->sps, &vm->sp_slab);
	sp->spt = pagecache_take(&vcpu->pages, &sp->hpa);
	if (role.level == 1 && !role.direct)
		sp->gfns = pagecache_take(&vcpu->pages, &sp->gfns_hpa);
	sp->gfn = gfn;
	sp->role = role;
	b = gfn_hash_idx(gfn);
	sp->gfn_next = vm->gfn_hash[b];
	vm->gfn_hash[b] = sp;
	b = hpa_hash_idx(sp->hpa);
	sp->hpa_next = vm->hpa_hash[b];
	vm->hpa_hash[b] = sp;
	b = hpa_hash_idx((uintptr_t)sp->spt);
	sp->va_next = vm->va_hash[b];
	vm->va_hash[b] = sp;
	list_add_tail(&sp->lru, &vm->lru);
	list_init(&sp->audit_link);
	vm->npages++;
	vm->stats.pages_shadowed++;
	vm->audit_pages_changed = true;
	audit_mark_page(vm, sp);
	if (!role.direct && (f = table_frame_of(vm, gfn)) != NULL) {
		f->shadowed++;
		audit_mark_frame(vm, gfn);
		if (!MMU_MUTATED(vm, skip_wp_on_shadow))
			rmap_write_protect(vm, gfn);
	}
	return sp;
}

void sp_link(struct mmu_vcpu *vcpu, struct mmu_page *sp, unsigned idx, struct mmu_page *child)
{
	u64 *sptep = &sp->spt[idx];

	ASSERT(!(*sptep & PTE_P));
	audit_mark_entry(vcpu->vm, sp, idx);
	audit_mark_page(vcpu->vm, child);
	*sptep = child->hpa | PTE_P | PTE_W | PTE_U | PTE_A;
	pset_add(&child->parents, sptep, &vcpu->parent_descs, &vcpu->vm->parent_slab);
}

/* Clear one entry: a leaf leaves the reverse map, a link leaves the child's parent set. */
void sp_drop_spte(struct mmu_vm *vm, struct mmu_page *sp, unsigned idx)
{
	u64 e = sp->spt[idx];

	struct mmu_page *child;

	if (!(e & PTE_P))
		return;
	if (sp->role.level == 1) {
		spte_clear_leaf(vm, sp, idx);
		return;
	}
	child = sp_from_hpa(vm, e & PTE_ADDR);
	audit_mark_entry(vm, sp, idx);
	audit_mark_page(vm, child);
	pset_remove(&child->parents, &sp->spt[idx], &vm->parent_slab);
	spte_changed(vm);
	sp->spt[idx] = 0;
}

void sp_drop_sptes(struct mmu_vm *vm, struct mmu_page *sp, const u64 drop[SPT_ENTRIES / 64])
{
	if (sp->role.level == 1) {
		spte_clear_leaves(vm, sp, drop);
		return;
	}
	for (unsigned w = 0; w < SPT_ENTRIES / 64; w++)
		for (u64 bits = drop[w]; bits; bits &= bits - 1)
			sp_drop_spte(vm, sp, w * 64 + (unsigned)__builtin_ctzll(bits));
}

static void clear_parent_entry(void *vm, u64 *sptep)
{
	audit_mark_sptep(vm, sptep);
	spte_changed(vm);
	*sptep = 0;
}

/* Remove sp from the chain starting at *pp whose link field is at offset `next`. */
static void unhash(struct mmu_page **pp, struct mmu_page *sp, size_t next)
{
#define NEXT(p) (*(struct mmu_page **)((char *)(p) + next))
	while (*pp != sp)
		pp = &NEXT(*pp);
	*pp = NEXT(sp);
#undef NEXT
}

static void sp_free(struct mmu_vm *vm, struct mmu_page *sp)
{
	audit_forget_page(vm, sp);
	unhash(&vm->va_hash[hpa_hash_idx((uintptr_t)sp->spt)], sp,
	       offsetof(struct mmu_page, va_next));
	unhash(&vm->hpa_hash[hpa_hash_idx(sp->hpa)], sp, offsetof(struct mmu_page, hpa_next));
	pool_free_page(vm, sp->spt, sp->hpa);
	if (sp->gfns)
		pool_free_page(vm, sp->gfns, sp->gfns_hpa);
	slab_free(&vm->sp_slab, sp);
}

/* Remove a page from the cache. Children are only unlinked (they stay cached, and reclaim
 * takes them when unused). A root in use is emptied and kept until its vCPUs reload. */
void sp_zap(struct mmu_vm *vm, struct mmu_page *sp)
{
	struct mmu_vcpu *v;
	struct mmu_frame *f;
	unsigned i;

	ASSERT(!sp->invalid);
	if (sp->unsync)
		sp_forget_unsync(vm, sp);
	for (i = 0; i < SPT_ENTRIES; i++)
		if (sp->spt[i] & PTE_P) /* most are empty: spare the call */
			sp_drop_spte(vm, sp, i);
	pset_drain(&sp->parents, &vm->parent_slab, clear_parent_entry, vm);
	unhash(&vm->gfn_hash[gfn_hash_idx(sp->gfn)], sp, offsetof(struct mmu_page, gfn_next));
	if (!sp->role.direct && (f = table_frame_of(vm, sp->gfn)) != NULL) {
		f->shadowed--;
		audit_mark_frame(vm, sp->gfn);
	}
	list_del(&sp->lru);
	vm->npages--;
	vm->audit_pages_changed = true;
	vm->stats.pages_zapped++;
	mmu_flush_all(vm);
	if (!sp->root_count) {
		sp_free(vm, sp);
		return;
	}
	sp->invalid = true;
	for (v = vm->vcpus; v && !MMU_MUTATED(vm, skip_root_reload); v = v->next)
		if (v->root == sp || v->pae_sp[0] == sp || v->pae_sp[1] == sp ||
		    v->pae_sp[2] == sp || v->pae_sp[3] == sp)
			vcpu_request_reload(v);
}

void sp_put_root(struct mmu_vm *vm, struct mmu_page *sp)
{
	ASSERT(sp->root_count > 0);
	audit_mark_page(vm, sp);
	if (--sp->root_count == 0 && sp->invalid)
		sp_free(vm, sp);
}

bool sp_reclaim_one(struct mmu_vm *vm)
{
	struct list_head *l;

	for (l = vm->lru.next; l != &vm->lru; l = l->next) {
		struct mmu_page *sp = sp_of_lru(l);

		if (sp->root_count)
			continue;
		sp_zap(vm, sp);
		vm->stats.pages_reclaimed++;
		return true;
	}
	return false;
}

/* The emulator could not do a write to a page table: let the guest write the frame natively,
 * as after a flood. Its next use as a page table shadows (and write-protects) it again. */
void mmu_unshadow_gfn(struct mmu_vm *vm, u64 gfn)
{
	struct mmu_page *sp, *next;
	bool zapped = false;

	for (sp = vm->gfn_hash[gfn_hash_idx(gfn)]; sp; sp = next) {
		next = sp->gfn_next;
		if (sp->gfn != gfn || sp->role.direct)
			continue;
		sp_zap(vm, sp);
		zapped = true;
	}
	if (zapped)
		vm->stats.unshadowed++;
}

void mmu_zap_all(struct mmu_vm *vm)
{
	while (vm->lru.next != &vm->lru)
		sp_zap(vm, sp_of_lru(vm->lru.next));
}
