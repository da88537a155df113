/* SPDX-License-Identifier: GPL-2.0-only */
/* VM and vCPU lifetime, paging-mode context, CR3 loads and roots, INVLPG, statistics. */
#include "mmu/walk.h"

#define DEFAULT_POOL 1024
#define MIN_POOL 16

int mmu_vm_init(struct mmu_vm *vm, const struct mmu_platform_ops *ops, void *ctx,
		const struct mmu_config *cfg)
{
	memset(vm, 0, sizeof(*vm));
	if (cfg)
		vm->cfg = *cfg;
	if (!vm->cfg.pool_max_pages)
		vm->cfg.pool_max_pages = DEFAULT_POOL;
	if (!vm->cfg.maxphyaddr)
		vm->cfg.maxphyaddr = 40;
	if (vm->cfg.pool_max_pages < MIN_POOL || vm->cfg.maxphyaddr < 32 || vm->cfg.maxphyaddr > 52)
		return MMU_EINVAL;
	vm->ops = ops;
	vm->ctx = ctx;
	vm->rsvd_phys = (BIT(52) - 1) & ~(BIT(vm->cfg.maxphyaddr) - 1);
	list_init(&vm->lru);
	list_init(&vm->audit_pages);
	list_init(&vm->unsync_pages);
	vm->audit_full_every = MMU_AUDIT_FULL_EVERY;
	vm->last_write_gfn = ~0ull;
	slab_init(&vm->sp_slab, ALIGN_UP(sizeof(struct mmu_page), 16));
	slab_init(&vm->rmap_slab, 64);
	slab_init(&vm->parent_slab, 64);
	vm->gfn_hash = ops->alloc_page(ctx, &vm->gfn_hash_hpa);
	vm->hpa_hash = ops->alloc_page(ctx, &vm->hpa_hash_hpa);
	vm->va_hash = ops->alloc_page(ctx, &vm->va_hash_hpa);
	if (!vm->gfn_hash || !vm->hpa_hash || !vm->va_hash) {
		mmu_vm_destroy(vm);
		return MMU_ENOMEM;
	}
	return MMU_OK;
}

void mmu_vm_destroy(struct mmu_vm *vm)
{
	ASSERT(!vm->vcpus);
	if (vm->gfn_hash)
		mmu_zap_all(vm);
	slab_destroy(vm, &vm->sp_slab);
	slab_destroy(vm, &vm->rmap_slab);
	slab_destroy(vm, &vm->parent_slab);
	if (vm->gfn_hash)
		vm->ops->free_page(vm->ctx, vm->gfn_hash, vm->gfn_hash_hpa);
	if (vm->hpa_hash)
		vm->ops->free_page(vm->ctx, vm->hpa_hash, vm->hpa_hash_hpa);
	if (vm->va_hash)
		vm->ops->free_page(vm->ctx, vm->va_hash, vm->va_hash_hpa);
	vm->gfn_hash = vm->hpa_hash = vm->va_hash = NULL;
}

/* The pool must hold every vCPU's roots (up to 4 PAE tables each) besides one fault's pages. */
#define POOL_PER_VCPU 6

int mmu_vcpu_init(struct mmu_vcpu *vcpu, struct mmu_vm *vm)
{
	struct mmu_vcpu *v;
	u64 n = 1;

	for (v = vm->vcpus; v; v = v->next)
		n++;
	if (vm->cfg.pool_max_pages < n * POOL_PER_VCPU)
		return MMU_EINVAL;
	memset(vcpu, 0, sizeof(*vcpu));
	vcpu->vm = vm;
	vcpu->pae_root = vm->ops->alloc_page(vm->ctx, &vcpu->pae_root_hpa);
	if (!vcpu->pae_root)
		return MMU_ENOMEM;
	vcpu->next = vm->vcpus;
	vm->vcpus = vcpu;
	return MMU_OK;
}

static inline void release_roots(struct mmu_vcpu *vcpu)
{
	struct mmu_vm *vm = vcpu->vm;
	unsigned i;

	if (vcpu->root)
		sp_put_root(vm, vcpu->root);
	vcpu->root = NULL;
	/* Released twice on every CR3 load (by mmu_new_cr3, then by the reload): a long-mode
	 * guest never had PAE roots to look at. */
	for (i = 0; vcpu->pae_held && i < 4; i++) {
		if (vcpu->pae_sp[i])
			sp_put_root(vm, vcpu->pae_sp[i]);
		vcpu->pae_sp[i] = NULL;
		vcpu->pae_root[i] = 0;
	}
	vcpu->pae_held = false;
	vcpu->root_valid = false;
}

