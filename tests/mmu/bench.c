/* SPDX-License-Identifier: GPL-2.0-only */
/* MMU micro-benchmarks for callgrind: only the measured calls are collected (client requests). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>
#include "tests/mmu/guest.h"

#define PHYSMAP 0xc0000000ull
#define NPAGES 4096
#define NAS 8
#define AUDIT_TABLES 570

static struct harness h;
static struct g_frames f = { 0x200, 0x400 };

static u64 space(unsigned as)
{
	u64 cr3 = g_table(&h, &f) << 12, i;

	for (i = 0; i < (as ? 16 : NPAGES); i++)
		g_map(&h, &f, G_LONG, cr3, 0x40000000 + i * 0x1000,
		      ((0x100 + i % 0x100) << 12) | GP | GW | GU | GA, 1, GP | GW | GU);
	for (i = 0; i < 0x400; i++)
		g_map(&h, &f, G_LONG, cr3, PHYSMAP + i * 0x1000, (i << 12) | GP | GW, 1,
		      GP | GW | GU);
	return cr3;
}

static void fault(u64 gva, u32 ec, bool measure)
{
	struct mmu_outcome out;

	if (mmu_topup(&h.vcpu[0]) != MMU_OK)
		abort();
	if (measure)
		CALLGRIND_TOGGLE_COLLECT;
	mmu_page_fault(&h.vcpu[0], gva, ec, &out);
	if (measure)
		CALLGRIND_TOGGLE_COLLECT;
}

/* Does the shadow map gva (4-level root)? A CPU faults only where it does not. */
static bool mapped(u64 gva)
{
	u64 table = mmu_root_hpa(&h.vcpu[0]), e = 0;
	int level;

	for (level = 4; level >= 1; level--) {
		u64 *t = (u64 *)h_hpa_ptr(&h, table, false);

		e = t[(gva >> (12 + 9 * (level - 1))) & 511];
		if (!(e & 1))
			return false;
		table = e & 0x000ffffffffff000ull;
	}
	return true;
}

