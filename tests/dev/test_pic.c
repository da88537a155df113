/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of the 8259A pair model: ICWs, OCWs, priorities, EOI, AEOI, poll, cascade, edges. */
#include "tests/unit/harness.h"
#include "vmm/dev/pic.h"

#define M_CMD 0x20
#define M_DATA 0x21
#define S_CMD 0xa0
#define S_DATA 0xa1

/* The PC sequence (as Linux and the BIOSes write it): master at mbase, slave at sbase. */
static void init_pair(struct pic *p, u8 mbase, u8 sbase, u8 icw4)
{
	pic_reset(p);
	pic_write(p, M_CMD, 0x11);
	pic_write(p, M_DATA, mbase);
	pic_write(p, M_DATA, 0x04);
	pic_write(p, M_DATA, icw4);
	pic_write(p, S_CMD, 0x11);
	pic_write(p, S_DATA, sbase);
	pic_write(p, S_DATA, 0x02);
	pic_write(p, S_DATA, 0x01);
}

static void init_pc(struct pic *p)
{
	init_pair(p, 0x08, 0x70, 0x01);
}

/* An edge on a line that may have been left high: low, then high. */
static void raise(struct pic *p, unsigned irq)
{
	pic_set_irq(p, irq, false);
	pic_set_irq(p, irq, true);
}

static u8 read_isr(struct pic *p, u16 cmd)
{
	pic_write(p, cmd, 0x0b);
	u8 v = pic_read(p, cmd);
	pic_write(p, cmd, 0x0a);
	return v;
}

static u8 read_irr(struct pic *p, u16 cmd)
{
	pic_write(p, cmd, 0x0a);
	return pic_read(p, cmd);
}

static void test_reset_state(void **state)
{
	(void)state;
	struct pic p;
	pic_reset(&p);
	assert_int_equal(pic_read(&p, M_DATA), 0);
	assert_int_equal(pic_read(&p, S_DATA), 0);
	assert_int_equal(pic_read(&p, M_CMD), 0);
	assert_int_equal(read_isr(&p, M_CMD), 0);
	assert_int_equal(pic_read(&p, 0x4d0), 0);
	assert_false(pic_pending(&p));
	assert_int_equal(p.chip[0].lowest_prio, 7);
}

static void test_icw_full_sequence(void **state)
{
	(void)state;
	struct pic p;
	init_pair(&p, 0x25, 0x77, 0x01); /* the low 3 bits of ICW2 are not part of the base */
	assert_int_equal(p.chip[0].vector_base, 0x20);
	assert_int_equal(p.chip[1].vector_base, 0x70);
	assert_int_equal(p.chip[0].cascade, 0x04);
	assert_int_equal(p.chip[1].cascade, 0x02);
	assert_int_equal(p.chip[0].init_step, 0);
	/* Initialisation is over: the data port is the mask again. */
	pic_write(&p, M_DATA, 0xf5);
	assert_int_equal(pic_read(&p, M_DATA), 0xf5);
	assert_int_equal(p.chip[0].vector_base, 0x20);
	raise(&p, 3);
	assert_int_equal(pic_ack(&p), 0x23);
}

static void test_icw_without_icw4(void **state)
{
	(void)state;
	struct pic p;
	pic_reset(&p);
	pic_write(&p, M_CMD, 0x10); /* no IC4: ICW2, ICW3, done */
	pic_write(&p, M_DATA, 0x40);
	assert_int_equal(p.chip[0].init_step, 3);
	pic_write(&p, M_DATA, 0x04);
	assert_int_equal(p.chip[0].init_step, 0);
	pic_write(&p, M_DATA, 0x5a);
	assert_int_equal(pic_read(&p, M_DATA), 0x5a);
	assert_int_equal(p.chip[0].cascade, 0x04);
	assert_int_equal(p.chip[0].icw4, 0);
}

