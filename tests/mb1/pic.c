/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 kernel: the 8259 pair with real sources: IRQ0 (PIT) and IRQ4 (the UART's THRE interrupt):
 * initialisation, nesting by priority, specific EOI, IRR/ISR, masking, AEOI, poll, rotation. */
#include "tests/mb1/mb1.h"

const char guest_name[] = "pic";

/* Not covered: the spurious IRQ7 (a request that vanishes between INTR and INTA) cannot be
 * produced on purpose, and the slave's inputs have no source both QEMU and Umbra drive. */

#define COM1 0x3f8
enum { IER = 1, IIR = 2, FCR = 2, MCR = 4, LSR = 5 };
enum { VEC0 = 0x20, VEC4 = 0x24 };
/* Events in the order handlers saw them: entering IRQ n logs n, leaving it 0x10 + n. */
enum { IN0 = 0, IN4 = 4, OUT0 = 0x10, OUT4 = 0x14 };

static volatile int seq[16];
static volatile int nseq;
static volatile uint8_t isr_a, isr_b, isr_c, irr_a;

static void log_ev(int e)
{
	if (nseq < 16)
		seq[nseq++] = e;
}

static int seq_is(const int *want, int n)
{
	if (nseq != n)
		return 0;
	for (int i = 0; i < n; i++)
		if (seq[i] != want[i])
			return 0;
	return 1;
}

static void seq_reset(void)
{
	nseq = 0;
	for (int i = 0; i < 16; i++)
		seq[i] = -1;
}

/* OCW3 picks what the command port reads; IRR is the default the tests leave selected. */
static uint8_t read_isr(void)
{
	outb(0x20, 0x0b);
	uint8_t v = inb(0x20);
	outb(0x20, 0x0a);
	return v;
}

static uint8_t read_irr(void)
{
	outb(0x20, 0x0a);
	return inb(0x20);
}

/* IRQ0: channel 0 in mode 0 raises OUT once, count input clocks (1.19 MHz) after the write. */
static void pit_oneshot(unsigned count)
{
	outb(0x43, 0x30);
	outb(0x40, (uint8_t)count);
	outb(0x40, (uint8_t)(count >> 8));
}

/* IRQ4: enabling the THRE interrupt with the transmitter empty raises it at once; reading IIR
 * (THRE the source) or writing THR takes it back. */
static void uart_idle(void)
{
	for (uint64_t end = timeout_ms(100); (inb(COM1 + LSR) & 0x60) != 0x60 && !timed_out(end);)
		;
}

static void thre_raise(void)
{
	outb(COM1 + IER, 0);
	outb(COM1 + IER, 0x02);
}

static uint8_t thre_clear(void)
{
	uint8_t iir = inb(COM1 + IIR);
	outb(COM1 + IER, 0);
	return iir;
}

static int wait_events(int n, ulong ms)
{
	return POLL_IRQ_UNTIL(nseq >= n, ms);
}

/* Takes IRQ0 requests latched while it was masked (the 8259 latches edges whatever the mask
 * says) off the books with the poll command, so each test starts from an empty IRR. */
static void drain0(void)
{
	pic_set_mask(0xfffe);
	for (int i = 0; i < 4 && (read_irr() & 1); i++) {
		outb(0x20, 0x0c);
		inb(0x20);
		outb(0x20, 0x20);
	}
	pic_set_mask(0xffff);
}

/* Two requests pending at once with IF=0: IRQ0 (wait for its IRR bit) and IRQ4. */
static void both_pending(void)
{
	pit_oneshot(600);
	for (uint64_t end = timeout_ms(1000); !(read_irr() & 1) && !timed_out(end);)
		;
	thre_raise();
}

/* ---- initialisation ---- */
static volatile int hits50;
static void vec50(struct frame *f)
{
	(void)f;
	hits50++;
	pic_send_eoi(0);
}

static void init(void)
{
	/* ICW1 (edge, cascade, ICW4), ICW2 (vector base), ICW3 (slave on IRQ2 / ID 2), ICW4
	 * (8086): the masks are clear afterwards and nothing is in service. */
	static const uint8_t icw[2][4] = { { 0x11, 0x50, 0x04, 0x01 }, { 0x11, 0x58, 0x02, 0x01 } };
	for (int n = 0; n < 2; n++) {
		uint16_t base = n ? 0xa0 : 0x20;
		outb(base, icw[n][0]);
		for (int i = 1; i < 4; i++)
			outb((uint16_t)(base + 1), icw[n][i]);
	}
	uint8_t m = inb(0x21), s = inb(0xa1);
	pic_set_mask(0xffff);
	CHECK(m == 0 && s == 0, "masks after initialisation: %x/%x", m, s);
	CHECK(read_isr() == 0, "isr after initialisation: %x", read_isr());
	drain0();
	/* ICW2 is the vector base: IRQ0 arrives at 0x50. */
	set_irq_handler(0x50, vec50);
	pit_oneshot(1200);
	pic_set_mask(0xfffe);
	POLL_IRQ_UNTIL(hits50, 1000);
	pic_set_mask(0xffff);
	CHECK(hits50 == 1, "irq0 at vector 0x50: %d", hits50);
	set_irq_handler(0x50, 0);
	pic_remap(VEC0, 0x28);
	kprintf("icw: masks clear afterwards, icw2 sets the vector base\n");
}

/* ---- both sources, one at a time ---- */
static void h0_plain(struct frame *f)
{
	(void)f;
	log_ev(IN0);
	pic_send_eoi(0);
}
static void h4_plain(struct frame *f)
{
	(void)f;
	log_ev(IN4);
	isr_a = (uint8_t)(thre_clear() & 0x0f); /* the IIR's interrupt identification */
	pic_send_eoi(4);
}

static void sources(void)
{
	set_irq_handler(VEC0, h0_plain);
	set_irq_handler(VEC4, h4_plain);
	pic_set_mask((uint16_t)~0x11u);
	seq_reset();
	pit_oneshot(1200);
	wait_events(1, 1000);
	CHECK(nseq == 1 && seq[0] == IN0, "irq0: %d events, first %d", nseq, seq[0]);
	seq_reset();
	uart_idle();
	thre_raise();
	wait_events(1, 1000);
	CHECK(nseq == 1 && seq[0] == IN4, "irq4: %d events, first %d", nseq, seq[0]);
	CHECK(isr_a == 0x02, "irq4: iir %x in the handler, expected THRE (2)", isr_a);
	/* The line is down again (IIR read): no second one. */
	irq_on();
	delay_ms(5);
	irq_off();
	CHECK(nseq == 1, "irq4: %d interrupts for one THRE", nseq);
	kprintf("irq0 from the pit, irq4 from the uart's thre: one interrupt each\n");
}

/* ---- nesting: IRQ0 interrupts IRQ4's handler, and ends IRQ4 with a specific EOI ---- */
static volatile ulong ticks;
static void h0_nest(struct frame *f)
{
	(void)f;
	log_ev(IN0);
	ticks++;
	isr_a = read_isr(); /* both in service */
	outb(0x20, 0x64);   /* specific EOI for IRQ4, below IRQ0 in priority */
	isr_b = read_isr();
	outb(0x20, 0x20); /* non-specific: the highest in service, IRQ0 */
	isr_c = read_isr();
	log_ev(OUT0);
}

static void h4_nest(struct frame *f)
{
	(void)f;
	log_ev(IN4);
	thre_clear();
	ticks = 0;
	pit_oneshot(1200);
	/* IF on inside the handler, no EOI yet: the higher-priority IRQ0 still gets through. */
	irq_on();
	for (uint64_t end = timeout_ms(1000); !ticks && !timed_out(end);)
		asm volatile("pause");
	irq_off();
	log_ev(OUT4); /* IRQ0's handler ended this one's service: no EOI here */
}

static void nesting(void)
{
	set_irq_handler(VEC0, h0_nest);
	set_irq_handler(VEC4, h4_nest);
	seq_reset();
	uart_idle();
	thre_raise();
	wait_events(4, 2000);
	static const int want[] = { IN4, IN0, OUT0, OUT4 };
	CHECK(seq_is(want, 4), "nesting: events %x %x %x %x", seq[0], seq[1], seq[2], seq[3]);
	CHECK(isr_a == 0x11 && isr_b == 0x01 && isr_c == 0x00,
	      "nesting: isr %x, after specific eoi of irq4 %x, after eoi %x", isr_a, isr_b, isr_c);
	CHECK(read_isr() == 0, "nesting: isr %x at the end", read_isr());
	kprintf("nesting: irq0 interrupts irq4's handler (sti before eoi), ISR shows both\n");
	kprintf("specific eoi: clears irq4 below the in-service irq0\n");
}

/* ---- a lower request waits for the EOI of a higher one ---- */
static void h4_wait(struct frame *f)
{
	(void)f;
	log_ev(IN4);
	isr_c = read_isr();
	thre_clear();
	pic_send_eoi(4);
	log_ev(OUT4);
}

static void h0_wait(struct frame *f)
{
	(void)f;
	log_ev(IN0);
	uart_idle();
	thre_raise();
	irq_on();
	delay_ms(3);
	irq_off();
	irr_a = read_irr();
	isr_a = read_isr();
	int before = nseq;
	outb(0x20, 0x20);
	irq_on();
	for (uint64_t end = timeout_ms(1000); nseq < before + 2 && !timed_out(end);)
		asm volatile("pause");
	irq_off();
	log_ev(OUT0);
}

static void waiting(void)
{
	set_irq_handler(VEC0, h0_wait);
	set_irq_handler(VEC4, h4_wait);
	seq_reset();
	pit_oneshot(1200);
	wait_events(4, 2000);
	static const int want[] = { IN0, IN4, OUT4, OUT0 };
	CHECK(seq_is(want, 4), "waiting: events %x %x %x %x", seq[0], seq[1], seq[2], seq[3]);
	CHECK((irr_a & 0x10) && isr_a == 0x01, "waiting: irr %x isr %x before the eoi", irr_a,
	      isr_a);
	CHECK(isr_c == 0x10, "waiting: isr %x in irq4's handler", isr_c);
	kprintf("priority: irq4 waits in IRR while irq0 is in service, arrives at its eoi\n");
}

/* ---- masking delays delivery ---- */
static void masking(void)
{
	set_irq_handler(VEC4, h4_plain);
	pic_set_mask(0xffff); /* IRQ4 masked */
	seq_reset();
	uart_idle();
	thre_raise();
	irq_on();
	delay_ms(3);
	irq_off();
	int early = nseq;
	uint8_t irr = read_irr();
	pic_set_mask((uint16_t)~0x10u);
	wait_events(1, 1000);
	pic_set_mask(0xffff);
	CHECK(!early && (irr & 0x10), "masking: %d delivered while masked, irr %x", early, irr);
	CHECK(nseq == 1 && seq[0] == IN4, "masking: %d delivered after unmasking", nseq);
	kprintf("masking: a masked request waits in IRR and arrives when unmasked\n");
}

/* ---- automatic EOI: nothing stays in service, no EOI needed ---- */
static volatile uint8_t aeoi_isr;
static void h0_aeoi(struct frame *f)
{
	(void)f;
	aeoi_isr |= read_isr();
	log_ev(IN0);
}

static void aeoi(void)
{
	outb(0x20, 0x11);
	outb(0x21, VEC0);
	outb(0x21, 0x04);
	outb(0x21, 0x03); /* 8086 mode, AEOI */
	outb(0x21, 0xff);
	set_irq_handler(VEC0, h0_aeoi);
	seq_reset();
	aeoi_isr = 0;
	outb(0x43, 0x34); /* rate generator, 1 ms */
	outb(0x40, 1193 & 0xff);
	outb(0x40, 1193 >> 8);
	pic_set_mask((uint16_t)~0x01u);
	wait_events(3, 2000);
	pit_oneshot(0xffff); /* mode 0: OUT low, no more edges */
	drain0();
	CHECK(nseq >= 3, "aeoi: %d interrupts without eoi", nseq);
	CHECK(aeoi_isr == 0, "aeoi: isr %x in the handler", aeoi_isr);
	pic_remap(VEC0, 0x28);
	kprintf("aeoi: interrupts keep coming without eoi, nothing in service\n");
}

/* ---- poll mode: the command port answers the highest request, IF stays clear ---- */
static void poll(void)
{
	pic_set_mask((uint16_t)~0x10u);
	uart_idle();
	thre_raise();
	outb(0x20, 0x0c);
	uint8_t p = inb(0x20);
	uint8_t isr = read_isr();
	outb(0x20, 0x20);
	uint8_t isr2 = read_isr();
	thre_clear();
	outb(0x20, 0x0c);
	uint8_t p2 = inb(0x20);
	pic_set_mask(0xffff);
	CHECK(p == 0x84, "poll: read %x, expected 0x84 (irq4)", p);
	CHECK(isr == 0x10 && isr2 == 0, "poll: isr %x after the poll, %x after eoi", isr, isr2);
	CHECK(!(p2 & 0x80), "poll with nothing pending: %x", p2);
	kprintf("poll: the request read and put in service with interrupts off\n");
}

/* ---- fixed priority, and rotation ---- */
static volatile int rotate_eoi;
static void h0_prio(struct frame *f)
{
	(void)f;
	log_ev(IN0);
	outb(0x20, rotate_eoi ? 0xa0 : 0x20); /* rotate on non-specific EOI: IRQ0 goes last */
}

static void h4_prio(struct frame *f)
{
	(void)f;
	log_ev(IN4);
	thre_clear();
	outb(0x20, 0x20);
}

static void round2(const char *what, int first, int rot)
{
	seq_reset();
	rotate_eoi = rot;
	uart_idle();
	both_pending();
	pic_set_mask((uint16_t)~0x11u);
	wait_events(2, 1000);
	pic_set_mask(0xffff);
	CHECK(nseq == 2 && seq[0] == first && seq[1] == (first == IN0 ? IN4 : IN0),
	      "%s: events %d %d", what, seq[0], seq[1]);
}

static void priority(void)
{
	set_irq_handler(VEC0, h0_prio);
	set_irq_handler(VEC4, h4_prio);
	round2("fixed priority", IN0, 1);
	round2("after rotation", IN4, 0);
	outb(0x20, 0xc7); /* set priority: IRQ7 lowest, the power-on order again */
	round2("after set priority", IN0, 0);
	kprintf("priority: irq0 before irq4; rotate on eoi puts irq0 last; set priority restores\n");
}

void test_main(void)
{
	irq_off();
	outb(COM1 + FCR, 0x00);
	outb(COM1 + MCR, 0x0b); /* DTR, RTS, OUT2: the PC's IRQ4 gate */
	pit_oneshot(1);
	init();
	sources();
	nesting();
	waiting();
	masking();
	aeoi();
	poll();
	priority();
	pic_set_mask(0xffff);
}
