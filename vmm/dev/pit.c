/* SPDX-License-Identifier: GPL-2.0-only */
/* The 8254 interval timer: three channels counting in closed form from the clock, and port 0x61. */
#include "vmm/dev/pit.h"
#include "lib/string.h"

#define NSEC 1000000000ull
#define NEVER (~0ull)
#define REFRESH_NS 15085 /* port 0x61 bit 4 flips at the DRAM refresh rate (15.085 us) */
#define CTRL_BCD 0x01
#define RB_NO_COUNT 0x20
#define RB_NO_STATUS 0x10

/* ---- time: whole ticks since a channel's start_ns, and back ---- */

/* Split at whole seconds so neither product can overflow 64 bits, however long the uptime. */
static u64 ns_to_ticks(u64 ns)
{
	return ns / NSEC * PIT_HZ + ns % NSEC * PIT_HZ / NSEC;
}

/* The first ns offset by which t ticks have passed: rounded up, so an event is never early
 * and ns_to_ticks of the result is exactly t. */
static u64 ticks_to_ns(u64 t)
{
	if (t / PIT_HZ >= NEVER / NSEC)
		return NEVER;
	return t / PIT_HZ * NSEC + (t % PIT_HZ * NSEC + PIT_HZ - 1) / PIT_HZ;
}

static s64 tick_of(const struct pit_channel *ch, u64 now)
{
	return now <= ch->start_ns ? 0 : (s64)ns_to_ticks(now - ch->start_ns);
}

/* Like tick_of, but -1 for a moment before start (nothing of this timeline has happened). */
static s64 tick_after(const struct pit_channel *ch, u64 now)
{
	return now < ch->start_ns ? -1 : tick_of(ch, now);
}

static u64 ns_of(const struct pit_channel *ch, s64 tick)
{
	u64 off = ticks_to_ns((u64)tick);
	return off > NEVER - ch->start_ns ? NEVER : ch->start_ns + off;
}

/* ---- counts ---- */
static u32 modulus(const struct pit_channel *ch)
{
	return ch->bcd ? 10000 : 0x10000;
}

static u32 from_bcd(u16 v)
{
	return (v >> 12) * 1000u + ((v >> 8) & 15) * 100u + ((v >> 4) & 15) * 10u + (v & 15);
}

static u16 to_bcd(u32 v)
{
	v %= 10000;
	return (u16)((v / 1000) << 12 | (v / 100 % 10) << 8 | (v / 10 % 10) << 4 | v % 10);
}

/* The reload as a count of ticks. */
static u32 count_of(const struct pit_channel *ch)
{
	u32 n = ch->bcd ? from_bcd(ch->reload) : ch->reload;
	if (!n)
		n = modulus(ch);
	if (n == 1 && (ch->mode == 2 || ch->mode == 3))
		n = 2;
	return n;
}

/* What the counter shows for a CE value (a held 65536 or 10000 shows as 0). */
static u16 shown(const struct pit_channel *ch, u32 ce)
{
	return ch->bcd ? to_bcd(ce) : (u16)ce;
}

/* ---- one segment in closed form, c clocks after its load ---- */

/* Mode 3 counts by two: an odd count loses one on the high half's first clock and three on
 * the low half's, so the high half is a tick longer. */
static s64 mode3_ce(s64 n, s64 k)
{
	s64 hi = (n + 1) / 2;
	bool low = k >= hi;
	s64 j = low ? k - hi : k;

	if (!(n & 1))
		return n - 2 * j;
	if (!j)
		return n;
	return low ? n - 1 - 2 * j : n + 1 - 2 * j;
}

static u32 seg_ce(const struct pit_channel *ch, const struct pit_seg *s, s64 c)
{
	s64 n = s->n, m = modulus(ch);

	switch (ch->mode) {
	case 2:
		return (u32)((n - c % n) % m);
	case 3:
		return (u32)(mode3_ce(n, c % n) % m);
	default:
		return (u32)(((n - c % m) % m + m) % m); /* one-shots wrap and keep counting */
	}
}

static bool seg_out(const struct pit_channel *ch, const struct pit_seg *s, s64 c)
{
	s64 n = s->n;

	if (c < 0)
		return s->pre_out;
	switch (ch->mode) {
	case 0:
	case 1:
		return s->fired || c >= n;
	case 2:
		return c % n != n - 1;
	case 3:
		return c % n < (n + 1) / 2;
	default:
		return s->fired || c != n; /* 4, 5: low for the one tick at terminal count */
	}
}

