/* SPDX-License-Identifier: GPL-2.0-only */
/* PV test guest: every hypercall with good and bad arguments; natively, pv_ops' native path. */
/* Each bad call must return its documented error and change nothing: the buffers it names, the
 * entry it would write, CR3, the console (a marker the suite looks for in the log), the
 * timer. The same binary boots without Umbra and then checks only what pv_ops does. */
#include "tests/pvguests/pvtest.h"

const char guest_name[] = GUEST_NAME;
void user_tests(void);

#define MB2_BOOT_MAGIC 0x36d76289u
extern ulong boot_magic; /* entry.S: EAX at entry */

#define PTE_VA (TEST_VA + 3 * PAGE_SIZE) /* the page whose entry the MMU cases rewrite */
#define NPAGES 8
#define CROSS(n) (USER_PAGE + PAGE_SIZE - (n)) /* n mapped bytes, then the hole */

static ulong pte_pa;   /* guest-physical address of PTE_VA's entry */
static unsigned bytes; /* entry size */
static ulong frames[NPAGES];

/* The entry without A and D, which the CPU (or Umbra for it) sets on use. */
static uint64_t entry(void)
{
	return pv_pte_read(pte_pa, bytes) & ~(PTE_A | PTE_D);
}
static uint64_t pte_of(ulong pa)
{
	return pa | PTE_P | PTE_W;
}

/* ---- native or Umbra: the pv_ops table ---- */
static void functional_part(void)
{
	static const char msg[] = "pv console: hello through pv_ops\n";
	EXPECT("pv_ops console_write", pv_ops.console_write(msg, sizeof(msg) - 1), sizeof(msg) - 1);

	uint64_t t0 = pv_ops.time_ns();
	for (volatile int i = 0; i < 200000; i++)
		;
	uint64_t t1 = pv_ops.time_ns();
	EXPECT_TRUE("tsc_hz plausible", pv_tsc_hz > 1000000ull && pv_tsc_hz < 100000000000ull);
	EXPECT_TRUE("time advances", t1 > t0);
	kprintf("time: tsc_hz=%llu, a busy loop took %llu ns\n", (unsigned long long)pv_tsc_hz,
		(unsigned long long)(t1 - t0));

	for (int i = 0; i < NPAGES; i++) {
		frames[i] = page_alloc();
		frame_mark(frames[i]);
	}
	/* One at a time: set_pte + invlpg, then flush_tlb, then unmap. */
	EXPECT("set_pte", pv_set_pte(pte_pa, bytes, pte_of(frames[0])), 0);
	EXPECT("invlpg", pv_invlpg(PTE_VA), 0);
	expect_maps(PTE_VA, frames[0], "after set_pte+invlpg");
	EXPECT("set_pte 2", pv_set_pte(pte_pa, bytes, pte_of(frames[1])), 0);
	EXPECT("flush_tlb", pv_flush_tlb(), 0);
	expect_maps(PTE_VA, frames[1], "after set_pte+flush_tlb");
	EXPECT("set_pte 0", pv_set_pte(pte_pa, bytes, 0), 0);
	EXPECT("invlpg 2", pv_invlpg(PTE_VA), 0);
	expect_maps(PTE_VA, 0, "after unmapping");
	pvt_cases += 3;

	/* A lazy batch: NPAGES entries, their INVLPGs and a CR3 reload, in one call each. */
	struct pv_lazy_stats s0 = pv_lazy_stats;
	pv_lazy_mmu_begin();
	for (int i = 0; i < NPAGES; i++) {
		pv_set_pte(pte_pa + i * bytes, bytes, pte_of(frames[NPAGES - 1 - i]));
		pv_invlpg(PTE_VA + i * PAGE_SIZE);
	}
	pv_write_cr3(read_cr3());
	EXPECT_TRUE("queued, not yet written", pte_get(&pvt_as, (void *)pte_pa) == 0);
	EXPECT_TRUE("pv_pte_read sees the queue", entry() == pte_of(frames[NPAGES - 1]));
	EXPECT("lazy end", pv_lazy_mmu_end(), 0);
	EXPECT("one update call", pv_lazy_stats.update_calls - s0.update_calls, 1);
	EXPECT("one op call", pv_lazy_stats.op_calls - s0.op_calls, 1);
	EXPECT("all updates in it", pv_lazy_stats.updates - s0.updates, NPAGES);
	EXPECT("all ops in it", pv_lazy_stats.ops - s0.ops, NPAGES + 1);
	for (int i = 0; i < NPAGES; i++)
		expect_maps(PTE_VA + i * PAGE_SIZE, frames[NPAGES - 1 - i], "after a lazy batch");
	pvt_cases += NPAGES;
	/* And unmapped again in a second batch. */
	pv_lazy_mmu_begin();
	for (int i = 0; i < NPAGES; i++)
		pv_set_pte(pte_pa + i * bytes, bytes, 0);
	pv_flush_tlb();
	EXPECT("lazy unmap", pv_lazy_mmu_end(), 0);
	for (int i = 0; i < NPAGES; i++)
		expect_maps(PTE_VA + i * PAGE_SIZE, 0, "after a lazy unmap");
	pvt_cases += NPAGES;
}