void mmu_vcpu_destroy(struct mmu_vcpu *vcpu)
{
	struct mmu_vm *vm = vcpu->vm;
	struct mmu_vcpu **pp;

	release_roots(vcpu);
	vcpu_caches_release(vcpu);
	for (pp = &vm->vcpus; *pp != vcpu; pp = &(*pp)->next)
		;
	*pp = vcpu->next;
	vm->ops->free_page(vm->ctx, vcpu->pae_root, vcpu->pae_root_hpa);
}

/* Rights were taken from a shadow entry any vCPU of the guest may have cached (shadow pages are
 * shared, and a vCPU's TLB keeps what it loaded until told): each must flush before it next runs
 * the guest. The caller completes these requests before the operation counts as done (mmu.h). */
void mmu_flush_all(struct mmu_vm *vm)
{
	struct mmu_vcpu *v;

	for (v = vm->vcpus; v; v = v->next) {
		vm->ops->flush_tlb(vm->ctx, v);
		if (MMU_MUTATED(vm, flush_one_vcpu))
			break;
	}
}

void vcpu_request_reload(struct mmu_vcpu *vcpu)
{
	vcpu->root_valid = false;
	vcpu->vm->ops->flush_tlb(vcpu->vm->ctx, vcpu);
}

/* Builds the root from caches known to hold what a new root may take. */
static int load_root_from_caches(struct mmu_vcpu *vcpu)
{
	struct mmu_vm *vm = vcpu->vm;
	union mmu_role role;
	bool created, miss = false;
	struct mmu_page *sp;
	unsigned i;
	u64 gfn;

	if (vcpu->root || vcpu->pae_held)
		release_roots(vcpu);
	if (vcpu->base_role.glevels == GLEVELS_LONG) {
		vcpu_root_key(vcpu, 0, &gfn, &role);
		sp = sp_get(vcpu, gfn, role, &created);
		sp->root_count++;
		audit_mark_page(vm, sp);
		vcpu->root = sp;
		miss = created;
	} else {
		vcpu->pae_held = true;
		for (i = 0; i < 4; i++) {
			if (!vcpu_root_key(vcpu, i, &gfn, &role))
				continue;
			sp = sp_get(vcpu, gfn, role, &created);
			sp->root_count++;
			audit_mark_page(vm, sp);
			vcpu->pae_sp[i] = sp;
			vcpu->pae_root[i] = sp->hpa | PTE_P;
			miss |= created;
		}
	}
	if (miss)
		vm->stats.root_misses++;
	else
		vm->stats.root_hits++;
	vcpu->root_hpa = vcpu->root ? vcpu->root->hpa : vcpu->pae_root_hpa;
	vcpu->root_valid = true;
	vm->ops->flush_tlb(vm->ctx, vcpu);
	return MMU_OK;
}

/* Builds the root from the caches (topped up by the caller). */
int vcpu_load_root(struct mmu_vcpu *vcpu)
{
	if (!vcpu_caches_ready(vcpu))
		return MMU_ENOMEM;
	return load_root_from_caches(vcpu);
}

/* mmu_load, inline for the CR3 load. */
static inline int root_load(struct mmu_vcpu *vcpu)
{
	if (vcpu->root_valid)
		return MMU_OK;
	/* Full caches (a CR3 load after a resync that took nothing) need no top-up. Our own old
	 * roots may be all that is left to reclaim. A top-up that succeeds leaves them ready. */
	if (!vcpu_caches_full(vcpu) && mmu_topup(vcpu)) {
		release_roots(vcpu);
		if (mmu_topup(vcpu))
			return MMU_ENOMEM;
	}
	return load_root_from_caches(vcpu);
}

/* The CPU reads a PAE root's four entries at every entry (VMRUN loads them with CR3), and a
 * strict one refuses an entry with a reserved bit set: KVM's nested VMRUN does. We write only
 * the address and P, and real CPUs never write these entries back, but QEMU's TCG page walker
 * sets A (bit 5, reserved here) in them as at any other level. So before each entry any reserved
 * bit is cleared again; the common case is four reads, a write only follows a set bit. */
static inline void pae_root_scrub(struct mmu_vcpu *vcpu)
{
#ifdef UMBRA_TEST_KEEP_PDPTE_A /* the entry check's own test image (tests/qemu/suite.mk) */
	return;
#endif
	for (unsigned i = 0; i < 4; i++) {
		u64 e = vcpu->pae_root[i];

		if (e & PDPTE_RSVD_FIXED)
			vcpu->pae_root[i] = e & ~PDPTE_RSVD_FIXED;
	}
}

int mmu_load(struct mmu_vcpu *vcpu)
{
	int r = root_load(vcpu);

	if (r == MMU_OK && vcpu->pae_held)
		pae_root_scrub(vcpu);
	return r;
}

struct mmu_page *vcpu_top_sp(const struct mmu_vcpu *vcpu, u64 gva)
{
	return vcpu->root ? vcpu->root : vcpu->pae_sp[(gva >> 30) & 3];
}

