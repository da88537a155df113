/* SPDX-License-Identifier: GPL-2.0-only */
/* Attack guest (toctou): a second vCPU rewrites PV batch records while the first submits them. */
/* Started with vcpus=2 on two CPUs. vCPU 1 (VCPU_START) flips records between a value Umbra
 * accepts and one it refuses, one record after another, without end; vCPU 0 submits the batch
 * rounds=N times per call kind. Every call must either apply exactly what it validated or fail
 * with nothing changed: a call that returned success after applying a refused value is a time
 * of check to time of use hole (Umbra read the batch once to validate and again to apply).
 * - MMU_UPDATE: 512 records writing a table; the record flips between a frame in RAM and one
 *   outside it. Success must leave every slot holding the good value, -EFAULT every slot 0.
 * - MMU_OP: 512 INVLPGs; the record flips to NEW_CR3 with a CR3 outside RAM. Success or -EFAULT
 *   must leave CR3 as it was.
 * - STATS (an output buffer): with paging on, the buffer's PTE flips between a RAM frame and
 *   the I/O APIC's page (under nested paging: under shadow paging each write to the PTE exits
 *   and waits for the guest's lock, which the call holds, so it never lands mid-call). Success must have written the frame, never the I/O APIC (its
 *   IOREGSEL, set to 1 before each call, would read the record's size, 16).
 * - CONSOLE_WRITE (an input buffer), the same flips: a call prints the frame's line whole or
 *   fails; cases.sh counts the line in the serial log against the calls applied.
 * `nobatch` skips the first two, `nostats` the last two.
 * The line "toctou KIND: R rounds, A applied, F refused, V violations" reports each kind. */
#include <stdbool.h>
#include "tests/attack/attack.h"

const char guest_name[] = GUEST_NAME;

#define N UMBRA_MMU_BATCH_MAX
#define BAD_FRAME 0x7ff00000u /* above any guest's RAM (mem= is at most 1 GiB) */
#define STACK 8192

static struct umbra_mmu_update upd[N];
static struct umbra_mmu_op ops[N];
static volatile uint32_t table[N] __attribute__((aligned(4096)));
static uint8_t frame[4096] __attribute__((aligned(4096)));
static uint8_t ap_stack[STACK] __attribute__((aligned(16)));
static volatile uint32_t ap_running, target; /* 1 flips upd, 2 ops, 3 the buffer's PTE */
static volatile uint32_t good_val, cr3_0;
#define IOAPIC 0xfec00000u
static struct aspace as;
static volatile uint32_t *volatile buf_pte;
static volatile uint32_t pte_ram, pte_mmio;

static void toctou_flipper(void);

/* How long a record stays refused, then accepted: powers of two up to 2^12 spins, varied
 * pseudo-randomly, since how long Umbra takes between its reads is unknown here. */
static void spin(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	for (volatile uint32_t d = 1u << ((*seed >> 16) % 13); d; d--)
		;
}

/* The first record of a batch (read first, and before, read again last), flipped back and
 * forth; the records after it stay accepted. */
static void toctou_flipper(void)
{
	volatile struct umbra_mmu_update *u = upd;
	volatile struct umbra_mmu_op *o = ops;
	uint32_t seed = 1;

	ap_running = 1;
	for (;;) {
		if (target == 1) {
			u[0].val = BAD_FRAME | PTE_P;
			spin(&seed);
			u[0].val = good_val;
		} else if (target == 2) {
			o[0].arg = BAD_FRAME;
			o[0].op = UMBRA_MMUOP_NEW_CR3;
			spin(&seed);
			o[0].op = UMBRA_MMUOP_INVLPG;
			o[0].arg = cr3_0;
		} else if (target == 3) {
			*buf_pte = pte_mmio;
			spin(&seed);
			*buf_pte = pte_ram;
		}
		spin(&seed);
	}
}

static void report(const char *kind, ulong rounds, ulong applied, ulong refused, ulong bad)
{
	kprintf("toctou %s: %lu rounds, %lu applied, %lu refused, %lu violations\n", kind, rounds,
		applied, refused, bad);
}