/* ---- Umbra only ---- */
static char buf[256];

static void fill(void *p, ulong n, uint8_t v)
{
	for (ulong i = 0; i < n; i++)
		((volatile uint8_t *)p)[i] = v;
}

static int filled(const void *p, ulong n, uint8_t v)
{
	for (ulong i = 0; i < n; i++)
		if (((const volatile uint8_t *)p)[i] != v)
			return 0;
	return 1;
}

static void unknown_numbers(void)
{
	static const ulong nrs[] = {
		0,
		UMBRA_HC_COUNT,
		0x7fffffff,
		0xffffffffu,
		~0ul,
#ifdef __x86_64__
		(1ul << 32) | UMBRA_HC_VERSION, /* all 64 bits count */
#endif
	};
	const unsigned n = sizeof(nrs) / sizeof(nrs[0]);
	ulong faults = fault_count;
	for (int insn = PV_VMCALL; insn <= PV_VMMCALL; insn++) {
		struct umbra_stats s0 = stats_now();
		for (unsigned i = 0; i < n; i++)
			EXPECT("unknown number -> ENOSYS",
			       pv_hypercall_insn(insn, nrs[i], 1, 2, 3, 4), E(ENOSYS));
		EXPECT("version by either insn",
		       pv_hypercall_insn(insn, UMBRA_HC_VERSION, 0, 0, 0, 0), UMBRA_ABI_VERSION);
		EXPECT("yield by either insn", pv_hypercall_insn(insn, UMBRA_HC_YIELD, 0, 0, 0, 0),
		       0);
		EXPECT("console by either insn",
		       pv_hypercall_insn(insn, UMBRA_HC_CONSOLE_WRITE, (ulong) "pv: insn ok\n", 12,
					 0, 0),
		       12);
		/* The foreign instruction is a hypercall too, reached through Umbra's #UD intercept. */
		struct umbra_stats s1 = stats_now();
		EXPECT("each a hypercall",
		       s1.exits[UMBRA_EXIT_HYPERCALL] - s0.exits[UMBRA_EXIT_HYPERCALL], n + 4);
		EXPECT(insn == (int)pv_insn ? "native insn: no #UD exits"
					    : "foreign insn: one #UD exit each",
		       s1.exits[UMBRA_EXIT_EXCEPTION] - s0.exits[UMBRA_EXIT_EXCEPTION],
		       insn == (int)pv_insn ? 0 : n + 3);
	}
	EXPECT("no #UD reached the guest", fault_count - faults, 0);
}

