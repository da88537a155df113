/* SPDX-License-Identifier: GPL-2.0-only */
/* Benchmark guest: context switches, a fork-like page-table rewrite, page touches, null calls,
 * CR3 loads and flushes by MOV CR3 or by their PV calls. */
/* Prints one "BENCH ..." line per measurement; tests/bench/run.sh collects them per mode. The
 * same image runs natively (QEMU -kernel) and under Umbra, where it adds Umbra's exit counts. */
#include "tests/guests/lib/guest.h"

const char guest_name[] = GUEST_NAME;

#define MAX_P 32
#define MAX_W 256

static struct aspace kernel, spaces[MAX_P];
static int smoke;

/* Exits the workload caused and MMU faults (shadow fills, or nested fills with mmu=tdp) so far;
 * natively both stay 0. Exits for host interrupts (the slice timer, kicks) are left out: they
 * come with elapsed time, not with the work, so counting them would make the exact counts noisy. */
struct counts {
	uint64_t exits, faults;
	unsigned snap;
};

/* STATS calls so far: a BENCH line names its first measured one (snap=), so tests/bench/
 * insns.py finds the workload's exits in the instruction-counting plugin's trace, which marks
 * each STATS call. The measured pairs of snapshots are consecutive (pairs=). */
static unsigned snaps;

static struct counts snapshot(void)
{
	struct umbra_stats st;
	if (!on_umbra || umbra_stats(&st))
		return (struct counts){ 0, 0, 0 };
	unsigned snap = snaps++;
	uint64_t timed =
		st.exits[UMBRA_EXIT_INTR] + st.exits[UMBRA_EXIT_PREEMPT] + st.exits[UMBRA_EXIT_NMI];
	return (struct counts){ st.exits_total - timed,
				st.mmu.faults_fixed + st.mmu.nested_faults_filled, snap };
}

/* Exits between two snapshots, less the second statistics call's own exit. */
static uint64_t exits_between(struct counts a, struct counts b)
{
	return on_umbra ? b.exits - a.exits - 1 : 0;
}

/* The guest cycles of the CR3 load that follows each forkflood rewrite, summed: 0 elsewhere. */
static uint64_t then_cr3_cycles;

/* Per-operation figures in thousandths, so the line stays integer-only. */
static void report(const char *what, const char *params, uint64_t ops, uint64_t cycles,
		   uint64_t exits, uint64_t faults, unsigned snap, unsigned pairs)
{
	kprintf("BENCH workload=%s %s ops=%llu cycles_per_op=%llu exits_per_op_x1000=%llu "
		"faults_per_op_x1000=%llu\n",
		what, params, (unsigned long long)ops, (unsigned long long)(cycles / ops),
		(unsigned long long)(exits * 1000 / ops),
		(unsigned long long)(faults * 1000 / ops));
	/* A line of its own: Umbra's console cuts lines at 128 characters. */
	if (then_cr3_cycles)
		kprintf("BENCH_SNAPS snap=%u pairs=%u then_cr3_cycles_per_op=%llu\n", snap, pairs,
			(unsigned long long)((cycles + then_cr3_cycles) / ops));
	else
		kprintf("BENCH_SNAPS snap=%u pairs=%u\n", snap, pairs);
	then_cr3_cycles = 0;
}

static int has_word(const char *s, const char *w)
{
	for (; *s; s++) {
		int i = 0;
		while (w[i] && s[i] == w[i])
			i++;
		if (!w[i])
			return 1;
	}
	return 0;
}

static void touch(int w)
{
	for (int p = 0; p < w; p++) {
		volatile uint32_t *m = (volatile uint32_t *)(TEST_VA + (ulong)p * PAGE_SIZE);
		m[1] = m[0] + 1;
	}
}

