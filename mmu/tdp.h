/* SPDX-License-Identifier: GPL-2.0-only */
/* Two-dimensional paging: a guest-physical -> host-physical table built from the memory slots. */
#ifndef MMU_TDP_H
#define MMU_TDP_H

/*
 * For CPUs with nested paging (NPT, EPT) the hardware walks the guest's own page tables and
 * then this table for every guest-physical address; the shadow MMU is not involved. The table
 * has four levels of 512 8-byte entries in whatever format the backend describes with struct
 * tdp_format, so mmu/ knows no vendor. Entries are filled lazily on nested faults, with 2 MiB
 * pages wherever a whole aligned 2 MiB of guest memory lies in one slot on contiguous host
 * frames. A guest-physical address in no slot is device memory: the caller emulates the access.
 *
 * Locking as for the shadow MMU: one per-VM lock held by the caller around every call.
 */

#include "lib/types.h"
#include "mmu/platform.h"
#include "arch/x86/tdp_format.h"

/* What a nested fault came to. */
enum tdp_result {
	TDP_FILLED,  /* the entry was missing and is now mapped: resume the guest */
	TDP_MAPPED,  /* already mapped (a fault raced with a fill, or a TLB left stale) */
	TDP_MMIO,    /* gpa is in no slot: emulate the access */
	TDP_ENOMEM,  /* no host page for a table */
	TDP_EBROKEN, /* a second fault in a row on one mapped address: the entry is wrong */
};

struct tdp_stats {
	u64 faults_filled;	      /* nested faults that added a mapping */
	u64 faults_mmio;	      /* nested faults on device memory */
	u64 faults_mapped;	      /* nested faults that found their mapping present */
	u64 large_pages, small_pages; /* leaves written */
	u64 tables;		      /* table pages in use */
};

struct tdp_node;
struct tdp_node_page;

struct tdp {
	const struct mmu_platform_ops *ops;
	void *ctx;
	struct tdp_format fmt;
	struct tdp_node *root;
	u64 root_hpa;
	struct tdp_node_page *node_pages; /* where the table descriptors live */
	u64 last_mapped_gpa;		  /* page of the last TDP_MAPPED fault, ~0 if none since */
	struct tdp_stats stats;
};

/* Allocates the root table; 0, or -1 without memory. ops are the shadow MMU's host ops. */
int tdp_init(struct tdp *t, const struct mmu_platform_ops *ops, void *ctx,
	     const struct tdp_format *fmt);
/* Frees every table. */
void tdp_destroy(struct tdp *t);

/* What the backend loads as the nested root (N_CR3, the EPT pointer's address). */
static inline u64 tdp_root_hpa(const struct tdp *t)
{
	return t->root_hpa;
}

/* A nested fault at gpa. */
enum tdp_result tdp_fault(struct tdp *t, u64 gpa);
/* Clears the leaves of [gfn, gfn + npages), all 4 KiB ones (a device slot's, about to go: the
 * caller flushes every vCPU's TLB before the frames are used elsewhere); how many were set. */
u64 tdp_unmap(struct tdp *t, u64 gfn, u64 npages);
/* Maps every slot up front; 0, or -1 without memory. */
int tdp_map_all(struct tdp *t);
/* The host-physical address gpa maps to, or false if it is not mapped (for tests, dumps). */
bool tdp_lookup(const struct tdp *t, u64 gpa, u64 *hpa);

#endif