/* Has the one-shot's terminal count (and, in modes 4 and 5, its strobe) gone by at c? */
static bool seg_fired(const struct pit_channel *ch, const struct pit_seg *s, s64 c)
{
	s64 n = s->n;

	switch (ch->mode) {
	case 0:
	case 1:
		return s->fired || c >= n;
	case 4:
	case 5:
		return s->fired || c > n;
	default:
		return false;
	}
}

/* The first c > after at which OUT rises, or -1. */
static s64 seg_next_rise(const struct pit_channel *ch, const struct pit_seg *s, s64 after)
{
	s64 n = s->n, r;

	if (after < 0 && !s->pre_out && seg_out(ch, s, 0))
		return 0; /* mode 5 retriggered during its strobe */
	if (ch->mode == 2 || ch->mode == 3)
		return after < 0 ? n : (after / n + 1) * n;
	if (s->fired)
		return -1;
	r = (ch->mode == 0 || ch->mode == 1) ? n : n + 1;
	return r > after ? r : -1;
}

/* ---- the channel's timeline: seg, then next from tick next_from ---- */
static const struct pit_seg *seg_at(const struct pit_channel *ch, s64 tick)
{
	return ch->has_next && tick >= ch->next_from ? &ch->next : &ch->seg;
}

static u32 ce_now(const struct pit_channel *ch, u64 now)
{
	if (!ch->running)
		return ch->hold;
	s64 t = tick_of(ch, now);
	const struct pit_seg *s = seg_at(ch, t);
	return t < s->base ? ch->hold : seg_ce(ch, s, t - s->base);
}

static bool out_now(const struct pit_channel *ch, u64 now)
{
	if (!ch->running)
		return ch->hold_out;
	s64 t = tick_of(ch, now);
	const struct pit_seg *s = seg_at(ch, t);
	return seg_out(ch, s, t - s->base);
}

static s64 rise_in(const struct pit_channel *ch, const struct pit_seg *s, s64 after)
{
	s64 r = seg_next_rise(ch, s, after - s->base);
	return r < 0 ? -1 : r + s->base;
}

/* The first tick > after at which OUT rises, or -1. A rise at next_from itself belongs to
 * seg: both segments agree on OUT there. */
static s64 next_rise(const struct pit_channel *ch, s64 after)
{
	if (!ch->running)
		return -1;
	if (!ch->has_next)
		return rise_in(ch, &ch->seg, after);
	if (after < ch->next_from) {
		s64 r = rise_in(ch, &ch->seg, after);
		if (r >= 0 && r <= ch->next_from)
			return r;
		after = ch->next_from;
	}
	return rise_in(ch, &ch->next, after);
}

static bool rise_between(const struct pit_channel *ch, u64 from_ns, u64 to_ns)
{
	if (to_ns <= from_ns || to_ns < ch->start_ns)
		return false;
	s64 r = next_rise(ch, tick_after(ch, from_ns));
	return r >= 0 && r <= tick_of(ch, to_ns);
}

/* Once the new count of modes 2 and 3 has taken over, it is simply the segment. */
static void settle(struct pit_channel *ch, u64 now)
{
	if (ch->has_next && tick_of(ch, now) >= ch->next_from) {
		ch->seg = ch->next;
		ch->has_next = false;
	}
}

/* ---- state changes ---- */

/* The CE stops where it is (gate low, control word, mode 0's first count byte). */
static void stop(struct pit_channel *ch, u64 now)
{
	if (ch->running) {
		s64 t = tick_of(ch, now);
		const struct pit_seg *s = seg_at(ch, t);
		s64 c = t - s->base;
		bool loads = ch->mode == 0 || ch->mode == 4; /* the load happens gate or not */

		ch->hold_fired = c >= 0 && seg_fired(ch, s, c);
		ch->hold_out = seg_out(ch, s, c);
		/* A one-shot before its terminal count keeps what is left (65536 is not 0). */
		if (c < 0 && loads)
			ch->hold = s->n;
		else if (c >= 0)
			ch->hold = loads && !ch->hold_fired ? (u32)(s->n - c) : seg_ce(ch, s, c);
	}
	ch->running = false;
	ch->has_next = false;
}

/* A fresh count: loaded into the CE at the first clock after now, counting from there. */
static void start(struct pit_channel *ch, u64 now, bool pre_out)
{
	ch->hold = ce_now(ch, now);
	ch->running = true;
	ch->has_next = false;
	ch->start_ns = now;
	ch->seg = (struct pit_seg){ .base = 1, .n = count_of(ch), .pre_out = pre_out };
	ch->load_ns = ns_of(ch, 1);
}

/* Modes 0 and 4 carry on from the held count: the first clock after now decrements it. */
static void resume(struct pit_channel *ch, u64 now)
{
	ch->running = true;
	ch->has_next = false;
	ch->start_ns = now;
	ch->seg = (struct pit_seg){
		.base = 0,
		.n = ch->hold,
		.fired = ch->hold_fired,
		.pre_out = ch->hold_out,
	};
}