static void test_icw_single_mode(void **state)
{
	(void)state;
	struct pic p;
	pic_reset(&p);
	pic_write(&p, M_CMD, 0x13); /* SNGL with IC4: no ICW3 */
	pic_write(&p, M_DATA, 0x30);
	assert_int_equal(p.chip[0].init_step, 4);
	pic_write(&p, M_DATA, 0x03); /* ICW4: AEOI */
	assert_int_equal(p.chip[0].init_step, 0);
	assert_int_equal(p.chip[0].icw4, 0x03);
	assert_int_equal(p.chip[0].cascade, 0);
	pic_write(&p, M_CMD, 0x12); /* SNGL without IC4: ICW2 is the last */
	pic_write(&p, M_DATA, 0x48);
	assert_int_equal(p.chip[0].init_step, 0);
	assert_int_equal(p.chip[0].icw4, 0);
	/* Single: IR2 is an ordinary level of the master, slave or not. */
	pic_write(&p, S_CMD, 0x11);
	pic_write(&p, S_DATA, 0x70);
	pic_write(&p, S_DATA, 0x02);
	pic_write(&p, S_DATA, 0x01);
	raise(&p, 9);
	assert_true(pic_pending(&p));
	assert_int_equal(pic_ack(&p), 0x4a);
	assert_int_equal(read_isr(&p, S_CMD), 0);
}

static void test_icw1_resets(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	raise(&p, 5);
	assert_int_equal(pic_ack(&p), 0x0d);
	raise(&p, 6);
	pic_write(&p, M_DATA, 0xf0);
	pic_write(&p, M_CMD, 0x0b); /* reads ISR */
	pic_write(&p, M_CMD, 0x68); /* special mask mode */
	pic_write(&p, M_CMD, 0xc3); /* IRQ3 lowest */
	pic_write(&p, M_CMD, 0x11);
	assert_int_equal(pic_read(&p, M_DATA), 0); /* IMR cleared */
	assert_int_equal(pic_read(&p, M_CMD), 0);  /* reads IRR (cleared: edge latches reset) */
	assert_false(p.chip[0].special_mask);
	assert_int_equal(p.chip[0].lowest_prio, 7);
	pic_write(&p, M_DATA, 0x08);
	pic_write(&p, M_DATA, 0x04);
	pic_write(&p, M_DATA, 0x01);
	/* ISR is not in ICW1's list: IRQ5 is still in service. */
	assert_int_equal(read_isr(&p, M_CMD), 0x20);
	/* Line 6 stayed high: it must fall and rise again to request. */
	pic_write(&p, M_CMD, 0x20);
	pic_set_irq(&p, 6, true);
	assert_false(pic_pending(&p));
	raise(&p, 6);
	assert_int_equal(pic_ack(&p), 0x0e);
}

static void test_imr_read_write(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	pic_write(&p, M_DATA, 0xb8);
	pic_write(&p, S_DATA, 0x5e);
	assert_int_equal(pic_read(&p, M_DATA), 0xb8);
	assert_int_equal(pic_read(&p, S_DATA), 0x5e);
	pic_write(&p, M_DATA, 0x00);
	assert_int_equal(pic_read(&p, M_DATA), 0x00);
	assert_int_equal(pic_read(&p, S_DATA), 0x5e);
}

static void test_ocw3_read_select(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	raise(&p, 1);
	raise(&p, 4);
	assert_int_equal(pic_read(&p, M_CMD), 0x12); /* IRR after init */
	assert_int_equal(pic_ack(&p), 0x09);
	pic_write(&p, M_CMD, 0x0b);
	assert_int_equal(pic_read(&p, M_CMD), 0x02);
	pic_write(&p, M_CMD, 0x08); /* RR=0: the selection stays */
	assert_int_equal(pic_read(&p, M_CMD), 0x02);
	pic_write(&p, M_CMD, 0x0a);
	assert_int_equal(pic_read(&p, M_CMD), 0x10);
}

static void test_vector_bases(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	for (unsigned irq = 0; irq < 16; irq++) {
		if (irq == 2)
			continue;
		raise(&p, irq);
		u8 want = irq < 8 ? 0x08 + irq : 0x70 + irq - 8;
		assert_int_equal(pic_ack(&p), want);
		if (irq >= 8)
			pic_write(&p, S_CMD, 0x20);
		pic_write(&p, M_CMD, 0x20);
	}
	assert_int_equal(read_isr(&p, M_CMD), 0);
	assert_int_equal(read_isr(&p, S_CMD), 0);
}

static void test_fixed_priority_order(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	raise(&p, 7);
	raise(&p, 5);
	raise(&p, 3);
	assert_int_equal(pic_ack(&p), 0x0b);
	assert_false(pic_pending(&p));
	pic_write(&p, M_CMD, 0x20);
	assert_int_equal(pic_ack(&p), 0x0d);
	pic_write(&p, M_CMD, 0x20);
	assert_int_equal(pic_ack(&p), 0x0f);
	assert_int_equal(read_isr(&p, M_CMD), 0x80);
}

