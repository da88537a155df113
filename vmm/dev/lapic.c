/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest's local APIC model: xAPIC/x2APIC registers, priorities, EOI, self IPIs, the timer. */
#include "vmm/dev/lapic.h"

enum {
	R_ID = 0x20,
	R_VERSION = 0x30,
	R_TPR = 0x80,
	R_APR = 0x90,
	R_PPR = 0xa0,
	R_EOI = 0xb0,
	R_RRD = 0xc0,
	R_LDR = 0xd0,
	R_DFR = 0xe0,
	R_SVR = 0xf0,
	R_ISR = 0x100,
	R_TMR = 0x180,
	R_IRR = 0x200,
	R_ESR = 0x280,
	R_CMCI = 0x2f0,
	R_ICR_LO = 0x300,
	R_ICR_HI = 0x310,
	R_LVT_TIMER = 0x320,
	R_LVT_ERROR = 0x370,
	R_TIMER_INIT = 0x380,
	R_TIMER_CUR = 0x390,
	R_TIMER_DIV = 0x3e0,
	R_SELF_IPI = 0x3f0,
};

/* Version 0x14 with max LVT entry 5: timer, thermal, perf, LINT0, LINT1, error, as QEMU's
 * APIC under which the native reference runs; the CMCI slot is kept but not exposed. */
#define VERSION 0x00050014u

#define BASE_BSP BIT(8)
#define BASE_EXTD BIT(10)
#define BASE_EN BIT(11)
#define BASE_MODE (BASE_EXTD | BASE_EN)
#define BASE_ADDR_LOW 0xfffu /* below the page address: the flags and reserved bits */

#define SVR_ENABLE (1u << 8)
#define SVR_BITS 0x3ffu /* vector, enable, focus check; no EOI-broadcast suppression */
#define LVT_MASKED (1u << 16)
#define DM_EXTINT 0x700u
#define DM_NMI 0x400u
#define DM_MASK 0x700u
#define ICR_BITS 0x000ccfffu /* vector, mode, dest mode, level, trigger, shorthand */
#define ICR_LOGICAL (1u << 11)
#define TIMER_DIV_BITS 0xbu

#define ESR_SEND_ILLEGAL (1u << 5)
#define ESR_RECV_ILLEGAL (1u << 6)
#define ESR_ILLEGAL_REG (1u << 7)

enum { LVT_CMCI, LVT_TIMER, LVT_THERMAL, LVT_PERF, LVT_LINT0, LVT_LINT1, LVT_ERROR, NLVT };
enum { ONESHOT, PERIODIC, DEADLINE };

/* What each LVT keeps of a write (SDM figure 11-8); delivery status and remote IRR are
 * read-only and read 0 because delivery is instant. */
static const u32 lvt_bits[NLVT] = {
	[LVT_CMCI] = 0x107ff,  [LVT_TIMER] = 0x700ff, [LVT_THERMAL] = 0x107ff, [LVT_PERF] = 0x107ff,
	[LVT_LINT0] = 0x1a7ff, [LVT_LINT1] = 0x1a7ff, [LVT_ERROR] = 0x100ff,
};

/* How a register access went: both interfaces share the registers, and each turns the
 * failures into its own response (xAPIC: ignore or log an error; x2APIC: #GP). */
enum acc { A_OK, A_RO, A_WO, A_ABSENT, A_RSVD };

/* ---- 256-bit vector registers ---- */

static void vec_set(u32 *r, unsigned v)
{
	r[v >> 5] |= 1u << (v & 31);
}
static void vec_clear(u32 *r, unsigned v)
{
	r[v >> 5] &= ~(1u << (v & 31));
}
static bool vec_test(const u32 *r, unsigned v)
{
	return r[v >> 5] >> (v & 31) & 1;
}

static int vec_highest(const u32 *r)
{
	for (int i = 7; i >= 0; i--)
		if (r[i])
			return i * 32 + 31 - __builtin_clz(r[i]);
	return -1;
}

/* ---- state ---- */

bool vlapic_hw_enabled(const struct vlapic *l)
{
	return l->base_msr & BASE_EN;
}

