/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of the local APIC model (vmm/dev/lapic.c): registers, priorities, timer, x2APIC. */
#include <string.h>
#include "tests/unit/harness.h"
#include "vmm/dev/lapic.h"

enum {
	ID = 0x20,
	VER = 0x30,
	TPR = 0x80,
	APR = 0x90,
	PPR = 0xa0,
	EOI = 0xb0,
	LDR = 0xd0,
	DFR = 0xe0,
	SVR = 0xf0,
	ISR = 0x100,
	TMR = 0x180,
	IRR = 0x200,
	ESR = 0x280,
	CMCI = 0x2f0,
	ICR_LO = 0x300,
	ICR_HI = 0x310,
	LVT_TIMER = 0x320,
	LVT_THERMAL = 0x330,
	LVT_PERF = 0x340,
	LINT0 = 0x350,
	LINT1 = 0x360,
	LVT_ERROR = 0x370,
	TIMER_INIT = 0x380,
	TIMER_CUR = 0x390,
	TIMER_DIV = 0x3e0
};

#define BASE_BSP 0x100ull
#define BASE_EXTD 0x400ull
#define BASE_EN 0x800ull
#define MASKED 0x10000u
#define PERIODIC (1u << 17)
#define DEADLINE (2u << 17)
#define X2(off) (0x800u + ((off) >> 4))

/* The fake clock starts well away from 0, which the model uses for "not armed". */
#define T0 1000000ull

static struct vlapic bsp(void)
{
	struct vlapic l;

	memset(&l, 0xa5, sizeof(l)); /* reset must not depend on a zeroed struct */
	vlapic_reset(&l, 0, true);
	return l;
}

static u32 rd(struct vlapic *l, u32 off)
{
	return vlapic_read(l, off, T0);
}
static void wr(struct vlapic *l, u32 off, u32 val)
{
	vlapic_write(l, off, val, T0);
}

static bool irr_has(const struct vlapic *l, unsigned v)
{
	return l->irr[v / 32] >> (v % 32) & 1;
}
static bool isr_has(const struct vlapic *l, unsigned v)
{
	return l->isr[v / 32] >> (v % 32) & 1;
}

static struct vlapic x2apic(u32 id)
{
	struct vlapic l;

	vlapic_reset(&l, id, true);
	assert_true(vlapic_set_base(&l, VLAPIC_BASE | BASE_BSP | BASE_EN | BASE_EXTD, 36));
	return l;
}

static u64 msr_rd(struct vlapic *l, u32 off)
{
	u64 v = 0xdead;
	assert_true(vlapic_msr_read(l, X2(off), &v, T0));
	return v;
}

/* ---- reset ---- */

static void test_reset_bsp(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	assert_int_equal(l.base_msr, 0xfee00900ull);
	assert_true(vlapic_hw_enabled(&l));
	assert_false(vlapic_x2apic(&l));
	assert_int_equal(rd(&l, SVR), 0x1ff);
	assert_int_equal(rd(&l, LINT0), 0x8700);
	assert_int_equal(rd(&l, LINT1), 0x8400);
	assert_int_equal(rd(&l, LVT_TIMER), MASKED);
	assert_int_equal(rd(&l, LVT_THERMAL), MASKED);
	assert_int_equal(rd(&l, LVT_PERF), MASKED);
	assert_int_equal(rd(&l, LVT_ERROR), MASKED);
	assert_int_equal(rd(&l, VER), 0x00050014);
	assert_int_equal(rd(&l, DFR), 0xffffffffu);
	assert_int_equal(rd(&l, TPR), 0);
	assert_int_equal(rd(&l, TIMER_INIT), 0);
	assert_int_equal(rd(&l, TIMER_CUR), 0);
	for (u32 i = 0; i < 8; i++)
		assert_int_equal(rd(&l, IRR + 0x10 * i) | rd(&l, ISR + 0x10 * i), 0);
	assert_int_equal(vlapic_pending(&l), -1);
	assert_int_equal(vlapic_next_event_ns(&l), 0);
}

static void test_reset_ap(void **state)
{
	(void)state;
	struct vlapic l;
	vlapic_reset(&l, 3, false);
	assert_int_equal(l.base_msr, 0xfee00800ull);
	assert_int_equal(rd(&l, ID), 3u << 24);
	assert_int_equal(rd(&l, SVR), 0xff);
	assert_int_equal(rd(&l, LINT0), MASKED);
	assert_int_equal(rd(&l, LINT1), MASKED);
	assert_false(vlapic_accepts_extint(&l));
}

/* ---- priorities, IRR/ISR/EOI ---- */

static void test_ppr(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, TPR, 0x25);
	assert_int_equal(rd(&l, PPR), 0x25); /* nothing in service: all 8 bits of TPR */
	vlapic_set_irq(&l, 0x51, false);
	vlapic_ack(&l, 0x51);
	assert_int_equal(rd(&l, PPR), 0x50); /* ISR class wins, low bits 0 */
	wr(&l, TPR, 0x5a);
	assert_int_equal(rd(&l, PPR), 0x5a); /* same class: TPR */
	wr(&l, TPR, 0x4f);
	assert_int_equal(rd(&l, PPR), 0x50);
	wr(&l, TPR, 0x1ff);
	assert_int_equal(rd(&l, TPR), 0xff);
	assert_int_equal(rd(&l, APR), 0);
}

static void test_irr_isr_eoi_nesting(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	vlapic_set_irq(&l, 0x31, false);
	assert_int_equal(vlapic_pending(&l), 0x31);
	assert_int_equal(rd(&l, IRR + 0x10), 1u << 17);
	vlapic_ack(&l, 0x31);
	assert_false(irr_has(&l, 0x31));
	assert_int_equal(rd(&l, ISR + 0x10), 1u << 17);
	assert_int_equal(vlapic_pending(&l), -1);
	/* Same class waits; a higher class nests. */
	vlapic_set_irq(&l, 0x3f, false);
	assert_int_equal(vlapic_pending(&l), -1);
	vlapic_set_irq(&l, 0x80, false);
	assert_int_equal(vlapic_pending(&l), 0x80);
	vlapic_ack(&l, 0x80);
	assert_int_equal(rd(&l, PPR), 0x80);
	assert_int_equal(vlapic_pending(&l), -1);
	wr(&l, EOI, 0); /* ends the highest in service: 0x80 */
	assert_false(isr_has(&l, 0x80));
	assert_true(isr_has(&l, 0x31));
	assert_int_equal(vlapic_pending(&l), -1); /* 0x3f still below 0x31's class */
	wr(&l, EOI, 0);
	assert_false(isr_has(&l, 0x31));
	assert_int_equal(vlapic_pending(&l), 0x3f);
}

static void test_highest_irr_first(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	vlapic_set_irq(&l, 0x41, false);
	vlapic_set_irq(&l, 0xe3, false);
	vlapic_set_irq(&l, 0x9f, false);
	assert_int_equal(vlapic_pending(&l), 0xe3);
	vlapic_ack(&l, 0xe3);
	wr(&l, EOI, 0);
	assert_int_equal(vlapic_pending(&l), 0x9f);
}

