/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions shared by the files of mmu/ only: shadow pages, entry bits, internal calls. */
#ifndef MMU_INTERNAL_H
#define MMU_INTERNAL_H

#include "lib/types.h"
#include "lib/assert.h"
#include "lib/string.h"
#include "mmu/mmu.h"
#include "arch/x86/regs.h" /* paging-entry and control-register bits: defined once, there */

#define SPT_ENTRIES 512
#define HASH_BUCKETS 512 /* one page of pointers */

struct mmu_page {
	struct mmu_page *gfn_next; /* gfn hash chain */
	struct mmu_page *hpa_next; /* hpa hash chain */
	struct mmu_page *va_next;  /* va hash chain */
	struct list_head lru;
	u64 gfn; /* guest table frame, or first frame covered when direct */
	u64 hpa;
	u64 *spt;  /* the shadow table, 512 entries */
	u64 *gfns; /* non-direct leaf tables: gfn mapped by each entry */
	u64 gfns_hpa;
	uintptr_t parents; /* pset of shadow entries pointing at this page */
	union mmu_role role;
	u32 root_count; /* vCPUs using it as (part of) their root */
	bool invalid;	/* zapped while a root: emptied, out of the hash */
	bool unsync;	/* a leaf table the guest writes natively until the next resync */
	struct list_head unsync_link; /* on vm->unsync_pages while unsync */
	u32 audit_links, audit_roots; /* scratch for mmu_audit */
	/* Changes since the last audit: entries, and page-level state (hash, parents, roots). */
	struct list_head audit_link; /* on vm->audit_pages when audit_listed */
	bool audit_listed, audit_page;
	u64 audit_entries[SPT_ENTRIES / 64];
};

/* Guest walk result (walk_tmpl.h fills it). Levels are numbered like the shadow's: 1 = PTE. */
struct mmu_walk {
	unsigned level;	  /* level of the leaf entry: 1 (4 KiB), 2 (2/4 MiB), 3 (1 GiB) */
	unsigned top;	  /* highest guest level walked */
	u64 gfn;	  /* 4 KiB frame of the access */
	u64 table_gfn[5]; /* table holding the level-l entry */
	u64 pte[5];
	u8 acc[6];	/* ACC_* combined over levels >= l (acc[top + 1] = all) */
	bool dirty;	/* leaf D bit (after this access) */
	u32 error_code; /* when the walk faults */
};

/* pset.c: a set of u64 * (none / one pointer / tagged chain of small descriptors). */
void pset_add(uintptr_t *set, u64 *p, struct mmu_objcache *cache, struct mmu_slab *slab);
void pset_remove(uintptr_t *set, u64 *p, struct mmu_slab *slab);
/* A mark per entry of a 512-entry table, a byte each so that a member's test is one load; read
 * eight at a time to find the next one set. */
union spt_marks {
	u8 b[SPT_ENTRIES];
	u64 w[SPT_ENTRIES / 8];
};
/* Removes, in one pass, every member that is an entry &table[i] of the 512-entry table with
 * marks->b[i] set, and clears those marks. */
void pset_remove_marked(uintptr_t *set, struct mmu_slab *slab, const u64 *table,
			union spt_marks *marks);
bool pset_contains(uintptr_t set, const u64 *p);
unsigned pset_count(uintptr_t set);
/* Call fn on each member then empty the set. */
void pset_drain(uintptr_t *set, struct mmu_slab *slab, void (*fn)(void *arg, u64 *p), void *arg);
#define PSET_FOR_EACH(set, it, p) \
	for (struct pset_iter it = pset_iter_start(set); ((p) = pset_iter_next(&it)) != NULL;)
struct pset_iter {
	uintptr_t single;
	const struct pset_desc *d;
	unsigned i;
};
struct pset_iter pset_iter_start(uintptr_t set);
u64 *pset_iter_next(struct pset_iter *it);