bool vlapic_x2apic(const struct vlapic *l)
{
	return (l->base_msr & BASE_MODE) == BASE_MODE;
}

static bool sw_enabled(const struct vlapic *l)
{
	return l->svr & SVR_ENABLE;
}

/* SDM 11.4.7.1: what a reset (or a global disable) leaves; only the ID and base survive. */
static void power_on(struct vlapic *l, u32 id, u64 base_msr, void (*level_eoi)(void *, u8),
		     void *eoi_ctx)
{
	/* The wiring to the other APICs is the board's, not the chip's: it survives. */
	void (*ipi)(void *, u32, u32) = l->ipi;
	void *ipi_ctx = l->ipi_ctx;

	*l = (struct vlapic){ .base_msr = base_msr,
			      .id = id,
			      .hw_id = id,
			      .dfr = 0xffffffffu,
			      .svr = 0xff,
			      .level_eoi = level_eoi,
			      .eoi_ctx = eoi_ctx,
			      .ipi = ipi,
			      .ipi_ctx = ipi_ctx };
	for (int i = 0; i < NLVT; i++)
		l->lvt[i] = LVT_MASKED;
}

void vlapic_reset(struct vlapic *l, u32 id, bool bsp)
{
	l->ipi = NULL; /* the board wires it again */
	l->ipi_ctx = NULL;
	power_on(l, id, VLAPIC_BASE | BASE_EN | (bsp ? BASE_BSP : 0), NULL, NULL);
	if (!bsp)
		return; /* SeaBIOS parks the APs; the OS's INIT leaves them at power-on anyway */
	l->svr |= SVR_ENABLE;
	l->lvt[LVT_LINT0] = 0x8700; /* ExtINT, level: the 8259 reaches the CPU through LINT0 */
	l->lvt[LVT_LINT1] = 0x8400; /* NMI */
}

void vlapic_init_signal(struct vlapic *l)
{
	power_on(l, l->hw_id, l->base_msr, l->level_eoi, l->eoi_ctx);
}

/* ---- priorities and delivery ---- */

static u32 ppr(const struct vlapic *l)
{
	int isrv = vec_highest(l->isr);
	u32 isr_class = isrv < 0 ? 0 : (u32)isrv & 0xf0;

	return (l->tpr & 0xf0) >= isr_class ? l->tpr : isr_class;
}

static void accept(struct vlapic *l, u8 vector, bool level)
{
	vec_set(l->irr, vector);
	if (level)
		vec_set(l->tmr, vector);
	else
		vec_clear(l->tmr, vector);
}

/* Errors collect whatever the LVT mask says; only the interrupt depends on it. An illegal
 * error vector is dropped rather than reported again, which would recurse. */
static void lapic_error(struct vlapic *l, u32 bits)
{
	u32 lvt = l->lvt[LVT_ERROR];

	l->esr_pending |= bits;
	if (!(lvt & LVT_MASKED) && (lvt & 0xff) >= 16)
		accept(l, (u8)lvt, false);
}

void vlapic_set_irq(struct vlapic *l, u8 vector, bool level)
{
	if (!vlapic_hw_enabled(l))
		return;
	if (vector < 16) {
		lapic_error(l, ESR_RECV_ILLEGAL);
		return;
	}
	accept(l, vector, level);
}

int vlapic_pending(const struct vlapic *l)
{
	int v;

	if (!vlapic_hw_enabled(l) || !sw_enabled(l))
		return -1;
	v = vec_highest(l->irr);
	if (v < 0 || (u32)v >> 4 <= ppr(l) >> 4)
		return -1;
	return v;
}

void vlapic_ack(struct vlapic *l, u8 vector)
{
	vec_clear(l->irr, vector);
	vec_set(l->isr, vector);
}

/* The EOI of a level-triggered interrupt is broadcast to the I/O APIC, which may then send
 * the interrupt again if its line is still asserted. */
void vlapic_eoi(struct vlapic *l)
{
	int v = vec_highest(l->isr);

	if (v < 0)
		return;
	vec_clear(l->isr, (unsigned)v);
	if (vec_test(l->tmr, (unsigned)v) && l->level_eoi)
		l->level_eoi(l->eoi_ctx, (u8)v);
}