static void test_tpr_blocks(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	vlapic_set_irq(&l, 0x45, false);
	wr(&l, TPR, 0x40);
	assert_int_equal(vlapic_pending(&l), -1); /* class 4 is not above 4 */
	wr(&l, TPR, 0x3f);
	assert_int_equal(vlapic_pending(&l), 0x45);
	wr(&l, TPR, 0xf0);
	assert_int_equal(vlapic_pending(&l), -1);
	wr(&l, TPR, 0);
	assert_int_equal(vlapic_pending(&l), 0x45);
}

static void test_level_sets_tmr(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	vlapic_set_irq(&l, 0x61, true);
	assert_int_equal(rd(&l, TMR + 0x30), 1u << 1);
	vlapic_ack(&l, 0x61);
	wr(&l, EOI, 0);
	vlapic_set_irq(&l, 0x61, false);
	assert_int_equal(rd(&l, TMR + 0x30), 0);
}

static unsigned eoi_calls;
static u8 eoi_vector;

static void record_eoi(void *ctx, u8 vector)
{
	*(unsigned *)ctx += 1;
	eoi_vector = vector;
}

/* The EOI of a level-triggered vector reaches the I/O APIC wire; an edge's does not; the wire
 * survives the guest disabling and re-enabling the APIC, and vlapic_reset cuts it. */
static void test_level_eoi_broadcast(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	eoi_calls = 0;
	l.level_eoi = record_eoi;
	l.eoi_ctx = &eoi_calls;
	vlapic_set_irq(&l, 0x52, false);
	vlapic_ack(&l, 0x52);
	wr(&l, EOI, 0);
	assert_int_equal(eoi_calls, 0);
	vlapic_set_irq(&l, 0x61, true);
	vlapic_ack(&l, 0x61);
	wr(&l, EOI, 0);
	assert_int_equal(eoi_calls, 1);
	assert_int_equal(eoi_vector, 0x61);
	wr(&l, EOI, 0); /* nothing in service: no broadcast */
	assert_int_equal(eoi_calls, 1);
	assert_true(vlapic_set_base(&l, l.base_msr & ~(1ull << 11), 36));
	assert_true(vlapic_set_base(&l, l.base_msr | (1ull << 11), 36));
	assert_ptr_equal(l.level_eoi, record_eoi);
	vlapic_reset(&l, 0, true);
	assert_null(l.level_eoi);
}

/* KVM's PV EOI may end the highest in-service vector lazily only when that is an edge one and
 * nothing waits in the IRR (even a vector the PPR holds back: its EOI would let it in);
 * vlapic_eoi then does what the EOI register does. */
static void test_lazy_eoi_vector(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	assert_int_equal(vlapic_lazy_eoi_vector(&l), -1); /* nothing in service */
	vlapic_set_irq(&l, 0x41, false);
	assert_int_equal(vlapic_lazy_eoi_vector(&l), -1); /* nothing in service yet */
	vlapic_ack(&l, 0x41);
	assert_int_equal(vlapic_lazy_eoi_vector(&l), 0x41);
	vlapic_set_irq(&l, 0x42, false); /* same class: held back */
	assert_int_equal(vlapic_pending(&l), -1);
	assert_int_equal(vlapic_lazy_eoi_vector(&l), -1);
	vlapic_eoi(&l);
	assert_false(isr_has(&l, 0x41));
	assert_int_equal(vlapic_pending(&l), 0x42);
	vlapic_ack(&l, 0x42);
	vlapic_set_irq(&l, 0x91, true); /* level, nests above */
	vlapic_ack(&l, 0x91);
	assert_int_equal(vlapic_lazy_eoi_vector(&l), -1); /* its EOI must reach the I/O APIC */
	eoi_calls = 0;
	l.level_eoi = record_eoi;
	l.eoi_ctx = &eoi_calls;
	vlapic_eoi(&l);
	assert_int_equal(eoi_calls, 1);
	assert_int_equal(vlapic_lazy_eoi_vector(&l), 0x42); /* the edge one below it now */
	vlapic_eoi(&l);
	assert_int_equal(eoi_calls, 1);
	assert_int_equal(vlapic_lazy_eoi_vector(&l), -1);
}

/* x2APIC: the read-only LVT bits are ignored, not refused; reserved ones still #GP. */
static void test_x2apic_lvt_readonly_bits(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	assert_true(vlapic_set_base(&l, l.base_msr | (1ull << 10), 36));
	assert_true(vlapic_msr_write(&l, 0x835, 0x5700, 0));
	u64 v = 0;
	assert_true(vlapic_msr_read(&l, 0x835, &v, 0));
	assert_int_equal(v, 0x700);
	assert_false(vlapic_msr_write(&l, 0x835, 0x80700, 0));	     /* bit 19: reserved */
	assert_false(vlapic_msr_write(&l, 0x832, 0x4000 | 0x30, 0)); /* timer has no remote IRR */
}

/* Interrupt messages: physical ID or broadcast; logical in flat and cluster models. */
static void test_match_dest(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	assert_true(vlapic_match_dest(&l, 0, false));
	assert_true(vlapic_match_dest(&l, 0xff, false));
	assert_false(vlapic_match_dest(&l, 1, false));
	wr(&l, LDR, 0x02000000); /* flat: logical ID bit 1 */
	assert_true(vlapic_match_dest(&l, 0x03, true));
	assert_false(vlapic_match_dest(&l, 0x01, true));
	wr(&l, DFR, 0x0fffffff); /* cluster 0, member bit 1 */
	assert_true(vlapic_match_dest(&l, 0x02, true));
	assert_false(vlapic_match_dest(&l, 0x12, true));
}

static void test_illegal_vectors(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	for (unsigned v = 0; v < 16; v++)
		vlapic_set_irq(&l, (u8)v, false);
	assert_int_equal(l.irr[0], 0);
	assert_int_equal(vlapic_pending(&l), -1);
	assert_int_equal(rd(&l, ESR), 0); /* not visible before an ESR write */
	wr(&l, ESR, 0);
	assert_int_equal(rd(&l, ESR), 0x40); /* received illegal vector */
	wr(&l, ESR, 0);
	assert_int_equal(rd(&l, ESR), 0);
	vlapic_set_irq(&l, 16, false);
	assert_true(irr_has(&l, 16));
}

static void test_error_lvt(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, LVT_ERROR, 0xfe);
	vlapic_set_irq(&l, 5, false);
	assert_int_equal(vlapic_pending(&l), 0xfe);
	wr(&l, 0x3a0, 1); /* unimplemented register */
	wr(&l, ESR, 0);
	assert_int_equal(rd(&l, ESR), 0xc0);
}

