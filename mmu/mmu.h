/* SPDX-License-Identifier: GPL-2.0-only */
/* The shadow MMU's public interface for vmm/ and the host harness. */
#ifndef MMU_MMU_H
#define MMU_MMU_H

/*
 * Shadow page tables for guests without nested paging (design: docs/design.md, "The shadow MMU").
 *
 * Locking (several vCPUs per guest): one per-VM lock, the caller's, covers all of this state:
 * the shadow pages of the guest and their hashes, LRU and out-of-sync lists, the reverse maps
 * and frame counts, every vCPU's roots and object caches, the statistics and audit tracking.
 * Every function here is called with it held, and so is every platform callback made from
 * inside (alloc_page/free_page take the host's page-pool lock under it: order VM lock, then
 * pool lock, then console). Nothing here sleeps or blocks; it waits for another CPU only where
 * write protection must be complete before the guest's table is read (ops->flush_wait).
 * Under the lock, a call may take rights from shadow entries that any vCPU of the guest may
 * have cached; it then posts ops->flush_tlb for every such vCPU (usually all of them) and
 * marks the roots it zapped invalid in their users (who reload at mmu_load). Before dropping
 * the lock the caller must complete those requests: kick every target that is in guest mode on
 * another CPU (IPI) and wait for its acknowledgement; a target not in guest mode flushes at its
 * next entry. Acknowledging takes no lock (a vCPU acknowledges by leaving guest mode), so the
 * wait cannot deadlock. Only then is the operation done: the vCPU that made the call may resume
 * its guest (whose shootdown relies on it), and pages given back through free_page may be
 * reused (platform.h). mmu_topup and the call it prepares (mmu_page_fault) run in one hold of
 * the lock: another vCPU's top-up may take pages from this vCPU's caches (mmu/cache.c).
 *
 * Usage by a backend, per vCPU:
 *   mmu_vcpu_init, then mmu_reset_context on every change of CR0/CR4/EFER (and at start);
 *   mmu_new_cr3 on a guest CR3 load; mmu_invlpg on INVLPG;
 *   before entering the guest: mmu_load (tops up and builds the root if needed), then run with
 *     CR3 = mmu_root_hpa() and the real control bits given by mmu_root_is_pae() and:
 *     CR0.WP = 1, EFER.NXE = 1, CR4.SMEP/SMAP = the guest's values while guest paging is on and
 *     0 while it is off; a 4-level root needs long mode, a PAE root legacy PAE paging.
 *   on a #PF exit: mmu_topup, then mmu_page_fault and act on the outcome; an emulated write
 *     must end with mmu_write, which writes guest memory and keeps the shadows coherent.
 * Every write the hypervisor itself makes to guest memory that may hold page tables must go
 * through mmu_write as well.
 */

#include "lib/types.h"
#include "lib/list.h"
#include "mmu/platform.h"
#include "mmu/role.h"
#include "mmu/stats.h"

/* Page-fault error code bits (hardware layout). */
#define PFERR_P BIT(0)
#define PFERR_W BIT(1)
#define PFERR_U BIT(2)
#define PFERR_RSVD BIT(3)
#define PFERR_I BIT(4)
/* Input-only flags for mmu_page_fault / mmu_gva_to_gpa: the access ran with RFLAGS.AC = 1
 * (SMAP override for supervisor data accesses), and (gva_to_gpa) do not set A/D bits. */
#define MMU_ACCESS_AC BIT(31)
#define MMU_ACCESS_PEEK BIT(30)

/* Return codes. */
#define MMU_OK 0
#define MMU_ENOMEM (-1)	   /* pool and host memory exhausted: no room for one fault */
#define MMU_EBADPDPTE (-2) /* PAE: a PDPTE has reserved bits set; the guest gets #GP */
#define MMU_EINVAL (-3)
#define MMU_EBUSY (-4) /* mmu_cmpxchg: the guest's other CPUs kept it from its swap */

/* Per-vCPU object caches must hold enough for the worst single fault (root reload + fill). */
#define MMU_CACHE_PAGES 8
#define MMU_CACHE_OBJS 8

struct mmu_page;

#define MMU_AUDIT_FRAMES 64
#define MMU_AUDIT_FULL_EVERY 1024

