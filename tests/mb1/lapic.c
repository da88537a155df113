/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 kernel: the local APIC timer (one-shot, periodic, masked, divide, TSC deadline where
 * offered) and interrupt priority: IRR, ISR, PPR, TPR, EOI, self-IPIs by every shorthand and
 * x2APIC's SELF IPI, software disable, global disable and relocation through IA32_APIC_BASE. */
#include "tests/mb1/mb1.h"

const char guest_name[] = "lapic";

/* Counts assume nothing about the APIC bus clock (QEMU and Umbra: 1 GHz, hardware: its bus or
 * crystal): waits are bounded by the TSC and only events are counted, never ticks.
 * Known deviations of QEMU's APIC (7.2), accepted natively only: while software-disabled it
 * leaves LVT entries unmasked, so a timer that fires then is held in IRR and delivered when
 * the APIC is enabled again (hardware masks the LVT and nothing arrives). QEMU's TCG CPUs do
 * not offer TSC-deadline mode (CPUID.1:ECX[24] clear): that part runs where it is offered. */

enum {
	V_ONESHOT = 0x40,
	V_MASKED = 0x41,
	V_PERIODIC = 0x42,
	V_SVR = 0x43,
	V_DEADLINE = 0x44,
	V_LOW = 0x41,
	V_MID = 0x51,
	V_HIGH = 0x62,
	V_TPR = 0x65
};
#define DIV1 0xb
#define MS_COUNT 1000000u /* 1 ms at QEMU's and Umbra's 1 GHz APIC clock */

static volatile int seq[16];
static volatile int nseq;
static volatile uint32_t ppr_in[16], isr_in[16];

static void log_ev(int e)
{
	if (nseq < 16)
		seq[nseq++] = e;
}

static void seq_reset(void)
{
	nseq = 0;
	for (int i = 0; i < 16; i++)
		seq[i] = -1, ppr_in[i] = isr_in[i] = 0;
}

/* Records the vector, the PPR and the ISR bits of the vectors this kernel uses, then EOI. */
static uint32_t isr_bits(void)
{
	static const uint8_t v[] = { V_LOW, V_MID, V_HIGH, V_TPR };
	uint32_t b = 0;
	for (unsigned i = 0; i < sizeof(v); i++)
		b |= (uint32_t)apic_vec_bit(LAPIC_ISR, v[i]) << i;
	return b;
}

static volatile int in_x2apic; /* registers are MSRs: the page does not answer */

static void plain(struct frame *f)
{
	int i = nseq;
	log_ev((int)f->vector);
	if (in_x2apic) {
		wrmsr(0x80b, 0); /* EOI */
		return;
	}
	if (i < 16)
		ppr_in[i] = apic_reg_read(LAPIC_PPR), isr_in[i] = isr_bits();
	apic_reg_write(LAPIC_EOI, 0);
}

static void self_ipi(unsigned vector)
{
	apic_reg_write(LAPIC_ICR_LO, 0x40000u | vector); /* shorthand self, fixed, edge */
	for (uint64_t end = timeout_ms(100);
	     (apic_reg_read(LAPIC_ICR_LO) & (1u << 12)) && !timed_out(end);)
		;
}

static void timer(uint32_t lvt, uint32_t count)
{
	apic_reg_write(LAPIC_TIMER_INIT, 0);
	apic_reg_write(LAPIC_TIMER_DIV, DIV1);
	apic_reg_write(LAPIC_LVT_TIMER, lvt);
	apic_reg_write(LAPIC_TIMER_INIT, count);
}

static void timer_stop(void)
{
	apic_reg_write(LAPIC_TIMER_INIT, 0);
	apic_reg_write(LAPIC_LVT_TIMER, LVT_MASKED);
}

static int wait_irr(unsigned vector, ulong ms)
{
	for (uint64_t end = timeout_ms(ms); !apic_vec_bit(LAPIC_IRR, vector) && !timed_out(end);)
		;
	return apic_vec_bit(LAPIC_IRR, vector);
}

static void wait_events(int n, ulong ms)
{
	POLL_IRQ_UNTIL(nseq >= n, ms);
}