/* P address spaces, each touching W pages of its own per turn. */
static void ctxswitch(int nspaces, int w, int switches)
{
	for (int s = 0; s < nspaces; s++) {
		as_clone_kernel(&spaces[s], &kernel);
		for (int p = 0; p < w; p++)
			map_page(&spaces[s], TEST_VA + (ulong)p * PAGE_SIZE, page_alloc(), 1,
				 PTE_P | PTE_W);
	}
	/* Warm-up: one full round builds (and, cached, keeps) every shadow. */
	for (int s = 0; s < nspaces; s++) {
		write_cr3(spaces[s].root);
		touch(w);
	}
	struct counts a = snapshot();
	uint64_t t0 = read_tsc();
	for (int i = 0; i < switches; i++) {
		write_cr3(spaces[i % nspaces].root);
		touch(w);
	}
	uint64_t t1 = read_tsc();
	struct counts b = snapshot();
	write_cr3(kernel.root);
	static const char *const params[] = { "P=8 W=16", "P=8 W=64", "P=8 W=256", "P=2 W=64",
					      "P=32 W=64" };
	int k = nspaces == 8 ? (w == 16 ? 0 : w == 64 ? 1 : 2) : nspaces == 2 ? 3 : 4;
	report("ctxswitch", params[k], (uint64_t)switches, t1 - t0, exits_between(a, b),
	       b.faults - a.faults, a.snap, 1);
}

/* Page-aligned, as a guest's batch buffer would be: its 8 KiB are two pages to translate. */
static struct umbra_mmu_update batch[512] __attribute__((aligned(4096)));

/* Rewrite one full page table R times, as fork does: by plain stores (the MMU's flood
 * detection stops emulating after a few) or as one PV MMU_UPDATE batch. The rewrite is the
 * operation; the CR3 load that follows (the flush after a fork's rewrite) is timed too, since
 * the stores leave their table out of sync and the load then does their shadow work
 * (then_cr3_cycles_per_op). Touching the pages again re-shadows the table for the next round. */
static void forkflood(int rounds, int pv)
{
	struct aspace as;
	as_clone_kernel(&as, &kernel);
	ulong frame = page_alloc();
	void *first = map_page(&as, TEST_VA, frame, 1, PTE_P | PTE_W);
	int n = (int)(PAGE_SIZE / (ulong)as.bytes);
	for (int i = 1; i < n; i++)
		map_page(&as, TEST_VA + (ulong)i * PAGE_SIZE, frame, 1, PTE_P | PTE_W);
	write_cr3(as.root);
	touch(n);
	uint8_t *pt = (uint8_t *)((ulong)first & ~(PAGE_SIZE - 1));
	uint64_t cycles = 0, exits = 0, faults = 0;
	unsigned snap0 = 0;
	/* Round -1 warms up: the batch buffer and the stacks get their shadow entries. */
	for (int r = -1; r < rounds; r++) {
		uint64_t val = frame | PTE_P | PTE_W | (r & 1 ? 0 : PTE_A);
		struct counts a = snapshot();
		uint64_t t0 = read_tsc();
		if (pv) {
			for (int i = 0; i < n; i++)
				batch[i] =
					(struct umbra_mmu_update){ (ulong)pt + (ulong)i * as.bytes,
								   val };
			long done = umbra_hypercall(UMBRA_HC_MMU_UPDATE, (ulong)batch, (ulong)n);
			CHECK(done == n, "MMU_UPDATE applied %ld of %d", done, n);
		} else {
			for (int i = 0; i < n; i++)
				pte_set(&as, pt + i * as.bytes, val);
		}
		uint64_t t1 = read_tsc();
		struct counts b = snapshot();
		uint64_t t2 = read_tsc();
		write_cr3(as.root); /* the flush that follows a fork's rewrite: not the rewrite's */
		uint64_t t3 = read_tsc();
		if (r == 0)
			snap0 = a.snap;
		if (r >= 0) {
			cycles += t1 - t0;
			then_cr3_cycles += t3 - t2;
			exits += exits_between(a, b);
			faults += b.faults - a.faults;
		}
		touch(n);
	}
	write_cr3(kernel.root);
	report("forkflood", pv ? "entries=512 via=pv" : "entries=512 via=store", (uint64_t)rounds,
	       cycles, exits, faults, snap0, (unsigned)rounds);
}