/* PAE paging reads the four PDPTEs when CR3 is loaded; a reserved bit is a #GP at that load. */
static int load_pdptes(struct mmu_vcpu *vcpu, u64 cr3, u64 pdptes[4])
{
	struct mmu_vm *vm = vcpu->vm;
	unsigned i;

	for (i = 0; i < 4; i++) {
		if (vm->ops->read_gpa(vm->ctx, (cr3 & 0xffffffe0ull) + 8 * i, &pdptes[i], 8))
			pdptes[i] = 0;
		if ((pdptes[i] & PTE_P) && (pdptes[i] & walk_pdpte_rsvd(vm)))
			return MMU_EBADPDPTE;
	}
	return MMU_OK;
}

int mmu_reset_context(struct mmu_vcpu *vcpu, u64 cr0, u64 cr4, u64 efer, u64 cr3)
{
	union mmu_role r = { .word = 0 };
	u64 pdptes[4] = { 0, 0, 0, 0 };

	if (!(cr0 & CR0_PG))
		r.glevels = GLEVELS_OFF;
	else if (efer & EFER_LMA)
		r.glevels = GLEVELS_LONG;
	else if (cr4 & CR4_PAE)
		r.glevels = GLEVELS_PAE;
	else
		r.glevels = GLEVELS_32;
	if (r.glevels != GLEVELS_OFF) {
		r.cr0_wp = !!(cr0 & CR0_WP);
		r.nxe = !!(efer & EFER_NXE);
		r.smep = !!(cr4 & CR4_SMEP);
		r.smap = !!(cr4 & CR4_SMAP);
		r.pse = r.glevels == GLEVELS_32 && (cr4 & CR4_PSE);
	}
	if (r.glevels == GLEVELS_PAE && load_pdptes(vcpu, cr3, pdptes))
		return MMU_EBADPDPTE;
	mmu_sync_all(vcpu); /* a mode change flushes the TLB */
	vcpu->cr0 = cr0;
	vcpu->cr4 = cr4;
	vcpu->efer = efer;
	vcpu->cr3 = cr3;
	memcpy(vcpu->pdptes, pdptes, sizeof(pdptes));
	vcpu->base_role = r;
	vcpu->fetch_memo.valid = false; /* its rights follow the mode (SMEP) */
	release_roots(vcpu);
	return mmu_load(vcpu);
}

int mmu_new_cr3(struct mmu_vcpu *vcpu, u64 cr3)
{
	u64 pdptes[4];

	if (vcpu->base_role.glevels == GLEVELS_PAE) {
		if (load_pdptes(vcpu, cr3, pdptes))
			return MMU_EBADPDPTE;
		memcpy(vcpu->pdptes, pdptes, sizeof(pdptes));
	}
	if (!list_empty(&vcpu->vm->unsync_pages))
		mmu_sync_all(vcpu);
	vcpu->cr3 = cr3;
	if (!MMU_MUTATED(vcpu->vm, keep_root_on_cr3))
		release_roots(vcpu);
	if (vcpu->vm->cfg.nocache)
		mmu_zap_all(vcpu->vm);
	return root_load(vcpu);
}

void mmu_invlpg(struct mmu_vcpu *vcpu, u64 gva)
{
	struct mmu_page *sp;
	u64 e;

	sync_invlpg(vcpu, gva);
	if (!vcpu->root_valid || vcpu->base_role.glevels == GLEVELS_OFF)
		return;
	for (sp = vcpu_top_sp(vcpu, gva); sp; sp = sp_from_hpa(vcpu->vm, e & PTE_ADDR)) {
		unsigned idx = spt_index(gva, sp->role.level);

		e = sp->spt[idx];
		if (!(e & PTE_P))
			return;
		if (sp->role.level == 1) {
			sp_drop_spte(vcpu->vm, sp, idx);
			vcpu->vm->ops->flush_tlb(vcpu->vm->ctx, vcpu);
			return;
		}
	}
}

void mmu_stats(const struct mmu_vm *vm, struct mmu_stats *out)
{
	*out = vm->stats;
	out->rmap_desc_in_use = vm->rmap_slab.live;
	out->pages_in_use = vm->pool_used;
}

/* The shadow's own translation, for fetches and hypercall reads: see mmu.h. */
/* The walk itself: the leaf's gpa for a fetch (or a read) at gva, and the table holding the
 * leaf, or false. */
