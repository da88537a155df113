/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest test: waits by interrupt (HLT, COM1 received-data on IRQ4) for typed bytes and prints them. */
#include "tests/guests/lib/guest.h"

const char guest_name[] = "input";

#define COM1 0x3f8
#define WANT 3

static volatile char got[WANT + 1];
static volatile unsigned ngot;

static void com1_irq(struct frame *f)
{
	(void)f;
	while ((inb(COM1 + 5) & 1) && ngot < WANT)
		got[ngot++] = (char)inb(COM1);
	pic_send_eoi(4);
}

void test_main(void)
{
	pic_remap(0x20, 0x28);
	set_irq_handler(0x24, com1_irq);
#ifdef FIFO_RESET
	/* As a driver starts (Linux's 8250): FIFOs on and emptied, after input was typed ahead. */
	outb(COM1 + 2, 0x07);
#endif
	outb(COM1 + 1, 0x01); /* received-data interrupt */
	outb(COM1 + 4, 0x0b); /* DTR, RTS, OUT2 (the PC's IRQ gate) */
	pic_set_mask((uint16_t) ~(1u << 4));
	/* No timeout: the guest sleeps until typed input arrives (Umbra's budget bounds it). */
	irq_off();
	while (ngot < WANT) {
		irq_wait();
		irq_off();
	}
	kprintf("got: %s\n", (const char *)got);
	finish();
}