static void console_cases(void)
{
	char *cross = (char *)CROSS(8);
	/* Bytes that must never reach the log: the suite fails the run if it sees them. */
	for (int i = 0; i < 8; i++)
		cross[i] = "LEAKLEAK"[i];
	struct umbra_stats s0 = stats_now();
	EXPECT("console NULL", HC(CONSOLE_WRITE, 0, 8, 0, 0), E(EFAULT));
	EXPECT("console unmapped", HC(CONSOLE_WRITE, HOLE, 8, 0, 0), E(EFAULT));
	EXPECT("console into unmapped", HC(CONSOLE_WRITE, cross, 16, 0, 0), E(EFAULT));
	EXPECT("console 4097", HC(CONSOLE_WRITE, cross, UMBRA_CONSOLE_MAX + 1, 0, 0), E(E2BIG));
	EXPECT("console ~0", HC(CONSOLE_WRITE, cross, ~0ul, 0, 0), E(E2BIG));
	EXPECT("console NULL, 0", HC(CONSOLE_WRITE, 0, 0, 0, 0), 0);
	struct umbra_stats s1 = stats_now();
	EXPECT("exactly those hypercalls",
	       s1.exits[UMBRA_EXIT_HYPERCALL] - s0.exits[UMBRA_EXIT_HYPERCALL], 7);
	EXPECT("no port output meanwhile", s1.exits[UMBRA_EXIT_IO] - s0.exits[UMBRA_EXIT_IO], 0);
	EXPECT_TRUE("buffer unchanged", cross[0] == 'L' && cross[7] == 'K');
	fill(cross, 8, '-');
	/* A good write across a page boundary (the last bytes of the first page). */
	static char two[2 * PAGE_SIZE] __attribute__((aligned(4096)));
	char *p = two + PAGE_SIZE - 14;
	const char *m = "pv: across pages ok\n";
	for (int i = 0; m[i]; i++)
		p[i] = m[i];
	EXPECT("console across pages", HC(CONSOLE_WRITE, p, 20, 0, 0), 20);

	fill(buf, sizeof(buf), 0x77);
	long r = HC(CONSOLE_READ, buf, 16, 0, 0);
	EXPECT_TRUE("console_read good", r >= 0 && r <= 16);
	EXPECT_TRUE("console_read left the rest",
		    filled(buf + (r > 0 ? r : 0), 16 - (r > 0 ? r : 0), 0x77));
	EXPECT("console_read NULL", HC(CONSOLE_READ, 0, 16, 0, 0), E(EFAULT));
	EXPECT("console_read unmapped", HC(CONSOLE_READ, HOLE, 16, 0, 0), E(EFAULT));
	EXPECT("console_read into unmapped", HC(CONSOLE_READ, CROSS(8), 16, 0, 0), E(EFAULT));
	EXPECT("console_read 4097", HC(CONSOLE_READ, buf, UMBRA_CONSOLE_MAX + 1, 0, 0), E(E2BIG));
	EXPECT("console_read NULL, 0", HC(CONSOLE_READ, 0, 0, 0, 0), 0);
	EXPECT_TRUE("crossing buffer unchanged", filled(cross, 8, '-'));
}

static void struct_cases(void)
{
	static struct umbra_stats st;
	uint8_t *cross = (uint8_t *)CROSS(16);

	fill(&st, sizeof(st), 0xcc);
	EXPECT("stats", HC(STATS, &st, sizeof(st), 0, 0), sizeof(st));
	EXPECT_TRUE("stats filled", st.size == sizeof(st) && st.reasons == UMBRA_EXIT_REASONS &&
					    st.exits_total >= st.exits[UMBRA_EXIT_HYPERCALL] &&
					    st.exits[UMBRA_EXIT_HYPERCALL] > 0);
	fill(&st, sizeof(st), 0xcc);
	EXPECT("stats 8 bytes", HC(STATS, &st, 8, 0, 0), 8);
	EXPECT_TRUE("stats 8: only 8 written",
		    st.size == 8 && filled((char *)&st + 8, sizeof(st) - 8, 0xcc));
	EXPECT("stats huge size is clamped", HC(STATS, &st, 0x7fffffff, 0, 0), sizeof(st));
	fill(&st, sizeof(st), 0xcc);
	EXPECT("stats 7 bytes", HC(STATS, &st, 7, 0, 0), E(EINVAL));
	EXPECT("stats NULL", HC(STATS, 0, sizeof(st), 0, 0), E(EFAULT));
	EXPECT("stats unmapped", HC(STATS, HOLE, sizeof(st), 0, 0), E(EFAULT));
	fill(cross, 16, 0xcc);
	EXPECT("stats into unmapped", HC(STATS, cross, sizeof(st), 0, 0), E(EFAULT));
	EXPECT_TRUE("stats buffers unchanged",
		    filled(&st, sizeof(st), 0xcc) && filled(cross, 16, 0xcc));

	struct umbra_time t = { 0, 0 }, t2 = { 0, 0 };
	EXPECT("time", HC(TIME, &t, 0, 0, 0), 0);
	EXPECT("time again", HC(TIME, &t2, 0, 0, 0), 0);
	EXPECT_TRUE("time: hz and monotonic", t.tsc_hz == pv_tsc_hz &&
						      t2.monotonic_ns >= t.monotonic_ns &&
						      t.monotonic_ns > 0);
	EXPECT("time NULL", HC(TIME, 0, 0, 0, 0), E(EFAULT));
	EXPECT("time unmapped", HC(TIME, HOLE, 0, 0, 0), E(EFAULT));
	EXPECT("time into unmapped", HC(TIME, cross + 8, 0, 0, 0), E(EFAULT));
	EXPECT_TRUE("time buffer unchanged", filled(cross, 16, 0xcc));

	struct umbra_vcpu_info vi;
	fill(&vi, sizeof(vi), 0);
	EXPECT("vcpu_info", HC(VCPU_INFO, &vi, 0, 0, 0), 0);
	EXPECT_TRUE("vcpu_info fields", vi.nr_vcpus == 1 && vi.vcpu_id == 0 &&
						vi.guest_id < vi.nr_guests && vi.name[0] &&
						vi.name[31] == 0);
	EXPECT("vcpu_info NULL", HC(VCPU_INFO, 0, 0, 0, 0), E(EFAULT));
	EXPECT("vcpu_info into unmapped", HC(VCPU_INFO, cross, 0, 0, 0), E(EFAULT));
	EXPECT_TRUE("vcpu_info buffer unchanged", filled(cross, 16, 0xcc));
	EXPECT("version", HC(VERSION, 0, 0, 0, 0), UMBRA_ABI_VERSION);
	EXPECT("yield", HC(YIELD, 0, 0, 0, 0), 0);
}