/* Interrupts on for a while: what is pending and deliverable arrives. */
static void window(ulong ms)
{
	irq_on();
	delay_ms(ms);
	irq_off();
}

static void setup_quiet(void)
{
	irq_off();
	pic_remap(0x20, 0x28); /* every 8259 input masked: only the APIC's own sources below */
	apic_reg_write(LAPIC_SVR, 0x1ff);
	apic_reg_write(LAPIC_TPR, 0);
	timer_stop();
	for (int v = 0x40; v < 0x70; v++)
		set_irq_handler(v, plain);
}

static void setup(void)
{
	setup_quiet();
	kprintf("apic: enabled, tpr 0, timer masked\n");
}

static void divide(void)
{
	static const uint8_t codes[] = { 0x0, 0x1, 0x2, 0x3, 0x8, 0x9, 0xa, 0xb };
	for (unsigned i = 0; i < sizeof(codes); i++) {
		apic_reg_write(LAPIC_TIMER_DIV, codes[i]);
		uint32_t r = apic_reg_read(LAPIC_TIMER_DIV) & 0xb;
		CHECK(r == codes[i], "divide configuration %x read %x", codes[i], r);
	}
	/* Masked, a long count: the current count runs down from the initial count. */
	timer(LVT_MASKED | V_MASKED, 0xffffffffu);
	uint32_t a = apic_reg_read(LAPIC_TIMER_CUR);
	delay_ms(1);
	uint32_t b = apic_reg_read(LAPIC_TIMER_CUR);
	CHECK(a > b && b > 0, "current count %x then %x", a, b);
	apic_reg_write(LAPIC_TIMER_INIT, 0);
	CHECK(apic_reg_read(LAPIC_TIMER_CUR) == 0, "current count %x after initial count 0",
	      apic_reg_read(LAPIC_TIMER_CUR));
	timer_stop();
	kprintf("timer: divide values read back, current count runs down, initial count 0 stops it\n");
}

static void oneshot(void)
{
	seq_reset();
	timer(V_ONESHOT, MS_COUNT);
	HLT_UNTIL(nseq >= 1, 2000); /* the timer wakes hlt */
	uint32_t cur = apic_reg_read(LAPIC_TIMER_CUR);
	window(20);
	CHECK(nseq == 1 && seq[0] == V_ONESHOT, "one-shot: %d interrupts, first %x", nseq, seq[0]);
	CHECK(cur == 0 && apic_reg_read(LAPIC_TIMER_CUR) == 0,
	      "one-shot: current count %x after it", cur);
	timer_stop();
	kprintf("timer one-shot: one interrupt, current count 0 afterwards\n");

	/* Masked: the count runs out, nothing is requested. */
	seq_reset();
	timer(LVT_MASKED | V_MASKED, MS_COUNT / 10);
	for (uint64_t end = timeout_ms(1000); apic_reg_read(LAPIC_TIMER_CUR) && !timed_out(end);)
		;
	int irr = apic_vec_bit(LAPIC_IRR, V_MASKED);
	window(5);
	CHECK(!irr && nseq == 0, "masked timer: irr %d, %d interrupts", irr, nseq);
	CHECK(apic_reg_read(LAPIC_TIMER_CUR) == 0, "masked timer did not run out");
	timer_stop();
	kprintf("timer masked: runs out without an interrupt\n");
}

static void periodic(void)
{
	/* Masked first: the current count reloads from the initial count at zero. */
	timer(LVT_MASKED | LVT_PERIODIC | V_PERIODIC, MS_COUNT);
	uint32_t prev = apic_reg_read(LAPIC_TIMER_CUR), above = 0;
	int reloads = 0;
	for (uint64_t end = timeout_ms(2000); reloads < 2 && !timed_out(end);) {
		uint32_t c = apic_reg_read(LAPIC_TIMER_CUR);
		if (c > MS_COUNT)
			above = c;
		if (c > prev)
			reloads++;
		prev = c;
	}
	CHECK(reloads >= 2 && !above, "periodic: %d reloads, count %x above the initial count",
	      reloads, above);
	seq_reset();
	apic_reg_write(LAPIC_LVT_TIMER, LVT_PERIODIC | V_PERIODIC);
	HLT_UNTIL(nseq >= 5, 3000);
	/* Stopped with IF=0: one already requested may still come, nothing after. */
	apic_reg_write(LAPIC_TIMER_INIT, 0);
	int n = nseq, pending = apic_vec_bit(LAPIC_IRR, V_PERIODIC);
	window(10);
	CHECK(n >= 5, "periodic: %d interrupts", n);
	CHECK(nseq == n + pending, "periodic: %d interrupts after stopping (%d pending)", nseq - n,
	      pending);
	timer_stop();
	kprintf("timer periodic: the count reloads, interrupts repeat, initial count 0 stops them\n");
}

