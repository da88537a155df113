/* SPDX-License-Identifier: GPL-2.0-only */
/* The I/O APIC model: indirect registers, redirection entries, edge and level pins, EOI. */
#include "vmm/dev/ioapic.h"
#include "lib/string.h"

#define ID_SHIFT 24
#define ID_MASK 0xfu
/* What a write keeps: vector, delivery mode, destination mode, polarity, trigger, mask in
 * the low dword, the destination in the high one. Delivery status and Remote IRR are the
 * chip's; the reserved bits read 0 (no interrupt-remapping format here). */
#define LOW_RW 0x1afffu
#define HIGH_RW 0xff000000u

static u32 pin_bit(unsigned pin)
{
	return 1u << pin;
}

static bool is_level(const struct ioapic *io, unsigned pin)
{
	return io->redir[pin] & IOAPIC_RTE_LEVEL;
}

static bool masked(const struct ioapic *io, unsigned pin)
{
	return io->redir[pin] & IOAPIC_RTE_MASKED;
}

/* The input after the polarity inverter: what the edge and level logic see. */
static bool asserted(const struct ioapic *io, unsigned pin)
{
	bool line = io->lines & pin_bit(pin);
	return (io->redir[pin] & IOAPIC_RTE_ACTIVE_LOW) ? !line : line;
}

/* Would ioapic_take send a message for pin now? A level pin is a pure function of its
 * input and Remote IRR, so EOI, unmasking and reprogramming need no bookkeeping. */
static bool ready(const struct ioapic *io, unsigned pin)
{
	if (masked(io, pin))
		return false;
	if (!is_level(io, pin))
		return io->pending & pin_bit(pin);
	return asserted(io, pin) && !(io->redir[pin] & IOAPIC_RTE_REMOTE_IRR);
}

void ioapic_reset(struct ioapic *io, u8 id)
{
	memset(io, 0, sizeof(*io));
	io->id = id & ID_MASK;
	for (unsigned pin = 0; pin < IOAPIC_PINS; pin++)
		io->redir[pin] = IOAPIC_RTE_MASKED;
}

void ioapic_set_irq(struct ioapic *io, unsigned pin, bool level)
{
	if (pin >= IOAPIC_PINS)
		return;
	bool changed = level != !!(io->lines & pin_bit(pin));

	if (level)
		io->lines |= pin_bit(pin);
	else
		io->lines &= ~pin_bit(pin);
	/* The chip's edge detector is ignored while masked: that edge is gone for good. */
	if (changed && asserted(io, pin) && !is_level(io, pin) && !masked(io, pin))
		io->pending |= pin_bit(pin);
}

static void decode(const struct ioapic *io, unsigned pin, struct ioapic_msg *m)
{
	u64 e = io->redir[pin];

	m->vector = (u8)(e & IOAPIC_RTE_VECTOR);
	m->dest = (u8)(e >> IOAPIC_RTE_DEST_SHIFT);
	m->delivery = (u8)((e >> IOAPIC_RTE_DELMODE_SHIFT) & 7);
	m->logical = e & IOAPIC_RTE_LOGICAL;
	m->level = e & IOAPIC_RTE_LEVEL;
}

bool ioapic_take(struct ioapic *io, struct ioapic_msg *m)
{
	/* Only these pins can be ready (a latched edge, or a level input that may be asserted):
	 * the board asks after every exit, and most of the time there are none. */
	u32 maybe = io->pending | io->lines | io->low_level;

	for (; maybe; maybe &= maybe - 1) {
		unsigned pin = (unsigned)__builtin_ctz(maybe);
		if (!ready(io, pin))
			continue;
		decode(io, pin, m);
		if (is_level(io, pin))
			io->redir[pin] |= IOAPIC_RTE_REMOTE_IRR;
		else
			io->pending &= ~pin_bit(pin);
		return true;
	}
	return false;
}