static void mmu_update_rounds(ulong rounds)
{
	ulong applied = 0, refused = 0, bad = 0, mark = checks_failed;

	for (uint32_t i = 0; i < N; i++)
		upd[i] = (struct umbra_mmu_update){ (ulong)&table[i], good_val };
	target = 1;
	for (ulong r = 0; r < rounds; r++) {
		for (uint32_t i = 0; i < N; i++)
			table[i] = 0;
		long ret = umbra_hypercall(UMBRA_HC_MMU_UPDATE, (ulong)upd, N);
		uint32_t want = ret == N ? good_val : 0, i;
		for (i = 0; i < N && table[i] == want; i++)
			;
		if (ret == N)
			applied++;
		else if (ret == -UMBRA_EFAULT)
			refused++;
		if ((ret != N && ret != -UMBRA_EFAULT) || i < N) {
			if (!bad)
				check_failed(
					"MMU_UPDATE round %lu returned %ld with slot %u = 0x%x", r,
					ret, i < N ? i : 0, i < N ? table[i] : 0);
			bad++;
		}
	}
	target = 0;
	report("mmu-update", rounds, applied, refused, bad);
	case_end("toctou-mmu-update (every call applies what it validated, or fails)", mark);
}

static void mmu_op_rounds(ulong rounds)
{
	ulong applied = 0, refused = 0, bad = 0, mark = checks_failed;

	for (uint32_t i = 0; i < N; i++)
		ops[i] = (struct umbra_mmu_op){ UMBRA_MMUOP_INVLPG, 0, cr3_0 };
	target = 2;
	for (ulong r = 0; r < rounds; r++) {
		long ret = umbra_hypercall(UMBRA_HC_MMU_OP, (ulong)ops, N);
		ulong cr3 = read_cr3();
		if (ret == N)
			applied++;
		else if (ret == -UMBRA_EFAULT)
			refused++;
		if ((ret != N && ret != -UMBRA_EFAULT) || cr3 != cr3_0) {
			if (!bad)
				check_failed("MMU_OP round %lu returned %ld with CR3 0x%lx", r, ret,
					     cr3);
			bad++;
			write_cr3(cr3_0);
		}
	}
	target = 0;
	report("mmu-op", rounds, applied, refused, bad);
	case_end("toctou-mmu-op (every call applies what it validated, or fails)", mark);
}

/* The calls that write an output buffer, each: the size it writes, and what a write into the
 * frame (not the I/O APIC) leaves there. CONSOLE_READ writes only the input waiting, none here:
 * its frame check is only that it returned 0 to 16. */
struct out_call {
	const char *kind, *name; /* the report's, the case's */
	uint32_t nr;
	bool of;   /* STATS_OF: its own guest id first (caps=stats) */
	long want; /* the return value of a success; -1: 0 to 16 */
};
static const struct out_call out_calls[] = {
	{ "stats", "toctou-stats (written where checked, or not at all)", UMBRA_HC_STATS, false,
	  16 },
	{ "stats-of", "toctou-stats-of (written where checked, or not at all)", UMBRA_HC_STATS_OF,
	  true, 16 },
	{ "time", "toctou-time (written where checked, or not at all)", UMBRA_HC_TIME, false, 0 },
	{ "vcpu-info", "toctou-vcpu-info (written where checked, or not at all)",
	  UMBRA_HC_VCPU_INFO, false, 0 },
	{ "console-read", "toctou-console-read (written where checked, or not at all)",
	  UMBRA_HC_CONSOLE_READ, false, -1 },
};

static bool out_written(const struct out_call *c, long ret)
{
	const volatile uint32_t *w = (const volatile uint32_t *)frame;

	switch (c->nr) {
	case UMBRA_HC_STATS:
	case UMBRA_HC_STATS_OF:
		return w[0] == 16; /* size */
	case UMBRA_HC_TIME:
		return w[2] || w[3]; /* monotonic_ns */
	case UMBRA_HC_VCPU_INFO:
		return w[2] == 2; /* nr_vcpus */
	default:
		return ret >= 0 && ret <= 16;
	}
}