static void timer_cases(void)
{
	const uint64_t ms = 1000000;
	uint64_t t0, t1;

	/* The interrupt arrives on the vector registered, through HLT. */
	EXPECT("timer_set B", HC(TIMER_SET, VEC_B, 5 * ms, 0, 0), 0);
	asm volatile("sti; hlt; cli" : : : "memory");
	EXPECT_TRUE("timer interrupt on vector B", irq_count_b == 1 && irq_count_a == 0);
	/* And through pv_ops.halt. */
	EXPECT("timer_set A", HC(TIMER_SET, VEC_A, 5 * ms, 0, 0), 0);
	irq_on();
	pv_ops.halt();
	irq_off();
	EXPECT_TRUE("timer interrupt on vector A (pv halt)", irq_count_a == 1 && irq_count_b == 1);

	t0 = time_now_ns();
	EXPECT("block times out", HC(BLOCK, 3 * ms, 0, 0, 0), 0);
	t1 = time_now_ns();
	EXPECT_TRUE("block waited its timeout", t1 - t0 >= 3 * ms);
	kprintf("block 3 ms took %llu us\n", (unsigned long long)((t1 - t0) / 1000));

	/* The timer fires first: BLOCK says so at once; the interrupt waits for IF. */
	/* t0 before the timer is set: the event can come no sooner than 2 ms after it. */
	t0 = time_now_ns();
	EXPECT("timer_set A 2 ms", HC(TIMER_SET, VEC_A, 2 * ms, 0, 0), 0);
	EXPECT("block ends at the event", HC(BLOCK, 1000 * ms, 0, 0, 0), 1);
	t1 = time_now_ns();
	EXPECT_TRUE("event came before the timeout", t1 - t0 < 500 * ms && t1 - t0 >= 2 * ms);
	if (t1 - t0 >= 500 * ms || t1 - t0 < 2 * ms)
		kprintf("block with a 2 ms timer took %llu us\n",
			(unsigned long long)((t1 - t0) / 1000));
	EXPECT("block with the event pending", HC(BLOCK, 1000 * ms, 0, 0, 0), 1);
	EXPECT_TRUE("not delivered with IF=0", irq_count_a == 1);
	irq_on();
	for (int i = 0; i < 100000 && irq_count_a == 1; i++)
		asm volatile("pause");
	irq_off();
	EXPECT_TRUE("delivered once IF=1", irq_count_a == 2);

	/* Bad timers arm nothing. */
	EXPECT("timer vector 31", HC(TIMER_SET, 31, ms, 0, 0), E(EINVAL));
	EXPECT("timer vector 256", HC(TIMER_SET, 256, ms, 0, 0), E(EINVAL));
	uint64_t too_long = UMBRA_TIMER_MAX_NS + 1;
	EXPECT("timer too long",
	       HC(TIMER_SET, VEC_A, (uint32_t)too_long, (uint32_t)(too_long >> 32), 0), E(EINVAL));
	EXPECT("block too long", HC(BLOCK, (uint32_t)too_long, (uint32_t)(too_long >> 32), 0, 0),
	       E(EINVAL));
	EXPECT("block: nothing was armed", HC(BLOCK, 5 * ms, 0, 0, 0), 0);
	/* Cancelled. */
	EXPECT("timer_set A again", HC(TIMER_SET, VEC_A, 2 * ms, 0, 0), 0);
	EXPECT("timer cancel", HC(TIMER_SET, 0, 0, 0, 0), 0);
	EXPECT("block: cancelled timer stays quiet", HC(BLOCK, 5 * ms, 0, 0, 0), 0);
	irq_on();
	for (volatile int i = 0; i < 10000; i++)
		;
	irq_off();
	EXPECT_TRUE("no stray interrupts", irq_count_a == 2 && irq_count_b == 1);
}

