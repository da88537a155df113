/* SPDX-License-Identifier: GPL-2.0-only */
/* PV test guest: address spaces built and switched only through the lazy PV MMU path. */
/* Every entry of NSPACES spaces (their kernel half, tables and test pages) is written by
 * MMU_UPDATE batches and every CR3 load and INVLPG is an MMU_OP, so under Umbra no page-table
 * write is emulated: STATS' writes_emulated must not move during that phase (run with
 * audit=1, the shadow MMU is checked after every fault too). A plain store afterwards shows
 * the counter does count. */
#include "tests/pvguests/pvtest.h"

const char guest_name[] = GUEST_NAME;

#define NSPACES 4
#define NMAP 8
#define BIG 600 /* entries in one batch: more than UMBRA_MMU_BATCH_MAX */
#define BIG_VA (TEST_VA + 0x1000000ul)

static struct aspace kern, sp[NSPACES];
static ulong frames[NSPACES][NMAP];

/* The entry for va at level 1, tables above it made (through the queue) as needed. */
static uint64_t lazy_leaf(const struct aspace *as, uint64_t va)
{
	uint64_t table = as->root & ~(ulong)0xfff;
	for (int l = as->levels; l > 1; l--) {
		uint64_t e = table + pt_index(as, va, l) * as->bytes;
		uint64_t v = pv_pte_read(e, as->bytes);
		if (!(v & PTE_P)) {
			v = page_alloc() | table_flags(as, l);
			pv_set_pte(e, as->bytes, v);
		}
		table = v & PTE_ADDR;
	}
	return table + pt_index(as, va, 1) * as->bytes;
}

static void lazy_map(const struct aspace *as, uint64_t va, uint64_t pa)
{
	pv_set_pte(lazy_leaf(as, va), as->bytes, pa ? pa | PTE_P | PTE_W : 0);
}

static void end_batch(const char *what)
{
	EXPECT(what, pv_lazy_mmu_end(), 0);
}

/* A new space: the kernel's top-level entries for RAM, then NMAP test pages. */
static void build(struct aspace *as, int k)
{
	*as = kern;
	as->root = page_alloc();
	unsigned n = (unsigned)((ram_bytes + level_size(&kern, kern.levels) - 1) /
				level_size(&kern, kern.levels));
	pv_lazy_mmu_begin();
	for (unsigned i = 0; i < n; i++)
		pv_set_pte(as->root + i * as->bytes, as->bytes,
			   pte_get(&kern, (char *)kern.root + i * kern.bytes));
	for (int i = 0; i < NMAP; i++)
		lazy_map(as, TEST_VA + i * PAGE_SIZE, frames[k][i]);
	end_batch("build batch");
}

static void switch_to(const struct aspace *as)
{
	pv_lazy_mmu_begin();
	pv_write_cr3(as->root);
	end_batch("switch batch");
	EXPECT_TRUE("cr3 switched", read_cr3() == as->root);
}

static void check_space(int k, int shift, const char *what)
{
	for (int i = 0; i < NMAP; i++)
		expect_maps(TEST_VA + i * PAGE_SIZE, frames[(k + shift) % NSPACES][i], what);
	expect_maps(TEST_VA + NMAP * PAGE_SIZE, 0, what);
	pvt_cases += NMAP + 1;
}

static void pv_phase(void)
{
	for (int k = 0; k < NSPACES; k++)
		build(&sp[k], k);
	for (int round = 0; round < 3; round++)
		for (int k = 0; k < NSPACES; k++) {
			switch_to(&sp[k]);
			check_space(k, 0, "switched space");
		}
	/* Remap the current space's pages to the next space's frames, with INVLPGs. */
	struct aspace *as = &sp[NSPACES - 1];
	pv_lazy_mmu_begin();
	for (int i = 0; i < NMAP; i++) {
		lazy_map(as, TEST_VA + i * PAGE_SIZE, frames[0][i]);
		pv_invlpg(TEST_VA + i * PAGE_SIZE);
	}
	end_batch("remap batch");
	check_space(NSPACES - 1, 1, "remapped");
	/* Its neighbour is untouched. */
	switch_to(&sp[1]);
	check_space(1, 0, "neighbour after remap");

	/* More entries than one call takes: the queue flushes itself when full. */
	struct pv_lazy_stats s0 = pv_lazy_stats;
	pv_lazy_mmu_begin();
	for (int i = 0; i < BIG; i++)
		lazy_map(&sp[1], BIG_VA + i * PAGE_SIZE, frames[1][i % NMAP]);
	pv_flush_tlb();
	end_batch("big batch");
	EXPECT_TRUE("big batch flushed when full",
		    pv_lazy_stats.flushes_full > s0.flushes_full &&
			    pv_lazy_stats.update_calls - s0.update_calls == 2);
	static const int probe[] = { 0, 1, 511, 512, 513, BIG - 1 };
	for (unsigned i = 0; i < sizeof(probe) / sizeof(probe[0]); i++)
		expect_maps(BIG_VA + probe[i] * PAGE_SIZE, frames[1][probe[i] % NMAP], "big batch");
	pvt_cases += sizeof(probe) / sizeof(probe[0]);
	pv_lazy_mmu_begin();
	for (int i = 0; i < BIG; i++)
		lazy_map(&sp[1], BIG_VA + i * PAGE_SIZE, 0);
	pv_flush_tlb();
	end_batch("big unmap");
	for (unsigned i = 0; i < sizeof(probe) / sizeof(probe[0]); i++)
		expect_maps(BIG_VA + probe[i] * PAGE_SIZE, 0, "big unmap");
	pvt_cases += sizeof(probe) / sizeof(probe[0]);

	/* Unmap half of a space in a batch with a CR3 switch into it. */
	pv_lazy_mmu_begin();
	for (int i = 0; i < NMAP; i += 2)
		lazy_map(&sp[2], TEST_VA + i * PAGE_SIZE, 0);
	pv_write_cr3(sp[2].root);
	end_batch("unmap and switch");
	for (int i = 0; i < NMAP; i++)
		expect_maps(TEST_VA + i * PAGE_SIZE, i % 2 ? frames[2][i] : 0, "half unmapped");
	pvt_cases += NMAP;
	switch_to(&kern);
}