/* Two vectors of different priority classes pending at once: the higher first, each with its
 * class in PPR and its bit in ISR while its handler runs. */
static void priority(void)
{
	seq_reset();
	self_ipi(V_MID);
	int irr_mid = apic_vec_bit(LAPIC_IRR, V_MID);
	timer(V_HIGH, MS_COUNT / 10);
	int irr_high = wait_irr(V_HIGH, 1000);
	uint32_t ppr = apic_reg_read(LAPIC_PPR);
	wait_events(2, 1000);
	timer_stop();
	CHECK(irr_mid && irr_high && ppr == 0, "priority: irr %d %d, ppr %x before", irr_mid,
	      irr_high, ppr);
	CHECK(nseq == 2 && seq[0] == V_HIGH && seq[1] == V_MID, "priority: order %x %x", seq[0],
	      seq[1]);
	CHECK(ppr_in[0] == 0x60 && isr_in[0] == 4 && ppr_in[1] == 0x50 && isr_in[1] == 2,
	      "priority: ppr %x/%x isr %x/%x in the handlers", ppr_in[0], ppr_in[1], isr_in[0],
	      isr_in[1]);
	CHECK(apic_reg_read(LAPIC_PPR) == 0 && isr_bits() == 0, "priority: ppr %x isr %x after",
	      apic_reg_read(LAPIC_PPR), isr_bits());
	kprintf("priority: timer (class 6) before self-ipi (class 5); ppr and isr in each handler\n");
}

/* Nesting: a higher class interrupts a handler that turned IF on; a lower class waits in IRR
 * until the EOI of the handler above it. */
static volatile uint32_t nest_irr_low, nest_ppr;
static void nest_high(struct frame *f)
{
	(void)f;
	log_ev(V_HIGH);
	self_ipi(V_LOW); /* below both in service: held */
	nest_ppr = apic_reg_read(LAPIC_PPR);
	isr_in[0] = isr_bits();
	apic_reg_write(LAPIC_EOI, 0);
	log_ev(0x100 | V_HIGH);
}

static void nest_mid(struct frame *f)
{
	(void)f;
	log_ev(V_MID);
	irq_on();
	self_ipi(V_HIGH);
	delay_ms(2);
	irq_off();
	nest_irr_low = apic_vec_bit(LAPIC_IRR, V_LOW);
	log_ev(0x200 | V_MID);
	apic_reg_write(LAPIC_EOI, 0);
	irq_on();
	for (uint64_t end = timeout_ms(1000); nseq < 5 && !timed_out(end);)
		asm volatile("pause");
	irq_off();
	log_ev(0x100 | V_MID);
}

static void nesting(void)
{
	seq_reset();
	set_irq_handler(V_HIGH, nest_high);
	set_irq_handler(V_MID, nest_mid);
	self_ipi(V_MID);
	wait_events(6, 2000);
	set_irq_handler(V_HIGH, plain);
	set_irq_handler(V_MID, plain);
	static const int want[] = { V_MID,	   V_HIGH, 0x100 | V_HIGH,
				    0x200 | V_MID, V_LOW,  0x100 | V_MID };
	int ok = nseq == 6;
	for (int i = 0; ok && i < 6; i++)
		ok = seq[i] == want[i];
	CHECK(ok, "nesting: %d events %x %x %x %x %x %x", nseq, seq[0], seq[1], seq[2], seq[3],
	      seq[4], seq[5]);
	CHECK(nest_ppr == 0x60 && isr_in[0] == 6, "nesting: ppr %x isr %x in the inner handler",
	      nest_ppr, isr_in[0]);
	CHECK(nest_irr_low, "nesting: the lower vector was not waiting in IRR");
	kprintf("nesting: class 6 interrupts class 5's handler; class 4 waits for class 5's eoi\n");
}