/* Modes 2 and 3: the count written while counting is loaded at the end of the current period
 * (mode 3: half-period; after a high half the new count starts with its low half). */
static void schedule_next(struct pit_channel *ch, s64 t)
{
	s64 n = ch->seg.n, k = (t - ch->seg.base) % n, hi = (n + 1) / 2;
	s64 nn = count_of(ch), from, base;

	if (ch->mode == 3 && k < hi) {
		from = t - k + hi;
		base = from - (nn + 1) / 2;
	} else {
		from = t - k + n;
		base = from;
	}
	ch->next = (struct pit_seg){ .base = base, .n = (u32)nn, .pre_out = true };
	ch->next_from = from;
	ch->has_next = true;
	ch->load_ns = ns_of(ch, from);
}

static void new_period(struct pit_channel *ch, u64 now)
{
	if (!ch->gate) {
		ch->load_ns = NEVER; /* the gate's rising edge loads it */
		return;
	}
	if (!ch->running) {
		start(ch, now, true);
		return;
	}
	s64 t = tick_of(ch, now);
	if (t < ch->seg.base)
		ch->seg.n = count_of(ch); /* the first load has not happened: it takes this one */
	else
		schedule_next(ch, t);
}

static void load_count(struct pit_channel *ch, u64 now)
{
	ch->have_count = true;
	switch (ch->mode) {
	case 0:
	case 4:
		if (ch->gate) {
			start(ch, now, ch->mode == 4);
			break;
		}
		ch->hold = count_of(ch); /* loaded, but the gate holds it */
		ch->hold_out = ch->mode == 4;
		ch->hold_fired = false;
		ch->load_ns = now + ticks_to_ns(1);
		break;
	case 1:
	case 5:
		ch->load_ns = NEVER; /* the next trigger loads it; a running one-shot goes on */
		break;
	default:
		new_period(ch, now);
		break;
	}
}

static void gate_rose(struct pit_channel *ch, u64 now)
{
	if (!ch->have_count)
		return;
	switch (ch->mode) {
	case 0:
	case 4:
		if (!ch->running && !(ch->mode == 0 && ch->write_step))
			resume(ch, now);
		break;
	case 1:
	case 5:
		start(ch, now, out_now(ch, now));
		break;
	default:
		start(ch, now, true);
		break;
	}
}

static void gate_fell(struct pit_channel *ch, u64 now)
{
	if (ch->mode == 1 || ch->mode == 5)
		return;
	bool reload_pending = ch->has_next;
	stop(ch, now);
	if (ch->mode == 2 || ch->mode == 3) {
		ch->hold_out = true;
		if (reload_pending)
			ch->load_ns = NEVER;
	}
}

static void set_gate(struct pit_channel *ch, bool gate, u64 now)
{
	if (gate == ch->gate)
		return;
	settle(ch, now);
	ch->gate = gate;
	if (gate)
		gate_rose(ch, now);
	else
		gate_fell(ch, now);
}

/* ---- IRQ0 ---- */

/* Before channel 0's timeline is replaced, an edge it already had must not be lost. */
static void note_irq0(struct pit *p, u64 now)
{
	if (rise_between(&p->ch[0], p->irq_done_ns, now))
		p->irq0_edge = true;
	if (now > p->irq_done_ns)
		p->irq_done_ns = now;
}

bool pit_irq0_due(struct pit *p, u64 now_ns)
{
	bool due = p->irq0_edge || rise_between(&p->ch[0], p->irq_done_ns, now_ns);
	p->irq0_edge = false;
	if (now_ns > p->irq_done_ns)
		p->irq_done_ns = now_ns;
	return due;
}

u64 pit_next_irq0_ns(const struct pit *p, u64 now_ns)
{
	const struct pit_channel *ch = &p->ch[0];
	if (p->irq0_edge)
		return now_ns;
	s64 r = next_rise(ch, tick_after(ch, now_ns));
	return r < 0 ? 0 : ns_of(ch, r);
}

bool pit_out(const struct pit *p, unsigned n, u64 now_ns)
{
	return n < 3 && out_now(&p->ch[n], now_ns);
}

/* ---- ports ---- */
static void prepare(struct pit *p, unsigned n, u64 now)
{
	settle(&p->ch[n], now);
	if (n == 0)
		note_irq0(p, now);
}

static void latch_count(struct pit_channel *ch, u64 now)
{
	if (ch->latched)
		return; /* a second latch before the first is read is ignored */
	ch->latch = shown(ch, ce_now(ch, now));
	ch->latched = true;
}