/* An MMU call that must fail: the entry and PTE_VA's mapping stay as they were. */
static void mmu_bad(const char *what, long got, long want, ulong mapped)
{
	uint64_t before = pte_of(mapped);
	EXPECT(what, got, want);
	EXPECT_TRUE("entry unchanged", entry() == before);
	expect_maps(PTE_VA, mapped, what);
	pvt_cases++;
}

static void mmu_cases(void)
{
	struct umbra_mmu_update u[3];
	struct umbra_mmu_op o[3];
	ulong a = frames[0], b = frames[1];
	uint64_t beyond = ram_bytes; /* first address outside guest RAM */

	u[0] = (struct umbra_mmu_update){ pte_pa, pte_of(a) };
	o[0] = (struct umbra_mmu_op){ UMBRA_MMUOP_INVLPG, 0, PTE_VA };
	EXPECT("mmu_update one", HC(MMU_UPDATE, u, 1, 0, 0), 1);
	EXPECT("mmu_op invlpg", HC(MMU_OP, o, 1, 0, 0), 1);
	expect_maps(PTE_VA, a, "mmu_update");
	EXPECT("mmu_update count 0", HC(MMU_UPDATE, 0, 0, 0, 0), 0);

	u[0].val = pte_of(b);
	mmu_bad("mmu_update NULL", HC(MMU_UPDATE, 0, 1, 0, 0), E(EFAULT), a);
	mmu_bad("mmu_update unmapped", HC(MMU_UPDATE, HOLE, 1, 0, 0), E(EFAULT), a);
	struct umbra_mmu_update *x = (void *)CROSS(8);
	x->ptr = pte_pa;
	mmu_bad("mmu_update into unmapped", HC(MMU_UPDATE, x, 1, 0, 0), E(EFAULT), a);
	mmu_bad("mmu_update 513", HC(MMU_UPDATE, u, UMBRA_MMU_BATCH_MAX + 1, 0, 0), E(E2BIG), a);
	mmu_bad("mmu_update ~0", HC(MMU_UPDATE, u, ~0ul, 0, 0), E(E2BIG), a);
	u[0].ptr = pte_pa + 2;
	mmu_bad("mmu_update misaligned +2", HC(MMU_UPDATE, u, 1, 0, 0), E(EINVAL), a);
	u[0].ptr = pte_pa + bytes / 2;
	mmu_bad("mmu_update misaligned half", HC(MMU_UPDATE, u, 1, 0, 0), E(EINVAL), a);
	u[0].ptr = beyond;
	mmu_bad("mmu_update ptr beyond RAM", HC(MMU_UPDATE, u, 1, 0, 0), E(EFAULT), a);
	u[0].ptr = 0xfffff000u;
	mmu_bad("mmu_update ptr at 4G-4K", HC(MMU_UPDATE, u, 1, 0, 0), E(EFAULT), a);
	u[0] = (struct umbra_mmu_update){ pte_pa, beyond | PTE_P | PTE_W };
	mmu_bad("mmu_update val beyond RAM", HC(MMU_UPDATE, u, 1, 0, 0), E(EFAULT), a);
	if (bytes == 8) {
		u[0].val = (1ull << 40) | PTE_P;
		mmu_bad("mmu_update val at 1 TiB", HC(MMU_UPDATE, u, 1, 0, 0), E(EFAULT), a);
	} else {
		u[0].val = (1ull << 32) | pte_of(b);
		mmu_bad("mmu_update val above 32 bits", HC(MMU_UPDATE, u, 1, 0, 0), E(EINVAL), a);
	}
	/* Validated as a whole: a good record before a bad one is not applied either. */
	u[0] = (struct umbra_mmu_update){ pte_pa, pte_of(b) };
	u[1] = (struct umbra_mmu_update){ pte_pa + 1, pte_of(b) };
	mmu_bad("mmu_update good then misaligned", HC(MMU_UPDATE, u, 2, 0, 0), E(EINVAL), a);
	u[1] = (struct umbra_mmu_update){ beyond, 0 };
	mmu_bad("mmu_update good then beyond RAM", HC(MMU_UPDATE, u, 2, 0, 0), E(EFAULT), a);
	/* One table, aligned: the check's OR-and-AND fast path, which must fall back and fail. */
	u[1] = (struct umbra_mmu_update){ pte_pa, beyond | PTE_P };
	mmu_bad("mmu_update one table, a frame beyond RAM", HC(MMU_UPDATE, u, 2, 0, 0), E(EFAULT),
		a);
	/* A not-present value may hold anything. */
	u[0] = (struct umbra_mmu_update){ pte_pa, (beyond | 0xffe) & ~PTE_P };
	EXPECT("mmu_update not present, junk frame", HC(MMU_UPDATE, u, 1, 0, 0), 1);
	EXPECT("invlpg after junk", pv_invlpg(PTE_VA), 0);
	expect_maps(PTE_VA, 0, "not-present junk entry");
	/* In order: the last write to an entry wins. */
	u[0] = (struct umbra_mmu_update){ pte_pa, pte_of(a) };
	u[1] = (struct umbra_mmu_update){ pte_pa, pte_of(b) };
	EXPECT("mmu_update two to one entry", HC(MMU_UPDATE, u, 2, 0, 0), 2);
	EXPECT("invlpg", pv_invlpg(PTE_VA), 0);
	expect_maps(PTE_VA, b, "two writes in order");
	pvt_cases += 3;

	/* MMU_OP */
	struct aspace as2;
	as_clone_kernel(&as2, &pvt_as);
	ulong cr3 = read_cr3();
	o[0] = (struct umbra_mmu_op){ UMBRA_MMUOP_NEW_CR3, 0, as2.root };
	o[1] = (struct umbra_mmu_op){ UMBRA_MMUOP_NEW_CR3, 0, cr3 };
	o[2] = (struct umbra_mmu_op){ UMBRA_MMUOP_FLUSH_ALL, 0, 0 };
	EXPECT("mmu_op cr3 there and back, flush", HC(MMU_OP, o, 3, 0, 0), 3);
	EXPECT_TRUE("cr3 back", read_cr3() == cr3);
	static const struct {
		uint32_t op, rsv;
		uint64_t arg;
		const char *what;
		long err;
	} bad[] = {
		{ 0, 0, 0, "mmu_op op 0", E(EINVAL) },
		{ 4, 0, 0, "mmu_op op 4", E(EINVAL) },
		{ UMBRA_MMUOP_INVLPG, 1, TEST_VA, "mmu_op reserved", E(EINVAL) },
		{ UMBRA_MMUOP_FLUSH_ALL, 0, 1, "mmu_op flush arg", E(EINVAL) },
		{ UMBRA_MMUOP_NEW_CR3, 0, 0xfffff000u, "mmu_op cr3 at 4G-4K", E(EFAULT) },
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* After a good NEW_CR3 that must not happen either. */
		o[1] = (struct umbra_mmu_op){ bad[i].op, bad[i].rsv, bad[i].arg };
		EXPECT(bad[i].what, HC(MMU_OP, o, 2, 0, 0), bad[i].err);
		EXPECT_TRUE("cr3 unchanged", read_cr3() == cr3);
	}
	o[1] = (struct umbra_mmu_op){ UMBRA_MMUOP_NEW_CR3, 0, beyond };
	EXPECT("mmu_op cr3 beyond RAM", HC(MMU_OP, o + 1, 1, 0, 0), E(EFAULT));
	EXPECT("mmu_op NULL", HC(MMU_OP, 0, 1, 0, 0), E(EFAULT));
	EXPECT("mmu_op unmapped", HC(MMU_OP, HOLE, 1, 0, 0), E(EFAULT));
	EXPECT("mmu_op into unmapped", HC(MMU_OP, CROSS(8), 1, 0, 0), E(EFAULT));
	EXPECT("mmu_op 513", HC(MMU_OP, o, UMBRA_MMU_BATCH_MAX + 1, 0, 0), E(E2BIG));
	EXPECT("mmu_op count 0", HC(MMU_OP, 0, 0, 0, 0), 0);
	EXPECT_TRUE("cr3 unchanged", read_cr3() == cr3);
	expect_maps(PTE_VA, b, "after the MMU_OP cases");
	pvt_cases++;
}