static void tpr(void)
{
	/* TPR's class blocks vectors of that class and below, whatever the subclass. */
	seq_reset();
	apic_reg_write(LAPIC_TPR, 0x60);
	timer(V_TPR, MS_COUNT / 10);
	int irr = wait_irr(V_TPR, 1000);
	window(5);
	int blocked = nseq;
	uint32_t ppr = apic_reg_read(LAPIC_PPR);
	apic_reg_write(LAPIC_TPR, 0x5f);
	wait_events(1, 1000);
	uint32_t ppr_after = apic_reg_read(LAPIC_PPR);
	apic_reg_write(LAPIC_TPR, 0);
	timer_stop();
	CHECK(irr && !blocked && ppr == 0x60, "tpr 0x60: irr %d, %d delivered, ppr %x", irr,
	      blocked, ppr);
	CHECK(nseq == 1 && seq[0] == V_TPR && ppr_in[0] == 0x60, "tpr 0x5f: %d delivered, ppr %x",
	      nseq, ppr_in[0]);
	CHECK(ppr_after == 0x5f, "ppr %x after the eoi with tpr 0x5f", ppr_after);
	kprintf("tpr: class 6 held at tpr 0x60, delivered when lowered to 0x5f\n");
}

#ifdef __x86_64__
/* CR8 is the TPR's class (SDM 10.8.6.1): the same register as the page's TPR, both ways, and it
 * masks interrupts like it. QEMU's TCG does not #GP for CR8's reserved bits natively (its
 * deviation): under Umbra the write exits and Umbra decides. */
static ulong read_cr8(void)
{
	ulong v;
	asm volatile("mov %%cr8, %0" : "=r"(v));
	return v;
}
static void write_cr8(ulong v)
{
	asm volatile("mov %0, %%cr8" : : "r"(v) : "memory");
}

static void cr8(void)
{
	write_cr8(5);
	uint32_t tpr = apic_reg_read(LAPIC_TPR);
	apic_reg_write(LAPIC_TPR, 0x7c);
	ulong c = read_cr8();
	write_cr8(0);
	uint32_t tpr0 = apic_reg_read(LAPIC_TPR);
	CHECK(tpr == 0x50 && c == 7 && tpr0 == 0,
	      "cr8 5 -> tpr %x; tpr 0x7c -> cr8 %lx; cr8 0 -> tpr %x", tpr, c, tpr0);
	kprintf("cr8: cr8 5 reads tpr 0x50, tpr 0x7c reads cr8 7, cr8 0 clears it\n");

	ulong n = fault_count;
	asm volatile(SET_RECOVER "mov %0, %%cr8\n1:" : : "r"(0x10ul) : "memory");
	fault_recover = 0;
	expect_gp_hw("cr8 reserved bit 4 -> #GP", fault_count != n ? (int)last_fault.vector : 0, 0);
	write_cr8(0);

	seq_reset();
	write_cr8(6);
	self_ipi(V_HIGH);
	window(5);
	int blocked = nseq;
	uint32_t ppr = apic_reg_read(LAPIC_PPR);
	write_cr8(5);
	wait_events(1, 1000);
	write_cr8(0);
	CHECK(!blocked && ppr == 0x60 && nseq == 1 && seq[0] == V_HIGH,
	      "cr8 6: %d delivered, ppr %x; cr8 5: %d delivered", blocked, ppr, nseq);
	kprintf("cr8: class 6 held at cr8 6 (ppr 0x60), delivered when lowered to 5\n");
}
#endif

