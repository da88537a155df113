/* SPDX-License-Identifier: GPL-2.0-only */
/* 16550 UART driver for COM1 and COM2: 115200 8N1, polled. */
#include "arch/x86/serial.h"
#include "arch/x86/cpu.h"

enum { THR = 0, RBR = 0, DLL = 0, IER = 1, DLM = 1, FCR = 2, LCR = 3, MCR = 4, LSR = 5 };
#define LSR_DR 0x01
#define LSR_THRE 0x20

/* COM1 carries what is typed for the guests, from power-on on: its receiver is never reset.
 * Switching the 16550's FIFOs on or off empties the receiver (datasheet; QEMU does the same),
 * and a byte can arrive between the last read of the receiver and that FCR write: it was lost
 * (typed-ahead input, e.g. the y of "xyz" fed to QEMU's stdio before boot). The FIFO mode the
 * firmware left stays; input is read by polling either way. COM2 (the gdb stub) gets its FIFOs:
 * gdb resends what was lost before the stub was ready. */
static void port_init(u16 base, bool set_fifos)
{
	outb(base + IER, 0);
	outb(base + LCR, 0x80); /* DLAB to set the divisor */
	outb(base + DLL, 1);    /* 115200 baud */
	outb(base + DLM, 0);
	outb(base + LCR, 0x03); /* 8N1 */
	if (set_fifos)
		outb(base + FCR, 0xc7);
	outb(base + MCR, 0x03);
}

static void port_putc(u16 base, u8 c)
{
	/* Bounded: a wedged UART must not hang a panic dump forever. */
	for (int i = 0; i < 100000 && !(inb(base + LSR) & LSR_THRE); i++)
		__asm__ volatile("pause");
	outb(base + THR, c);
}

static int port_getc(u16 base)
{
	if (!(inb(base + LSR) & LSR_DR))
		return -1;
	return inb(base + RBR);
}

void serial_init(void)
{
	port_init(COM1_BASE, false);
}

void serial_putc(char c)
{
	port_putc(COM1_BASE, (u8)c);
}

int serial_getc(void)
{
	return port_getc(COM1_BASE);
}

void serial2_init(void)
{
	port_init(COM2_BASE, true);
}

void serial2_putc(u8 c)
{
	port_putc(COM2_BASE, c);
}

int serial2_getc(void)
{
	return port_getc(COM2_BASE);
}
