/* SPDX-License-Identifier: GPL-2.0-only */
/* Attack guest (rawterm): with the terminal raw, it leaves colours on and an escape sequence open. */
/* Run with term=raw console=rawterm: its bytes reach the serial line as they are. It turns red
 * on (SGR 31) and opens an operating-system command (ESC ] 0;) that it never ends, so that all
 * it writes afterwards (its result line) is swallowed by the terminal, and passes. Umbra's
 * next line (the guest's end) must first cancel the sequence (CAN) and reset the attributes,
 * on a line of its own (tests/attack/cases.sh). */
#include "tests/attack/attack.h"

const char guest_name[] = GUEST_NAME;

#define COM1 0x3f8

static void raw(const char *s)
{
	for (; *s; s++) {
		for (int k = 0; k < 100000 && !(inb(COM1 + 5) & 0x20); k++)
			;
		outb(COM1, (uint8_t)*s);
	}
}

void test_main(void)
{
	raw("#raw1 plain\r\n");
	raw("#raw2 \x1b[31mred, then an open OSC: \x1b]0;");
	kprintf("cases: rawterm\n");
}
