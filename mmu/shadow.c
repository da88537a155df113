/* The shadow page cache: pages keyed by (gfn, role), their parent links, zapping and reclaim. */
#include "mmu/internal.h"

static inline unsigned hpa_hash_idx(u64 hpa)
{
	u64 pfn = hpa >> PAGE_SHIFT;

	return (unsigned)(pfn ^ (pfn >> 9)) % HASH_BUCKETS;
}

static void list_del(struct mmu_list *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
	l->prev = l->next = l;
}

static void list_add_tail(struct mmu_list *head, struct mmu_list *l)
{
	l->prev = head->prev;
	l->next = head;
	head->prev->next = l;
	head->prev = l;
}

struct mmu_page *sp_find_hpa(struct mmu_vm *vm, u64 hpa)
{
	struct mmu_page *sp;

	for (sp = vm->hpa_hash[hpa_hash_idx(hpa)]; sp; sp = sp->hpa_next)
		if (sp->hpa == hpa)
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
	list_add_tail(&vm->lru, &sp->lru);
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
		sp_touch(vm, sp);
		return sp;
	}
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
	list_add_tail(&vm->lru, &sp->lru);
	vm->npages++;
	vm->stats.pages_shadowed++;
	if (!role.direct && (f = frame_of(vm, gfn)) != NULL) {
		f->shadowed++;
		if (!vm->test_skip_wp_on_shadow)
			rmap_write_protect(vm, gfn);
	}
	return sp;
}

void sp_link(struct mmu_vcpu *vcpu, u64 *sptep, struct mmu_page *child)
{
	ASSERT(!(*sptep & PTE_P));
	*sptep = child->hpa | PTE_P | PTE_W | PTE_U | PTE_A;
	pset_add(&child->parents, sptep, &vcpu->parent_descs, &vcpu->vm->parent_slab);
}

/* Clear one entry: a leaf leaves the reverse map, a link leaves the child's parent set. */
void sp_drop_spte(struct mmu_vm *vm, struct mmu_page *sp, unsigned idx)
{
	u64 e = sp->spt[idx];

	if (!(e & PTE_P))
		return;
	if (sp->role.level == 1) {
		spte_clear_leaf(vm, sp, idx);
		return;
	}
	pset_remove(&sp_from_hpa(vm, e & PTE_ADDR)->parents, &sp->spt[idx], &vm->parent_slab);
	sp->spt[idx] = 0;
}

static void clear_parent_entry(void *arg UNUSED, u64 *sptep)
{
	*sptep = 0;
}

static void unhash(struct mmu_page **bucket, struct mmu_page *sp, bool by_gfn)
{
	struct mmu_page **pp = bucket;

	while (*pp != sp)
		pp = by_gfn ? &(*pp)->gfn_next : &(*pp)->hpa_next;
	*pp = by_gfn ? sp->gfn_next : sp->hpa_next;
}

static void sp_free(struct mmu_vm *vm, struct mmu_page *sp)
{
	unhash(&vm->hpa_hash[hpa_hash_idx(sp->hpa)], sp, false);
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
	for (i = 0; i < SPT_ENTRIES; i++)
		sp_drop_spte(vm, sp, i);
	pset_drain(&sp->parents, &vm->parent_slab, clear_parent_entry, NULL);
	unhash(&vm->gfn_hash[gfn_hash_idx(sp->gfn)], sp, true);
	if (!sp->role.direct && (f = frame_of(vm, sp->gfn)) != NULL)
		f->shadowed--;
	list_del(&sp->lru);
	vm->npages--;
	vm->stats.pages_zapped++;
	mmu_flush_all(vm);
	if (!sp->root_count) {
		sp_free(vm, sp);
		return;
	}
	sp->invalid = true;
	for (v = vm->vcpus; v; v = v->next)
		if (v->root == sp || v->pae_sp[0] == sp || v->pae_sp[1] == sp ||
		    v->pae_sp[2] == sp || v->pae_sp[3] == sp)
			vcpu_request_reload(v);
}

void sp_put_root(struct mmu_vm *vm, struct mmu_page *sp)
{
	ASSERT(sp->root_count > 0);
	if (--sp->root_count == 0 && sp->invalid)
		sp_free(vm, sp);
}

bool sp_reclaim_one(struct mmu_vm *vm)
{
	struct mmu_list *l;

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