static void test_higher_interrupts_lower(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	raise(&p, 4);
	assert_int_equal(pic_ack(&p), 0x0c);
	raise(&p, 1);
	assert_true(pic_pending(&p));
	assert_int_equal(pic_ack(&p), 0x09);
	assert_int_equal(read_isr(&p, M_CMD), 0x12);
	raise(&p, 0);
	assert_int_equal(pic_ack(&p), 0x08);
	assert_int_equal(read_isr(&p, M_CMD), 0x13);
}

static void test_lower_waits_for_eoi(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	raise(&p, 1);
	assert_int_equal(pic_ack(&p), 0x09);
	raise(&p, 4);
	raise(&p, 1); /* the same level waits too */
	assert_false(pic_pending(&p));
	assert_int_equal(read_irr(&p, M_CMD), 0x12);
	pic_write(&p, M_CMD, 0x20);
	assert_true(pic_pending(&p));
	assert_int_equal(pic_ack(&p), 0x09);
	pic_write(&p, M_CMD, 0x20);
	assert_int_equal(pic_ack(&p), 0x0c);
}

static void test_nonspecific_eoi_highest(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	raise(&p, 6);
	pic_ack(&p);
	raise(&p, 3);
	pic_ack(&p);
	assert_int_equal(read_isr(&p, M_CMD), 0x48);
	pic_write(&p, M_CMD, 0x20);
	assert_int_equal(read_isr(&p, M_CMD), 0x40);
	pic_write(&p, M_CMD, 0x20);
	assert_int_equal(read_isr(&p, M_CMD), 0x00);
	pic_write(&p, M_CMD, 0x20); /* nothing in service: harmless */
	assert_int_equal(read_isr(&p, M_CMD), 0x00);
}

static void test_specific_eoi(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	raise(&p, 6);
	pic_ack(&p);
	raise(&p, 3);
	pic_ack(&p);
	pic_write(&p, M_CMD, 0x66); /* the lower one, not the highest */
	assert_int_equal(read_isr(&p, M_CMD), 0x08);
	pic_write(&p, M_CMD, 0x65); /* a level not in service */
	assert_int_equal(read_isr(&p, M_CMD), 0x08);
	pic_write(&p, M_CMD, 0x63);
	assert_int_equal(read_isr(&p, M_CMD), 0x00);
	pic_write(&p, M_CMD, 0x40); /* no operation */
	assert_int_equal(p.chip[0].lowest_prio, 7);
}

static void test_rotate_on_nonspecific_eoi(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	raise(&p, 3);
	assert_int_equal(pic_ack(&p), 0x0b);
	pic_write(&p, M_CMD, 0xa0); /* EOI and IRQ3 becomes the lowest: 4 5 6 7 0 1 2 3 */
	assert_int_equal(p.chip[0].lowest_prio, 3);
	raise(&p, 1);
	raise(&p, 3);
	raise(&p, 6);
	assert_int_equal(pic_ack(&p), 0x0e);
	/* IRQ6 in service: 1 is now below it and waits. */
	assert_false(pic_pending(&p));
	pic_write(&p, M_CMD, 0xa0); /* now 7 0 1 ... 6 */
	assert_int_equal(pic_ack(&p), 0x09);
	pic_write(&p, M_CMD, 0xa0);
	assert_int_equal(pic_ack(&p), 0x0b);
}

static void test_set_priority_and_specific_rotate(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	pic_write(&p, M_CMD, 0xc5); /* IRQ5 lowest: IRQ6 highest */
	raise(&p, 0);
	raise(&p, 6);
	raise(&p, 5);
	assert_int_equal(pic_ack(&p), 0x0e);
	pic_write(&p, M_CMD, 0xe6); /* specific EOI of 6, 6 becomes lowest: 7 0 ... */
	assert_int_equal(p.chip[0].lowest_prio, 6);
	assert_int_equal(read_isr(&p, M_CMD), 0);
	assert_int_equal(pic_ack(&p), 0x08);
	pic_write(&p, M_CMD, 0x20);
	assert_int_equal(pic_ack(&p), 0x0d);
}

static void test_aeoi(void **state)
{
	(void)state;
	struct pic p;
	init_pair(&p, 0x08, 0x70, 0x03);
	raise(&p, 1);
	raise(&p, 4);
	assert_int_equal(pic_ack(&p), 0x09);
	assert_int_equal(read_isr(&p, M_CMD), 0); /* never in service */
	assert_true(pic_pending(&p));		  /* the lower one need not wait */
	assert_int_equal(pic_ack(&p), 0x0c);
	assert_int_equal(p.chip[0].lowest_prio, 7); /* no rotation by default */
}