static void test_disabled_not_pending(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	vlapic_set_irq(&l, 0x50, false);
	wr(&l, SVR, 0xff);
	assert_int_equal(vlapic_pending(&l), -1);
	wr(&l, SVR, 0x1ff);
	assert_int_equal(vlapic_pending(&l), 0x50);
	assert_true(vlapic_set_base(&l, VLAPIC_BASE | BASE_BSP, 36));
	assert_int_equal(vlapic_pending(&l), -1);
	vlapic_set_irq(&l, 0x50, false); /* no APIC: nothing is taken */
	assert_false(irr_has(&l, 0x50));
}

/* ---- SVR and LVTs ---- */

static void test_svr_disable_masks(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, LVT_TIMER, 0xef);
	wr(&l, SVR, 0x0ff);
	assert_int_equal(rd(&l, LVT_TIMER), MASKED | 0xef);
	assert_int_equal(rd(&l, LINT0), MASKED | 0x8700);
	wr(&l, LVT_ERROR, 0xfe); /* stays masked while disabled */
	assert_int_equal(rd(&l, LVT_ERROR), MASKED | 0xfe);
	wr(&l, SVR, 0x3ff);
	assert_int_equal(rd(&l, SVR), 0x3ff);
	assert_int_equal(rd(&l, LVT_ERROR), MASKED | 0xfe); /* enabling unmasks nothing */
	wr(&l, LVT_ERROR, 0xfe);
	assert_int_equal(rd(&l, LVT_ERROR), 0xfe);
	wr(&l, SVR, 0xffffffff);
	assert_int_equal(rd(&l, SVR), 0x3ff);
}

static void test_lvt_reserved_bits(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, LVT_TIMER, 0xffffffff);
	assert_int_equal(rd(&l, LVT_TIMER), 0x700ff);
	wr(&l, LINT0, 0xffffffff);
	assert_int_equal(rd(&l, LINT0), 0x1a7ff); /* no delivery status, no remote IRR */
	wr(&l, LVT_ERROR, 0xffffffff);
	assert_int_equal(rd(&l, LVT_ERROR), 0x100ff);
	wr(&l, LVT_PERF, 0xffffffff);
	assert_int_equal(rd(&l, LVT_PERF), 0x107ff);
}

static void test_xapic_registers(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, ID, 0x05123456);
	assert_int_equal(rd(&l, ID), 0x05000000);
	wr(&l, LDR, 0x01ffffff);
	assert_int_equal(rd(&l, LDR), 0x01000000);
	wr(&l, DFR, 0x0fffffff);
	assert_int_equal(rd(&l, DFR), 0x0fffffff);
	wr(&l, VER, 0);
	wr(&l, PPR, 0x77);
	assert_int_equal(rd(&l, VER), 0x00050014);
	assert_int_equal(rd(&l, PPR), 0);
	wr(&l, TIMER_DIV, 0xff);
	assert_int_equal(rd(&l, TIMER_DIV), 0xb);
	wr(&l, ESR, 0);
	assert_int_equal(rd(&l, ESR), 0);  /* read-only writes are not errors */
	assert_int_equal(rd(&l, CMCI), 0); /* max LVT 5: no CMCI register */
	wr(&l, ESR, 0);
	assert_int_equal(rd(&l, ESR), 0x80); /* illegal register address */
}

static void test_extint(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	assert_true(vlapic_accepts_extint(&l));
	wr(&l, LINT0, 0x10700);
	assert_false(vlapic_accepts_extint(&l));
	wr(&l, LINT0, 0x0700);
	assert_true(vlapic_accepts_extint(&l));
	wr(&l, LINT0, 0x0400); /* NMI mode */
	assert_false(vlapic_accepts_extint(&l));
	wr(&l, LINT0, 0x8700);
	wr(&l, SVR, 0xff); /* software-disabled: LINT0 masked */
	assert_false(vlapic_accepts_extint(&l));
	assert_true(vlapic_set_base(&l, VLAPIC_BASE | BASE_BSP, 36));
	assert_true(vlapic_accepts_extint(&l)); /* no APIC: the PIC drives INTR */
}

/* LINT0 in NMI mode: the 8259's INTR rising is one NMI (edge, whatever the trigger bit);
 * staying high, falling, masked, ExtINT mode, a disabled APIC give none. */
static void test_lint0_nmi(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	assert_false(vlapic_lint0(&l, true)); /* ExtINT mode (the BIOS's): the 8259's path */
	assert_false(vlapic_lint0(&l, false));
	wr(&l, LINT0, 0x8400); /* NMI, level trigger bit set: still an edge */
	assert_true(vlapic_lint0(&l, true));
	assert_false(vlapic_lint0(&l, true)); /* held high: no second NMI */
	assert_false(vlapic_lint0(&l, false));
	assert_true(vlapic_lint0(&l, true)); /* the next rising edge */
	assert_false(vlapic_lint0(&l, false));
	wr(&l, LINT0, 0x10400); /* masked */
	assert_false(vlapic_lint0(&l, true));
	wr(&l, LINT0, 0x0400);
	assert_false(vlapic_lint0(&l, true)); /* high since before the unmask: no edge */
	assert_false(vlapic_lint0(&l, false));
	wr(&l, SVR, 0xff); /* software-disabled: LINT0 masked */
	assert_false(vlapic_lint0(&l, true));
	assert_false(vlapic_lint0(&l, false));
	assert_true(vlapic_set_base(&l, VLAPIC_BASE | BASE_BSP, 36));
	assert_false(vlapic_lint0(&l, true)); /* no APIC: LINT0 is INTR, not an NMI */
}

/* LINT1, the board's NMI line (the monitor's nmi): an NMI as the BIOS leaves it, not while
 * masked (by the LVT or a software disable) or in another mode; straight to the CPU without an
 * APIC. */
static void test_lint1_nmi(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	assert_true(vlapic_lint1_nmi(&l));
	wr(&l, LINT1, 0x10400);
	assert_false(vlapic_lint1_nmi(&l));
	wr(&l, LINT1, 0x0030); /* fixed, vector 0x30 */
	assert_false(vlapic_lint1_nmi(&l));
	wr(&l, LINT1, 0x0400);
	assert_true(vlapic_lint1_nmi(&l));
	wr(&l, SVR, 0xff); /* software-disabled: LINT1 masked */
	assert_false(vlapic_lint1_nmi(&l));
	assert_true(vlapic_set_base(&l, VLAPIC_BASE | BASE_BSP, 36));
	assert_true(vlapic_lint1_nmi(&l));
}

/* ---- IPIs ---- */

static void test_icr_self_ipis(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, ICR_LO, 0x40000 | 0x41); /* shorthand self */
	assert_true(irr_has(&l, 0x41));
	wr(&l, ICR_LO, 0x80000 | 0x42); /* all including self */
	assert_true(irr_has(&l, 0x42));
	wr(&l, ICR_LO, 0xc0000 | 0x43); /* all excluding self */
	assert_false(irr_has(&l, 0x43));
	wr(&l, ICR_HI, 0x00000000); /* physical, to our id 0 */
	wr(&l, ICR_LO, 0x44);
	assert_true(irr_has(&l, 0x44));
	wr(&l, ICR_HI, 0xff000000); /* physical broadcast */
	wr(&l, ICR_LO, 0x45);
	assert_true(irr_has(&l, 0x45));
	wr(&l, ICR_LO, 0x40000 | 0x400 | 0x46); /* NMI: not a fixed interrupt */
	assert_false(irr_has(&l, 0x46));
	assert_int_equal(rd(&l, ICR_LO) & 0x1000, 0); /* delivery status idle */
}

