/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 kernel: 16550 programming read back, output of its arguments, exit status from exit=V. */
#include "tests/mb1/mb1.h"

const char guest_name[] = "serial";

#define COM1 0x3f8
enum { THR = 0, DLL = 0, IER = 1, DLM = 1, IIR = 2, FCR = 2, LCR = 3, MCR = 4, LSR = 5, SCR = 7 };

static void expect_reg(const char *what, unsigned reg, uint8_t want)
{
	uint8_t v = inb(COM1 + reg);
	CHECK(v == want, "uart %s: read %x, expected %x", what, v, want);
}

/* Port output without the library, so nothing else touches the UART while it is reprogrammed. */
static void raw_puts(const char *s)
{
	for (; *s; s++) {
		while (!(inb(COM1 + LSR) & 0x20))
			;
		outb(COM1 + THR, (uint8_t)*s);
	}
}

/* String I/O: what some kernels use for a whole line at once. */
static void string_io(void)
{
	static const char line[] = "rep outsb to THR\r\n";
	const char *src = line;
	ulong n = sizeof(line) - 1;
	asm volatile("rep outsb" : "+S"(src), "+c"(n) : "d"(COM1) : "memory");
	uint8_t lsr[4] = { 0, 0, 0, 0 };
	uint8_t *dst = lsr;
	n = 4;
	asm volatile("rep insb" : "+D"(dst), "+c"(n) : "d"(COM1 + LSR) : "memory");
	CHECK((lsr[0] & lsr[1] & lsr[2] & lsr[3] & 0x60) == 0x60, "rep insb of LSR");
	uint16_t w;
	asm volatile("inw %%dx, %%ax" : "=a"(w) : "d"(COM1 + LSR));
	CHECK((w & 0x60) == 0x60, "inw of LSR: %x", w);
	kprintf("string i/o: rep outsb, rep insb, inw: %s\n", checks_failed ? "mismatch" : "ok");
}

void test_main(void)
{
	/* The divisor latch: 115200 8N1 and back; while DLAB is set, port 0 is the latch. */
	outb(COM1 + LCR, 0x80);
	outb(COM1 + DLL, 0x01);
	outb(COM1 + DLM, 0x00);
	expect_reg("dll", DLL, 0x01);
	expect_reg("dlm", DLM, 0x00);
	outb(COM1 + DLL, 0x0c); /* 9600: only the latch changes, no character is sent */
	expect_reg("dll 9600", DLL, 0x0c);
	outb(COM1 + DLL, 0x01);
	outb(COM1 + LCR, 0x03);
	expect_reg("lcr", LCR, 0x03);
	outb(COM1 + LCR, 0x1b); /* 8E1: parity bits are kept, DLAB clear */
	expect_reg("lcr 8E1", LCR, 0x1b);
	outb(COM1 + LCR, 0x03);
	/* IER keeps its four defined bits; interrupts stay off (IF=0), nothing is delivered. */
	outb(COM1 + IER, 0x0f);
	expect_reg("ier", IER, 0x0f);
	outb(COM1 + IER, 0x00);
	expect_reg("ier off", IER, 0x00);
	/* IIR bits 6-7 say whether the FIFOs are on: how kernels tell a 16550A from a 16450. */
	outb(COM1 + FCR, 0x00);
	CHECK((inb(COM1 + IIR) & 0xcf) == 0x01, "uart iir: FIFOs off, nothing pending");
	outb(COM1 + FCR, 0x07);
	CHECK((inb(COM1 + IIR) & 0xcf) == 0xc1, "uart iir: FIFOs on, nothing pending");
	CHECK(!(inb(COM1 + LSR) & 0x01), "uart lsr: no data ready without input");
	outb(COM1 + MCR, 0x03);
	expect_reg("mcr", MCR, 0x03);
	outb(COM1 + SCR, 0x5a);
	expect_reg("scr", SCR, 0x5a);
	CHECK((inb(COM1 + LSR) & 0x60) == 0x60, "uart lsr: transmitter empty when idle");
	kprintf("uart: divisor latch, lcr, ier, fcr, mcr, scr, lsr: %s\n",
		checks_failed ? "mismatch" : "ok");

	raw_puts("raw output through THR\r\n");
	if (mb1_arg_num("stringio", 0))
		string_io();
	kprintf("args: [%s]\n", mb1_args());
	kprintf("line with tabs:\tone\ttwo\n\nafter an empty line\n");
	for (int i = 0; i < 3; i++)
		kprintf("count %d of 3\n", i + 1);

	ulong v = mb1_arg_num("exit", 0x10);
	if (mb1_arg_num("exitb", 0) && !checks_failed) {
		/* A byte-wide OUT with other bits in AX: the device sees AL alone. */
		asm volatile("outb %%al, %%dx"
			     :
			     : "a"(0xa500u | (uint8_t)v), "d"(UMBRA_RESULT_PORT));
		triple_fault();
	}
	if (v != 0x10 || checks_failed) {
		kprintf("exit value %lx\n", checks_failed ? 0x11ul : v);
		outl(UMBRA_RESULT_PORT, checks_failed ? 0x11u : (uint32_t)v);
		triple_fault(); /* no exit port: make the run end anyway */
	}
}