static void ipis(void)
{
	/* A fixed IPI by destination, to this APIC's own ID. */
	seq_reset();
	apic_reg_write(LAPIC_ICR_HI, apic_reg_read(LAPIC_ID) & 0xff000000u);
	apic_reg_write(LAPIC_ICR_LO, V_MID);
	wait_events(1, 1000);
	uint32_t icr = apic_reg_read(LAPIC_ICR_LO);
	CHECK(nseq == 1 && seq[0] == V_MID, "ipi to own id: %d delivered", nseq);
	CHECK((icr & 0xcfff) == V_MID, "icr low reads %x", icr);
	seq_reset();
	self_ipi(V_LOW);
	self_ipi(V_HIGH);
	wait_events(2, 1000);
	CHECK(nseq == 2 && seq[0] == V_HIGH && seq[1] == V_LOW, "self-ipis: %d, %x %x", nseq,
	      seq[0], seq[1]);
	CHECK(!(apic_reg_read(LAPIC_ICR_LO) & (1u << 12)), "icr delivery status busy");
	kprintf("ipi: to its own apic id and by the self shorthand, idle afterwards\n");
}

/* The other destination shorthands: all including self reaches this CPU once; all excluding
 * self, with one CPU, reaches nobody. */
static void shorthands(void)
{
	seq_reset();
	apic_reg_write(LAPIC_ICR_LO, 0x80000u | V_MID);
	wait_events(1, 1000);
	window(5);
	int incl = nseq == 1 && seq[0] == V_MID ? 1 : nseq + 100;
	seq_reset();
	apic_reg_write(LAPIC_ICR_LO, 0xc0000u | V_HIGH);
	window(5);
	int excl = nseq;
	CHECK(incl == 1, "all including self: %d delivered", incl);
	CHECK(excl == 0, "all excluding self with one cpu: %d delivered", excl);
	kprintf("ipi shorthands: all-including-self once, all-excluding-self nobody\n");
}

#define MSR_APIC_BASE 0x1bu
#define BASE_EN (1u << 11)
#define BASE_EXTD (1u << 10)
#define CPUID1_EDX_APIC (1u << 9)
#define CPUID1_ECX_X2APIC (1u << 21)

/* x2APIC's SELF IPI register and the ICR's self shorthand as one 64-bit MSR write. Leaving
 * x2APIC goes through disabled (the SDM's only way), which resets the APIC: setup() again. */
static void x2apic_self_ipi(uint64_t base)
{
	seq_reset();
	wrmsr(MSR_APIC_BASE, base | BASE_EXTD);
	in_x2apic = 1;
	wrmsr(0x83f, V_LOW);
	wrmsr(0x830, 0x40000u | V_HIGH);
	wait_events(2, 1000);
	window(5);
	int n = nseq;
	uint64_t icr = rdmsr(0x830);
	wrmsr(MSR_APIC_BASE, base & ~(uint64_t)(BASE_EN | BASE_EXTD));
	in_x2apic = 0;
	wrmsr(MSR_APIC_BASE, base);
	CHECK(n == 2 && seq[0] == V_HIGH && seq[1] == V_LOW, "x2apic self ipis: %d, %x %x", n,
	      seq[0], seq[1]);
	CHECK((icr & 0xcffff) == (0x40000u | V_HIGH), "x2apic icr reads %llx",
	      (unsigned long long)icr);
}

/*
 * Global disable through IA32_APIC_BASE: CPUID's APIC bit goes, the APIC page stops answering
 * (reads all ones, writes dropped), enabling again gives the reset state (SVR 0xff, software
 * disabled). QEMU's TCG (7.2) deviates here: its APIC page keeps answering and a disabled APIC
 * cannot be enabled again, so natively on TCG this part does not run; under Umbra (SVM and
 * VMX) the APIC is Umbra's and it runs. The same with x2APIC, which TCG 7.2 does not offer.
 */