/* Free-list allocator of small objects carved from host pages (internal to mmu/). */
struct mmu_slab {
	u32 objsize;
	u32 live; /* objects handed out (in caches or in use) */
	void *free;
	void *chunks; /* pages obtained from the host, freed at teardown */
};

struct mmu_objcache {
	unsigned n;
	void *obj[MMU_CACHE_OBJS];
};

struct mmu_pagecache {
	unsigned n;
	void *va[MMU_CACHE_PAGES];
	u64 hpa[MMU_CACHE_PAGES];
};

/* clang-format off */
struct mmu_config {
	u64 pool_max_pages;	/* host pages for shadow tables (>= 16, and >= 6 per vCPU);
				 * 0 = default 1024 */
	u8 maxphyaddr;		/* the guest's CPUID MAXPHYADDR; 0 = 40 */
	bool nocache;		/* rebuild every shadow after each CR3 load (2.6.20-rc3 baseline:
				 * also no leaf prefetch, no out-of-sync tables) */
	bool no_1g;		/* the guest's CPUID lacks Page1GB: PS in a PDPTE is reserved */
	bool no_unsync;		/* keep every shadowed guest table write-protected (mmu/sync.c) */
};
/* clang-format on */

/* Mutation knobs for the host tests, each breaking one invariant on purpose so that a test can
 * show the audit or the reference model catches it. They exist in the host build only: in
 * Umbra, MMU_MUTATED is false at compile time and the paths it guards are plain code. */
#define MMU_MUTATIONS(X) \
	X(skip_wp_on_shadow) /* a new shadow leaves its guest table writable */ \
	X(skip_zap_on_write) /* an emulated table write zaps no entry */ \
	X(skip_resync)	     /* flushes leave out-of-sync pages as they are */ \
	X(stale_resync)	     /* a resync write-protects but updates no entry */ \
	X(flush_one_vcpu)    /* remote flushes are lost: mmu_flush_all reaches one vCPU */ \
	X(skip_root_reload)  /* a zapped root's other users are not told to reload */ \
	X(skip_pv_flush)     /* mmu_flush_tlb does not flush the vCPU's own TLB */ \
	X(keep_root_on_cr3)  /* a CR3 load keeps the old root */ \
	X(skip_spte_gen)     /* shadow entries change without spte_gen moving */ \
	X(read_unsync)	     /* a hypercall read takes a table out of sync as the guest's */
#ifdef UMBRA_HOST
#define MMU_MUTATION_FIELD(name) bool name;
struct mmu_mutations {
	MMU_MUTATIONS(MMU_MUTATION_FIELD)
};
#undef MMU_MUTATION_FIELD
#define MMU_MUTATED(vm, name) ((vm)->test.name)
#else
#define MMU_MUTATED(vm, name) false
#endif

struct mmu_vm {
	const struct mmu_platform_ops *ops;
	void *ctx;
	struct mmu_config cfg;
	u64 rsvd_phys;		    /* guest entry address bits above MAXPHYADDR */
	struct mmu_page **gfn_hash; /* by guest frame number (lookups compare gfn and role) */
	struct mmu_page **hpa_hash; /* by host frame of the shadow table (entry -> page) */
	struct mmu_page **va_hash;  /* by host-virtual table address (entry pointer -> page) */
	u64 gfn_hash_hpa, hpa_hash_hpa, va_hash_hpa;
	struct list_head lru; /* all live pages, least recently used first */
	u64 npages;	      /* live shadow pages */
	u64 pool_used;	      /* host pages counted against cfg.pool_max_pages */
	struct mmu_slab sp_slab, rmap_slab, parent_slab;
	struct mmu_vcpu *vcpus;
	struct list_head unsync_pages; /* out-of-sync leaf tables, oldest first */
	unsigned nunsync;
	u64 last_write_gfn; /* flood detection */
	unsigned write_count;
	struct mmu_stats stats;
	/* Bumped whenever a present shadow entry is cleared or replaced: a translation read from
	 * the shadow stays true while this has not moved (the vCPUs' fetch memos rest on it). */
	u64 spte_gen;
	/* What changed since the last audit (kept once mmu_audit_incremental has been called). */
	bool audit_track;
	bool audit_overflow;	      /* too many frames: the next audit is a full one */
	bool audit_pages_changed;     /* pages created or zapped: recount the hash and list */
	struct list_head audit_pages; /* pages with dirty entries or page-level state */
	u64 audit_frames[MMU_AUDIT_FRAMES];
	unsigned audit_nframes;
	unsigned audit_full_every; /* incremental audits between full ones; 0 = never */
	unsigned audit_since_full;
#ifdef UMBRA_HOST
	struct mmu_mutations test; /* the host tests' knobs (MMU_MUTATED) */
#endif
};

