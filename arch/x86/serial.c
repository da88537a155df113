/* SPDX-License-Identifier: GPL-2.0-only */
/* 16550 UART driver for COM1 and COM2: 115200 8N1, polled. */
#include "arch/x86/serial.h"
#include "arch/x86/cpu.h"

enum { THR = 0, RBR = 0, DLL = 0, IER = 1, DLM = 1, FCR = 2, IIR = 2, LCR = 3, MCR = 4, LSR = 5 };
#define LSR_DR 0x01
#define LSR_THRE 0x20  /* with FIFOs on: the whole transmit FIFO is empty */
#define LSR_TEMT 0x40  /* and the last byte has left the shift register */
#define IIR_FIFOS 0xc0 /* both set: the FIFOs are on (a 16550A) */
#define TX_FIFO_BYTES 16

/* Bytes the transmitter takes without another look at LSR. Under a hypervisor below Umbra each
 * port access is an exit: a poll before every byte doubled what the console cost; with the
 * FIFOs on it is one poll per 16 bytes. */
static struct {
	u8 fifo; /* bytes the transmitter holds: 16 with FIFOs on, else 1 */
	u8 room; /* of them free since LSR last said empty */
} tx[2];

static unsigned port_index(u16 base)
{
	return base == COM1_BASE ? 0 : 1;
}

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
	outb(base + DLL, 1);	/* 115200 baud */
	outb(base + DLM, 0);
	outb(base + LCR, 0x03); /* 8N1 */
	if (set_fifos)
		outb(base + FCR, 0xc7);
	outb(base + MCR, 0x03);
	tx[port_index(base)].fifo = (inb(base + IIR) & IIR_FIFOS) == IIR_FIFOS ? TX_FIFO_BYTES : 1;
	tx[port_index(base)].room = 0;
}

static void port_putc(u16 base, u8 c)
{
	unsigned i = port_index(base);

	if (!tx[i].room) {
		/* Bounded: a wedged UART must not hang a panic dump forever. */
		for (int n = 0; n < 100000 && !(inb(base + LSR) & LSR_THRE); n++)
			__asm__ volatile("pause");
		tx[i].room = tx[i].fifo ? tx[i].fifo : 1;
	}
	outb(base + THR, c);
	tx[i].room--;
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

unsigned serial_tx_fifo(void)
{
	return tx[0].fifo;
}

void serial_drain(void)
{
	for (int n = 0; n < 1000000 && !(inb(COM1_BASE + LSR) & LSR_TEMT); n++)
		__asm__ volatile("pause");
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
