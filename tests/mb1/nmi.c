/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 kernel: NMIs from the local APIC (self NMI IPIs): blocked from delivery until the
 * handler's IRET, one kept pending behind the one in service, more coalesced into it. */
#include "tests/mb1/mb1.h"

const char guest_name[] = "nmi";

#define ICR_NMI 0x4400u /* level assert, delivery mode NMI (the vector field is ignored) */

static volatile int count, depth, nested, burst;
static volatile ulong ip[4];

static void self_nmi(void)
{
	apic_reg_write(LAPIC_ICR_HI, apic_reg_read(LAPIC_ID) & 0xff000000u);
	apic_reg_write(LAPIC_ICR_LO, ICR_NMI);
}

/* Exits under Umbra (each APIC read is MMIO) and TB ends under TCG: every chance to deliver an
 * NMI too early. */
static void busy(ulong ms)
{
	uint64_t end = timeout_ms(ms);
	while (!timed_out(end))
		(void)apic_reg_read(LAPIC_VER);
}

/* The first NMI of a burst sends `burst` more to its own CPU while it is in service and
 * lingers: none may enter before its IRET. */
static void on_nmi(struct frame *f)
{
	if (++depth > 1)
		nested++;
	if (count < 4)
		ip[count] = f->ip;
	if (count++ == 0) {
		for (int i = 0; i < burst; i++)
			self_nmi();
		busy(20);
	}
	depth--;
}

static void reset(int more)
{
	count = depth = nested = 0;
	burst = more;
	for (int i = 0; i < 4; i++)
		ip[i] = 0;
}

/* One NMI: taken once, with interrupts off too. */
static void single(void)
{
	reset(0);
	self_nmi();
	uint64_t end = timeout_ms(1000);
	while (count == 0 && !timed_out(end))
		asm volatile("pause");
	busy(20);
	CHECK(count == 1 && !nested, "one self NMI: %d taken, %d nested", count, nested);
	kprintf("self nmi (icr, physical destination): taken once with IF=0\n");
}

/* More sent from inside the handler: the CPU latches one while the first is in service, the
 * others find the latch taken. The second comes as soon as the first has returned: at the
 * same place, before the interrupted code runs on, with interrupts on or off there. */
static void behind_iret(int more, int want, int irq)
{
	reset(more);
	if (irq)
		irq_on();
	self_nmi();
	uint64_t end = timeout_ms(1000);
	while (count < want && !timed_out(end))
		asm volatile("pause");
	busy(50);
	irq_off();
	CHECK(count == want && !nested,
	      "%d self NMIs, %d sent in service: %d taken (want %d), "
	      "%d nested",
	      1 + more, more, count, want, nested);
	CHECK(want < 2 || ip[1] == ip[0],
	      "the NMI held behind the first came at %lx, not where "
	      "the first returned to (%lx)",
	      ip[1], ip[0]);
	kprintf("%d nmis, %d sent in service, IF=%d: %d taken, none nested, the held one right "
		"after the iret\n",
		1 + more, more, irq, want);
}

void test_main(void)
{
	pic_remap(0x20, 0x28);
	set_irq_handler(2, on_nmi);
	single();
	behind_iret(1, 2, 0);
	behind_iret(1, 2, 1);
	behind_iret(2, 2, 0);
	behind_iret(3, 2, 1);
}