/* A page the shadow translated, remembered (mmu_shadow_fetch_gpa, mmu_shadow_read_gpa). Good
 * while the root's entry for it still names the shadow page below (l3_hpa: a CR3 load to
 * another root sharing that half keeps it) and vm->spte_gen has not moved: every present shadow
 * entry cleared or replaced moves it, so the path below, the leaf and the table holding it
 * (alive: dropping it clears its parent's entry) are as the walk found them. The guest's tables
 * cannot differ from that path without an exit that changes it, except a leaf table out of
 * sync: a read memo names its table (leaf) and is not in force while that is out of sync (going
 * out of sync changes no shadow entry); a fetch memo has none, a fetch reads what the CPU ran.
 * The audit compares both with the shadow. */
struct mmu_shadow_memo {
	bool valid, user; /* user: translated for a CPL 3 access */
	u64 l3_hpa, gen, gva_page, gpa_page;
	const struct mmu_page *leaf;
};

struct mmu_vcpu {
	struct mmu_vm *vm;
	struct mmu_vcpu *next;
	/* Guest paging state, as given by the last context reset and CR3 load. */
	u64 cr0, cr4, efer, cr3;
	u64 pdptes[4];		  /* PAE: loaded from guest memory at CR3 load */
	union mmu_role base_role; /* glevels, cr0_wp, nxe, smep, smap */
	/* Current root: one 4-level page, or the vCPU's PAE root with up to four pages. */
	bool root_valid;
	struct mmu_page *root;
	struct mmu_page *pae_sp[4];
	bool pae_held; /* pae_sp/pae_root may hold something: release looks */
	u64 root_hpa;  /* while root_valid: root's page, or pae_root_hpa */
	u64 *pae_root;
	u64 pae_root_hpa;
	/* Objects the fault path may consume, filled by mmu_topup. */
	struct mmu_pagecache pages;
	struct mmu_objcache sps, rmap_descs, parent_descs;
	/* The last page mmu_shadow_fetch_gpa translated: an exit's instruction is mostly on the
	 * page of the last one (a kernel's CR3 load, its MMIO accessors), under another root after
	 * a CR3 load but through the same shadow page below it (the kernel's half is shared). */
	struct mmu_shadow_memo fetch_memo;
	/* The last page mmu_shadow_read_gpa translated: a hypercall's arguments are mostly on the
	 * page of the last call's (the kernel's stack). */
	struct mmu_shadow_memo read_memo;
};

enum mmu_outcome_kind {
	MMU_FIXED,   /* shadow filled: resume the guest and let it retry */
	MMU_INJECT,  /* deliver #PF with error_code and CR2 = cr2 to the guest */
	MMU_EMULATE, /* emulate the instruction; a write must go through mmu_write(gpa) */
};

struct mmu_outcome {
	enum mmu_outcome_kind kind;
	u32 error_code;
	u64 cr2;
	u64 gpa;   /* EMULATE: the guest-physical address accessed */
	bool mmio; /* EMULATE: gpa is in no memory slot */
};

/* VM: init with the host ops (kept by pointer) and a config; teardown frees every page. */
int mmu_vm_init(struct mmu_vm *vm, const struct mmu_platform_ops *ops, void *ctx,
		const struct mmu_config *cfg);
void mmu_vm_destroy(struct mmu_vm *vm);

/* vCPU: starts with paging off; teardown releases its root and caches. MMU_EINVAL when the pool
 * is too small for one more vCPU (6 pages each: its roots and one fault). */
int mmu_vcpu_init(struct mmu_vcpu *vcpu, struct mmu_vm *vm);
void mmu_vcpu_destroy(struct mmu_vcpu *vcpu);

/* New guest paging mode (any change of CR0.PG/WP, CR4.PAE/PSE/SMEP/SMAP, EFER.NXE/LMA) and CR3.
 * Returns MMU_EBADPDPTE (state unchanged) or MMU_ENOMEM. */