static void test_aeoi_rotate(void **state)
{
	(void)state;
	struct pic p;
	init_pair(&p, 0x08, 0x70, 0x03);
	pic_write(&p, M_CMD, 0x80); /* rotate in AEOI mode */
	raise(&p, 1);
	assert_int_equal(pic_ack(&p), 0x09);
	assert_int_equal(p.chip[0].lowest_prio, 1);
	raise(&p, 1);
	raise(&p, 7);
	assert_int_equal(pic_ack(&p), 0x0f); /* 7 is above 1 now */
	assert_int_equal(p.chip[0].lowest_prio, 7);
	pic_write(&p, M_CMD, 0x00); /* rotate off */
	assert_int_equal(pic_ack(&p), 0x09);
	assert_int_equal(p.chip[0].lowest_prio, 7);
}

static void test_poll(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	pic_write(&p, M_CMD, 0x0c);
	assert_int_equal(pic_read(&p, M_CMD), 0); /* nothing requested */
	raise(&p, 5);
	raise(&p, 3);
	pic_write(&p, M_CMD, 0x0c);
	assert_int_equal(pic_read(&p, M_CMD), 0x83);
	assert_int_equal(read_isr(&p, M_CMD), 0x08); /* acknowledged as by INTA */
	assert_int_equal(read_irr(&p, M_CMD), 0x20); /* a poll is for one read only */
	pic_write(&p, M_CMD, 0x0c);
	assert_int_equal(pic_read(&p, M_CMD), 0); /* 5 is below 3 in service */
	pic_write(&p, M_CMD, 0x20);
	pic_write(&p, M_CMD, 0x0c);
	assert_int_equal(pic_read(&p, M_CMD), 0x85);
}

static void test_poll_cascade(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	raise(&p, 13);
	pic_write(&p, M_CMD, 0x0c);
	assert_int_equal(pic_read(&p, M_CMD), 0x82);
	pic_write(&p, S_CMD, 0x0c);
	assert_int_equal(pic_read(&p, S_CMD), 0x85);
	assert_int_equal(read_isr(&p, S_CMD), 0x20);
	assert_int_equal(read_isr(&p, M_CMD), 0x04);
	assert_false(pic_pending(&p));
}

static void test_edge_held_line(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	pic_set_irq(&p, 4, true);
	assert_int_equal(pic_ack(&p), 0x0c);
	pic_write(&p, M_CMD, 0x20);
	pic_set_irq(&p, 4, true); /* still high: no new edge */
	assert_false(pic_pending(&p));
	assert_int_equal(read_irr(&p, M_CMD), 0);
	pic_set_irq(&p, 4, false);
	assert_false(pic_pending(&p));
	pic_set_irq(&p, 4, true);
	assert_true(pic_pending(&p));
	assert_int_equal(pic_ack(&p), 0x0c);
}

static void test_request_dropped_when_line_falls(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	pic_set_irq(&p, 3, true);
	assert_int_equal(read_irr(&p, M_CMD), 0x08);
	pic_set_irq(&p, 3, false);
	assert_int_equal(read_irr(&p, M_CMD), 0);
	assert_false(pic_pending(&p));
	/* A line that falls after INTA leaves the level in service. */
	pic_set_irq(&p, 3, true);
	assert_int_equal(pic_ack(&p), 0x0b);
	pic_set_irq(&p, 3, false);
	assert_int_equal(read_isr(&p, M_CMD), 0x08);
}

static void test_spurious_irq7(void **state)
{
	(void)state;
	struct pic p;
	init_pair(&p, 0x20, 0x28, 0x01);
	raise(&p, 3);
	assert_true(pic_pending(&p));
	pic_set_irq(&p, 3, false); /* went away before INTA */
	assert_int_equal(pic_ack(&p), 0x27);
	assert_int_equal(read_isr(&p, M_CMD), 0);
	/* A request masked after INTR rose is gone for INTA too. */
	raise(&p, 5);
	pic_write(&p, M_DATA, 0x20);
	assert_int_equal(pic_ack(&p), 0x27);
	assert_int_equal(read_isr(&p, M_CMD), 0);
	assert_int_equal(read_irr(&p, M_CMD), 0x20);
}