static void test_icr_other_cpu(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, ICR_HI, 0x0f000000);
	wr(&l, ICR_LO, 0x000000f0);
	assert_false(irr_has(&l, 0xf0));
	assert_int_equal(rd(&l, ICR_LO) & 0xcfff, 0xf0);
	assert_int_equal(rd(&l, ICR_HI), 0x0f000000);
	wr(&l, ICR_LO, 0xffffffff);
	assert_int_equal(rd(&l, ICR_LO), 0x000ccfff);
}

static void test_icr_logical(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, LDR, 0x04000000); /* flat, logical id bit 2 */
	wr(&l, ICR_HI, 0x06000000);
	wr(&l, ICR_LO, 0x800 | 0x51);
	assert_true(irr_has(&l, 0x51));
	wr(&l, ICR_HI, 0x03000000);
	wr(&l, ICR_LO, 0x800 | 0x52);
	assert_false(irr_has(&l, 0x52));
	wr(&l, DFR, 0x0fffffff); /* cluster: cluster 0, member bit 2 */
	wr(&l, ICR_HI, 0x14000000);
	wr(&l, ICR_LO, 0x800 | 0x53);
	assert_false(irr_has(&l, 0x53));
	wr(&l, ICR_HI, 0x04000000);
	wr(&l, ICR_LO, 0x800 | 0x54);
	assert_true(irr_has(&l, 0x54));
}

static void test_icr_send_illegal(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, ICR_LO, 0x40000 | 0x0e);
	assert_int_equal(l.irr[0], 0);
	wr(&l, ESR, 0);
	assert_int_equal(rd(&l, ESR), 0x20);
}

/* ---- timer ---- */

static void test_timer_oneshot_boundary(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, LVT_TIMER, 0xec);
	wr(&l, TIMER_DIV, 0x1); /* divide by 4 */
	vlapic_write(&l, TIMER_INIT, 100, T0);
	assert_int_equal(vlapic_next_event_ns(&l), T0 + 400);
	vlapic_timer_update(&l, T0 + 399);
	assert_false(irr_has(&l, 0xec));
	vlapic_timer_update(&l, T0 + 400);
	assert_true(irr_has(&l, 0xec));
	assert_int_equal(vlapic_next_event_ns(&l), 0);
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 401), 0);
	assert_int_equal(vlapic_read(&l, TIMER_INIT, T0 + 401), 100);
	vlapic_ack(&l, 0xec);
	vlapic_timer_update(&l, T0 + 10000); /* one-shot: once */
	assert_false(irr_has(&l, 0xec));
	/* A register access brings the timer up to date first. */
	wr(&l, TIMER_DIV, 0xb);
	vlapic_write(&l, TIMER_INIT, 10, T0 + 20000);
	assert_int_equal(vlapic_read(&l, IRR + 0x70, T0 + 20010), 1u << 12);
}

static void test_timer_current_count(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, TIMER_DIV, 0x0); /* divide by 2 */
	vlapic_write(&l, TIMER_INIT, 10, T0);
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0), 10);
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 1), 10);
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 2), 9);
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 11), 5);
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 19), 1);
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 20), 0);
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 21), 0);
}

static void test_timer_divider_values(void **state)
{
	(void)state;
	static const struct {
		u32 cfg;
		u64 div;
	} d[] = {
		{ 0x0, 2 },  { 0x1, 4 },  { 0x2, 8 },	{ 0x3, 16 },
		{ 0x8, 32 }, { 0x9, 64 }, { 0xa, 128 }, { 0xb, 1 },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(d); i++) {
		struct vlapic l = bsp();
		wr(&l, TIMER_DIV, d[i].cfg);
		vlapic_write(&l, TIMER_INIT, 1000, T0);
		assert_int_equal(vlapic_next_event_ns(&l), T0 + 1000 * d[i].div);
		assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 300 * d[i].div), 700);
	}
}

static void test_timer_init_zero_stops(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, LVT_TIMER, 0xe0);
	vlapic_write(&l, TIMER_INIT, 1000, T0);
	vlapic_write(&l, TIMER_INIT, 0, T0 + 10);
	assert_int_equal(vlapic_next_event_ns(&l), 0);
	vlapic_timer_update(&l, T0 + 100000);
	assert_false(irr_has(&l, 0xe0));
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 20), 0);
}

static void test_timer_restart(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, TIMER_DIV, 0xb);
	vlapic_write(&l, TIMER_INIT, 1000, T0);
	vlapic_write(&l, TIMER_INIT, 500, T0 + 800); /* a new count starts from now */
	assert_int_equal(vlapic_next_event_ns(&l), T0 + 1300);
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 900), 400);
}

static void test_timer_periodic_phase(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, LVT_TIMER, PERIODIC | 0xd0);
	wr(&l, TIMER_DIV, 0xb); /* divide by 1 */
	vlapic_write(&l, TIMER_INIT, 1000, T0);
	vlapic_timer_update(&l, T0 + 1030); /* serviced late */
	assert_true(irr_has(&l, 0xd0));
	assert_int_equal(vlapic_next_event_ns(&l), T0 + 2000); /* no drift */
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 1030), 970);
	vlapic_ack(&l, 0xd0);
	wr(&l, EOI, 0);
	vlapic_timer_update(&l, T0 + 1999);
	assert_false(irr_has(&l, 0xd0));
	vlapic_timer_update(&l, T0 + 2000);
	assert_true(irr_has(&l, 0xd0));
	assert_int_equal(vlapic_next_event_ns(&l), T0 + 3000);
}

static void test_timer_periodic_count_wraps(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, LVT_TIMER, PERIODIC | MASKED | 0xd0);
	wr(&l, TIMER_DIV, 0x0); /* divide by 2 */
	vlapic_write(&l, TIMER_INIT, 100, T0);
	/* A read brings the timer up to date first: at 0 it has reloaded. */
	assert_int_equal(l.timer_next_ns, T0 + 200);
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 200), 100);
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 250), 75);
}

static void test_timer_periodic_coalesce(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, LVT_TIMER, PERIODIC | 0xd1);
	wr(&l, TIMER_DIV, 0xb);
	vlapic_write(&l, TIMER_INIT, 10, T0);
	u64 late = T0 + 10ull * 1000000000ull + 3; /* a billion periods missed */
	vlapic_timer_update(&l, late);
	assert_true(irr_has(&l, 0xd1));
	assert_int_equal(vlapic_next_event_ns(&l), late + 7); /* phase kept, in the future */
	vlapic_ack(&l, 0xd1);
	vlapic_timer_update(&l, late + 6);
	assert_false(irr_has(&l, 0xd1));
}