void ioapic_eoi(struct ioapic *io, u8 vector)
{
	for (unsigned pin = 0; pin < IOAPIC_PINS; pin++)
		if (is_level(io, pin) && (io->redir[pin] & IOAPIC_RTE_VECTOR) == vector)
			io->redir[pin] &= ~(u64)IOAPIC_RTE_REMOTE_IRR;
}

/* ---- indirect registers ---- */

/* The pin whose entry index idx addresses, or -1 for the ID, version, arbitration and
 * reserved indices. */
static int redir_pin(u32 idx)
{
	if (idx < IOAPIC_REG_REDIR || idx >= IOAPIC_REG_REDIR + 2 * IOAPIC_PINS)
		return -1;
	return (int)((idx - IOAPIC_REG_REDIR) / 2);
}

static u32 read_redir(const struct ioapic *io, unsigned pin, bool high)
{
	if (high)
		return (u32)(io->redir[pin] >> 32);
	u32 lo = (u32)io->redir[pin];
	return ready(io, pin) ? lo | IOAPIC_RTE_DELIVS : lo;
}

static void write_redir_low(struct ioapic *io, unsigned pin, u32 val)
{
	u64 e = (io->redir[pin] & ~(u64)LOW_RW) | (val & LOW_RW);

	if (!(e & IOAPIC_RTE_LEVEL)) {
		/* Edge clears Remote IRR, as QEMU and KVM do: with no EOI register, Linux
		 * unsticks a level pin by masking it and toggling it to edge and back. */
		e &= ~(u64)IOAPIC_RTE_REMOTE_IRR;
	} else {
		/* A level pin requests by its input alone: an edge latched before the
		 * switch means nothing now. */
		io->pending &= ~pin_bit(pin);
	}
	io->redir[pin] = e;
	if ((e & IOAPIC_RTE_LEVEL) && (e & IOAPIC_RTE_ACTIVE_LOW))
		io->low_level |= pin_bit(pin);
	else
		io->low_level &= ~pin_bit(pin);
}

static void write_redir(struct ioapic *io, unsigned pin, bool high, u32 val)
{
	if (high)
		io->redir[pin] = (u32)io->redir[pin] | (u64)(val & HIGH_RW) << 32;
	else
		write_redir_low(io, pin, val);
}

/* The datasheet leaves the reserved indices undefined; they read 0 as on QEMU's I/O APIC,
 * which the guests we boot are tested against (KVM's reads all ones). */
static u32 read_reg(const struct ioapic *io)
{
	int pin = redir_pin(io->sel);

	if (pin >= 0)
		return read_redir(io, (unsigned)pin, io->sel & 1);
	switch (io->sel) {
	case IOAPIC_REG_ID:
	case IOAPIC_REG_ARB: /* the arbitration ID is loaded from the ID */
		return (u32)io->id << ID_SHIFT;
	case IOAPIC_REG_VER:
		return IOAPIC_VERSION;
	default:
		return 0;
	}
}

static void write_reg(struct ioapic *io, u32 val)
{
	int pin = redir_pin(io->sel);

	if (pin >= 0)
		write_redir(io, (unsigned)pin, io->sel & 1, val);
	else if (io->sel == IOAPIC_REG_ID)
		io->id = (u8)((val >> ID_SHIFT) & ID_MASK);
}

/* ---- MMIO ---- */

u32 ioapic_mmio_read(struct ioapic *io, u32 off)
{
	switch (off) {
	case IOAPIC_REGSEL:
		return io->sel;
	case IOAPIC_WIN:
		return read_reg(io);
	default:
		return 0;
	}
}

void ioapic_mmio_write(struct ioapic *io, u32 off, u32 val)
{
	switch (off) {
	case IOAPIC_REGSEL:
		io->sel = val & 0xff;
		break;
	case IOAPIC_WIN:
		write_reg(io, val);
		break;
	case IOAPIC_EOI:
		ioapic_eoi(io, (u8)val);
		break;
	default:
		break;
	}
}