static bool shadow_walk(const struct mmu_vcpu *vcpu, struct mmu_page *sp, u64 gva, bool user,
			bool fetch, u64 *gpa, const struct mmu_page **leaf)
{
	for (unsigned level = 4;; level--) {
		unsigned idx = spt_index(gva, level);
		u64 e = sp->spt[idx];
		if (!(e & PTE_P))
			return false;
		if (level == 1) {
			/* The leaf holds the walk's combined rights: U for a user access, no NX for a
			 * fetch, and no supervisor fetch from a user page under SMEP. */
			if (user && !(e & PTE_U))
				return false;
			if (fetch &&
			    (((e & PTE_U) && !user && vcpu->base_role.smep) || (e & PTE_NX)))
				return false;
			/* A read must see the guest's tables as they are: a table out of sync may
			 * hold what its shadow no longer does (upper tables never go out of sync). */
			if (!fetch && sp->unsync && !MMU_MUTATED(vcpu->vm, read_unsync))
				return false;
			*gpa = (spte_leaf_gfn(sp, idx) << PAGE_SHIFT) | (gva & (PAGE_SIZE - 1));
			*leaf = sp;
			return true;
		}
		if (e & PTE_PS)
			return false;
		sp = sp_find_hpa(vcpu->vm, e & PTE_ADDR);
		if (!sp)
			return false;
	}
}

/* The shadow page below the root for gva, as the root's entry names it (0: none). */
static inline u64 memo_l3(const struct mmu_page *root, u64 gva)
{
	u64 e = root->spt[spt_index(gva, 4)];

	return (e & PTE_P) && !(e & PTE_PS) ? e & PTE_ADDR : 0;
}

/* The rule of both memos (mmu.h): the root's entry still names l3_hpa and no present shadow
 * entry was cleared or replaced since (spte_gen), so the path below it, the leaf and the table
 * holding it are what the walk found; a read's also needs that table still in sync. */
static inline bool memo_in_force(const struct mmu_vcpu *vcpu, const struct mmu_shadow_memo *m,
				 const struct mmu_page *root, u64 page)
{
	return m->valid && m->gva_page == page && m->gen == vcpu->vm->spte_gen &&
	       memo_l3(root, page) == m->l3_hpa &&
	       !(m->leaf && m->leaf->unsync && !MMU_MUTATED(vcpu->vm, read_unsync));
}

/* A memo miss: the walk, remembered when it finds something. */
static __attribute__((noinline)) bool walk_and_remember(struct mmu_vcpu *vcpu,
							struct mmu_shadow_memo *m,
							struct mmu_page *sp, u64 gva, bool user,
							bool fetch, u64 *gpa)
{
	u64 page = gva & ~(u64)(PAGE_SIZE - 1);
	const struct mmu_page *leaf;

	if (!shadow_walk(vcpu, sp, gva, user, fetch, gpa, &leaf))
		return false;
	*m = (struct mmu_shadow_memo){ .valid = true,
				       .user = user,
				       .l3_hpa = memo_l3(sp, page),
				       .gen = vcpu->vm->spte_gen,
				       .gva_page = page,
				       .gpa_page = *gpa & ~(u64)(PAGE_SIZE - 1),
				       .leaf = fetch ? NULL : leaf };
	return true;
}

static inline bool shadow_translate(struct mmu_vcpu *vcpu, struct mmu_shadow_memo *m, u64 gva,
				    bool user, bool fetch, u64 *gpa)
{
	struct mmu_page *sp = vcpu->root_valid ? vcpu->root : NULL;

	if (!sp || sp->invalid || sp->role.level != 4)
		return false;
	if (memo_in_force(vcpu, m, sp, gva & ~(u64)(PAGE_SIZE - 1)) && m->user == user) {
		*gpa = m->gpa_page | (gva & (PAGE_SIZE - 1));
		return true;
	}
	return walk_and_remember(vcpu, m, sp, gva, user, fetch, gpa);
}

bool mmu_shadow_fetch_gpa(struct mmu_vcpu *vcpu, u64 gva, u32 access, u64 *gpa)
{
	return shadow_translate(vcpu, &vcpu->fetch_memo, gva, access & PFERR_U, true, gpa);
}

bool mmu_shadow_read_gpa(struct mmu_vcpu *vcpu, u64 gva, bool user, u64 *gpa)
{
	return shadow_translate(vcpu, &vcpu->read_memo, gva, user, false, gpa);
}

bool mmu_shadow_memo_ok(const struct mmu_vcpu *vcpu, bool fetch, u64 *gva, u64 *memo_gpa,
			u64 *shadow_gpa)
{
	const struct mmu_shadow_memo *m = fetch ? &vcpu->fetch_memo : &vcpu->read_memo;
	struct mmu_page *sp = vcpu->root_valid ? vcpu->root : NULL;
	const struct mmu_page *leaf;

	*gva = m->gva_page;
	if (!sp || sp->invalid || sp->role.level != 4 || !memo_in_force(vcpu, m, sp, *gva))
		return true; /* not in force: the next use walks */
	*memo_gpa = m->gpa_page;
	if (!shadow_walk(vcpu, sp, *gva, m->user, fetch, shadow_gpa, &leaf))
		*shadow_gpa = ~0ull;
	return *shadow_gpa == *memo_gpa;
}
