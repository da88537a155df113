/* SPDX-License-Identifier: GPL-2.0-only */
/* The randomized differential test of the MMU (scenario 10), shared by the cmocka and -O2 drivers. */
#ifndef TESTS_MMU_FUZZ_H
#define TESTS_MMU_FUZZ_H

#include "lib/types.h"
#include "mmu/mmu.h"

struct fuzz_opts {
	u64 ops;
	u64 seed;
	u64 pool_pages; /* 0: default */
	unsigned vcpus; /* of the one guest, 1..4; 0: 2 */
	bool nocache;
	struct mmu_mutations mut; /* mutation knobs (scenario 11), given to the MMU */
	bool no_unsync;
	bool quiet;
	bool no_audit; /* differential comparison only */
	/* mmu_audit_incremental after each op (never a periodic full one) and mmu_audit at the
	 * end; with cross_check also mmu_audit after each op, and a problem the incremental audit
	 * missed counts as incremental_missed. */
	bool incremental, cross_check;
};

struct fuzz_result {
	u64 ops;	/* operations run */
	u64 mismatches; /* 0 or 1: the run stops at the first */
	u64 audit_errors;
	u64 incremental_missed;
	u64 fail_op; /* index of the failing operation */
	u64 shadow_faults, emulated, reclaimed, mode_changes, flood_zaps, misaligned_zaps,
		root_hits;
	u64 prefetched;	      /* leaves filled ahead of a fault */
	u64 unsyncs, resyncs; /* out-of-sync leaf tables (mmu/sync.c) */
	u64 stale_hits;	      /* accesses served from an older entry, as a TLB may */
	u64 tlb_hits;	      /* accesses served by a vCPU's modelled TLB */
	u64 tlb_checks;	      /* sweeps of a vCPU's TLB against the guest's tables */
	u64 shootdowns;	      /* guest IPI + INVLPG / flush on other vCPUs */
	u64 races;	      /* two vCPUs on one entry, then the first flushes */
	u64 batches;	      /* paravirtual update batches (MMU_UPDATE) */
	u64 audits;	      /* audits run (after each operation) */
	char msg[1024];
};

void fuzz_run(const struct fuzz_opts *o, struct fuzz_result *r);
/* Prints "mmu-fuzz: ops=N mismatches=M audit_errors=K seed=S" (and the replay line on failure). */
void fuzz_report(const struct fuzz_opts *o, const struct fuzz_result *r);

#endif