/* cache.c: slabs, per-vCPU caches, pool accounting. */
void slab_init(struct mmu_slab *s, u32 objsize);
void slab_destroy(struct mmu_vm *vm, struct mmu_slab *s);
void slab_free(struct mmu_slab *s, void *obj);
void *cache_take(struct mmu_objcache *c, struct mmu_slab *s);
void *pagecache_take(struct mmu_pagecache *c, u64 *hpa);
void pool_free_page(struct mmu_vm *vm, void *va, u64 hpa);
void vcpu_caches_release(struct mmu_vcpu *vcpu);
bool vcpu_caches_ready(const struct mmu_vcpu *vcpu);
/* Every cache at its top-up level: mmu_topup has nothing to do. */
static inline bool vcpu_caches_full(const struct mmu_vcpu *vcpu)
{
	return vcpu->pages.n == MMU_CACHE_PAGES && vcpu->sps.n == MMU_CACHE_OBJS &&
	       vcpu->parent_descs.n == MMU_CACHE_OBJS && vcpu->rmap_descs.n == MMU_CACHE_OBJS;
}

/* shadow.c: the shadow page cache. */
struct mmu_page *sp_find_hpa(struct mmu_vm *vm, u64 hpa);
struct mmu_page *sp_of_sptep(struct mmu_vm *vm, const u64 *sptep);
struct mmu_page *sp_from_hpa(struct mmu_vm *vm, u64 hpa);
struct mmu_page *sp_lookup(struct mmu_vm *vm, u64 gfn, union mmu_role role);
struct mmu_page *sp_get(struct mmu_vcpu *vcpu, u64 gfn, union mmu_role role, bool *created);
void sp_link(struct mmu_vcpu *vcpu, struct mmu_page *sp, unsigned idx, struct mmu_page *child);
void sp_drop_spte(struct mmu_vm *vm, struct mmu_page *sp, unsigned idx);
/* sp_drop_spte for each entry whose bit is set in drop. */
void sp_drop_sptes(struct mmu_vm *vm, struct mmu_page *sp, const u64 drop[SPT_ENTRIES / 64]);
void sp_zap(struct mmu_vm *vm, struct mmu_page *sp);
void sp_put_root(struct mmu_vm *vm, struct mmu_page *sp);
bool sp_reclaim_one(struct mmu_vm *vm);
void sp_touch(struct mmu_vm *vm, struct mmu_page *sp);
static inline unsigned gfn_hash_idx(u64 gfn)
{
	return (unsigned)(gfn ^ (gfn >> 9)) % HASH_BUCKETS;
}
static inline struct mmu_page *sp_of_lru(struct list_head *l)
{
	return container_of(l, struct mmu_page, lru);
}

/* rmap.c: reverse map of writable leaf sptes per guest frame. */
struct mmu_frame *frame_of(struct mmu_vm *vm, u64 gfn);
/* The frame of a guest page table at gfn: NULL for a hole or device memory, where no table
 * can be read (read_gpa fails), so none is counted as shadowed there (a CR3 aimed at it). */
struct mmu_frame *table_frame_of(struct mmu_vm *vm, u64 gfn);
void spte_set_leaf(struct mmu_vcpu *vcpu, struct mmu_page *sp, unsigned idx, u64 gfn, u64 spte);
void spte_clear_leaf(struct mmu_vm *vm, struct mmu_page *sp, unsigned idx);
/* spte_clear_leaf for each entry whose bit is set in drop (a leaf table's), with one pass over
 * the reverse map of each frame they map rather than a search of it per entry. */
void spte_clear_leaves(struct mmu_vm *vm, struct mmu_page *sp, const u64 drop[SPT_ENTRIES / 64]);
u64 spte_leaf_gfn(const struct mmu_page *sp, unsigned idx);
void rmap_write_protect(struct mmu_vm *vm, u64 gfn);
/* A present shadow entry is about to be cleared or replaced (see mmu_vm.spte_gen). */
static inline void spte_changed(struct mmu_vm *vm)
{
	if (!MMU_MUTATED(vm, skip_spte_gen))
		vm->spte_gen++;
}
static inline bool spte_writable_leaf(u64 spte)
{
	return (spte & (PTE_P | PTE_W)) == (PTE_P | PTE_W);
}
/* Guest page tables are mapped read-only so that writes to them trap, unless out of sync. */
static inline bool frame_may_map_writable(const struct mmu_frame *f)
{
	return !f->shadowed || f->unsync;
}

/* audit.c: change tracking for mmu_audit_incremental. Every change of shadow state calls one
 * of these (each is a no-op until tracking is on; the two commonest check that inline). */