static void test_timer_masked(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, LVT_TIMER, PERIODIC | MASKED | 0xd2);
	wr(&l, TIMER_DIV, 0xb);
	vlapic_write(&l, TIMER_INIT, 50, T0);
	vlapic_timer_update(&l, T0 + 50);
	assert_false(irr_has(&l, 0xd2));
	assert_int_equal(vlapic_next_event_ns(&l), T0 + 100); /* still reloads */
	wr(&l, LVT_TIMER, PERIODIC | 0xd2);
	vlapic_timer_update(&l, T0 + 100);
	assert_true(irr_has(&l, 0xd2));
}

static void test_timer_divide_change(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, TIMER_DIV, 0xb); /* 1 */
	vlapic_write(&l, TIMER_INIT, 100, T0);
	vlapic_write(&l, TIMER_DIV, 0x1, T0 + 40); /* 4: 60 ticks left, 4 ns each */
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 40), 60);
	assert_int_equal(vlapic_next_event_ns(&l), T0 + 40 + 240);
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 80), 50);
}

static void test_timer_tsc_deadline(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, LVT_TIMER, 0xef); /* one-shot: the MSR ignores writes */
	vlapic_set_tsc_deadline(&l, 1000, T0 + 5000);
	assert_int_equal(l.tsc_deadline, 0);
	assert_int_equal(vlapic_next_event_ns(&l), 0);
	wr(&l, LVT_TIMER, DEADLINE | 0xef);
	wr(&l, TIMER_INIT, 1234); /* ignored in TSC-deadline mode */
	assert_int_equal(rd(&l, TIMER_INIT), 0);
	assert_int_equal(vlapic_next_event_ns(&l), 0);
	vlapic_set_tsc_deadline(&l, 777777, T0 + 5000);
	assert_int_equal(l.tsc_deadline, 777777);
	assert_int_equal(vlapic_next_event_ns(&l), T0 + 5000);
	assert_int_equal(vlapic_read(&l, TIMER_CUR, T0 + 100), 0);
	vlapic_timer_update(&l, T0 + 4999);
	assert_false(irr_has(&l, 0xef));
	vlapic_timer_update(&l, T0 + 5000);
	assert_true(irr_has(&l, 0xef));
	assert_int_equal(l.tsc_deadline, 0); /* the MSR clears when it fires */
	assert_int_equal(vlapic_next_event_ns(&l), 0);
	vlapic_ack(&l, 0xef);
	vlapic_set_tsc_deadline(&l, 5, 0); /* long past, at the clock's origin: still armed */
	assert_int_equal(vlapic_next_event_ns(&l), 1);
	vlapic_timer_update(&l, T0 + 6001);
	assert_true(irr_has(&l, 0xef));
	vlapic_set_tsc_deadline(&l, 1, T0 + 9000);
	vlapic_set_tsc_deadline(&l, 0, 0); /* disarms */
	assert_int_equal(vlapic_next_event_ns(&l), 0);
	assert_int_equal(l.tsc_deadline, 0);
}

static void test_timer_mode_switch_disarms(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, LVT_TIMER, DEADLINE | 0xef);
	vlapic_set_tsc_deadline(&l, 5, T0 + 5000);
	wr(&l, LVT_TIMER, 0xef); /* to one-shot */
	assert_int_equal(vlapic_next_event_ns(&l), 0);
	assert_int_equal(l.tsc_deadline, 0);
	vlapic_write(&l, TIMER_INIT, 100, T0);
	assert_int_not_equal(vlapic_next_event_ns(&l), 0);
	wr(&l, LVT_TIMER, DEADLINE | 0xef); /* to TSC-deadline */
	assert_int_equal(vlapic_next_event_ns(&l), 0);
	vlapic_timer_update(&l, T0 + 100000);
	assert_false(irr_has(&l, 0xef));
	/* One-shot to periodic keeps counting: the new mode decides at 0. */
	wr(&l, LVT_TIMER, 0xef);
	wr(&l, TIMER_DIV, 0xb);
	vlapic_write(&l, TIMER_INIT, 100, T0);
	wr(&l, LVT_TIMER, PERIODIC | 0xef);
	assert_int_equal(vlapic_next_event_ns(&l), T0 + 100);
	vlapic_timer_update(&l, T0 + 100);
	assert_int_equal(vlapic_next_event_ns(&l), T0 + 200);
}

/* ---- IA32_APIC_BASE and x2APIC ---- */

static void test_base_checks(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	assert_true(vlapic_set_base(&l, 0xfee00900ull, 36));
	assert_true(vlapic_set_base(&l, 0xfee00800ull, 36)); /* BSP flag: R/W */
	assert_true(vlapic_set_base(&l, 0xfee00900ull, 36));
	assert_false(vlapic_set_base(&l, 0xfee00901ull, 36));	  /* reserved bit */
	assert_false(vlapic_set_base(&l, 0xfee00980ull, 36));	  /* reserved bit 7 */
	assert_false(vlapic_set_base(&l, 0xfee00b00ull, 36));	  /* reserved bit 9 */
	assert_false(vlapic_set_base(&l, 0x1000fee00900ull, 36)); /* above MAXPHYADDR */
	assert_false(vlapic_set_base(&l, 0x10fee00900ull, 36));	  /* bit 36 of 36 */
	assert_false(vlapic_set_base(&l, 0xfee00500ull, 36));	  /* EXTD without enable */
	assert_int_equal(l.base_msr, 0xfee00900ull);
	assert_true(vlapic_set_base(&l, 0x10fee00900ull, 39)); /* bit 36 of 39 */
	assert_int_equal(l.base_msr, 0x10fee00900ull);
}

/* SDM 10.4.4: the xAPIC page moves with IA32_APIC_BASE, its state with it; only an enabled
 * APIC in xAPIC mode answers MMIO, at its base alone. */
static void test_base_relocation(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	u32 off = 0;

	assert_true(vlapic_mmio_hit(&l, 0xfee00080ull, &off));
	assert_int_equal(off, 0x80);
	assert_false(vlapic_mmio_hit(&l, 0xfee01000ull, &off));
	assert_false(vlapic_mmio_hit(&l, 0xfedff000ull, &off));
	wr(&l, TPR, 0x40);
	assert_true(vlapic_set_base(&l, 0xfed00900ull, 36));
	assert_false(vlapic_mmio_hit(&l, 0xfee00080ull, &off)); /* the old page: nothing */
	assert_true(vlapic_mmio_hit(&l, 0xfed00080ull, &off));
	assert_int_equal(off, 0x80);
	assert_true(vlapic_mmio_hit(&l, 0xfed00ffcull, &off));
	assert_int_equal(off, 0xffc);
	assert_int_equal(rd(&l, TPR), 0x40); /* moved, not reset */
	/* Moved again while in x2APIC mode, and back: no MMIO in x2APIC mode or disabled. */
	assert_true(vlapic_set_base(&l, 0xfed00d00ull, 36));
	assert_false(vlapic_mmio_hit(&l, 0xfed00080ull, &off));
	assert_true(vlapic_set_base(&l, 0x80000d00ull, 36));
	assert_int_equal(l.base_msr, 0x80000d00ull);
	assert_true(vlapic_set_base(&l, 0x80000100ull, 36)); /* x2APIC -> disabled */
	assert_false(vlapic_mmio_hit(&l, 0x80000080ull, &off));
	assert_true(vlapic_set_base(&l, 0x80000900ull, 36)); /* disabled -> xAPIC */
	assert_true(vlapic_mmio_hit(&l, 0x80000080ull, &off));
	assert_int_equal(rd(&l, TPR), 0); /* the disable reset it */
}