static void test_spurious_irq15(void **state)
{
	(void)state;
	struct pic p;
	init_pair(&p, 0x20, 0x28, 0x01);
	/* The window the model's atomic INTA never opens by itself: the master latched IR2,
	 * then the slave's request vanished before the slave's turn in the INTA cycle. */
	p.chip[0].irr |= 0x04;
	assert_true(pic_pending(&p));
	assert_int_equal(pic_ack(&p), 0x2f);
	assert_int_equal(read_isr(&p, S_CMD), 0);
	assert_int_equal(read_isr(&p, M_CMD), 0x04); /* the master needs its EOI */
	pic_write(&p, M_CMD, 0x20);
	assert_int_equal(read_isr(&p, M_CMD), 0);
	/* A slave request that goes away takes master IR2 with it: the master's IR7. */
	raise(&p, 11);
	assert_int_equal(read_irr(&p, M_CMD), 0x04);
	pic_set_irq(&p, 11, false);
	assert_int_equal(read_irr(&p, M_CMD), 0);
	assert_int_equal(pic_ack(&p), 0x27);
}

static void test_cascade(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	raise(&p, 10);
	assert_true(pic_pending(&p));
	assert_int_equal(read_irr(&p, M_CMD), 0x04);
	assert_int_equal(pic_ack(&p), 0x72);
	assert_int_equal(read_isr(&p, M_CMD), 0x04);
	assert_int_equal(read_isr(&p, S_CMD), 0x04);
	assert_int_equal(read_irr(&p, M_CMD), 0);
	/* The slave's higher level gets through the slave but waits at master IR2. */
	raise(&p, 8);
	assert_int_equal(read_irr(&p, M_CMD), 0x04);
	assert_false(pic_pending(&p));
	/* Master IRQ0 and 1 are above IR2. */
	raise(&p, 1);
	assert_int_equal(pic_ack(&p), 0x09);
	pic_write(&p, M_CMD, 0x20);
	raise(&p, 3); /* below IR2: waits */
	assert_false(pic_pending(&p));
	pic_write(&p, S_CMD, 0x20); /* ends 10 on the slave */
	pic_write(&p, M_CMD, 0x20); /* ends IR2 on the master */
	assert_int_equal(pic_ack(&p), 0x70);
	pic_write(&p, S_CMD, 0x20);
	pic_write(&p, M_CMD, 0x20);
	assert_int_equal(pic_ack(&p), 0x0b);
}

static void test_masks(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	pic_write(&p, M_DATA, 0x02);
	raise(&p, 1);
	assert_false(pic_pending(&p));
	assert_int_equal(read_irr(&p, M_CMD), 0x02); /* kept while masked */
	pic_write(&p, M_DATA, 0x00);
	assert_int_equal(pic_ack(&p), 0x09);
	pic_write(&p, M_CMD, 0x20);
	/* Masking the slave's line, or master IR2, hides the slave. */
	pic_write(&p, S_DATA, 0x10);
	raise(&p, 12);
	assert_false(pic_pending(&p));
	assert_int_equal(read_irr(&p, M_CMD), 0);
	pic_write(&p, S_DATA, 0x00);
	assert_true(pic_pending(&p));
	pic_write(&p, M_DATA, 0x04);
	assert_false(pic_pending(&p));
	pic_write(&p, M_DATA, 0x00);
	assert_int_equal(pic_ack(&p), 0x74);
}

static void test_masked_in_service_still_blocks(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	raise(&p, 1);
	pic_ack(&p);
	pic_write(&p, M_DATA, 0x02); /* fully nested: a masked level in service still blocks */
	raise(&p, 5);
	assert_false(pic_pending(&p));
}

static void test_pending_during_init(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	pic_write(&p, M_CMD, 0x11);
	raise(&p, 1);
	assert_false(pic_pending(&p));
	pic_write(&p, M_DATA, 0x08);
	assert_false(pic_pending(&p));
	pic_write(&p, M_DATA, 0x04);
	assert_false(pic_pending(&p));
	pic_write(&p, M_DATA, 0x01);
	assert_true(pic_pending(&p));
	/* A slave being initialised gives nothing to the master. */
	pic_ack(&p);
	pic_write(&p, M_CMD, 0x20);
	pic_write(&p, S_CMD, 0x11);
	raise(&p, 9);
	assert_false(pic_pending(&p));
	pic_write(&p, S_DATA, 0x70);
	pic_write(&p, S_DATA, 0x02);
	pic_write(&p, S_DATA, 0x01);
	assert_true(pic_pending(&p));
	assert_int_equal(pic_ack(&p), 0x71);
}