int mmu_reset_context(struct mmu_vcpu *vcpu, u64 cr0, u64 cr4, u64 efer, u64 cr3);
/* Guest CR3 load in the current mode: other address spaces' shadows stay cached. */
int mmu_new_cr3(struct mmu_vcpu *vcpu, u64 cr3);
/* Guest INVLPG on this vCPU (a shootdown IPI's handler runs it on each target vCPU). */
void mmu_invlpg(struct mmu_vcpu *vcpu, u64 gva);
/* The guest flushed its whole TLB without a CR3 load or mode change (a PV flush): out-of-sync
 * shadows catch up with the guest's tables, and this vCPU's TLB is flushed (ops->flush_tlb). */
void mmu_flush_tlb(struct mmu_vcpu *vcpu);

/* Refill the vCPU's caches (may reclaim shadow pages); MMU_ENOMEM when nothing is left. */
int mmu_topup(struct mmu_vcpu *vcpu);
/* Make the root valid (after a CR3 load or a zapped root); tops up first. Called before every
 * entry: it also clears reserved bits the CPU set in a PAE root's entries (mmu.c). */
int mmu_load(struct mmu_vcpu *vcpu);
/* What the backend loads as the real CR3 (valid after mmu_load), and its format. */
static inline u64 mmu_root_hpa(const struct mmu_vcpu *vcpu)
{
	return vcpu->root_hpa;
}
static inline bool mmu_root_is_pae(const struct mmu_vcpu *vcpu)
{
	return vcpu->base_role.glevels != GLEVELS_LONG;
}

/* A #PF exit at gva with the hardware error code (| MMU_ACCESS_AC). Call mmu_topup first.
 * Returns MMU_OK with *out filled, or MMU_ENOMEM if the caches were not topped up. */
int mmu_page_fault(struct mmu_vcpu *vcpu, u64 gva, u32 error_code, struct mmu_outcome *out);

/* The emulated-write hook: len (1..8) bytes of value at gpa, within one page. Zaps what the write
 * affects in every shadow of that frame (whole pages on misaligned writes and floods), then
 * performs the write on guest memory. Returns MMU_OK or MMU_EINVAL. */
int mmu_write(struct mmu_vm *vm, u64 gpa, unsigned len, u64 value);
/* A guest's paravirtual update batch: the caller performs each entry's write on guest memory
 * and notes it with mmu_batch_note; the shadows it affects are dropped when the batch moves to
 * another guest table and at mmu_batch_end, with one walk of that table's shadows and one pass
 * over each mapped frame's reverse map, and one TLB flush request for the whole batch. Dropped
 * alike as by mmu_write, but no emulated write (not counted as one, STATS tells a guest which
 * way its updates went) and no step towards a flood zap (a batch rewriting one table is not a
 * fork). Nothing else may change the MMU between mmu_batch_begin and mmu_batch_end. */
struct mmu_batch {
	u64 gfn;	 /* the guest table whose written entries are pending, or ~0 */
	u64 written[16]; /* its 4-byte words written, one bit each */
	bool shadowed;	 /* a shadow was dropped from: flush at the end */
};
void mmu_batch_begin(struct mmu_batch *b);
/* Drops what is pending for the last table, then makes gfn the table being written. */
void mmu_batch_table(struct mmu_vm *vm, struct mmu_batch *b, u64 gfn);
/* len (4 or 8) bytes at gpa, aligned to len, written or to be written before mmu_batch_end.
 * MMU_OK or MMU_EINVAL (nothing noted). Inline: it runs once per entry of a batch. */
static inline int mmu_batch_note(struct mmu_vm *vm, struct mmu_batch *b, u64 gpa, unsigned len)
{
	unsigned offset = gpa & (PAGE_SIZE - 1);

	if ((len != 4 && len != 8) || (offset & (len - 1)))
		return MMU_EINVAL;
	if (gpa >> PAGE_SHIFT != b->gfn)
		mmu_batch_table(vm, b, gpa >> PAGE_SHIFT);
	b->written[offset / 256] |= (len == 8 ? 3ull : 1ull) << (offset / 4 % 64);
	return MMU_OK;
}
/* The same for an entry at offset (aligned to len, 4 or 8: the caller's check; bits above 11
 * are ignored) of the table the last mmu_batch_table named: a batch known to write one table
 * notes each entry so. */