int vlapic_lazy_eoi_vector(const struct vlapic *l)
{
	int v = vec_highest(l->isr);

	if (v < 0 || vec_highest(l->irr) >= 0 || vec_test(l->tmr, (unsigned)v))
		return -1;
	return v;
}

bool vlapic_accepts_extint(const struct vlapic *l)
{
	return !vlapic_hw_enabled(l) || (l->lvt[LVT_LINT0] & (LVT_MASKED | DM_MASK)) == DM_EXTINT;
}

bool vlapic_lint0(struct vlapic *l, bool level)
{
	bool rising = level && !l->lint0_in;

	l->lint0_in = level;
	/* NMI is edge-sensitive whatever the LVT's trigger bit says (SDM 10.5.1). */
	return rising && vlapic_hw_enabled(l) &&
	       (l->lvt[LVT_LINT0] & (LVT_MASKED | DM_MASK)) == DM_NMI;
}

bool vlapic_lint1_nmi(const struct vlapic *l)
{
	return !vlapic_hw_enabled(l) ||
	       (l->lvt[LVT_LINT1] & (LVT_MASKED | DM_MASK)) == VLAPIC_DM_NMI << 8;
}

/* ---- IPIs: the ICR decoded here, delivered by the board to the APICs it reaches ---- */

static u32 x2apic_ldr(const struct vlapic *l)
{
	return (l->id >> 4) << 16 | 1u << (l->id & 15);
}

static bool logical_match(const struct vlapic *l, u32 dest)
{
	u32 ldr;

	if (vlapic_x2apic(l)) {
		ldr = x2apic_ldr(l);
		return dest == 0xffffffffu || (dest >> 16 == ldr >> 16 && (dest & ldr & 0xffff));
	}
	ldr = l->ldr >> 24;
	if ((l->dfr >> 28) == 0xf) /* flat: one bit per APIC */
		return dest & ldr;
	return dest == 0xff || (dest >> 4 == ldr >> 4 && (dest & ldr & 0xf));
}

bool vlapic_match_dest(const struct vlapic *l, u32 dest, bool logical)
{
	if (logical)
		return logical_match(l, dest);
	return dest == l->id || dest == (vlapic_x2apic(l) ? 0xffffffffu : 0xffu);
}

bool vlapic_ipi_reaches(const struct vlapic *src, const struct vlapic *dst, u32 lo, u32 dest)
{
	if (!vlapic_hw_enabled(dst))
		return false;
	switch ((lo >> 18) & 3) {
	case 1: /* self */
		return src == dst;
	case 2: /* all including self */
		return true;
	case 3: /* all excluding self */
		return src != dst;
	}
	return vlapic_match_dest(dst, dest, lo & ICR_LOGICAL);
}

u32 vlapic_icr_mode(u32 lo)
{
	return (lo >> 8) & 7;
}

/* Decode, refuse what the chip refuses (ESR: a fixed or lowest-priority vector below 16; the
 * self shorthand with another mode than fixed), then hand the message to the board. Without
 * a board (host tests) an IPI reaches this APIC alone, if addressed. Delivery is instant, so
 * the ICR always reads idle. */
static void send_ipi(struct vlapic *l, u32 lo, u32 dest)
{
	u32 mode = vlapic_icr_mode(lo);
	u8 vector = (u8)lo;

	if ((mode == VLAPIC_DM_FIXED || mode == VLAPIC_DM_LOWEST) && vector < 16) {
		lapic_error(l, ESR_SEND_ILLEGAL);
		return;
	}
	if (((lo >> 18) & 3) == 1 && mode != VLAPIC_DM_FIXED)
		return; /* the self shorthand carries fixed interrupts only */
	if (l->ipi) {
		l->ipi(l->ipi_ctx, lo, dest);
		return;
	}
	if (mode == VLAPIC_DM_FIXED && vlapic_ipi_reaches(l, l, lo, dest))
		accept(l, vector, false);
}

/* ---- timer ---- */