static void global_disable(void)
{
	if (!tcg_native()) {
		uint64_t base = rdmsr(MSR_APIC_BASE);
		int apic_on = !!(cpuid(1, 0).d & CPUID1_EDX_APIC);
		if (cpuid(1, 0).c & CPUID1_ECX_X2APIC)
			x2apic_self_ipi(base);
		setup_quiet();
		apic_reg_write(LAPIC_TPR, 0x20);
		wrmsr(MSR_APIC_BASE, base & ~(uint64_t)BASE_EN);
		uint64_t off = rdmsr(MSR_APIC_BASE);
		CHECK(off == (base & ~(uint64_t)BASE_EN), "apic base reads %llx disabled",
		      (unsigned long long)off);
		int apic_off = !!(cpuid(1, 0).d & CPUID1_EDX_APIC);
		uint32_t id = apic_reg_read(LAPIC_ID), svr = apic_reg_read(LAPIC_SVR);
		apic_reg_write(LAPIC_TPR, 0x30);
		uint32_t tpr = apic_reg_read(LAPIC_TPR);
		uint64_t x2id;
		int x2 = rdmsr_safe(0x802, &x2id) == 13;
		wrmsr(MSR_APIC_BASE, base);
		uint32_t svr_on = apic_reg_read(LAPIC_SVR), tpr_on = apic_reg_read(LAPIC_TPR);
		int apic_again = !!(cpuid(1, 0).d & CPUID1_EDX_APIC);
		CHECK(apic_on && !apic_off && apic_again,
		      "cpuid apic bit: %d, %d disabled, %d again", apic_on, apic_off, apic_again);
		CHECK(id == 0xffffffffu && svr == 0xffffffffu && tpr == 0xffffffffu,
		      "disabled apic page reads id %x svr %x tpr %x", id, svr, tpr);
		CHECK(x2, "x2apic msr with the apic disabled: no #GP");
		CHECK((svr_on & 0x1ff) == 0xff && tpr_on == 0, "enabled again: svr %x tpr %x",
		      svr_on, tpr_on);
		setup_quiet();
	}
	kprintf("apic global disable: cpuid bit clear, page reads ones, reset state after (not on TCG)\n");
	kprintf("x2apic: self ipi register and self shorthand delivered (where offered, not on TCG)\n");
}

/*
 * Relocation (SDM 10.4.4): the xAPIC page moves with IA32_APIC_BASE and keeps its state; the
 * old page stops answering; reserved bits (9, and those at or above MAXPHYADDR) #GP. QEMU's
 * TCG (7.2) keeps its APIC page at 0xfee00000 whatever the MSR says, so natively on TCG this
 * part does not run; under Umbra the APIC is Umbra's. No interrupt is taken while the page is
 * away: the handlers' EOI writes go to the default page.
 */
#define MOVED_BASE 0xfe000000u

static void relocation(void)
{
	if (!tcg_native()) {
		uint64_t base = rdmsr(MSR_APIC_BASE), got;
		unsigned maxphy = cpuid(0x80000008u, 0).a & 0xff;
		apic_reg_write(LAPIC_TPR, 0x20);
		wrmsr(MSR_APIC_BASE, (base & 0xfff) | MOVED_BASE);
		got = rdmsr(MSR_APIC_BASE);
		uint32_t tpr_moved = *phys32(MOVED_BASE + LAPIC_TPR);
		uint32_t old_page = apic_reg_read(LAPIC_TPR);
		*phys32(MOVED_BASE + LAPIC_TPR) = 0x30;
		apic_reg_write(LAPIC_TPR, 0x40); /* nobody there: dropped */
		uint32_t id_moved = *phys32(MOVED_BASE + LAPIC_ID);
		int rsvd9 = wrmsr_safe(MSR_APIC_BASE, got | (1u << 9));
		int above = wrmsr_safe(MSR_APIC_BASE, got | (1ull << maxphy));
		wrmsr(MSR_APIC_BASE, base);
		uint32_t tpr_back = apic_reg_read(LAPIC_TPR);
		CHECK(got == ((base & 0xfff) | MOVED_BASE), "apic base reads %llx after the move",
		      (unsigned long long)got);
		CHECK(tpr_moved == 0x20 && id_moved == apic_reg_read(LAPIC_ID),
		      "moved apic page: tpr %x id %x", tpr_moved, id_moved);
		CHECK(old_page == 0xffffffffu, "the old apic page reads %x", old_page);
		CHECK(tpr_back == 0x30, "tpr %x after moving back", tpr_back);
		CHECK(rsvd9 == 13 && above == 13, "apic base reserved bits: %d, %d", rsvd9, above);
		apic_reg_write(LAPIC_TPR, 0);
	}
	kprintf("apic base: the page moves with it, state kept, reserved bits #GP (not on TCG)\n");
}

