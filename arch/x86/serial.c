/* 16550 UART driver for COM1: 115200 8N1, polled. */
#include "arch/x86/serial.h"
#include "arch/x86/cpu.h"

enum { THR = 0, RBR = 0, DLL = 0, IER = 1, DLM = 1, FCR = 2, LCR = 3, MCR = 4, LSR = 5 };
#define LSR_DR 0x01
#define LSR_THRE 0x20

/* Bytes received before the FIFOs were set up, handed out first (boot CPU only, then read
 * under the console's input lock). */
static u8 early_rx[16];
static unsigned early_n, early_next;

void serial_init(void)
{
	outb(COM1_BASE + IER, 0);
	outb(COM1_BASE + LCR, 0x80); /* DLAB to set the divisor */
	outb(COM1_BASE + DLL, 1);    /* 115200 baud */
	outb(COM1_BASE + DLM, 0);
	outb(COM1_BASE + LCR, 0x03); /* 8N1 */
	/* Enabling the FIFOs empties them: keep what was typed before (the guests' input). */
	while (early_n < sizeof(early_rx) && (inb(COM1_BASE + LSR) & LSR_DR))
		early_rx[early_n++] = inb(COM1_BASE + RBR);
	outb(COM1_BASE + FCR, 0xc7);
	outb(COM1_BASE + MCR, 0x03);
}

void serial_putc(char c)
{
	/* Bounded: a wedged UART must not hang a panic dump forever. */
	for (int i = 0; i < 100000 && !(inb(COM1_BASE + LSR) & LSR_THRE); i++)
		__asm__ volatile("pause");
	outb(COM1_BASE + THR, (u8)c);
}

int serial_getc(void)
{
	if (early_next < early_n)
		return early_rx[early_next++];
	if (!(inb(COM1_BASE + LSR) & LSR_DR))
		return -1;
	return inb(COM1_BASE + RBR);
}