void audit_track_entry(struct mmu_vm *vm, struct mmu_page *sp, unsigned idx);
void audit_track_page(struct mmu_vm *vm, struct mmu_page *sp);
static inline void audit_mark_entry(struct mmu_vm *vm, struct mmu_page *sp, unsigned idx)
{
	if (vm->audit_track)
		audit_track_entry(vm, sp, idx);
}
static inline void audit_mark_page(struct mmu_vm *vm, struct mmu_page *sp)
{
	if (vm->audit_track)
		audit_track_page(vm, sp);
}
void audit_mark_sptep(struct mmu_vm *vm, const u64 *sptep);
void audit_mark_frame(struct mmu_vm *vm, u64 gfn);
void audit_mark_guest_write(struct mmu_vm *vm, u64 gpa, unsigned len);
void audit_forget_page(struct mmu_vm *vm, struct mmu_page *sp);
/* write.c: the shadow entries of sp that mirror the guest entry at byte offset of its frame. */
unsigned sp_mirrors(const struct mmu_page *sp, unsigned offset, unsigned idx[2]);

/* sync.c: out-of-sync leaf shadows. */
bool sp_unsync_frame(struct mmu_vcpu *vcpu, struct mmu_frame *f, u64 gfn);
void sp_sync_frame(struct mmu_vcpu *vcpu, u64 gfn);
void sp_sync(struct mmu_vcpu *vcpu, struct mmu_page *sp);
void sp_forget_unsync(struct mmu_vm *vm, struct mmu_page *sp);
void mmu_sync_all(struct mmu_vcpu *vcpu);
void sync_invlpg(struct mmu_vcpu *vcpu, u64 gva);

/* fault.c: a leaf entry with rights acc; what a fault would fill for guest leaf entry e of sp
 * (0: none, and *gfn the frame otherwise). */
u64 make_leaf(u64 hpa, unsigned acc);
u64 slot_leaf(struct mmu_vm *vm, const struct mmu_slot *s, u64 gfn, unsigned acc);
u64 leaf_of_guest(struct mmu_vcpu *vcpu, const struct mmu_page *sp, u64 e, u64 *gfn);

/* walk.c: the guest walker. */
bool mmu_walk(struct mmu_vcpu *vcpu, u64 gva, u32 access, struct mmu_walk *w);

/* mmu.c: vCPU root handling. */
int vcpu_load_root(struct mmu_vcpu *vcpu);
/* The root's key for the vCPU's CR3 and mode: the 4-level page, or the PAE root's slot i (which
 * shadow page directory it holds, if any). */
static inline bool vcpu_root_key(const struct mmu_vcpu *vcpu, unsigned i, u64 *gfn,
				 union mmu_role *role)
{
	*role = vcpu->base_role;
	role->level = 2;
	role->access = ACC_ALL;
	switch (role->glevels) {
	case GLEVELS_LONG:
		role->level = 4;
		*gfn = (vcpu->cr3 & PTE_ADDR) >> PAGE_SHIFT;
		return true;
	case GLEVELS_OFF:
		role->direct = 1;
		*gfn = (u64)i << 18;
		return true;
	case GLEVELS_32:
		role->quadrant = i;
		*gfn = (vcpu->cr3 & 0xfffff000ull) >> PAGE_SHIFT;
		return true;
	default:
		*gfn = (vcpu->pdptes[i] & PTE_ADDR) >> PAGE_SHIFT;
		return vcpu->pdptes[i] & PTE_P;
	}
}
struct mmu_page *vcpu_top_sp(const struct mmu_vcpu *vcpu, u64 gva);
static inline unsigned spt_index(u64 gva, unsigned level)
{
	return (gva >> (PAGE_SHIFT + 9 * (level - 1))) & 511;
}
void vcpu_request_reload(struct mmu_vcpu *vcpu);
void mmu_flush_all(struct mmu_vm *vm);

/* Rights a guest leaf gives the shadow before write protection (CR0.WP=0 lets the supervisor
 * write read-only supervisor pages; no D bit means the first write must fault to set it). */
static inline unsigned leaf_access(unsigned acc, bool dirty, bool cr0_wp)
{
	if (!cr0_wp && !(acc & ACC_U))
		acc |= ACC_W;
	if (!dirty)
		acc &= ~ACC_W;
	return acc;
}

#endif