static void latch_status(struct pit_channel *ch, u64 now)
{
	if (ch->status_latched)
		return;
	ch->status =
		(u8)((out_now(ch, now) ? 0x80 : 0) | (now < ch->load_ns ? 0x40 : 0) | ch->ctrl);
	ch->status_latched = true;
}

static void read_back(struct pit *p, u8 v, u64 now)
{
	for (unsigned n = 0; n < 3; n++) {
		if (!(v & (2u << n)))
			continue;
		if (!(v & RB_NO_COUNT))
			latch_count(&p->ch[n], now);
		if (!(v & RB_NO_STATUS))
			latch_status(&p->ch[n], now);
	}
}

static void control(struct pit_channel *ch, u8 v, u64 now)
{
	u8 mode = (v >> 1) & 7;

	stop(ch, now);
	ch->ctrl = v & 0x3f;
	ch->rw = (v >> 4) & 3;
	ch->mode = mode > 5 ? mode - 4 : mode;
	ch->bcd = v & CTRL_BCD;
	ch->hold_out = ch->mode != 0; /* OUT's initial state: low in mode 0 only */
	ch->hold_fired = false;
	ch->have_count = false;
	ch->load_ns = NEVER;
	ch->latched = false;
	ch->status_latched = false;
	ch->read_step = 0;
	ch->write_step = 0;
}

static void write_ctrl(struct pit *p, u8 v, u64 now)
{
	unsigned n = v >> 6;

	if (n == 3) {
		read_back(p, v, now);
	} else if (!(v & 0x30)) {
		latch_count(&p->ch[n], now);
	} else {
		prepare(p, n, now);
		control(&p->ch[n], v, now);
	}
}

static void write_counter(struct pit *p, unsigned n, u8 v, u64 now)
{
	struct pit_channel *ch = &p->ch[n];

	prepare(p, n, now);
	if (ch->rw == 3 && !ch->write_step) {
		ch->write_lsb = v;
		ch->write_step = 1;
		ch->load_ns = NEVER;
		if (ch->mode == 0) { /* the first byte stops mode 0, OUT low, until the second */
			stop(ch, now);
			ch->hold_out = false;
		}
		return;
	}
	if (ch->rw == 3)
		ch->reload = (u16)(ch->write_lsb | v << 8);
	else
		ch->reload = ch->rw == 2 ? (u16)(v << 8) : v;
	ch->write_step = 0;
	load_count(ch, now);
}

/* One byte of v as the access mode and flip-flop say; the latch empties on its last byte. */
static u8 read_byte(struct pit_channel *ch, u16 v)
{
	bool msb = ch->rw == 2 || (ch->rw == 3 && ch->read_step);
	bool last = ch->rw != 3 || ch->read_step;

	if (ch->rw == 3)
		ch->read_step ^= 1;
	if (last)
		ch->latched = false;
	return msb ? (u8)(v >> 8) : (u8)v;
}

static u8 read_counter(struct pit_channel *ch, u64 now)
{
	if (ch->status_latched) {
		ch->status_latched = false;
		return ch->status;
	}
	return read_byte(ch, ch->latched ? ch->latch : shown(ch, ce_now(ch, now)));
}

static u8 read_port61(const struct pit *p, u64 now)
{
	u8 v = p->port61 & 3;
	if ((now / REFRESH_NS) & 1)
		v |= 0x10;
	if (out_now(&p->ch[2], now))
		v |= 0x20;
	return v;
}

void pit_reset(struct pit *p, u64 now_ns)
{
	memset(p, 0, sizeof(*p));
	for (unsigned n = 0; n < 3; n++) {
		struct pit_channel *ch = &p->ch[n];
		ch->rw = 3;
		ch->ctrl = 0x30;
		ch->gate = n != 2;
		ch->load_ns = NEVER;
		ch->start_ns = now_ns;
	}
	p->irq_done_ns = now_ns;
}

u8 pit_read(struct pit *p, u16 port, u64 now_ns)
{
	if (port >= 0x40 && port <= 0x42)
		return read_counter(&p->ch[port - 0x40], now_ns);
	if (port == 0x61)
		return read_port61(p, now_ns);
	return 0xff; /* 0x43 is write-only */
}

void pit_write(struct pit *p, u16 port, u8 val, u64 now_ns)
{
	if (port >= 0x40 && port <= 0x42) {
		write_counter(p, port - 0x40, val, now_ns);
	} else if (port == 0x43) {
		write_ctrl(p, val, now_ns);
	} else if (port == 0x61) {
		p->port61 = val & 3;
		set_gate(&p->ch[2], val & 1, now_ns);
	}
}