static void software_disable(void)
{
	seq_reset();
	apic_reg_write(LAPIC_SVR, 0x0ff);
	apic_reg_write(LAPIC_LVT_TIMER, V_SVR);
	uint32_t lvt = apic_reg_read(LAPIC_LVT_TIMER);
	apic_reg_write(LAPIC_TIMER_DIV, DIV1);
	apic_reg_write(LAPIC_TIMER_INIT, MS_COUNT / 10);
	for (uint64_t end = timeout_ms(1000); apic_reg_read(LAPIC_TIMER_CUR) && !timed_out(end);)
		;
	/* QEMU (the LVT left unmasked): its timer callback, which may run a little after the count
	 * reads 0 on a busy host, sets IRR; wait for it so it cannot arrive in a later case. */
	if (tcg_native() && !(lvt & LVT_MASKED))
		wait_irr(V_SVR, 1000);
	window(5);
	int while_off = nseq;
	apic_reg_write(LAPIC_SVR, 0x1ff);
	uint32_t lvt_on = apic_reg_read(LAPIC_LVT_TIMER);
	window(5);
	int after = nseq;
	timer_stop();
	if (tcg_native() && lvt == V_SVR && lvt_on == V_SVR && after == 1)
		lvt = lvt_on = LVT_MASKED | V_SVR, after = 0; /* QEMU: see the top of the file */
	CHECK(lvt == (LVT_MASKED | V_SVR) && lvt_on == lvt, "svr disabled: lvt timer %x, %x after",
	      lvt, lvt_on);
	CHECK(!while_off && !after, "svr disabled: %d interrupts, %d after enabling", while_off,
	      after);
	kprintf("svr disabled: lvt timer masked, no interrupt, still masked after enabling\n");
}

static void tsc_deadline(void)
{
	if (cpuid(1, 0).c & (1u << 24)) {
		seq_reset();
		timer(LVT_TSC_DEADLINE | V_DEADLINE, 0);
		apic_reg_write(LAPIC_TIMER_INIT, MS_COUNT); /* ignored in this mode */
		uint32_t cur = apic_reg_read(LAPIC_TIMER_CUR);
		wrmsr(0x6e0, read_tsc() + tsc_per_ms());
		wait_events(1, 2000);
		uint64_t dl = rdmsr(0x6e0);
		window(5);
		/* Disarmed by writing 0: a deadline 50 ms ahead (far enough that a loaded host
		 * cannot let it pass between the two writes), then 0; nothing comes in 60 ms. */
		wrmsr(0x6e0, read_tsc() + 50 * tsc_per_ms());
		wrmsr(0x6e0, 0);
		window(60);
		timer_stop();
		CHECK(cur == 0, "tsc-deadline: current count %x", cur);
		CHECK(nseq == 1 && seq[0] == V_DEADLINE, "tsc-deadline: %d interrupts", nseq);
		CHECK(dl == 0, "tsc-deadline msr %llx after it fired", (unsigned long long)dl);
	}
	/* The same line either way: QEMU's TCG does not offer the mode, Umbra may. */
	kprintf("tsc-deadline: one interrupt, msr cleared, disarmed by 0 (where offered)\n");
}

void test_main(void)
{
#ifdef __x86_64__
	/* The boot map covers the first GiB only: map RAM and the APIC page. */
	static struct aspace as;
	as_init(&as, PM_64);
	map_page(&as, LAPIC_BASE, LAPIC_BASE, 1, PTE_P | PTE_W);
	map_page(&as, MOVED_BASE, MOVED_BASE, 1, PTE_P | PTE_W);
	as_activate(&as);
#endif
	setup();
	divide();
	oneshot();
	periodic();
	priority();
	nesting();
	tpr();
#ifdef __x86_64__
	cr8();
#endif
	ipis();
	shorthands();
	relocation();
	software_disable();
	tsc_deadline();
	global_disable();
	apic_reg_write(LAPIC_TPR, 0);
}