static void test_x2apic_transitions(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	u64 base = VLAPIC_BASE | BASE_BSP;
	assert_true(vlapic_set_base(&l, base, 36));			   /* xAPIC -> disabled */
	assert_false(vlapic_set_base(&l, base | BASE_EN | BASE_EXTD, 36)); /* disabled -> x2APIC */
	assert_true(vlapic_set_base(&l, base | BASE_EN, 36));		   /* disabled -> xAPIC */
	assert_true(vlapic_set_base(&l, base | BASE_EN | BASE_EXTD, 36));  /* xAPIC -> x2APIC */
	assert_true(vlapic_x2apic(&l));
	assert_false(vlapic_set_base(&l, base | BASE_EN, 36)); /* x2APIC -> xAPIC */
	assert_false(vlapic_set_base(&l, base | BASE_EXTD, 36));
	assert_true(vlapic_set_base(&l, base | BASE_EN | BASE_EXTD, 36)); /* stay */
	assert_true(vlapic_set_base(&l, base, 36));			  /* x2APIC -> disabled */
	assert_false(vlapic_hw_enabled(&l));
	assert_false(vlapic_x2apic(&l));
}

static void test_disable_resets(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	wr(&l, TPR, 0x30);
	wr(&l, LVT_TIMER, 0xe0);
	vlapic_write(&l, TIMER_INIT, 1000, T0);
	vlapic_set_irq(&l, 0x70, false);
	assert_true(vlapic_set_base(&l, VLAPIC_BASE | BASE_BSP, 36));
	assert_true(vlapic_set_base(&l, VLAPIC_BASE | BASE_BSP | BASE_EN, 36));
	assert_int_equal(rd(&l, TPR), 0);
	assert_int_equal(rd(&l, SVR), 0xff); /* power-on, not the BIOS setup */
	assert_int_equal(rd(&l, LVT_TIMER), MASKED);
	assert_int_equal(rd(&l, LINT0), MASKED);
	assert_false(irr_has(&l, 0x70));
	assert_int_equal(vlapic_next_event_ns(&l), 0);
	assert_int_equal(l.base_msr, 0xfee00900ull);
}

static void test_mmio_off_when_not_xapic(void **state)
{
	(void)state;
	struct vlapic l = x2apic(0);
	wr(&l, TPR, 0x40);
	assert_int_equal(l.tpr, 0);
	u64 v;
	struct vlapic x = bsp();
	assert_false(vlapic_msr_read(&x, X2(TPR), &v, T0)); /* xAPIC: no MSRs */
	assert_false(vlapic_msr_write(&x, X2(TPR), 0, T0));
}

static void test_x2apic_id_ldr_dfr(void **state)
{
	(void)state;
	struct vlapic l;
	vlapic_reset(&l, 0x123, true);
	wr(&l, ID, 0x07000000); /* xAPIC renumbering is forgotten in x2APIC */
	assert_true(vlapic_set_base(&l, VLAPIC_BASE | BASE_BSP | BASE_EN | BASE_EXTD, 36));
	assert_int_equal(msr_rd(&l, ID), 0x123);
	assert_int_equal(msr_rd(&l, LDR), (0x12u << 16) | (1u << 3));
	assert_false(vlapic_msr_write(&l, X2(ID), 0x123, T0));
	assert_false(vlapic_msr_write(&l, X2(LDR), 0, T0));
	u64 v;
	assert_false(vlapic_msr_read(&l, X2(DFR), &v, T0));
	assert_false(vlapic_msr_write(&l, X2(DFR), 0xffffffff, T0));
	assert_int_equal(msr_rd(&l, VER), 0x00050014);
}

static void test_x2apic_icr(void **state)
{
	(void)state;
	struct vlapic l = x2apic(0x42);
	assert_true(vlapic_msr_write(&l, 0x830, (0x42ull << 32) | 0x61, T0));
	assert_true(irr_has(&l, 0x61));
	assert_int_equal(msr_rd(&l, ICR_LO), (0x42ull << 32) | 0x61);
	assert_true(vlapic_msr_write(&l, 0x830, (0x43ull << 32) | 0x62, T0));
	assert_false(irr_has(&l, 0x62));
	assert_true(vlapic_msr_write(&l, 0x830, (0xffffffffull << 32) | 0x63, T0));
	assert_true(irr_has(&l, 0x63));
	assert_true(vlapic_msr_write(&l, 0x830, 0x40000 | 0x64, T0));
	assert_true(irr_has(&l, 0x64));
	/* Logical: cluster 4, member bit 2 (id 0x42). */
	assert_true(vlapic_msr_write(&l, 0x830, (0x40004ull << 32) | 0x800 | 0x65, T0));
	assert_true(irr_has(&l, 0x65));
	assert_false(vlapic_msr_write(&l, 0x830, 0x1000 | 0x66, T0)); /* reserved bit 12 */
	assert_false(vlapic_msr_write(&l, 0x830, 0x100000 | 0x66, T0));
	assert_false(irr_has(&l, 0x66));
	u64 v;
	assert_false(vlapic_msr_read(&l, 0x831, &v, T0)); /* no ICR high in x2APIC */
}

static void test_x2apic_self_ipi(void **state)
{
	(void)state;
	struct vlapic l = x2apic(1);
	assert_true(vlapic_msr_write(&l, 0x83f, 0x71, T0));
	assert_true(irr_has(&l, 0x71));
	assert_int_equal(vlapic_pending(&l), 0x71);
	u64 v;
	assert_false(vlapic_msr_read(&l, 0x83f, &v, T0));     /* write-only */
	assert_false(vlapic_msr_write(&l, 0x83f, 0x171, T0)); /* reserved bits */
	assert_true(vlapic_msr_write(&l, 0x83f, 0x05, T0));   /* illegal: logged, not sent */
	assert_int_equal(l.irr[0], 0);
	assert_true(vlapic_msr_write(&l, X2(ESR), 0, T0));
	assert_int_equal(msr_rd(&l, ESR), 0x20);
}

/* The 64-bit ICR's other shorthands: all including self reaches this APIC, all excluding self
 * (the only CPU) nobody; the destination field is ignored with a shorthand. */