static unsigned timer_mode(u32 lvt)
{
	unsigned m = (lvt >> 17) & 3;

	return m == 3 ? ONESHOT : m; /* 11b is reserved: it counts like one-shot */
}

/* Divide configuration bits 3,1,0: 000 = 2, 001 = 4, ..., 110 = 128, 111 = 1. */
static u64 timer_divisor(const struct vlapic *l)
{
	u32 code = (l->timer_div & 3) | ((l->timer_div & 8) >> 1);

	return 1ull << ((code + 1) & 7);
}

static u64 timer_period(const struct vlapic *l)
{
	return (u64)l->timer_init * timer_divisor(l);
}

static void timer_disarm(struct vlapic *l)
{
	l->timer_next_ns = 0;
	l->tsc_deadline = 0;
}

static void timer_start(struct vlapic *l, u64 now_ns)
{
	l->timer_start_ns = now_ns;
	l->timer_next_ns = l->timer_init ? now_ns + timer_period(l) : 0;
}

/* The count drops by one every divisor ns and the fire time is where it reaches 0, so the
 * count is the remaining time in ticks, rounded up. Register accesses run the timer up to
 * now first, so a periodic timer has already reloaded here. */
static u32 timer_current(const struct vlapic *l, u64 now_ns)
{
	u64 div = timer_divisor(l);

	if (!l->timer_next_ns || now_ns >= l->timer_next_ns ||
	    timer_mode(l->lvt[LVT_TIMER]) == DEADLINE)
		return 0;
	return (u32)((l->timer_next_ns - now_ns + div - 1) / div);
}

/* The next period starts where the last one ended (no drift); periods that passed unseen
 * are coalesced into the one interrupt the IRR can hold anyway. */
static void timer_reload(struct vlapic *l, u64 now_ns)
{
	u64 period = timer_period(l), next = l->timer_next_ns + period;

	if (next <= now_ns)
		next += ((now_ns - next) / period + 1) * period;
	l->timer_start_ns = next - period;
	l->timer_next_ns = next;
}

/* A masked timer still counts, expires and reloads; only the interrupt is held back. */
static void timer_fire(struct vlapic *l, u64 now_ns)
{
	u32 lvt = l->lvt[LVT_TIMER];

	if (!(lvt & LVT_MASKED))
		vlapic_set_irq(l, (u8)lvt, false);
	if (timer_mode(lvt) == PERIODIC)
		timer_reload(l, now_ns);
	else
		timer_disarm(l); /* TSC-deadline also clears IA32_TSC_DEADLINE */
}

void vlapic_timer_update(struct vlapic *l, u64 now_ns)
{
	if (l->timer_next_ns && now_ns >= l->timer_next_ns)
		timer_fire(l, now_ns);
}

u64 vlapic_next_event_ns(const struct vlapic *l)
{
	return l->timer_next_ns;
}

void vlapic_set_tsc_deadline(struct vlapic *l, u64 tsc, u64 deadline_ns)
{
	if (timer_mode(l->lvt[LVT_TIMER]) != DEADLINE)
		return; /* SDM: outside TSC-deadline mode the MSR ignores writes and reads 0 */
	l->tsc_deadline = tsc;
	/* 0 marks "not armed", so a deadline at the clock's origin fires a ns later. */
	l->timer_next_ns = !tsc ? 0 : deadline_ns ? deadline_ns : 1;
}

static void timer_init_write(struct vlapic *l, u32 val, u64 now_ns)
{
	if (timer_mode(l->lvt[LVT_TIMER]) == DEADLINE)
		return;
	l->timer_init = val;
	timer_start(l, now_ns);
}

/* A new divider applies from now on to the ticks still to count. */
static void timer_div_write(struct vlapic *l, u32 val, u64 now_ns)
{
	u32 left = timer_current(l, now_ns);

	l->timer_div = val;
	if (!left)
		return;
	l->timer_next_ns = now_ns + left * timer_divisor(l);
	l->timer_start_ns = l->timer_next_ns - timer_period(l);
}

