/* SPDX-License-Identifier: GPL-2.0-only */
/* The host interface of the shadow MMU: memory, guest frames, guest memory access, TLB flushes. */
#ifndef MMU_PLATFORM_H
#define MMU_PLATFORM_H

#include "lib/types.h"

struct mmu_vcpu;

/*
 * Per-guest-frame bookkeeping that the MMU keeps next to the host's memory slot (like the rmap
 * array of a memory slot): the host allocates npages of these zeroed with the slot and never
 * touches them afterwards.
 */
struct mmu_frame {
	uintptr_t rmap;	 /* writable present leaf sptes mapping this frame (a pset) */
	u32 shadowed;	 /* shadow pages (non-direct) keyed on this frame */
	u16 audit_dirty; /* listed for the next incremental audit */
	u16 unsync;	 /* its one shadow, a leaf table, is out of sync (mmu/sync.c) */
};

/*
 * A range of guest-physical memory backed by host memory. A device slot is an assigned
 * device's memory BAR where the guest has it decoding: its frames are the device's registers,
 * mapped uncached (PCD|PWT in a shadow leaf, the format's leaf_uc in a nested one, each alone in
 * a 4 KiB leaf), never a guest page table (read_gpa fails on them, so a guest walk through one
 * sees a not-present entry, and nothing is ever shadowed there), never zeroed or freed. The
 * host removes a device slot only after zapping every mapping of it (mmu_zap_all,
 * tdp_unmap). A shared slot is device memory in all of that but the cache: a region of RAM
 * other guests map too (vmm/shm.c), mapped write-back; it cannot hold this guest's page tables
 * since another guest's stores to it could never be trapped here. A read-only slot is mapped
 * without write access; a write to it is the host's to emulate (MMU_EMULATE, TDP_MMIO).
 */
struct mmu_slot {
	u64 base_gfn;
	u64 npages;
	struct mmu_frame *frames; /* npages entries, zeroed by the host */
	bool device;
	bool shared; /* device memory that is RAM: cached (implies device) */
	bool readonly;
};

/* Does the slot's memory take uncached leaves (a device's registers)? */
static inline bool slot_uncached(const struct mmu_slot *s)
{
	return s->device && !s->shared;
}

/*
 * Everything mmu/ needs from its host. Every call is made with the per-VM lock held (see mmu.h).
 * ctx is the opaque pointer given to mmu_vm_init.
 */
struct mmu_platform_ops {
	/* A zeroed 4 KiB page: host-virtual pointer returned, host-physical address in *hpa.
	 * The page must lie below 4 GiB (it may become a PAE root). NULL when exhausted. */
	void *(*alloc_page)(void *ctx, u64 *hpa);
	/* A page given back under the VM lock may still be reachable by a vCPU running on another
	 * CPU (its TLB or paging-structure caches) until the flushes requested in the same hold of
	 * the lock are acknowledged (mmu.h): the host must not hand it out before then. */
	void (*free_page)(void *ctx, void *va, u64 hpa);
	/* The slot holding gfn, or NULL for a hole (MMIO or nothing). */
	const struct mmu_slot *(*gfn_to_slot)(void *ctx, u64 gfn);
	/* i-th slot for iteration by the audit, NULL past the last one. */
	const struct mmu_slot *(*slot_at)(void *ctx, unsigned i);
	/* Host-physical address of a frame of slot s. */
	u64 (*gfn_to_hpa)(void *ctx, const struct mmu_slot *s, u64 gfn);
	/* Guest-physical memory access within one page; return 0, or -1 on a hole. */
	int (*read_gpa)(void *ctx, u64 gpa, void *buf, unsigned len);
	int (*write_gpa)(void *ctx, u64 gpa, const void *buf, unsigned len);
	/* Atomically replace 1, 2, 4 or 8 naturally aligned bytes of guest RAM if they still hold
	 * *old (the hardware's locked A/D update, an emulated LOCK CMPXCHG); return false with
	 * what memory holds in *old if they changed meanwhile, or with *old untouched on a hole. */
	bool (*cmpxchg_gpa)(void *ctx, u64 gpa, unsigned len, u64 *old, u64 new_val);
	/* The vCPU must flush its TLB (all of its translations) before it next runs a guest; if it
	 * is in guest mode on another CPU now, it must be kicked out and acknowledge before the
	 * caller drops the VM lock (mmu.h). Called for any vCPU of the guest, not only the one whose
	 * call this is. Posting only: it must not block. */
	void (*flush_tlb)(void *ctx, struct mmu_vcpu *vcpu);
	/* Complete the flushes posted so far now, not at the unlock: kick and wait as above. Only
	 * for write protection, whose table the MMU reads right after (mmu/rmap.c). */
	void (*flush_wait)(void *ctx);
};

#endif