static void test_x2apic_shorthands(void **state)
{
	(void)state;
	struct vlapic l = x2apic(5);
	assert_true(vlapic_msr_write(&l, 0x830, (0x77ull << 32) | 0x80000 | 0x51, T0));
	assert_true(irr_has(&l, 0x51));
	assert_true(vlapic_msr_write(&l, 0x830, (5ull << 32) | 0xc0000 | 0x52, T0));
	assert_false(irr_has(&l, 0x52));
	assert_true(vlapic_msr_write(&l, 0x830, (0x77ull << 32) | 0x40000 | 0x53, T0));
	assert_true(irr_has(&l, 0x53));
}

/* A globally disabled APIC: no MSRs, no MMIO (reads 0 here, the board answers all ones), no
 * interrupts accepted, whichever mode it left. */
static void test_globally_disabled(void **state)
{
	(void)state;
	u64 v;
	for (int from_x2 = 0; from_x2 < 2; from_x2++) {
		struct vlapic l = from_x2 ? x2apic(0) : bsp();
		assert_true(vlapic_set_base(&l, VLAPIC_BASE | BASE_BSP, 36));
		assert_false(vlapic_hw_enabled(&l));
		assert_false(vlapic_msr_read(&l, 0x802, &v, T0));
		assert_false(vlapic_msr_write(&l, 0x83f, 0x60, T0));
		assert_false(vlapic_msr_write(&l, 0x830, 0x40000 | 0x60, T0));
		assert_int_equal(rd(&l, SVR), 0);
		wr(&l, TPR, 0x40);
		wr(&l, ICR_LO, 0x40000 | 0x61);
		assert_int_equal(l.tpr, 0);
		vlapic_set_irq(&l, 0x62, false);
		assert_int_equal(l.irr[0] | l.irr[1] | l.irr[2] | l.irr[3], 0);
		assert_int_equal(vlapic_pending(&l), -1);
	}
}

static void test_x2apic_eoi(void **state)
{
	(void)state;
	struct vlapic l = x2apic(0);
	vlapic_set_irq(&l, 0x90, false);
	vlapic_ack(&l, 0x90);
	assert_false(vlapic_msr_write(&l, X2(EOI), 1, T0));
	assert_true(isr_has(&l, 0x90));
	assert_true(vlapic_msr_write(&l, X2(EOI), 0, T0));
	assert_false(isr_has(&l, 0x90));
	u64 v;
	assert_false(vlapic_msr_read(&l, X2(EOI), &v, T0));
}

static void test_x2apic_gp_cases(void **state)
{
	(void)state;
	struct vlapic l = x2apic(0);
	u64 v;
	assert_false(vlapic_msr_write(&l, X2(TPR), 0x100, T0));	     /* reserved bits */
	assert_false(vlapic_msr_write(&l, X2(TPR), 1ull << 32, T0)); /* upper half */
	assert_true(vlapic_msr_write(&l, X2(TPR), 0x20, T0));
	assert_int_equal(msr_rd(&l, TPR), 0x20);
	assert_false(vlapic_msr_write(&l, X2(ESR), 1, T0));
	assert_false(vlapic_msr_write(&l, X2(PPR), 0, T0)); /* read-only */
	assert_false(vlapic_msr_write(&l, X2(VER), 0, T0));
	assert_false(vlapic_msr_write(&l, X2(ISR), 0, T0));
	assert_false(vlapic_msr_write(&l, X2(TIMER_CUR), 0, T0));
	assert_false(vlapic_msr_write(&l, X2(LVT_TIMER), 0x800ef, T0));	 /* bit 19 */
	assert_false(vlapic_msr_write(&l, X2(LVT_ERROR), 0x1000fe, T0)); /* bit 12 (status) */
	assert_true(vlapic_msr_write(&l, X2(LVT_ERROR), 0xfe, T0));
	assert_false(vlapic_msr_write(&l, X2(TIMER_DIV), 0x4, T0));
	assert_false(vlapic_msr_write(&l, X2(SVR), 0x11ff, T0)); /* no EOI suppression */
	assert_false(vlapic_msr_read(&l, X2(APR), &v, T0));	 /* not in x2APIC */
	assert_false(vlapic_msr_read(&l, X2(CMCI), &v, T0));	 /* max LVT 5 */
	assert_false(vlapic_msr_read(&l, 0x800, &v, T0));
	assert_false(vlapic_msr_read(&l, 0x8ff, &v, T0));
	assert_false(vlapic_msr_read(&l, 0x900, &v, T0));
	assert_int_equal(msr_rd(&l, LVT_ERROR), 0xfe);
}

static void test_x2apic_timer(void **state)
{
	(void)state;
	struct vlapic l = x2apic(0);
	assert_true(vlapic_msr_write(&l, X2(LVT_TIMER), 0xe7, T0));
	assert_true(vlapic_msr_write(&l, X2(TIMER_DIV), 0xb, T0));
	assert_true(vlapic_msr_write(&l, X2(TIMER_INIT), 300, T0));
	u64 cur = 0;
	assert_true(vlapic_msr_read(&l, X2(TIMER_CUR), &cur, T0 + 100));
	assert_int_equal(cur, 200);
	vlapic_timer_update(&l, T0 + 300);
	assert_int_equal(vlapic_pending(&l), 0xe7);
}

/* ---- IPIs between several APICs: what the board asks (vlapic_ipi_reaches) and is handed ---- */

static struct vlapic ap(u32 id)
{
	struct vlapic l;

	memset(&l, 0x5a, sizeof(l));
	vlapic_reset(&l, id, false);
	return l;
}

/* Which of four APICs (IDs 0-3) an IPI from APIC `from` reaches, as a bit mask. */
static unsigned reach(const struct vlapic *all, unsigned from, u32 lo, u32 dest)
{
	unsigned mask = 0;
	for (unsigned i = 0; i < 4; i++)
		mask |= vlapic_ipi_reaches(&all[from], &all[i], lo, dest) ? 1u << i : 0;
	return mask;
}

static void test_ipi_shorthands_and_physical(void **state)
{
	(void)state;
	struct vlapic all[4] = { bsp(), ap(1), ap(2), ap(3) };
	assert_int_equal(reach(all, 1, 0x40000 | 0x30, 0), 0x2); /* self */
	assert_int_equal(reach(all, 1, 0x80000 | 0x30, 0), 0xf); /* all including self */
	assert_int_equal(reach(all, 1, 0xc0000 | 0x30, 0), 0xd); /* all excluding self */
	assert_int_equal(reach(all, 0, 0x30, 2), 0x4);		 /* physical ID 2 */
	assert_int_equal(reach(all, 0, 0x30, 0xff), 0xf);	 /* physical broadcast */
	assert_int_equal(reach(all, 0, 0x30, 0x30), 0);		 /* no such APIC: nobody */
	all[3].base_msr &= ~BASE_EN;				 /* hardware-disabled: nothing */
	assert_int_equal(reach(all, 0, 0x80000 | 0x30, 0), 0x7);
	assert_int_equal(vlapic_icr_mode(0x4500), 5); /* INIT */
	assert_int_equal(vlapic_icr_mode(0x0608), 6); /* SIPI */
	assert_int_equal(vlapic_icr_mode(0x0400), 4); /* NMI */
}

