/* SPDX-License-Identifier: GPL-2.0-only */
/* The 8259A pair of a PC (master at 0x20, slave at 0xa0 cascaded on IRQ2), as a pure model. */
#ifndef VMM_DEV_PIC_H
#define VMM_DEV_PIC_H

#include "lib/types.h"

struct pic_chip {
	u8 irr, isr, imr;
	u8 last_level;		  /* input lines as last seen: edge detection */
	u8 vector_base;		  /* ICW2 & 0xf8 */
	u8 lowest_prio;		  /* rotation: the IRQ with the lowest priority (7 after reset) */
	u8 icw1, icw4, init_step; /* initialisation sequence: 0 = done, else the ICW expected */
	u8 cascade;		  /* ICW3 */
	bool read_isr;		  /* OCW3 RR/RIS: the command port reads ISR (else IRR) */
	bool poll;		  /* OCW3 P: the next command-port read is a poll */
	bool special_mask;	  /* OCW3 SMM */
	bool rotate_aeoi;	  /* OCW2 rotate in automatic EOI mode */
	u8 elcr; /* edge/level control register (0x4d0/0x4d1), kept but edge only */
};

struct pic {
	struct pic_chip chip[2]; /* master, slave */
};

/* The state after power-on (before any ICW): everything clear, vector base 0, IRQ7 lowest.
 * ICW1 clears IMR and IRR (a line already high must fall and rise again), resets priority
 * and special mask mode and selects IRR for reads; it leaves ISR alone (datasheet list).
 * Not modelled: level-triggered mode (LTIM and ELCR are kept but every input is edge
 * triggered), special fully nested mode, buffered mode, 8080 mode. */
void pic_reset(struct pic *p);
/* Ports 0x20, 0x21, 0xa0, 0xa1, 0x4d0, 0x4d1; anything else reads 0xff and is ignored.
 * After an OCW3 poll command, the next command-port read acknowledges the chip's request as
 * INTA would and returns 0x80 | level, or 0 if there is none. */
u8 pic_read(struct pic *p, u16 port);
void pic_write(struct pic *p, u16 port, u8 val);
/* The level of input line irq (0-15): a rising edge latches it into IRR; a line staying high
 * does not latch it again; the line going low before INTA drops the request (the 8259A
 * needs IR held until acknowledged). So a device pulses an edge with low-then-high and
 * lowers the line later, never high-then-low. Line 2 is the cascade and is ignored (a PC
 * routes the bus IRQ2 pin to IRQ9); the slave's INT drives master IR2 as a level. */
void pic_set_irq(struct pic *p, unsigned irq, bool level);
/* Is the master's INTR output asserted (an unmasked request the priority logic lets out)?
 * False while the master is between ICW1 and its last ICW. */
bool pic_pending(const struct pic *p);
/* The INTA cycle: the vector to deliver (IRR -> ISR, or cleared at once in AEOI). A request
 * that vanished gives the chip's IR7 vector with nothing set in its ISR; for the slave (the
 * master chose IR2, then the slave had nothing) the master's IR2 is in service all the
 * same, so the guest's EOI to the master balances it, as on real hardware. */
u8 pic_ack(struct pic *p);

#endif