void test_main(void)
{
	as_init(&kern, GUEST_MODE);
	as_activate(&kern);
	pv_init();
	kprintf("pv-mmu: %s\n", pv_on_umbra ? "on Umbra: MMU_UPDATE/MMU_OP batches"
					    : "native: queue applied directly");
	for (int k = 0; k < NSPACES; k++)
		for (int i = 0; i < NMAP; i++) {
			frames[k][i] = page_alloc();
			frame_mark(frames[k][i]);
		}
	struct umbra_stats s0 = { 0 }, s1, s2;
	if (pv_on_umbra)
		s0 = stats_now();
	pv_phase();
	kprintf("lazy: %lu update calls (%lu entries), %lu op calls (%lu ops), %lu full flushes\n",
		pv_lazy_stats.update_calls, pv_lazy_stats.updates, pv_lazy_stats.op_calls,
		pv_lazy_stats.ops, pv_lazy_stats.flushes_full);
	if (!pv_on_umbra) {
		skip_note("writes_emulated checks");
		pvt_finish();
	}
	s1 = stats_now();
	kprintf("pv phase: writes_emulated +%llu, hypercalls +%llu, pf exits +%llu, root hits +%llu\n",
		(unsigned long long)(s1.mmu.writes_emulated - s0.mmu.writes_emulated),
		(unsigned long long)(s1.exits[UMBRA_EXIT_HYPERCALL] -
				     s0.exits[UMBRA_EXIT_HYPERCALL]),
		(unsigned long long)(s1.exits[UMBRA_EXIT_PAGE_FAULT] -
				     s0.exits[UMBRA_EXIT_PAGE_FAULT]),
		(unsigned long long)(s1.mmu.root_cache_hits - s0.mmu.root_cache_hits));
	EXPECT("no page-table write emulated in the PV phase",
	       s1.mmu.writes_emulated - s0.mmu.writes_emulated, 0);
	EXPECT("no INVLPG exits in the PV phase",
	       s1.exits[UMBRA_EXIT_INVLPG] - s0.exits[UMBRA_EXIT_INVLPG], 0);
	EXPECT_TRUE("the PV phase used hypercalls",
		    s1.exits[UMBRA_EXIT_HYPERCALL] - s0.exits[UMBRA_EXIT_HYPERCALL] >
			    (uint64_t)NSPACES * 3);

	/* Control: the same kind of write by a plain store to a shadowed leaf table traps: the
	 * table goes out of sync (mmu/sync.c; emulated when it cannot), and INVLPG makes the new
	 * entry seen. */
	switch_to(&sp[0]);
	void *e = pt_entry(&sp[0], TEST_VA, 1, 0);
	pte_set(&sp[0], e, frames[1][0] | PTE_P | PTE_W);
	invlpg(TEST_VA);
	expect_maps(TEST_VA, frames[1][0], "plain store");
	s2 = stats_now();
	EXPECT_TRUE("a plain store to a shadowed table traps (out of sync or emulated)",
		    s2.mmu.unsyncs > s1.mmu.unsyncs ||
			    s2.mmu.writes_emulated > s1.mmu.writes_emulated);

	/* MMU_UPDATE may map one of the guest's page tables writable; the mapping it gets is
	 * write-protected unless the table is out of sync: a store through it takes effect. */
	ulong pt = (ulong)e & ~(PAGE_SIZE - 1), alias = TEST_VA + 64 * PAGE_SIZE;
	pv_lazy_mmu_begin();
	lazy_map(&sp[0], alias, pt);
	pv_invlpg(alias);
	end_batch("alias batch");
	void *via = (char *)alias + ((ulong)e & (PAGE_SIZE - 1)) + sp[0].bytes;
	pte_set(&sp[0], via, frames[2][1] | PTE_P | PTE_W);
	pv_invlpg(TEST_VA + PAGE_SIZE);
	expect_maps(TEST_VA + PAGE_SIZE, frames[2][1], "entry written through a writable alias");
	pvt_cases++;
	struct umbra_stats s3 = stats_now();
	EXPECT_TRUE("the alias write was emulated or went to a table out of sync",
		    s3.mmu.writes_emulated > s2.mmu.writes_emulated ||
			    s3.mmu.unsyncs > s1.mmu.unsyncs);
	switch_to(&kern);
	pvt_finish();
}