/* Entering or leaving TSC-deadline mode disarms the timer (SDM 11.5.4.1); one-shot and
 * periodic swap without disturbing the count, the new mode decides what happens at 0. */
static void timer_lvt_changed(struct vlapic *l, u32 old, u32 new)
{
	unsigned from = timer_mode(old), to = timer_mode(new);

	if (from != to && (from == DEADLINE || to == DEADLINE)) {
		timer_disarm(l);
		l->timer_init = 0;
	}
}

/* ---- registers shared by both interfaces ---- */

static int lvt_index(u32 off)
{
	if (off == R_CMCI)
		return LVT_CMCI;
	if (off >= R_LVT_TIMER && off <= R_LVT_ERROR)
		return LVT_TIMER + (int)((off - R_LVT_TIMER) >> 4);
	return -1;
}

/* In x2APIC mode a write with reserved bits set is refused; xAPIC drops those bits. */
static enum acc store(u32 *reg, u32 val, u32 bits, bool x2)
{
	if (x2 && (val & ~bits))
		return A_RSVD;
	*reg = val & bits;
	return A_OK;
}

/* Delivery status (12) and, on LINT0/1, remote IRR (14) are read-only, not reserved: writes
 * to them are ignored in both modes (Linux's disconnect_bsp_APIC writes them over x2APIC). */
static u32 lvt_readonly(int i)
{
	return 1u << 12 | (i == LVT_LINT0 || i == LVT_LINT1 ? 1u << 14 : 0);
}

static enum acc lvt_write(struct vlapic *l, int i, u32 val, bool x2)
{
	u32 old = l->lvt[i];
	enum acc r = store(&l->lvt[i], val & ~lvt_readonly(i), lvt_bits[i], x2);

	/* A software-disabled APIC keeps every LVT masked (SDM 11.4.7.2). */
	if (!sw_enabled(l))
		l->lvt[i] |= LVT_MASKED;
	if (i == LVT_TIMER)
		timer_lvt_changed(l, old, l->lvt[i]);
	return r;
}

static enum acc svr_write(struct vlapic *l, u32 val, bool x2)
{
	enum acc r = store(&l->svr, val, SVR_BITS, x2);

	if (!sw_enabled(l))
		for (int i = 0; i < NLVT; i++)
			l->lvt[i] |= LVT_MASKED;
	return r;
}

/* The visible ESR holds the errors seen up to the last ESR write (SDM 11.5.3). */
static void esr_write(struct vlapic *l)
{
	l->esr = l->esr_pending;
	l->esr_pending = 0;
}

static bool is_vec_reg(u32 off)
{
	return off >= R_ISR && off < R_ESR;
}

static u32 vec_reg(const struct vlapic *l, u32 off)
{
	const u32 *r = off < R_TMR ? l->isr : off < R_IRR ? l->tmr : l->irr;

	return r[(off >> 4) & 7];
}

/* Registers that exist in one mode only, or are write-only. */
static enum acc reg_read_other(const struct vlapic *l, u32 off, bool x2, u32 *val)
{
	switch (off) {
	case R_APR:
	case R_RRD: /* no arbitration to report, no remote reads */
		return x2 ? A_ABSENT : A_OK;
	case R_EOI:
		return x2 ? A_WO : A_OK;
	case R_DFR:
		*val = l->dfr;
		return x2 ? A_ABSENT : A_OK;
	case R_ICR_LO: /* x2APIC's 64-bit ICR is read by vlapic_msr_read */
		*val = l->icr_lo;
		return A_OK;
	case R_ICR_HI:
		*val = l->icr_hi;
		return x2 ? A_ABSENT : A_OK;
	case R_SELF_IPI:
		return x2 ? A_WO : A_ABSENT;
	default:
		return A_ABSENT;
	}
}

static enum acc reg_read(struct vlapic *l, u32 off, bool x2, u64 now_ns, u32 *val)
{
	int lvt = lvt_index(off);