int main(int argc, char **argv)
{
	const char *phase = argc > 1 ? argv[1] : "fill";
	struct mmu_config cfg = { .pool_max_pages = 4096, .nocache = argc > 2 && atoi(argv[2]) };
	struct g_cfg c = { G_LONG, false, true, true, false, false };
	u64 cr3[NAS], i, n = 0;
	unsigned as;

	h_init(&h, &cfg, 1);
	h_add_slot(&h, 0, 0x400);
	h_add_slot(&h, 0x1000, 0x800); /* page tables of the audit phase */
	for (as = 0; as < NAS; as++)
		cr3[as] = space(as);
	g_enter(&h, 0, &c, cr3[0]);

	if (!strcmp(phase, "fill") || !strcmp(phase, "fillall")) {
		/* 4-level guest, user read faults on new pages (upper tables mostly cached): where
		 * the shadow does not map the page yet (fill: the faults a CPU takes, each of which
		 * may prefetch its neighbours), or on every page (fillall: the fault path alone). */
		for (i = 0; i < NPAGES; i++) {
			if (phase[4] || !mapped(0x40000000 + i * 0x1000)) {
				fault(0x40000000 + i * 0x1000, PFERR_U, true);
				n++;
			}
		}
		fprintf(stderr, "fill: %llu faults for %u pages\n", (unsigned long long)n, NPAGES);
	} else if (!strcmp(phase, "cr3")) {
		for (as = 0; as < NAS; as++)
			mmu_new_cr3(&h.vcpu[0], cr3[as]);
		for (i = 0; i < 4000; i++, n++) {
			CALLGRIND_TOGGLE_COLLECT;
			mmu_new_cr3(&h.vcpu[0], cr3[i % NAS]);
			CALLGRIND_TOGGLE_COLLECT;
		}
	} else if (!strcmp(phase, "write") || !strcmp(phase, "zap")) {
		bool zap = !strcmp(phase, "zap");
		u64 pt[8];

		/* Shadow 8 leaf tables with 64 mapped entries each. */
		for (i = 0; i < 8 * 512; i++)
			if (i % 512 < 64)
				fault(0x40000000 + i * 0x1000, PFERR_U, false);
		for (i = 0; i < 8; i++)
			pt[i] = g_entry_at(&h, G_LONG, cr3[0], 0x40000000 + i * 0x200000, 1) >> 12;
		for (i = 0; i < (zap ? 8 : 4000); i++, n++) {
			/* Aligned writes alternate between tables (no flood); a misaligned one zaps. */
			u64 gpa = (pt[i % 8] << 12) + ((i / 8) % 64) * 8 + (zap ? 4 : 0);

			CALLGRIND_TOGGLE_COLLECT;
			mmu_write(&h.vm, gpa, 8, (0x100ull << 12) | GP | GU);
			CALLGRIND_TOGGLE_COLLECT;
			if (!zap)
				fault(0x40000000 + (i % 8) * 0x200000 + ((i / 8) % 64) * 0x1000,
				      PFERR_U, false);
		}
	} else if (!strcmp(phase, "audit") || !strcmp(phase, "auditi")) {
		/* About the shadow of the perm64 guest: ~570 leaf tables of 64 mapped entries each.
		 * audit: the full audit; auditi: the incremental one after a PT write and refault
		 * (what most of perm64's faults are). */
		struct g_frames tf = { 0x1000, 0x1800 };
		u64 base = 0x8000000000ull, k;

		for (i = 0; i < AUDIT_TABLES; i++)
			for (k = 0; k < 64; k++)
				g_map(&h, &tf, G_LONG, cr3[0], base + i * 0x200000 + k * 0x1000,
				      ((0x100 + k) << 12) | GP | GW | GU | GA, 1, GP | GW | GU);
		mmu_new_cr3(&h.vcpu[0], cr3[0]);
		for (i = 0; i < AUDIT_TABLES; i++)
			for (k = 0; k < 64; k++)
				fault(base + i * 0x200000 + k * 0x1000, PFERR_U, false);
		h.vm.audit_full_every = 0;
		if (mmu_audit_incremental(&h.vm, NULL, 0))
			abort();
		for (i = 0; i < (phase[5] ? 4000 : 10); i++, n++) {
			u64 gva = base + (i % AUDIT_TABLES) * 0x200000 +
				  (i / AUDIT_TABLES % 64) * 0x1000;

			if (phase[5]) {
				mmu_write(&h.vm, g_entry_at(&h, G_LONG, cr3[0], gva, 1), 8,
					  ((0x100 + i / AUDIT_TABLES % 64) << 12) | GP | GW | GU |
						  GA);
				fault(gva, PFERR_U, false);
			}
			CALLGRIND_TOGGLE_COLLECT;
			if (phase[5] ? mmu_audit_incremental(&h.vm, NULL, 0)
				     : mmu_audit(&h.vm, NULL, 0))
				abort();
			CALLGRIND_TOGGLE_COLLECT;
		}
		fprintf(stderr, "audit: %llu shadow pages\n", (unsigned long long)h.vm.npages);
	} else if (!strcmp(phase, "switch")) {
		/* A context switch plus touching 16 pages: what caching buys (compare nocache). */
		for (i = 0; i < 400; i++, n++) {
			u64 k;

			CALLGRIND_TOGGLE_COLLECT;
			mmu_new_cr3(&h.vcpu[0], cr3[1 + i % (NAS - 1)]);
			for (k = 0; k < 16; k++) {
				struct h_access a =
					acc_of(0x40000000 + k * 0x1000, ACC_READ, true, 0);
				struct h_result r;

				h_cpu_access(&h, 0, &a, &r);
			}
			CALLGRIND_TOGGLE_COLLECT;
		}
	}
	printf("ops=%llu\n", (unsigned long long)n);
	h_fini(&h);
	return 0;
}
