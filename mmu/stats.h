/* SPDX-License-Identifier: GPL-2.0-only */
/* Shadow MMU event counters (per VM, read with mmu_stats). */
#ifndef MMU_STATS_H
#define MMU_STATS_H

#include "lib/types.h"

struct mmu_stats {
	u64 faults_fixed;    /* shadow faults resolved by filling the shadow */
	u64 faults_guest;    /* faults reflected into the guest */
	u64 faults_emulate;  /* faults that need the write emulated */
	u64 pages_shadowed;  /* shadow pages created */
	u64 pages_zapped;    /* shadow pages zapped (all causes, including reclaim) */
	u64 pages_reclaimed; /* zapped to make room in the pool */
	u64 writes_emulated; /* calls of the write hook on a shadowed frame */
	u64 flood_zaps;
	u64 misaligned_zaps;
	u64 unshadowed; /* mmu_unshadow_gfn calls that zapped a shadowed frame */
	u64 root_hits;	/* CR3 loads whose whole root was found cached */
	u64 root_misses;
	u64 prefetched;	      /* leaves filled ahead of a fault (mmu/fault.c) */
	u64 unsyncs;	      /* guest leaf tables left writable at a write fault (mmu/sync.c) */
	u64 resyncs;	      /* out-of-sync tables brought back in sync */
	u64 rmap_desc_in_use; /* reverse-map descriptors currently allocated */
	u64 pages_in_use;     /* host pages held by the pool (tables, gfn arrays, caches) */
};

#endif