	*val = 0;
	if (lvt > LVT_CMCI)
		*val = l->lvt[lvt];
	else if (is_vec_reg(off))
		*val = vec_reg(l, off);
	else if (off == R_ID)
		*val = x2 ? l->id : l->id << 24;
	else if (off == R_VERSION)
		*val = VERSION;
	else if (off == R_TPR)
		*val = l->tpr;
	else if (off == R_PPR)
		*val = ppr(l);
	else if (off == R_LDR)
		*val = x2 ? x2apic_ldr(l) : l->ldr;
	else if (off == R_SVR)
		*val = l->svr;
	else if (off == R_ESR)
		*val = l->esr;
	else if (off == R_TIMER_INIT)
		*val = timer_mode(l->lvt[LVT_TIMER]) == DEADLINE ? 0 : l->timer_init;
	else if (off == R_TIMER_CUR)
		*val = timer_current(l, now_ns);
	else if (off == R_TIMER_DIV)
		*val = l->timer_div;
	else
		return reg_read_other(l, off, x2, val);
	return A_OK;
}

/* The xAPIC-only registers and the x2APIC-only SELF IPI. */
static enum acc reg_write_other(struct vlapic *l, u32 off, u32 val, bool x2)
{
	switch (off) {
	case R_ID: /* xAPIC lets software renumber; the x2APIC ID is fixed */
		if (x2)
			return A_RO;
		l->id = val >> 24;
		return A_OK;
	case R_LDR:
		if (x2)
			return A_RO;
		l->ldr = val & 0xff000000u;
		return A_OK;
	case R_DFR:
		if (x2)
			return A_ABSENT;
		l->dfr = val | 0x0fffffffu;
		return A_OK;
	case R_ICR_LO:
		l->icr_lo = val & ICR_BITS;
		send_ipi(l, l->icr_lo, l->icr_hi >> 24);
		return A_OK;
	case R_ICR_HI:
		if (x2)
			return A_ABSENT;
		l->icr_hi = val & 0xff000000u;
		return A_OK;
	case R_SELF_IPI:
		if (!x2)
			return A_ABSENT;
		if (val & ~0xffu)
			return A_RSVD;
		send_ipi(l, val | 1u << 18, 0); /* shorthand self, fixed */
		return A_OK;
	}
	return A_ABSENT;
}

static enum acc reg_write(struct vlapic *l, u32 off, u32 val, bool x2, u64 now_ns)
{
	int lvt = lvt_index(off);

	if (lvt > LVT_CMCI)
		return lvt_write(l, lvt, val, x2);
	if (is_vec_reg(off))
		return A_RO;
	switch (off) {
	case R_VERSION:
	case R_PPR:
	case R_TIMER_CUR:
		return A_RO;
	case R_APR:
	case R_RRD:
		return x2 ? A_ABSENT : A_RO;
	case R_TPR:
		return store(&l->tpr, val, 0xff, x2);
	case R_EOI:
		if (x2 && val)
			return A_RSVD;
		vlapic_eoi(l);
		return A_OK;
	case R_SVR:
		return svr_write(l, val, x2);
	case R_ESR:
		if (x2 && val)
			return A_RSVD;
		esr_write(l);
		return A_OK;
	case R_TIMER_INIT:
		timer_init_write(l, val, now_ns);
		return A_OK;
	case R_TIMER_DIV:
		if (x2 && (val & ~TIMER_DIV_BITS))
			return A_RSVD;
		timer_div_write(l, val & TIMER_DIV_BITS, now_ns);
		return A_OK;
	}
	return reg_write_other(l, off, val, x2);
}

/* ---- xAPIC MMIO ---- */

/* Not answering MMIO (disabled, or x2APIC): the caller routes such accesses elsewhere. */
static bool mmio_live(const struct vlapic *l)
{
	return vlapic_hw_enabled(l) && !vlapic_x2apic(l);
}

u32 vlapic_read(struct vlapic *l, u32 off, u64 now_ns)
{
	u32 val;

	if (!mmio_live(l))
		return 0;
	vlapic_timer_update(l, now_ns);
	if (reg_read(l, off & 0xff0, false, now_ns, &val) == A_ABSENT)
		lapic_error(l, ESR_ILLEGAL_REG);
	return val;
}

