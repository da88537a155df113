/* SPDX-License-Identifier: GPL-2.0-only */
/* A 16550A UART model: registers, RX FIFO with trigger level, interrupts, loopback, modem lines. */
#include "vmm/dev/uart.h"

enum { RBR_THR = 0, IER = 1, IIR_FCR = 2, LCR = 3, MCR = 4, LSR = 5, MSR = 6, SCR = 7 };

#define IER_RDA 0x01
#define IER_THRE 0x02
#define IER_RLS 0x04
#define IER_MSI 0x08

#define IIR_NONE 0x01
#define IIR_MSI 0x00
#define IIR_THRE 0x02
#define IIR_RDA 0x04
#define IIR_RLS 0x06
#define IIR_TIMEOUT 0x0c
#define IIR_FIFO 0xc0

#define FCR_ENABLE 0x01
#define FCR_CLEAR_RX 0x02
/* What stays of an FCR write: enable, DMA mode, trigger level (the clear bits self-clear). */
#define FCR_KEPT 0xc9

#define LCR_DLAB 0x80

#define MCR_DTR 0x01
#define MCR_RTS 0x02
#define MCR_OUT1 0x04
#define MCR_OUT2 0x08
#define MCR_LOOP 0x10

#define LSR_DR 0x01
#define LSR_OE 0x02
/* Overrun, parity, framing, break: the line-status interrupt sources (only OE happens here). */
#define LSR_ERRORS 0x1e
#define LSR_THRE_TEMT 0x60

#define MSR_DELTAS 0x0f
#define MSR_TERI 0x04
#define MSR_RI 0x40
/* Outside loopback the model's cable always shows a peer: DCD, DSR and CTS asserted. */
#define MSR_CABLE 0xb0

/* ---- receiver ---- */

/* Without FIFOs the receiver holds one byte (the 16450's RBR). */
static unsigned rx_capacity(const struct uart *u)
{
	return (u->fcr & FCR_ENABLE) ? UART_FIFO : 1;
}

static unsigned rx_trigger(const struct uart *u)
{
	static const u8 level[4] = { 1, 4, 8, 14 };

	return (u->fcr & FCR_ENABLE) ? level[u->fcr >> 6] : 1;
}

/* ---- the input queue in front of the receiver ---- */

static bool in_connected(const struct uart *u)
{
	return u->in_count && !(u->mcr & MCR_LOOP);
}

static u8 in_pop(struct uart *u)
{
	u8 byte = u->in[u->in_head];

	u->in_head = (u16)((u->in_head + 1) % UART_INPUT_QUEUE);
	u->in_count--;
	return byte;
}

/* On overrun a full FIFO keeps its contents and loses the incoming character; without
 * FIFOs the incoming character overwrites the one in the holding register (datasheet). */
static bool rx_put(struct uart *u, u8 byte)
{
	if (u->rx_count >= rx_capacity(u)) {
		u->lsr |= LSR_OE;
		if (u->fcr & FCR_ENABLE)
			return false;
		u->rx[u->rx_head] = byte;
		return true;
	}
	u->rx[(u->rx_head + u->rx_count) % UART_FIFO] = byte;
	u->rx_count++;
	return true;
}

static u8 rx_pop(struct uart *u)
{
	u8 byte;

	/* A polling guest reads a queued byte once LSR has shown it waiting. */
	if (!u->rx_count && in_connected(u))
		return in_pop(u);
	if (!u->rx_count)
		return 0;
	byte = u->rx[u->rx_head];
	u->rx_head = (u8)((u->rx_head + 1) % UART_FIFO);
	u->rx_count--;
	return byte;
}

static void rx_clear(struct uart *u)
{
	u->rx_head = 0;
	u->rx_count = 0;
}

/* A guest with received-data interrupts on gets the FIFO filled as on the chip, so trigger
 * levels and timeouts behave; until then the bytes wait in the queue, where a FIFO reset
 * cannot reach them. */
static void in_feed(struct uart *u)
{
	while ((u->ier & IER_RDA) && in_connected(u) && u->rx_count < rx_capacity(u))
		rx_put(u, in_pop(u));
}

/* ---- interrupts ---- */

/* The identification IIR reports: the highest-priority enabled source. The character timeout
 * is taken as already elapsed (the model has no clock), so bytes below the trigger level are
 * reported as a timeout at once instead of after four character times. */
static u8 iir_id(const struct uart *u)
{
	if ((u->ier & IER_RLS) && (u->lsr & LSR_ERRORS))
		return IIR_RLS;
	if ((u->ier & IER_RDA) && u->rx_count)
		return u->rx_count >= rx_trigger(u) ? IIR_RDA : IIR_TIMEOUT;
	if ((u->ier & IER_THRE) && u->thr_irq)
		return IIR_THRE;
	if ((u->ier & IER_MSI) && (u->msr & MSR_DELTAS))
		return IIR_MSI;
	return IIR_NONE;
}

static u8 iir_read(struct uart *u)
{
	u8 id = iir_id(u);

	/* Reading IIR is what acknowledges a THR-empty interrupt; the others need their source
	 * register read. */
	if (id == IIR_THRE)
		u->thr_irq = false;
	return id | ((u->fcr & FCR_ENABLE) ? IIR_FIFO : 0);
}

/* ---- modem lines ---- */

/* In loopback the modem inputs are wired to the outputs: RTS->CTS, DTR->DSR, OUT1->RI,
 * OUT2->DCD. */
static u8 modem_inputs(const struct uart *u)
{
	u8 m = u->mcr;

	if (!(m & MCR_LOOP))
		return MSR_CABLE;
	return (u8)(((m & MCR_RTS) << 3) | ((m & MCR_DTR) << 5) | ((m & MCR_OUT1) << 4) |
		    ((m & MCR_OUT2) << 4));
}