static void test_ipi_logical(void **state)
{
	(void)state;
	struct vlapic all[4] = { bsp(), ap(1), ap(2), ap(3) };
	for (unsigned i = 0; i < 4; i++)
		wr(&all[i], LDR, (1u << i) << 24);		  /* flat: one bit each */
	assert_int_equal(reach(all, 0, 0x800 | 0x30, 0x0a), 0xa); /* bits 1 and 3 */
	assert_int_equal(reach(all, 0, 0x800 | 0x30, 0xff), 0xf);
	assert_int_equal(reach(all, 0, 0x800 | 0x30, 0x00), 0);
	/* Cluster: APICs 0, 1 in cluster 0 (members 1, 2), APICs 2, 3 in cluster 1. */
	static const u32 ldr[4] = { 0x01, 0x02, 0x11, 0x12 };
	for (unsigned i = 0; i < 4; i++) {
		wr(&all[i], DFR, 0x0fffffff);
		wr(&all[i], LDR, ldr[i] << 24);
	}
	assert_int_equal(reach(all, 0, 0x800 | 0x30, 0x13), 0xc); /* cluster 1, both */
	assert_int_equal(reach(all, 0, 0x800 | 0x30, 0x02), 0x2); /* cluster 0, member 2 */
	assert_int_equal(reach(all, 0, 0x800 | 0x30, 0xff), 0xf); /* broadcast */
}

static void test_ipi_x2apic_dest(void **state)
{
	(void)state;
	struct vlapic a = x2apic(0), b = x2apic(0x21);
	assert_true(vlapic_ipi_reaches(&a, &b, 0x30, 0x21));
	assert_false(vlapic_ipi_reaches(&a, &b, 0x30, 0x01)); /* the full 32-bit ID */
	assert_true(vlapic_ipi_reaches(&a, &b, 0x30, 0xffffffffu));
	/* Logical: cluster 0x21 >> 4 = 2, member bit 0x21 & 15 = 1. */
	assert_true(vlapic_ipi_reaches(&a, &b, 0x800 | 0x30, 0x00020002u));
	assert_false(vlapic_ipi_reaches(&a, &b, 0x800 | 0x30, 0x00010002u));
}

static unsigned sent;
static u32 sent_lo, sent_dest;
static void record_ipi(void *ctx, u32 lo, u32 dest)
{
	(void)ctx;
	sent++;
	sent_lo = lo;
	sent_dest = dest;
}

/* With a board, the ICR write is handed over once, decoded; what the chip refuses is not. */
static void test_ipi_handed_to_board(void **state)
{
	(void)state;
	struct vlapic l = bsp();
	l.ipi = record_ipi;
	sent = 0;
	wr(&l, ICR_HI, 0x03000000);
	wr(&l, ICR_LO, 0x4000 | 0x0500); /* INIT assert to ID 3 */
	assert_int_equal(sent, 1);
	assert_int_equal(sent_lo, 0x4500);
	assert_int_equal(sent_dest, 3);
	wr(&l, ICR_LO, 0x0608); /* SIPI vector 8: below 16 is fine */
	assert_int_equal(sent, 2);
	wr(&l, ICR_LO, 0x0e); /* fixed vector 14: refused */
	assert_int_equal(sent, 2);
	wr(&l, ESR, 0);
	assert_int_equal(rd(&l, ESR), 0x20);
	wr(&l, ICR_LO, 0x40000 | 0x0400); /* NMI to self: not allowed */
	assert_int_equal(sent, 2);
	vlapic_init_signal(&l); /* INIT keeps the wiring */
	assert_ptr_equal(l.ipi, record_ipi);
	wr(&l, SVR, 0x1ff);
	wr(&l, ICR_LO, 0x80000 | 0x40);
	assert_int_equal(sent, 3);
	assert_false(irr_has(&l, 0x40)); /* the board delivers, not the chip */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_bsp),
		cmocka_unit_test(test_lint0_nmi),
		cmocka_unit_test(test_reset_ap),
		cmocka_unit_test(test_ppr),
		cmocka_unit_test(test_irr_isr_eoi_nesting),
		cmocka_unit_test(test_highest_irr_first),
		cmocka_unit_test(test_tpr_blocks),
		cmocka_unit_test(test_level_sets_tmr),
		cmocka_unit_test(test_level_eoi_broadcast),
		cmocka_unit_test(test_lazy_eoi_vector),
		cmocka_unit_test(test_match_dest),
		cmocka_unit_test(test_x2apic_lvt_readonly_bits),
		cmocka_unit_test(test_illegal_vectors),
		cmocka_unit_test(test_error_lvt),
		cmocka_unit_test(test_disabled_not_pending),
		cmocka_unit_test(test_svr_disable_masks),
		cmocka_unit_test(test_lvt_reserved_bits),
		cmocka_unit_test(test_xapic_registers),
		cmocka_unit_test(test_extint),
		cmocka_unit_test(test_lint1_nmi),
		cmocka_unit_test(test_icr_self_ipis),
		cmocka_unit_test(test_icr_other_cpu),
		cmocka_unit_test(test_icr_logical),
		cmocka_unit_test(test_icr_send_illegal),
		cmocka_unit_test(test_ipi_shorthands_and_physical),
		cmocka_unit_test(test_ipi_logical),
		cmocka_unit_test(test_ipi_x2apic_dest),
		cmocka_unit_test(test_ipi_handed_to_board),
		cmocka_unit_test(test_timer_oneshot_boundary),
		cmocka_unit_test(test_timer_current_count),
		cmocka_unit_test(test_timer_divider_values),
		cmocka_unit_test(test_timer_init_zero_stops),
		cmocka_unit_test(test_timer_restart),
		cmocka_unit_test(test_timer_periodic_phase),
		cmocka_unit_test(test_timer_periodic_count_wraps),
		cmocka_unit_test(test_timer_periodic_coalesce),
		cmocka_unit_test(test_timer_masked),
		cmocka_unit_test(test_timer_divide_change),
		cmocka_unit_test(test_timer_tsc_deadline),
		cmocka_unit_test(test_timer_mode_switch_disarms),
		cmocka_unit_test(test_base_checks),
		cmocka_unit_test(test_base_relocation),
		cmocka_unit_test(test_x2apic_transitions),
		cmocka_unit_test(test_disable_resets),
		cmocka_unit_test(test_mmio_off_when_not_xapic),
		cmocka_unit_test(test_x2apic_id_ldr_dfr),
		cmocka_unit_test(test_x2apic_icr),
		cmocka_unit_test(test_x2apic_self_ipi),
		cmocka_unit_test(test_x2apic_shorthands),
		cmocka_unit_test(test_globally_disabled),
		cmocka_unit_test(test_x2apic_eoi),
		cmocka_unit_test(test_x2apic_gp_cases),
		cmocka_unit_test(test_x2apic_timer),
	};
	return cmocka_run_group_tests_name("lapic", tests, NULL, NULL);
}