static void out_rounds(const struct out_call *c, ulong rounds, uint32_t id)
{
	ulong applied = 0, refused = 0, bad = 0, mark = checks_failed;

	target = 3;
	for (ulong r = 0; r < rounds; r++) {
		/* Two marks in turn: whatever a stray write's first bytes are, it differs from one. */
		uint32_t mark_sel = 1 + (r & 1);
		for (unsigned i = 0; i < 16; i++)
			frame[i] = 0;
		*phys32(IOAPIC) = mark_sel;
		long ret = c->of ? umbra_hypercall4(c->nr, id, TEST_VA, 16, 0)
				 : umbra_hypercall(c->nr, TEST_VA, 16);
		uint32_t sel = *phys32(IOAPIC);
		bool ok = c->want < 0 ? ret >= 0 && ret <= 16 : ret == c->want;
		if (ok)
			applied++;
		else if (ret == -UMBRA_EFAULT)
			refused++;
		if ((!ok && ret != -UMBRA_EFAULT) || (ok && !out_written(c, ret)) ||
		    sel != mark_sel) {
			if (!bad)
				check_failed("%s round %lu returned %ld, IOREGSEL 0x%x", c->kind, r,
					     ret, sel);
			bad++;
		}
	}
	target = 0;
	report(c->kind, rounds, applied, refused, bad);
	case_end(c->name, mark);
}

/* CONSOLE_WRITE, an input buffer, under the same flips: a call either prints the frame's line
 * or fails. The serial log's count of that line must equal the calls applied (cases.sh): a call
 * that read the I/O APIC's page after checking the frame would print something else. */
#define CW_LINE "toctou-cw good\n"

static void cw_rounds(ulong rounds)
{
	ulong applied = 0, refused = 0, bad = 0, mark = checks_failed;
	const char *line = CW_LINE;

	for (unsigned i = 0; i < sizeof(CW_LINE) - 1; i++)
		frame[i] = (uint8_t)line[i];
	target = 3;
	for (ulong r = 0; r < rounds; r++) {
		uint32_t mark_sel = 1 + (r & 1);
		*phys32(IOAPIC) = mark_sel;
		long ret = umbra_hypercall(UMBRA_HC_CONSOLE_WRITE, TEST_VA, sizeof(CW_LINE) - 1);
		uint32_t sel = *phys32(IOAPIC);
		if (ret == (long)sizeof(CW_LINE) - 1)
			applied++;
		else if (ret == -UMBRA_EFAULT)
			refused++;
		if ((ret != (long)sizeof(CW_LINE) - 1 && ret != -UMBRA_EFAULT) || sel != mark_sel) {
			if (!bad)
				check_failed("console-write round %lu returned %ld, IOREGSEL 0x%x",
					     r, ret, sel);
			bad++;
		}
	}
	target = 0;
	report("console-write", rounds, applied, refused, bad);
	case_end("toctou-console-write (prints the line checked, or fails)", mark);
}

/* Output buffers: with paging on, the buffer's PTE flips between a RAM frame and the I/O
 * APIC's page. */
static void out_all_rounds(ulong rounds, uint32_t id)
{
	as_init(&as, PM_32);
	map_page(&as, IOAPIC, IOAPIC, 1, PTE_P | PTE_W);
	buf_pte = map_page(&as, TEST_VA, (ulong)frame, 1, PTE_P | PTE_W);
	pte_ram = (uint32_t)(ulong)frame | PTE_P | PTE_W;
	pte_mmio = IOAPIC | PTE_P | PTE_W;
	as_activate(&as);
	for (unsigned i = 0; i < sizeof(out_calls) / sizeof(out_calls[0]); i++)
		out_rounds(&out_calls[i], rounds, id);
	cw_rounds(rounds);
}

void test_main(void)
{
	ulong rounds = atk_arg_num("rounds", 1000);
	struct umbra_vcpu_info vi;

	if (!on_umbra) {
		skip_note("toctou (PV batches with a second vCPU)");
		return;
	}
	if (umbra_hypercall(UMBRA_HC_VCPU_INFO, (ulong)&vi, 0) || vi.nr_vcpus < 2)
		fail("toctou needs vcpus=2");
	good_val = (uint32_t)(ulong)frame | PTE_P;
	cr3_0 = (uint32_t)read_cr3();
	long r = atk_vcpu_start(1, toctou_flipper, ap_stack + STACK);
	if (r)
		fail("VCPU_START returned %ld", r);
	uint64_t end = timeout_ms(10000);
	while (!ap_running)
		if (timed_out(end))
			fail("vCPU 1 did not start");
	if (!atk_arg_flag("nobatch")) {
		mmu_update_rounds(rounds);
		mmu_op_rounds(rounds);
	}
	if (!atk_arg_flag("nostats"))
		out_all_rounds(rounds, vi.guest_id);
	kprintf("cases: toctou\n");
}
