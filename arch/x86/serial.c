/* 16550 UART driver for COM1 and COM2: 115200 8N1, polled. */
#include "arch/x86/serial.h"
#include "arch/x86/cpu.h"

enum { THR = 0, RBR = 0, DLL = 0, IER = 1, DLM = 1, FCR = 2, LCR = 3, MCR = 4, LSR = 5 };
#define LSR_DR 0x01
#define LSR_THRE 0x20

/* Bytes received before the FIFOs were set up, handed out first (boot CPU only, then read
 * under the console's input lock). */
static u8 early_rx[16];
static unsigned early_n, early_next;

static void port_init(u16 base, u8 *keep, unsigned *kept, unsigned room)
{
	outb(base + IER, 0);
	outb(base + LCR, 0x80); /* DLAB to set the divisor */
	outb(base + DLL, 1);    /* 115200 baud */
	outb(base + DLM, 0);
	outb(base + LCR, 0x03); /* 8N1 */
	/* Enabling the FIFOs empties them: keep what was typed before (the guests' input). */
	while (keep && *kept < room && (inb(base + LSR) & LSR_DR))
		keep[(*kept)++] = inb(base + RBR);
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
	port_init(COM1_BASE, early_rx, &early_n, sizeof(early_rx));
}

void serial_putc(char c)
{
	port_putc(COM1_BASE, (u8)c);
}

int serial_getc(void)
{
	if (early_next < early_n)
		return early_rx[early_next++];
	return port_getc(COM1_BASE);
}

/* What gdb sent before the stub was ready is dropped: it resends a packet without an ack. */
void serial2_init(void)
{
	unsigned none = 0;
	port_init(COM2_BASE, NULL, &none, 0);
}

void serial2_putc(u8 c)
{
	port_putc(COM2_BASE, c);
}

int serial2_getc(void)
{
	return port_getc(COM2_BASE);
}
