/* SPDX-License-Identifier: GPL-2.0-only */
/* The PC's 8259A pair: initialisation words, masks, nested priorities with rotation, EOI, poll. */
#include "vmm/dev/pic.h"
#include "lib/string.h"

#define ICW1_IC4 0x01
#define ICW1_SNGL 0x02
#define ICW1_INIT 0x10 /* on the command port: ICW1, else an OCW */
#define ICW4_AEOI 0x02
#define OCW3_SEL 0x08 /* on the command port: OCW3, else OCW2 */
#define OCW3_RR 0x02
#define OCW3_RIS 0x01
#define OCW3_POLL 0x04
#define OCW3_ESMM 0x40
#define OCW3_SMM 0x20
#define CASCADE_IRQ 2
#define SPURIOUS_IRQ 7

void pic_reset(struct pic *p)
{
	memset(p, 0, sizeof(*p));
	p->chip[0].lowest_prio = 7;
	p->chip[1].lowest_prio = 7;
}

/* 0 is the highest priority: the IRQ just after the lowest one in rotation order. */
static unsigned prio(const struct pic_chip *c, unsigned irq)
{
	return (irq - c->lowest_prio - 1) & 7;
}

/* The IRQ with the highest priority among bits, or -1. */
static int highest(const struct pic_chip *c, u8 bits)
{
	for (unsigned i = 1; i <= 8; i++) {
		unsigned irq = (c->lowest_prio + i) & 7;
		if (bits & (1u << irq))
			return (int)irq;
	}
	return -1;
}

/* In-service levels that hold back requests of lower priority: in special mask mode the
 * masked ones do not, so a handler that masks its own level lets every other level in. */
static u8 blocking_isr(const struct pic_chip *c)
{
	return c->special_mask ? c->isr & ~c->imr : c->isr;
}

/* The request the chip's INT output signals, or -1 (none, or the chip is being initialised). */
static int deliverable(const struct pic_chip *c)
{
	if (c->init_step)
		return -1;
	int req = highest(c, c->irr & ~c->imr);
	if (req < 0)
		return -1;
	int svc = highest(c, blocking_isr(c));
	if (svc >= 0 && prio(c, (unsigned)svc) <= prio(c, (unsigned)req))
		return -1;
	return req;
}

/* The slave's INT is wired to master IR2 as a level, not through the edge latch: the slave
 * keeps INT up only while it has a request to give, so no request can be lost in between. */
static void sync_cascade(struct pic *p)
{
	if (deliverable(&p->chip[1]) >= 0)
		p->chip[0].irr |= 1u << CASCADE_IRQ;
	else
		p->chip[0].irr &= (u8) ~(1u << CASCADE_IRQ);
}

static bool cascaded(const struct pic_chip *master)
{
	return !(master->icw1 & ICW1_SNGL) && (master->cascade & (1u << CASCADE_IRQ));
}

/* What an INTA (or a poll read) does to the chip once it has chosen irq. */
static void accept(struct pic_chip *c, unsigned irq)
{
	c->irr &= (u8) ~(1u << irq);
	if (!(c->icw4 & ICW4_AEOI))
		c->isr |= (u8)(1u << irq);
	else if (c->rotate_aeoi)
		c->lowest_prio = (u8)irq;
}

/* One chip's answer to INTA: its vector, or its IR7 vector if the request went away. */
static u8 ack_chip(struct pic_chip *c)
{
	int irq = deliverable(c);
	if (irq < 0)
		return c->vector_base + SPURIOUS_IRQ;
	accept(c, (unsigned)irq);
	return (u8)(c->vector_base + irq);
}

u8 pic_ack(struct pic *p)
{
	struct pic_chip *m = &p->chip[0];
	u8 vec;

	if (deliverable(m) == CASCADE_IRQ && cascaded(m)) {
		/* The master cannot tell that the slave has nothing: IR2 goes in service anyway,
		 * so a spurious IRQ15 needs an EOI to the master, as on real hardware. */
		accept(m, CASCADE_IRQ);
		vec = ack_chip(&p->chip[1]);
	} else {
		vec = ack_chip(m);
	}
	sync_cascade(p);
	return vec;
}

bool pic_pending(const struct pic *p)
{
	return deliverable(&p->chip[0]) >= 0;
}

void pic_set_irq(struct pic *p, unsigned irq, bool level)
{
	if (irq >= 16 || irq == CASCADE_IRQ)
		return;
	struct pic_chip *c = &p->chip[irq >> 3];
	u8 bit = (u8)(1u << (irq & 7));

	if (level) {
		if (!(c->last_level & bit))
			c->irr |= bit;
		c->last_level |= bit;
	} else {
		/* An edge-triggered 8259A needs IR held until INTA: a request that goes
		 * away is dropped (an INTA then finds nothing: the spurious IR7 vector). */
		c->irr &= (u8)~bit;
		c->last_level &= (u8)~bit;
	}
	sync_cascade(p);
}