/* Fault in N fresh pages. */
static void touchpages(int n)
{
	struct aspace as;
	as_clone_kernel(&as, &kernel);
	for (int i = 0; i < n; i++)
		map_page(&as, TEST_VA + (ulong)i * PAGE_SIZE, page_alloc(), 1, PTE_P | PTE_W);
	write_cr3(as.root);
	struct counts a = snapshot();
	uint64_t t0 = read_tsc();
	touch(n);
	uint64_t t1 = read_tsc();
	struct counts b = snapshot();
	write_cr3(kernel.root);
	report("touch", "pages=fresh", (uint64_t)n, t1 - t0, exits_between(a, b),
	       b.faults - a.faults, a.snap, 1);
}

static void nullcall(int calls)
{
	if (!on_umbra) {
		skip_note("null hypercall (no hypervisor)");
		return;
	}
	struct counts a = snapshot();
	uint64_t t0 = read_tsc();
	for (int i = 0; i < calls; i++)
		umbra_hypercall(UMBRA_HC_VERSION, 0, 0);
	uint64_t t1 = read_tsc();
	struct counts b = snapshot();
	report("nullcall", "call=version", (uint64_t)calls, t1 - t0, exits_between(a, b),
	       b.faults - a.faults, a.snap, 1);
}

/* A CR3 load between two warm address spaces, and a full flush (a reload of the same CR3), each
 * by MOV CR3 or by the PV call that replaces it (MMU_OP NEW_CR3, MMU_OP FLUSH_ALL). */
static void cr3calls(int calls, int pv, int flush)
{
	static struct umbra_mmu_op op;
	struct aspace *as = flush ? &spaces[0] : spaces;

	if (pv && !on_umbra)
		return;
	/* Two calls warm up: both roots are cached after them. */
	struct counts a = { 0, 0, 0 };
	uint64_t t0 = 0;
	for (int i = -2; i < calls; i++) {
		if (i == 0) {
			a = snapshot();
			t0 = read_tsc();
		}
		ulong root = as[flush ? 0 : i & 1].root;
		if (!pv) {
			write_cr3(root);
			continue;
		}
		op = flush ? (struct umbra_mmu_op){ UMBRA_MMUOP_FLUSH_ALL, 0, 0 }
			   : (struct umbra_mmu_op){ UMBRA_MMUOP_NEW_CR3, 0, root };
		long done = umbra_hypercall(UMBRA_HC_MMU_OP, (ulong)&op, 1);
		CHECK(done == 1, "MMU_OP applied %ld of 1", done);
	}
	uint64_t t1 = read_tsc();
	struct counts b = snapshot();
	write_cr3(kernel.root);
	report(flush ? "flush" : "cr3load", pv ? "via=pv" : "via=mov", (uint64_t)calls, t1 - t0,
	       exits_between(a, b), b.faults - a.faults, a.snap, 1);
}

void test_main(void)
{
	static const int ws[] = { 16, 64, 256 }, ps[] = { 2, 8, 32 };
	smoke = has_word(boot_cmdline, "sizes=smoke");
	int sw = smoke ? 40 : 400;

	as_init(&kernel, GUEST_MODE);
	as_activate(&kernel);
	for (unsigned i = 0; i < 3; i++)
		if (!smoke || ws[i] == 16)
			ctxswitch(8, ws[i], sw);
	/* P=8 W=64 is already in the W sweep. */
	for (unsigned i = 0; i < 3; i++)
		if (ps[i] != 8 && (!smoke || ps[i] == 2))
			ctxswitch(ps[i], 64, sw);
	forkflood(smoke ? 4 : 40, 0);
	if (on_umbra)
		forkflood(smoke ? 4 : 40, 1);
	touchpages(smoke ? 64 : 1024);
	nullcall(smoke ? 100 : 2000);
	/* spaces[0] and [1] are still the last ctxswitch's, their shadows cached. */
	for (int pv = 0; pv < 2; pv++)
		for (int flush = 0; flush < 2; flush++)
			cr3calls(smoke ? 100 : 2000, pv, flush);
}