void vlapic_write(struct vlapic *l, u32 off, u32 val, u64 now_ns)
{
	if (!mmio_live(l))
		return;
	vlapic_timer_update(l, now_ns);
	/* Writes to read-only registers are dropped; only unimplemented ones are errors. */
	if (reg_write(l, off & 0xff0, val, false, now_ns) == A_ABSENT)
		lapic_error(l, ESR_ILLEGAL_REG);
}

/* ---- x2APIC MSRs ---- */

#define MSR_X2APIC 0x800u
#define MSR_ICR 0x830u

static bool msr_offset(const struct vlapic *l, u32 msr, u32 *off)
{
	if (!vlapic_x2apic(l) || msr < MSR_X2APIC || msr > MSR_X2APIC + 0xff)
		return false;
	*off = (msr - MSR_X2APIC) << 4;
	return true;
}

bool vlapic_msr_read(struct vlapic *l, u32 msr, u64 *val, u64 now_ns)
{
	u32 off, v;

	if (!msr_offset(l, msr, &off))
		return false;
	vlapic_timer_update(l, now_ns);
	if (msr == MSR_ICR) {
		*val = (u64)l->icr_hi << 32 | l->icr_lo;
		return true;
	}
	if (reg_read(l, off, true, now_ns, &v) != A_OK)
		return false;
	*val = v;
	return true;
}

/* One 64-bit ICR: the destination is the high half, the full x2APIC ID. */
static bool icr_write(struct vlapic *l, u64 val)
{
	if ((u32)val & ~ICR_BITS)
		return false;
	l->icr_lo = (u32)val;
	l->icr_hi = (u32)(val >> 32);
	send_ipi(l, l->icr_lo, l->icr_hi);
	return true;
}

bool vlapic_msr_write(struct vlapic *l, u32 msr, u64 val, u64 now_ns)
{
	u32 off;

	if (!msr_offset(l, msr, &off))
		return false;
	vlapic_timer_update(l, now_ns);
	if (msr == MSR_ICR)
		return icr_write(l, val);
	if (val >> 32) /* every other register is 32 bits wide, the rest reserved */
		return false;
	return reg_write(l, off, (u32)val, true, now_ns) == A_OK;
}

/* ---- IA32_APIC_BASE ---- */

/* SDM 11.12.5: x2APIC only from xAPIC, back only through disabled; EXTD alone is invalid. */
static bool mode_change_ok(u64 from, u64 to)
{
	if (to == BASE_EXTD)
		return false;
	if (to == BASE_MODE)
		return from != 0;
	if (to == BASE_EN)
		return from != BASE_MODE;
	return true;
}

/* SDM 10.4.4: the base moves the xAPIC page anywhere below MAXPHYADDR (bits 12 and up);
 * bits 0-7, 9 and those at or above MAXPHYADDR are reserved. The BSP flag is R/W (SDM table
 * 2-2, and KVM): a write changes only what the MSR reads. */
bool vlapic_set_base(struct vlapic *l, u64 val, unsigned maxphyaddr)
{
	u64 from = l->base_msr & BASE_MODE, to = val & BASE_MODE;
	u64 addr = ((1ull << maxphyaddr) - 1) & ~(u64)BASE_ADDR_LOW;

	if ((val & ~(addr | BASE_MODE | BASE_BSP)) || !mode_change_ok(from, to))
		return false;
	if (from && !to) {
		/* A globally disabled APIC loses its state (SDM 11.4.3). */
		/* The wire to the I/O APIC is the board's, not the chip's: it survives. */
		power_on(l, l->hw_id, val, l->level_eoi, l->eoi_ctx);
		return true;
	}
	if (to == BASE_MODE && from != BASE_MODE)
		l->id = l->hw_id; /* the x2APIC ID is the initial one, whatever xAPIC wrote */
	l->base_msr = val;
	return true;
}

bool vlapic_mmio_hit(const struct vlapic *l, u64 gpa, u32 *off)
{
	u64 page = l->base_msr & ~(u64)BASE_ADDR_LOW;

	if (!mmio_live(l) || gpa - page >= 0x1000)
		return false;
	*off = (u32)(gpa - page);
	return true;
}