static void test_special_mask_mode(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	raise(&p, 1);
	assert_int_equal(pic_ack(&p), 0x09);
	pic_write(&p, M_DATA, 0x02);
	pic_write(&p, M_CMD, 0x68); /* set special mask mode */
	raise(&p, 5);
	assert_true(pic_pending(&p)); /* lower than 1, allowed: 1 is masked */
	assert_int_equal(pic_ack(&p), 0x0d);
	raise(&p, 6); /* 5 is in service and unmasked: 6 waits */
	assert_false(pic_pending(&p));
	/* A non-specific EOI skips the masked level in service. */
	pic_write(&p, M_CMD, 0x20);
	assert_int_equal(read_isr(&p, M_CMD), 0x02);
	assert_true(pic_pending(&p));
	pic_write(&p, M_CMD, 0x48); /* reset special mask mode */
	assert_false(pic_pending(&p));
	pic_write(&p, M_CMD, 0x28); /* OCW3 without ESMM leaves the mode alone */
	assert_false(p.chip[0].special_mask);
}

static void test_elcr(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	pic_write(&p, 0x4d0, 0xff);
	pic_write(&p, 0x4d1, 0xff);
	assert_int_equal(pic_read(&p, 0x4d0), 0xf8);
	assert_int_equal(pic_read(&p, 0x4d1), 0xde);
	/* Kept, but the inputs stay edge-triggered: a held line does not request again. */
	pic_set_irq(&p, 10, true);
	assert_int_equal(pic_ack(&p), 0x72);
	pic_write(&p, S_CMD, 0x20);
	pic_write(&p, M_CMD, 0x20);
	pic_set_irq(&p, 10, true);
	assert_false(pic_pending(&p));
}

static void test_other_ports_and_lines(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	assert_int_equal(pic_read(&p, 0x22), 0xff);
	pic_write(&p, 0x22, 0x00);
	pic_write(&p, 0x4d2, 0xff);
	assert_int_equal(pic_read(&p, M_DATA), 0);
	pic_set_irq(&p, 2, true); /* the cascade line is not an input */
	pic_set_irq(&p, 16, true);
	pic_set_irq(&p, 200, true);
	assert_false(pic_pending(&p));
	assert_int_equal(read_irr(&p, M_CMD), 0);
	assert_int_equal(read_irr(&p, S_CMD), 0);
}

static void test_slave_rotation_independent(void **state)
{
	(void)state;
	struct pic p;
	init_pc(&p);
	pic_write(&p, S_CMD, 0xc1); /* slave: IRQ9 lowest, IRQ10 highest */
	raise(&p, 8);
	raise(&p, 10);
	assert_int_equal(pic_ack(&p), 0x72);
	assert_int_equal(p.chip[0].lowest_prio, 7);
	pic_write(&p, S_CMD, 0x20);
	pic_write(&p, M_CMD, 0x20);
	assert_int_equal(pic_ack(&p), 0x70);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_state),
		cmocka_unit_test(test_icw_full_sequence),
		cmocka_unit_test(test_icw_without_icw4),
		cmocka_unit_test(test_icw_single_mode),
		cmocka_unit_test(test_icw1_resets),
		cmocka_unit_test(test_imr_read_write),
		cmocka_unit_test(test_ocw3_read_select),
		cmocka_unit_test(test_vector_bases),
		cmocka_unit_test(test_fixed_priority_order),
		cmocka_unit_test(test_higher_interrupts_lower),
		cmocka_unit_test(test_lower_waits_for_eoi),
		cmocka_unit_test(test_nonspecific_eoi_highest),
		cmocka_unit_test(test_specific_eoi),
		cmocka_unit_test(test_rotate_on_nonspecific_eoi),
		cmocka_unit_test(test_set_priority_and_specific_rotate),
		cmocka_unit_test(test_aeoi),
		cmocka_unit_test(test_aeoi_rotate),
		cmocka_unit_test(test_poll),
		cmocka_unit_test(test_poll_cascade),
		cmocka_unit_test(test_edge_held_line),
		cmocka_unit_test(test_request_dropped_when_line_falls),
		cmocka_unit_test(test_spurious_irq7),
		cmocka_unit_test(test_spurious_irq15),
		cmocka_unit_test(test_cascade),
		cmocka_unit_test(test_masks),
		cmocka_unit_test(test_masked_in_service_still_blocks),
		cmocka_unit_test(test_pending_during_init),
		cmocka_unit_test(test_special_mask_mode),
		cmocka_unit_test(test_elcr),
		cmocka_unit_test(test_other_ports_and_lines),
		cmocka_unit_test(test_slave_rotation_independent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
