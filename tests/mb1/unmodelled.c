/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 kernel: touches devices Umbra does not model (parallel and game ports, floppy, HPET) and still finishes. */
#include "tests/mb1/mb1.h"

const char guest_name[] = "unmodelled";

/* Natively these are real devices with their own values: none is printed. The runner checks
 * that Umbra's report names 0x379, 0x201, 0x3f4 and the HPET page (the I/O APIC and the i8042
 * are modelled). */
void test_main(void)
{
	volatile uint8_t sink;
	sink = inb(0x379); /* LPT1 status */
	sink = inb(0x201); /* game port */
	sink = inb(0x3f4); /* floppy main status (q35 has no floppy: all ones natively too) */
	outb(0x3f2, 0x00); /* floppy digital output: motors off, controller held in reset */
	(void)sink;
	kprintf("ports: parallel, game and floppy read\n");
	/* HPET: its capabilities and ID register, then the configuration register written with
	 * what it holds after reset (counter halted), so natively nothing starts. */
	volatile uint32_t cap = *phys32(0xfed00000u);
	(void)cap;
	*phys32(0xfed00010u) = 0;
	kprintf("mmio: hpet page read and written\n");
	kprintf("still running after unmodelled devices\n");
}