/* ---- command port ---- */
static void icw1(struct pic_chip *c, u8 v)
{
	c->icw1 = v;
	c->init_step = 2;
	c->imr = 0;
	c->irr = 0;  /* the edge latches reset: a line already high must fall and rise */
	c->icw4 = 0; /* without IC4, every ICW4 function is off */
	c->lowest_prio = 7;
	c->special_mask = false;
	c->read_isr = false;
	c->poll = false;
}

/* End of interrupt for irq (-1: nothing in service, a no-op). */
static void eoi(struct pic_chip *c, int irq, bool rotate)
{
	if (irq < 0)
		return;
	c->isr &= (u8) ~(1u << irq);
	if (rotate)
		c->lowest_prio = (u8)irq;
}

static void ocw2(struct pic_chip *c, u8 v)
{
	int level = v & 7;
	/* A non-specific EOI ends the highest level in service that still blocks others. */
	int top = highest(c, blocking_isr(c));

	switch (v >> 5) {
	case 0:
		c->rotate_aeoi = false;
		break;
	case 1:
		eoi(c, top, false);
		break;
	case 3:
		eoi(c, level, false);
		break;
	case 4:
		c->rotate_aeoi = true;
		break;
	case 5:
		eoi(c, top, true);
		break;
	case 6:
		c->lowest_prio = (u8)level;
		break;
	case 7:
		eoi(c, level, true);
		break;
	default:
		break; /* 2: no operation */
	}
}

static void ocw3(struct pic_chip *c, u8 v)
{
	if (v & OCW3_RR)
		c->read_isr = v & OCW3_RIS;
	c->poll = v & OCW3_POLL;
	if (v & OCW3_ESMM)
		c->special_mask = v & OCW3_SMM;
}

static void write_cmd(struct pic_chip *c, u8 v)
{
	if (v & ICW1_INIT)
		icw1(c, v);
	else if (v & OCW3_SEL)
		ocw3(c, v);
	else
		ocw2(c, v);
}

/* ---- data port: ICW2-ICW4 during initialisation, else the mask ---- */
static u8 step_after_icw3(const struct pic_chip *c)
{
	return (c->icw1 & ICW1_IC4) ? 4 : 0;
}

static void write_data(struct pic_chip *c, u8 v)
{
	switch (c->init_step) {
	case 2:
		c->vector_base = v & 0xf8;
		c->init_step = (c->icw1 & ICW1_SNGL) ? step_after_icw3(c) : 3;
		break;
	case 3:
		c->cascade = v;
		c->init_step = step_after_icw3(c);
		break;
	case 4:
		c->icw4 = v;
		c->init_step = 0;
		break;
	default:
		c->imr = v;
		break;
	}
}

/* A poll read acknowledges like INTA (AEOI included) but returns the level, not a vector. */
static u8 poll(struct pic *p, struct pic_chip *c)
{
	int irq = deliverable(c);
	if (irq < 0)
		return 0;
	accept(c, (unsigned)irq);
	sync_cascade(p);
	return (u8)(0x80 | irq);
}

static u8 read_cmd(struct pic *p, struct pic_chip *c)
{
	if (c->poll) {
		c->poll = false;
		return poll(p, c);
	}
	return c->read_isr ? c->isr : c->irr;
}

/* ELCR bits a PIIX/ICH keeps at 0: IRQ0-2, IRQ8 and IRQ13 are always edge-triggered. */
static const u8 elcr_writable[2] = { 0xf8, 0xde };

u8 pic_read(struct pic *p, u16 port)
{
	switch (port) {
	case 0x20:
		return read_cmd(p, &p->chip[0]);
	case 0xa0:
		return read_cmd(p, &p->chip[1]);
	case 0x21:
		return p->chip[0].imr;
	case 0xa1:
		return p->chip[1].imr;
	case 0x4d0:
		return p->chip[0].elcr;
	case 0x4d1:
		return p->chip[1].elcr;
	default:
		return 0xff;
	}
}

void pic_write(struct pic *p, u16 port, u8 val)
{
	switch (port) {
	case 0x20:
		write_cmd(&p->chip[0], val);
		break;
	case 0xa0:
		write_cmd(&p->chip[1], val);
		break;
	case 0x21:
		write_data(&p->chip[0], val);
		break;
	case 0xa1:
		write_data(&p->chip[1], val);
		break;
	case 0x4d0:
		p->chip[0].elcr = val & elcr_writable[0];
		break;
	case 0x4d1:
		p->chip[1].elcr = val & elcr_writable[1];
		break;
	default:
		return;
	}
	sync_cascade(p);
}