/* Delta bits latch changes of CTS, DSR, DCD, and RI's falling (trailing) edge only. */
static void modem_update(struct uart *u)
{
	u8 old = u->msr & 0xf0, now = modem_inputs(u), changed = old ^ now;
	u8 delta = (u8)((changed & 0xb0) >> 4);

	if ((old & MSR_RI) && !(now & MSR_RI))
		delta |= MSR_TERI;
	u->msr = (u8)(now | (u->msr & MSR_DELTAS) | delta);
}

/* ---- register writes ---- */

static void thr_write(struct uart *u, u8 byte)
{
	if (u->mcr & MCR_LOOP)
		rx_put(u, byte);
	else if (u->tx)
		u->tx(u->ctx, byte);
	/* Transmission is instant: THR is empty again, which is an interrupt condition. */
	u->thr_irq = true;
}

static void ier_write(struct uart *u, u8 val)
{
	/* The THR is always empty, so turning the THRE interrupt on raises it at once. */
	if (!(u->ier & IER_THRE) && (val & IER_THRE))
		u->thr_irq = true;
	u->ier = val & 0x0f;
	in_feed(u);
}

static void fcr_write(struct uart *u, u8 val)
{
	bool was_on = u->fcr & FCR_ENABLE;

	/* With bit 0 clear the other bits are not programmed; any change of bit 0 resets
	 * the FIFOs. The TX FIFO is always empty here, so only RX has anything to clear. */
	if (!(val & FCR_ENABLE)) {
		if (was_on)
			rx_clear(u);
		u->fcr = 0;
		in_feed(u);
		return;
	}
	if (!was_on || (val & FCR_CLEAR_RX))
		rx_clear(u);
	u->fcr = val & FCR_KEPT;
	in_feed(u);
}

static void mcr_write(struct uart *u, u8 val)
{
	u->mcr = val & 0x1f;
	modem_update(u);
	in_feed(u);
}

/* ---- register reads ---- */

static u8 lsr_read(struct uart *u)
{
	u8 val = (u8)(u->lsr | (u->rx_count || in_connected(u) ? LSR_DR : 0));

	u->lsr &= (u8)~LSR_ERRORS;
	return val;
}

static u8 msr_read(struct uart *u)
{
	u8 val = u->msr;

	u->msr &= (u8)~MSR_DELTAS;
	return val;
}

/* ---- interface ---- */

void uart_reset(struct uart *u, void (*tx)(void *ctx, u8 byte), void *ctx)
{
	*u = (struct uart){ .lsr = LSR_THRE_TEMT, .msr = MSR_CABLE, .tx = tx, .ctx = ctx };
}

u8 uart_read(struct uart *u, unsigned reg)
{
	bool dlab = u->lcr & LCR_DLAB;
	u8 val;

	switch (reg) {
	case RBR_THR:
		if (dlab)
			return u->dll;
		val = rx_pop(u);
		in_feed(u);
		return val;
	case IER:
		return dlab ? u->dlm : u->ier;
	case IIR_FCR:
		return iir_read(u);
	case LCR:
		return u->lcr;
	case MCR:
		return u->mcr;
	case LSR:
		return lsr_read(u);
	case MSR:
		return msr_read(u);
	case SCR:
		return u->scr;
	default:
		return 0xff;
	}
}

void uart_write(struct uart *u, unsigned reg, u8 val)
{
	bool dlab = u->lcr & LCR_DLAB;

	switch (reg) {
	case RBR_THR:
		if (dlab)
			u->dll = val;
		else
			thr_write(u, val);
		break;
	case IER:
		if (dlab)
			u->dlm = val;
		else
			ier_write(u, val);
		break;
	case IIR_FCR:
		fcr_write(u, val);
		break;
	case LCR:
		u->lcr = val;
		break;
	case MCR:
		mcr_write(u, val);
		break;
	case SCR:
		u->scr = val;
		break;
	default:
		break; /* LSR and MSR writes are the chip's factory test: not modelled */
	}
}

bool uart_rx_push(struct uart *u, u8 byte)
{
	/* Loopback disconnects the serial input: the byte is refused without an overrun. */
	if (u->mcr & MCR_LOOP)
		return false;
	return rx_put(u, byte);
}

bool uart_input_push(struct uart *u, u8 byte)
{
	if (u->in_count == UART_INPUT_QUEUE)
		return false;
	u->in[(u->in_head + u->in_count) % UART_INPUT_QUEUE] = byte;
	u->in_count++;
	in_feed(u);
	return true;
}

bool uart_input_room(const struct uart *u)
{
	return u->in_count < UART_INPUT_QUEUE;
}

bool uart_rx_room(const struct uart *u)
{
	return !(u->mcr & MCR_LOOP) && u->rx_count < rx_capacity(u);
}

/* On the PC, MCR.OUT2 gates the chip's interrupt onto the ISA line. In loopback the line
 * follows the OUT2 bit as written, as in QEMU (the reference the test kernels are compared
 * with, and how tests exercise interrupts without a peer); a real board disconnects it
 * there, since the chip forces its OUT2 pin inactive. */
static bool irq_gate_open(const struct uart *u)
{
	return u->mcr & MCR_OUT2;
}

bool uart_irq(const struct uart *u)
{
	return irq_gate_open(u) && iir_id(u) != IIR_NONE;
}

bool uart_rx_irq_enabled(const struct uart *u)
{
	return irq_gate_open(u) && !(u->mcr & MCR_LOOP) && (u->ier & IER_RDA);
}