static inline void mmu_batch_note_in(struct mmu_batch *b, unsigned offset, unsigned len)
{
	b->written[offset / 256 % 16] |= (len == 8 ? 3ull : 1ull) << (offset / 4 % 64);
}
void mmu_batch_end(struct mmu_vm *vm, struct mmu_batch *b);
/* The locked read-modify-write hook: zaps as mmu_write does, then compares and swaps len bytes
 * (1..8, within one aligned 8) of guest RAM by a host locked compare-exchange, atomic against
 * the guest's other vCPUs running natively. *old is the expected value; on return it holds what
 * memory held (still *old: swapped). MMU_EINVAL for a bad size or place, or not RAM; MMU_EBUSY
 * if other CPUs kept storing next to the operand through every try. */
int mmu_cmpxchg(struct mmu_vm *vm, u64 gpa, unsigned len, u64 *old, u64 new_val);

/* Translate through the guest's tables (emulator, debugger). access = PFERR_W/U/I bits
 * | MMU_ACCESS_AC | MMU_ACCESS_PEEK. Returns true with *gpa, or false with the #PF error code. */
bool mmu_gva_to_gpa(struct mmu_vcpu *vcpu, u64 gva, u32 access, u64 *gpa, u32 *error_code);
/* An instruction fetch at gva (PFERR_U for CPL 3) through the current 4-level shadow: true with
 * the guest-physical address when a shadow leaf maps it with the rights a fetch needs, which the
 * guest's walk then grants too (a leaf never has more). These are the bytes the CPU fetched,
 * even from a table out of sync; false (walk the guest's tables instead) for anything else. */
bool mmu_shadow_fetch_gpa(struct mmu_vcpu *vcpu, u64 gva, u32 access, u64 *gpa);
/* A data read at gva (user: as CPL 3) through the current 4-level shadow, for a hypercall's
 * arguments: true with the guest-physical address when a shadow leaf maps it readable from a
 * table in sync with the guest's, so that the guest's own walk now gives the same address and
 * allows the read; false (walk the guest's tables instead) for anything else. */
bool mmu_shadow_read_gpa(struct mmu_vcpu *vcpu, u64 gva, bool user, u64 *gpa);
/* The audit's check of a memo (the fetch memo, or the read memo): false when the memo, still in
 * force, gives another answer than the shadow (*gva and the two gpas say which; ~0 for no
 * mapping). */
bool mmu_shadow_memo_ok(const struct mmu_vcpu *vcpu, bool fetch, u64 *gva, u64 *memo_gpa,
			u64 *shadow_gpa);

/* Check every invariant; describe the first problems in buf (may be NULL). Returns the number
 * of errors found. */
unsigned mmu_audit(struct mmu_vm *vm, char *buf, size_t size);
/* The same checks, on what changed since the last audit only (every shadow entry, page and
 * frame touched), with a full audit at the first call, every vm->audit_full_every calls
 * (default MMU_AUDIT_FULL_EVERY) and when too much changed. Cheap enough to run after every
 * fault; the first call turns on the change tracking it needs. Call mmu_audit at the end. */
unsigned mmu_audit_incremental(struct mmu_vm *vm, char *buf, size_t size);

/* Counters (a snapshot). */
void mmu_stats(const struct mmu_vm *vm, struct mmu_stats *out);

/* The live shadow pages by level (1 = leaf table), those that shadow a guest table and those
 * with none behind them (paging off, guest large pages); how many are (part of) a vCPU's root,
 * and the shadow entries linking them (mmu/census.c, for the monitor). */
struct mmu_census {
	u64 shadowing[6], direct[6];
	u64 roots, parent_links;
};
void mmu_census(const struct mmu_vm *vm, struct mmu_census *out);

/* Zap every shadow of the guest table at gfn (all roles; not the direct pages of large guest
 * pages), so the frame is no longer write-protected: for writes the emulator cannot do. */
void mmu_unshadow_gfn(struct mmu_vm *vm, u64 gfn);

/* Drop every shadow page (not those in use as roots, which are emptied and reloaded). */
void mmu_zap_all(struct mmu_vm *vm);

#endif