static void cross_guest_cases(void)
{
	struct umbra_vcpu_info vi;
	static struct umbra_stats st;
	HC(VCPU_INFO, &vi, 0, 0, 0);
	ulong other = vi.guest_id == 0 ? 1 : 0;

	kprintf("cross-guest: guest %u of %u, caps %x\n", vi.guest_id, vi.nr_guests, vi.caps);
	fill(&st, sizeof(st), 0xcc);
	if (!(vi.caps & UMBRA_CAP_STATS)) {
		EXPECT("stats_of without caps", HC(STATS_OF, other, &st, sizeof(st), 0), E(EPERM));
		EXPECT_TRUE("stats_of buffer unchanged", filled(&st, sizeof(st), 0xcc));
	} else {
		EXPECT("stats_of self", HC(STATS_OF, vi.guest_id, &st, sizeof(st), 0), sizeof(st));
		EXPECT("stats_of no such guest", HC(STATS_OF, vi.nr_guests + 5, &st, sizeof(st), 0),
		       E(EINVAL));
		EXPECT("stats_of size 7", HC(STATS_OF, vi.guest_id, &st, 7, 0), E(EINVAL));
		EXPECT("stats_of NULL", HC(STATS_OF, vi.guest_id, 0, sizeof(st), 0), E(EFAULT));
	}
	if (!(vi.caps & UMBRA_CAP_STOP)) {
		EXPECT("stop_guest without caps", HC(STOP_GUEST, other, 0, 0, 0), E(EPERM));
		return;
	}
	EXPECT("stop_guest self", HC(STOP_GUEST, vi.guest_id, 0, 0, 0), E(EINVAL));
	EXPECT("stop_guest no such guest", HC(STOP_GUEST, 999, 0, 0, 0), E(EINVAL));
	if (vi.nr_guests < 2 || !(vi.caps & UMBRA_CAP_STATS)) {
		kprintf("note: caps=stats,stop wants a second guest to stop\n");
		return;
	}
	/* The target runs (its exits grow), is stopped, then runs no more. */
	struct umbra_stats s0, s1, s2, s3;
	HC(STATS_OF, other, &s0, sizeof(s0), 0);
	HC(BLOCK, 20000000, 0, 0, 0);
	HC(STATS_OF, other, &s1, sizeof(s1), 0);
	EXPECT_TRUE("target was running", s1.exits_total > s0.exits_total);
	EXPECT("stop_guest", HC(STOP_GUEST, other, 0, 0, 0), 0);
	EXPECT("stop_guest again", HC(STOP_GUEST, other, 0, 0, 0), 0);
	HC(BLOCK, 20000000, 0, 0, 0);
	EXPECT("stats_of stopped target", HC(STATS_OF, other, &s2, sizeof(s2), 0), sizeof(s2));
	HC(BLOCK, 20000000, 0, 0, 0);
	HC(STATS_OF, other, &s3, sizeof(s3), 0);
	EXPECT_TRUE("target stopped", s3.exits_total == s2.exits_total);
}

void test_main(void)
{
	pvt_space_init(GUEST_MODE);
	bytes = (unsigned)pvt_as.bytes;
	pte_pa = (ulong)pt_entry(&pvt_as, PTE_VA, 1, 1);
	pv_init();
	/* The library takes multiboot v1 and Umbra's protocol; GRUB's multiboot2 is ours to tell. */
	if ((uint32_t)boot_magic == MB2_BOOT_MAGIC)
		kprintf("pv: booted by GRUB multiboot2\n");
	kprintf("pv: %s, hypercall insn %s, tsc %llu Hz\n",
		pv_on_umbra ? "on Umbra: hypercall ops" : "no Umbra: native ops",
		pv_insn == PV_VMMCALL ? "vmmcall" : "vmcall", (unsigned long long)pv_tsc_hz);
	irq_install();
	functional_part();
	if (!pv_on_umbra) {
		skip_note(
			"hypercall conformance, ring-3 and timer cases (natively there is no Umbra timer)");
		pvt_finish();
	}
	unknown_numbers();
	console_cases();
	struct_cases();
	mmu_cases();
	timer_cases();
	user_tests();
	cross_guest_cases();
	pvt_finish();
}
