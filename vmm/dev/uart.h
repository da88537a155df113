/* SPDX-License-Identifier: GPL-2.0-only */
/* A 16550A UART (8 registers): FIFOs, interrupts, loopback, and input pushed in by the host. */
#ifndef VMM_DEV_UART_H
#define VMM_DEV_UART_H

#include "lib/types.h"

#define UART_FIFO 16
/* Typed bytes the receiver has not taken yet wait in a queue in front of it, as on a line with
 * flow control: a byte enters the receiver once the guest listens (received-data interrupts
 * on) or reads it (RBR, after LSR shows data waiting), so what is typed before the guest's
 * driver is up survives its FIFO reset. 256 bytes: several lines typed ahead. */
#define UART_INPUT_QUEUE 256

struct uart {
	u8 ier, lcr, mcr, scr, dll, dlm;
	u8 lsr;		  /* THRE, TEMT and the latched errors (OE); DR comes from rx_count */
	u8 msr;		  /* modem inputs (bits 4-7) and their latched deltas (bits 0-3) */
	u8 fcr;		  /* FIFO control as last written (FIFOs on: bit 0) */
	u8 rx[UART_FIFO]; /* received bytes, oldest at rx_head (1 byte deep without FIFOs) */
	u8 rx_head, rx_count;
	bool thr_irq; /* THR-empty interrupt pending (cleared by an IIR read or THR write) */
	u8 in[UART_INPUT_QUEUE]; /* typed bytes not yet in the receiver, oldest at in_head */
	u16 in_head, in_count;
	/* Where transmitted bytes go (not called in loopback): the console line of the guest. */
	void (*tx)(void *ctx, u8 byte);
	void *ctx;
};

void uart_reset(struct uart *u, void (*tx)(void *ctx, u8 byte), void *ctx);
/* reg is the offset from the base port (0-7). */
u8 uart_read(struct uart *u, unsigned reg);
void uart_write(struct uart *u, unsigned reg, u8 val);
/* Input from outside (the host's keyboard): false if the FIFO is full (the byte is dropped
 * and the overrun bit set, as on the chip), or in loopback, where the serial input is
 * disconnected (the byte is refused, no overrun). */
bool uart_rx_push(struct uart *u, u8 byte);
/* Room for input? (the host keeps bytes it has no room for; none in loopback) */
bool uart_rx_room(const struct uart *u);
/* Typed input through the queue in front of the receiver: false if the queue is full (the
 * caller keeps the byte). In loopback queued bytes wait for the line to be connected again. */
bool uart_input_push(struct uart *u, u8 byte);
bool uart_input_room(const struct uart *u);
/* The level of the IRQ line: an enabled interrupt is pending and MCR.OUT2 lets it out
 * (never in loopback, which forces the OUT2 pin inactive). */
bool uart_irq(const struct uart *u);
/* Does the guest wait for input by interrupt (received-data interrupts enabled, OUT2 set,
 * not in loopback)? */
bool uart_rx_irq_enabled(const struct uart *u);

#endif
