/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of the 8254 model: every mode at exact tick boundaries, latches, read-back, gates. */
#include "tests/unit/harness.h"
#include "vmm/dev/pit.h"

#define NS 1000000000ull
#define W 5000000000ull /* when the tests program a channel (any time works) */
#define DAYS10 (10ull * 86400 * NS)

/* The ns offset at which tick k begins, computed apart from the model's own split. */
static u64 T(u64 k)
{
	return (u64)(((unsigned __int128)k * NS + PIT_HZ - 1) / PIT_HZ);
}

static u64 ticks(u64 ns)
{
	return (u64)((unsigned __int128)ns * PIT_HZ / NS);
}

static void ctrl(struct pit *p, u8 v, u64 now)
{
	pit_write(p, 0x43, v, now);
}

static void count16(struct pit *p, unsigned ch, u16 v, u64 now)
{
	pit_write(p, 0x40 + ch, v & 0xff, now);
	pit_write(p, 0x40 + ch, v >> 8, now);
}

static u16 read16(struct pit *p, unsigned ch, u64 now)
{
	u8 lo = pit_read(p, 0x40 + ch, now);
	return (u16)(lo | pit_read(p, 0x40 + ch, now) << 8);
}

/* Channel ch programmed with ctrl byte c and count n at time t. */
static void setup(struct pit *p, unsigned ch, u8 c, u16 n, u64 t)
{
	pit_reset(p, 0);
	if (ch == 2)
		pit_write(p, 0x61, 0x01, 0); /* gate 2 high */
	ctrl(p, c, t);
	count16(p, ch, n, t);
}

static u8 status(struct pit *p, unsigned ch, u64 now)
{
	ctrl(p, (u8)(0xe0 | 2u << ch), now); /* read-back: status only */
	return pit_read(p, 0x40 + ch, now);
}

/* Walks n edges of channel 0 from now, the first at tick first of a timeline from s: next
 * is exact, never early, and due then. */
static void walk_from(struct pit *p, u64 s, u64 now, u64 first, u64 period, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		u64 want = s + T(first + period * i);
		u64 next = pit_next_irq0_ns(p, now);
		assert_int_equal(next, want);
		assert_true(next > now);
		assert_false(pit_out(p, 0, next - 1));
		assert_true(pit_out(p, 0, next));
		assert_false(pit_irq0_due(p, next - 1));
		assert_true(pit_irq0_due(p, next));
		now = next;
	}
}

static void walk_edges(struct pit *p, u64 s, u64 first, u64 period, unsigned n)
{
	walk_from(p, s, s, first, period, n);
}

static void test_reset_state(void **state)
{
	(void)state;
	struct pit p;
	pit_reset(&p, 100);
	for (unsigned ch = 0; ch < 3; ch++) {
		assert_false(pit_out(&p, ch, 100));
		assert_false(pit_out(&p, ch, 100 + NS));
		assert_int_equal(status(&p, ch, 200),
				 0x70); /* OUT low, null count, LSB/MSB, mode 0 */
	}
	assert_true(p.ch[0].gate && p.ch[1].gate);
	assert_false(p.ch[2].gate);
	assert_int_equal(pit_read(&p, 0x61, 0), 0);
	assert_int_equal(pit_next_irq0_ns(&p, 100), 0);
	assert_false(pit_irq0_due(&p, 100 + 10 * NS));
	assert_false(pit_out(&p, 3, 100));
}

static void test_mode0_terminal_count(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x30, 100, W);
	assert_false(pit_out(&p, 0, W));
	assert_int_equal(read16(&p, 0, W + T(1)), 100); /* loaded at the first clock */
	assert_int_equal(read16(&p, 0, W + T(2) - 1), 100);
	assert_int_equal(read16(&p, 0, W + T(2)), 99);
	assert_int_equal(read16(&p, 0, W + T(100)), 1);
	assert_false(pit_out(&p, 0, W + T(101) - 1));
	assert_true(pit_out(&p, 0, W + T(101))); /* N + 1 ticks after the write */
	assert_int_equal(read16(&p, 0, W + T(101)), 0);
	assert_int_equal(read16(&p, 0, W + T(102)), 0xffff); /* keeps counting, wraps */
	assert_true(pit_out(&p, 0, W + T(102 + 0x10000)));   /* and OUT stays high */
	assert_int_equal(read16(&p, 0, W + T(101 + 0x10000)), 0);
}

static void test_mode0_rewrite_and_first_byte(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x30, 100, W);
	/* The first byte stops the count and drops OUT until the second. */
	pit_write(&p, 0x40, 50, W + T(11));
	assert_false(pit_out(&p, 0, W + T(11)));
	assert_int_equal(read16(&p, 0, W + T(500)), 90);
	assert_false(pit_out(&p, 0, W + T(500)));
	u64 s = W + T(600);
	pit_write(&p, 0x40, 0, s);
	assert_int_equal(read16(&p, 0, s + T(1)), 50);
	assert_false(pit_out(&p, 0, s + T(51) - 1));
	assert_true(pit_out(&p, 0, s + T(51)));
	/* After the terminal count a new count lowers OUT again. */
	u64 r = s + T(1000);
	assert_true(pit_irq0_due(&p, r));
	count16(&p, 0, 3, r);
	assert_false(pit_out(&p, 0, r));
	assert_int_equal(pit_next_irq0_ns(&p, r), r + T(4));
}

static void test_mode1_one_shot(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 2, 0xb2, 10, W);
	pit_write(&p, 0x61, 0x00, W);
	assert_true(pit_out(&p, 2, W + T(50))); /* waits for a trigger */
	u64 g = W + T(100);
	pit_write(&p, 0x61, 0x01, g); /* gate rising edge */
	assert_true(pit_out(&p, 2, g + T(1) - 1));
	assert_false(pit_out(&p, 2, g + T(1)));
	assert_int_equal(read16(&p, 2, g + T(1)), 10);
	/* The gate falling does not stop a one-shot. */
	pit_write(&p, 0x61, 0x00, g + T(6));
	assert_int_equal(read16(&p, 2, g + T(8)), 3);
	assert_false(pit_out(&p, 2, g + T(11) - 1));
	assert_true(pit_out(&p, 2, g + T(11)));
	assert_int_equal(read16(&p, 2, g + T(12)), 0xffff);
	/* Retriggered while running: OUT stays low, the full count again. */
	u64 g2 = g + T(20);
	pit_write(&p, 0x61, 0x01, g2);
	pit_write(&p, 0x61, 0x00, g2 + T(5));
	pit_write(&p, 0x61, 0x01, g2 + T(5));
	u64 g3 = g2 + T(5);
	assert_false(pit_out(&p, 2, g3 + T(9)));
	assert_false(pit_out(&p, 2, g3 + T(11) - 1));
	assert_true(pit_out(&p, 2, g3 + T(11)));
}

static void test_mode2_rate_generator(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x34, 5, W);
	static const u16 ce[] = { 5, 4, 3, 2, 1, 5, 4, 3, 2, 1, 5 };
	for (unsigned e = 1; e <= 11; e++) {
		assert_int_equal(read16(&p, 0, W + T(e)), ce[e - 1]);
		assert_int_equal(pit_out(&p, 0, W + T(e)), ce[e - 1] != 1);
		assert_int_equal(pit_out(&p, 0, W + T(e + 1) - 1), ce[e - 1] != 1);
	}
	assert_true(pit_out(&p, 0, W));
	assert_int_equal(pit_next_irq0_ns(&p, W), W + T(6));
	assert_int_equal(pit_next_irq0_ns(&p, W + T(6)), W + T(11));
}

static void test_mode3_square_even(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x36, 6, W);
	static const u16 ce[] = { 6, 4, 2, 6, 4, 2, 6 };
	static const bool out[] = { 1, 1, 1, 0, 0, 0, 1 };
	for (unsigned e = 1; e <= 7; e++) {
		assert_int_equal(read16(&p, 0, W + T(e)), ce[e - 1]);
		assert_int_equal(pit_out(&p, 0, W + T(e)), out[e - 1]);
	}
	assert_false(pit_out(&p, 0, W + T(7) - 1));
	assert_int_equal(pit_next_irq0_ns(&p, W), W + T(7));
	assert_int_equal(pit_next_irq0_ns(&p, W + T(7)), W + T(13));
}

static void test_mode3_square_odd(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x36, 5, W);
	/* High for ceil(5/2) = 3 ticks, low for 2. */
	static const u16 ce[] = { 5, 4, 2, 5, 2, 5, 4 };
	static const bool out[] = { 1, 1, 1, 0, 0, 1, 1 };
	for (unsigned e = 1; e <= 7; e++) {
		assert_int_equal(read16(&p, 0, W + T(e)), ce[e - 1]);
		assert_int_equal(pit_out(&p, 0, W + T(e)), out[e - 1]);
	}
	assert_int_equal(pit_next_irq0_ns(&p, W + T(6)), W + T(11));
}

static void test_mode4_software_strobe(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x38, 4, W);
	assert_true(pit_out(&p, 0, W));
	assert_true(pit_out(&p, 0, W + T(5) - 1));
	assert_false(pit_out(&p, 0, W + T(5))); /* count 0: low for one tick */
	assert_int_equal(read16(&p, 0, W + T(5)), 0);
	assert_true(pit_out(&p, 0, W + T(6)));
	assert_true(pit_out(&p, 0, W + T(5 + 0x10000))); /* once only */
	assert_int_equal(pit_next_irq0_ns(&p, W), W + T(6));
	assert_int_equal(pit_next_irq0_ns(&p, W + T(6)), 0);
	/* A new count written (no control word) triggers it again. */
	u64 r = W + T(100);
	assert_true(pit_irq0_due(&p, r));
	count16(&p, 0, 2, r);
	assert_int_equal(pit_next_irq0_ns(&p, r), r + T(4));
	assert_false(pit_out(&p, 0, r + T(3)));
}

static void test_mode5_hardware_strobe(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 2, 0xba, 3, W);
	pit_write(&p, 0x61, 0x00, W);
	assert_true(pit_out(&p, 2, W + T(100))); /* not triggered */
	u64 g = W + T(200);
	pit_write(&p, 0x61, 0x01, g);
	assert_true(pit_out(&p, 2, g + T(3)));
	assert_false(pit_out(&p, 2, g + T(4)));
	assert_true(pit_out(&p, 2, g + T(5)));
	assert_true(pit_out(&p, 2, g + T(4 + 0x10000)));
	/* Retriggered: another strobe. */
	u64 g2 = g + T(100);
	pit_write(&p, 0x61, 0x00, g2);
	pit_write(&p, 0x61, 0x01, g2);
	assert_false(pit_out(&p, 2, g2 + T(4)));
	assert_true(pit_out(&p, 2, g2 + T(5)));
}

static void test_modes_6_and_7_alias(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x3c, 5, W); /* mode 6 = 2 */
	assert_false(pit_out(&p, 0, W + T(5)));
	assert_true(pit_out(&p, 0, W + T(6)));
	assert_int_equal(status(&p, 0, W + T(6)) & 0x3f, 0x3c); /* the bits as written */
	setup(&p, 0, 0x3e, 6, W);				/* mode 7 = 3 */
	assert_false(pit_out(&p, 0, W + T(4)));
	assert_int_equal(read16(&p, 0, W + T(2)), 4);
}

static void test_latch_command(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x34, 1000, W);
	ctrl(&p, 0x00, W + T(11));
	ctrl(&p, 0x00, W + T(20)); /* ignored: the first is not read yet */
	assert_int_equal(read16(&p, 0, W + T(500)), 990);
	assert_int_equal(read16(&p, 0, W + T(500)), 501); /* read in full: live again */
	/* LSB-only access: one read empties the latch. */
	setup(&p, 1, 0x54, 0, W);
	pit_write(&p, 0x41, 200, W);
	ctrl(&p, 0x40, W + T(11));
	assert_int_equal(pit_read(&p, 0x41, W + T(50)), 190);
	assert_int_equal(pit_read(&p, 0x41, W + T(50)), 151);
}

static void test_readback_count_and_status(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x34, 1000, W);
	ctrl(&p, 0xc2, W + T(11));
	assert_int_equal(pit_read(&p, 0x40, W + T(40)), 0xb4); /* status first: OUT high */
	assert_int_equal(read16(&p, 0, W + T(40)), 990);
	assert_int_equal(read16(&p, 0, W + T(40)), 961);
	/* Count only, after a latch command: the second latch is ignored. */
	ctrl(&p, 0x00, W + T(41));
	ctrl(&p, 0xd2, W + T(42));
	assert_int_equal(read16(&p, 0, W + T(60)), 960);
	/* Mode 0 before the terminal count: OUT low in the status. */
	setup(&p, 0, 0x30, 100, W);
	assert_int_equal(status(&p, 0, W + T(50)), 0x30);
	assert_int_equal(status(&p, 0, W + T(101)), 0xb0);
	/* Status latched twice: the first one stays. */
	ctrl(&p, 0xe2, W + T(5));
	ctrl(&p, 0xe2, W + T(200));
	assert_int_equal(pit_read(&p, 0x40, W + T(200)), 0x30);
}

static void test_readback_several_channels(void **state)
{
	(void)state;
	struct pit p;
	pit_reset(&p, 0);
	pit_write(&p, 0x61, 1, 0);
	for (unsigned ch = 0; ch < 3; ch++) {
		ctrl(&p, (u8)(ch << 6 | 0x34), W);
		count16(&p, ch, (u16)(1000 * (ch + 1)), W);
	}
	ctrl(&p, 0xda, W + T(11));			       /* counts of 0 and 2 */
	assert_int_equal(read16(&p, 1, W + T(31)), 2000 - 30); /* 1 was not latched */
	assert_int_equal(read16(&p, 0, W + T(31)), 990);
	assert_int_equal(read16(&p, 2, W + T(31)), 2990);
	ctrl(&p, 0xec, W + T(12)); /* statuses of 1 and 2 */
	assert_int_equal(pit_read(&p, 0x41, W + T(12)), 0x80 | 0x34);
	assert_int_equal(pit_read(&p, 0x42, W + T(12)), 0x80 | 0x34);
	assert_int_equal(read16(&p, 0, W + T(31)), 970);
}

static void test_null_count(void **state)
{
	(void)state;
	struct pit p;
	pit_reset(&p, 0);
	ctrl(&p, 0x34, W);
	assert_int_equal(status(&p, 0, W), 0xf4); /* control word: null count */
	pit_write(&p, 0x40, 10, W + 100);
	assert_int_equal(status(&p, 0, W + 100) & 0x40, 0x40);
	u64 s = W + 200;
	pit_write(&p, 0x40, 0, s);
	assert_int_equal(status(&p, 0, s + T(1) - 1), 0xf4);
	assert_int_equal(status(&p, 0, s + T(1)), 0xb4); /* loaded at the first clock */
	/* A count written while counting in mode 2: null until the reload. */
	count16(&p, 0, 20, s + T(4));
	assert_int_equal(status(&p, 0, s + T(11) - 1) & 0x40, 0x40);
	assert_int_equal(status(&p, 0, s + T(11)) & 0x40, 0);
	/* Modes 1 and 5: until the trigger loads it. */
	setup(&p, 2, 0xb2, 10, W);
	assert_int_equal(status(&p, 2, W + T(100)) & 0x40, 0x40);
	pit_write(&p, 0x61, 0, W + T(100));
	pit_write(&p, 0x61, 1, W + T(100));
	assert_int_equal(status(&p, 2, W + T(100) + T(1) - 1) & 0x40, 0x40);
	assert_int_equal(status(&p, 2, W + T(100) + T(1)) & 0x40, 0);
}

static void test_word_flipflops(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x34, 0x1234, W);
	assert_int_equal(pit_read(&p, 0x40, W + T(1)), 0x34);
	assert_int_equal(pit_read(&p, 0x40, W + T(3)), 0x12); /* live: MSB of 0x1232 */
	assert_int_equal(pit_read(&p, 0x40, W + T(3)), 0x32);
	/* A control word resets both flip-flops. */
	u64 s = W + T(4);
	assert_int_equal(pit_read(&p, 0x40, s), 0x12); /* three reads: an MSB is due */
	ctrl(&p, 0x34, s);
	pit_write(&p, 0x40, 0x55, s);
	ctrl(&p, 0x34, s);
	pit_write(&p, 0x40, 0x10, s);
	pit_write(&p, 0x40, 0x00, s);
	assert_int_equal(read16(&p, 0, s + T(1)), 0x10);
	/* The counter latch shares the read flip-flop. */
	assert_int_equal(pit_read(&p, 0x40, s + T(2)), 0x0f);
	ctrl(&p, 0x00, s + T(3));
	assert_int_equal(pit_read(&p, 0x40, s + T(5)), 0x00); /* MSB of the latched 0x0e */
	assert_int_equal(read16(&p, 0, s + T(5)), 0x0c);
}

static void test_msb_only_access(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x14, 0, W); /* LSB-only: setup's two writes were two counts */
	assert_int_equal(pit_read(&p, 0x40, W + T(1)), 0);
	ctrl(&p, 0x24, W); /* MSB only */
	pit_write(&p, 0x40, 0x12, W);
	assert_int_equal(pit_read(&p, 0x40, W + T(1)), 0x12);
	assert_int_equal(pit_read(&p, 0x40, W + T(2)), 0x11); /* 0x11ff */
	assert_int_equal(pit_read(&p, 0x40, W + T(2)), 0x11);
	assert_int_equal(pit_next_irq0_ns(&p, W), W + T(0x1201));
}

static void test_count_zero(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x34, 0, W);
	assert_int_equal(read16(&p, 0, W + T(1)), 0);
	assert_int_equal(read16(&p, 0, W + T(2)), 0xffff);
	assert_false(pit_out(&p, 0, W + T(65536)));
	assert_int_equal(pit_next_irq0_ns(&p, W), W + T(65537));
	setup(&p, 0, 0x30, 0, W);
	assert_false(pit_out(&p, 0, W + T(65537) - 1));
	assert_true(pit_out(&p, 0, W + T(65537)));
}

static void test_count_one_mode2(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x34, 1, W); /* illegal on the chip: runs as 2 */
	assert_int_equal(pit_next_irq0_ns(&p, W), W + T(3));
	assert_int_equal(pit_next_irq0_ns(&p, W + T(3)), W + T(5));
}

static void test_bcd(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x35, 0x0100, W); /* mode 2, BCD 100 */
	assert_int_equal(read16(&p, 0, W + T(1)), 0x0100);
	assert_int_equal(read16(&p, 0, W + T(2)), 0x0099);
	assert_int_equal(read16(&p, 0, W + T(11)), 0x0090);
	assert_int_equal(pit_next_irq0_ns(&p, W), W + T(101));
	setup(&p, 0, 0x35, 0, W); /* 0 is 10000 */
	assert_int_equal(read16(&p, 0, W + T(1)), 0);
	assert_int_equal(read16(&p, 0, W + T(2)), 0x9999);
	assert_int_equal(pit_next_irq0_ns(&p, W), W + T(10001));
	setup(&p, 0, 0x31, 0x0002, W); /* mode 0 wraps to 9999 */
	assert_int_equal(read16(&p, 0, W + T(3)), 0);
	assert_true(pit_out(&p, 0, W + T(3)));
	assert_int_equal(read16(&p, 0, W + T(4)), 0x9999);
	setup(&p, 0, 0x37, 0x0010, W); /* mode 3, BCD 10 */
	assert_int_equal(read16(&p, 0, W + T(2)), 0x0008);
	assert_false(pit_out(&p, 0, W + T(6)));
	assert_int_equal(status(&p, 0, W + T(6)), 0x37);
}

static void test_gate2_mode2_stop_restart(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 2, 0xb4, 10, W);
	assert_int_equal(read16(&p, 2, W + T(3)), 8);
	assert_false(pit_out(&p, 2, W + T(10))); /* count 1: OUT low... */
	pit_write(&p, 0x61, 0x00, W + T(10));
	assert_true(pit_out(&p, 2, W + T(10)));		 /* ...forced high by the gate */
	assert_int_equal(read16(&p, 2, W + T(1000)), 1); /* stopped */
	assert_true(pit_out(&p, 2, W + T(1000)));
	u64 g = W + T(2000);
	pit_write(&p, 0x61, 0x01, g); /* restarts from the reload */
	assert_int_equal(read16(&p, 2, g + T(1)), 10);
	assert_int_equal(read16(&p, 2, g + T(2)), 9);
	assert_false(pit_out(&p, 2, g + T(10)));
	assert_true(pit_out(&p, 2, g + T(11)));
	/* Mode 3 as well: OUT high while the gate is low. */
	setup(&p, 2, 0xb6, 4, W);
	assert_false(pit_out(&p, 2, W + T(3)));
	pit_write(&p, 0x61, 0x00, W + T(3));
	assert_true(pit_out(&p, 2, W + T(4)));
	assert_int_equal(pit_read(&p, 0x61, W + T(4)) & 0x21, 0x20);
}

static void test_mode2_count_before_load(void **state)
{
	(void)state;
	struct pit p;
	/* Gate low: the count waits for the gate's rising edge. */
	pit_reset(&p, 0);
	ctrl(&p, 0xb4, W);
	count16(&p, 2, 10, W);
	assert_true(pit_out(&p, 2, W + T(50)));
	assert_int_equal(read16(&p, 2, W + T(50)), 0);
	assert_int_equal(status(&p, 2, W + T(50)), 0xc0 | 0x34);
	u64 g = W + T(100);
	pit_write(&p, 0x61, 0x01, g);
	assert_int_equal(read16(&p, 2, g + T(1)), 10);
	assert_false(pit_out(&p, 2, g + T(10)));
	assert_true(pit_out(&p, 2, g + T(11)));
	/* A second count before the first clock is the one loaded. */
	setup(&p, 0, 0x34, 10, W);
	count16(&p, 0, 20, W + 1);
	assert_int_equal(read16(&p, 0, W + T(1)), 20);
	walk_edges(&p, W, 21, 20, 3);
}

static void test_gate2_mode0_pause(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 2, 0xb0, 20, W);
	pit_write(&p, 0x61, 0x00, W + T(6));
	assert_int_equal(read16(&p, 2, W + NS), 15);
	assert_false(pit_out(&p, 2, W + NS));
	u64 g = W + 2 * NS;
	pit_write(&p, 0x61, 0x01, g); /* carries on from 15 */
	assert_int_equal(read16(&p, 2, g), 15);
	assert_int_equal(read16(&p, 2, g + T(1)), 14);
	assert_false(pit_out(&p, 2, g + T(15) - 1));
	assert_true(pit_out(&p, 2, g + T(15)));
	/* A count written while the gate is low waits for it. */
	pit_write(&p, 0x61, 0x00, g + T(100));
	count16(&p, 2, 30, g + T(100));
	assert_int_equal(read16(&p, 2, g + T(500)), 30);
	assert_false(pit_out(&p, 2, g + T(500)));
	pit_write(&p, 0x61, 0x01, g + T(600));
	assert_true(pit_out(&p, 2, g + T(600) + T(30)));
	assert_false(pit_out(&p, 2, g + T(600) + T(29)));
	/* Count 0 held by the gate is 65536 to go, not none. */
	u64 h = g + NS;
	pit_write(&p, 0x61, 0x00, h);
	count16(&p, 2, 0, h);
	assert_int_equal(read16(&p, 2, h + T(10)), 0);
	pit_write(&p, 0x61, 0x01, h + T(10));
	assert_false(pit_out(&p, 2, h + T(10) + T(5)));
	assert_int_equal(read16(&p, 2, h + T(10) + T(1)), 0xffff);
	assert_false(pit_out(&p, 2, h + T(10) + T(65536) - 1));
	assert_true(pit_out(&p, 2, h + T(10) + T(65536)));
	/* Stopped on the tick the count was loaded: still 65536 to go. */
	setup(&p, 2, 0xb0, 0, W);
	pit_write(&p, 0x61, 0x00, W + T(1));
	pit_write(&p, 0x61, 0x01, W + T(2));
	assert_false(pit_out(&p, 2, W + T(2) + T(65536) - 1));
	assert_true(pit_out(&p, 2, W + T(2) + T(65536)));
	/* ...or even before that first clock. */
	setup(&p, 2, 0xb0, 0, W);
	pit_write(&p, 0x61, 0x00, W + 1);
	pit_write(&p, 0x61, 0x01, W + T(2));
	assert_false(pit_out(&p, 2, W + T(2) + T(65536) - 1));
	assert_true(pit_out(&p, 2, W + T(2) + T(65536)));
}

static u8 port61(struct pit *p, u64 now)
{
	return pit_read(p, 0x61, now) & (u8)~0x10; /* without the refresh toggle */
}

static void test_port61(void **state)
{
	(void)state;
	struct pit p;
	pit_reset(&p, 0);
	pit_write(&p, 0x61, 0xfe, 0);
	assert_int_equal(port61(&p, 0), 0x02); /* only bits 0-1 are kept */
	assert_false(p.ch[2].gate);
	pit_write(&p, 0x61, 0x03, 0);
	assert_true(p.ch[2].gate);
	assert_int_equal(port61(&p, 0), 0x03);
	ctrl(&p, 0xb6, W);
	count16(&p, 2, 4, W);
	/* Bit 5 is OUT2: high for ticks 1-2, low for 3-4, high again at 5. */
	assert_int_equal(port61(&p, W + T(1)), 0x23);
	assert_int_equal(port61(&p, W + T(3) - 1), 0x23);
	assert_int_equal(port61(&p, W + T(3)), 0x03);
	assert_int_equal(port61(&p, W + T(5) - 1), 0x03);
	assert_int_equal(port61(&p, W + T(5)), 0x23);
	/* Speaker data is independent of the gate. */
	pit_write(&p, 0x61, 0x01, W + T(5));
	assert_int_equal(port61(&p, W + T(5)), 0x21);
	/* Other ports. */
	assert_int_equal(pit_read(&p, 0x43, W), 0xff);
	assert_int_equal(pit_read(&p, 0x44, W), 0xff);
	pit_write(&p, 0x44, 0x00, W);
	assert_int_equal(port61(&p, W + T(5)), 0x21);
}

static void test_refresh_toggle(void **state)
{
	(void)state;
	struct pit p;
	pit_reset(&p, 0);
	assert_int_equal(pit_read(&p, 0x61, 0) & 0x10, 0);
	assert_int_equal(pit_read(&p, 0x61, 15084) & 0x10, 0);
	assert_int_equal(pit_read(&p, 0x61, 15085) & 0x10, 0x10);
	assert_int_equal(pit_read(&p, 0x61, 30169) & 0x10, 0x10);
	assert_int_equal(pit_read(&p, 0x61, 30170) & 0x10, 0);
	/* A delay loop counting flips over 1 ms sees about 66 of them. */
	unsigned flips = 0;
	u8 last = pit_read(&p, 0x61, DAYS10) & 0x10;
	for (u64 t = DAYS10; t < DAYS10 + 1000000; t += 1000) {
		u8 v = pit_read(&p, 0x61, t) & 0x10;
		flips += v != last;
		last = v;
	}
	assert_in_range(flips, 65, 67);
}

static void test_irq0_due_coalesces(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x34, 100, W);
	assert_false(pit_irq0_due(&p, W));
	assert_false(pit_irq0_due(&p, W + T(101) - 1));
	assert_true(pit_irq0_due(&p, W + T(101)));
	assert_false(pit_irq0_due(&p, W + T(101)));
	assert_false(pit_irq0_due(&p, W + T(150)));
	assert_true(pit_irq0_due(&p, W + T(1000))); /* 9 edges: one report */
	assert_int_equal(p.irq_done_ns, W + T(1000));
	assert_false(pit_irq0_due(&p, W + T(1001) - 1));
	assert_true(pit_irq0_due(&p, W + T(1001)));
}

static void test_next_irq0_exact_periodic(void **state)
{
	(void)state;
	static const u16 counts[] = { 2, 3, 5, 7, 11, 100, 1193, 4096, 65535, 0 };
	static const u64 starts[] = { 1, 837, 838, 839, 999999999, W + 419, DAYS10 + 123 };
	for (unsigned m = 2; m <= 3; m++)
		for (unsigned i = 0; i < ARRAY_SIZE(counts); i++)
			for (unsigned j = 0; j < ARRAY_SIZE(starts); j++) {
				struct pit p;
				u64 n = counts[i] ? counts[i] : 0x10000;
				setup(&p, 0, (u8)(0x30 | m << 1), counts[i], starts[j]);
				assert_false(pit_irq0_due(&p, starts[j]));
				walk_edges(&p, starts[j], n + 1, n, 12);
			}
}

static void test_next_irq0_one_shots(void **state)
{
	(void)state;
	for (u16 n = 1; n < 300; n += 7) {
		struct pit p;
		u64 s = W + n * 13ull;
		setup(&p, 0, 0x30, n, s); /* mode 0: one edge at N + 1 */
		walk_edges(&p, s, n + 1u, 0, 1);
		assert_int_equal(pit_next_irq0_ns(&p, s + T(n + 1u)), 0);
		assert_false(pit_irq0_due(&p, s + T(n + 70000u)));
		setup(&p, 0, 0x38, n, s); /* mode 4: low at N + 1, up at N + 2 */
		assert_false(pit_irq0_due(&p, s + T(n + 1u)));
		assert_int_equal(pit_next_irq0_ns(&p, s + T(n + 1u)), s + T(n + 2u));
		assert_false(pit_irq0_due(&p, s + T(n + 2u) - 1));
		assert_true(pit_irq0_due(&p, s + T(n + 2u)));
		assert_int_equal(pit_next_irq0_ns(&p, s + T(n + 2u)), 0);
	}
}

static void test_next_irq0_none(void **state)
{
	(void)state;
	struct pit p;
	pit_reset(&p, 0);
	ctrl(&p, 0x34, W); /* no count */
	assert_int_equal(pit_next_irq0_ns(&p, W + NS), 0);
	pit_write(&p, 0x40, 5, W); /* half a count */
	assert_int_equal(pit_next_irq0_ns(&p, W + NS), 0);
	setup(&p, 0, 0x32, 10, W); /* mode 1: gate 0 never rises */
	assert_int_equal(pit_next_irq0_ns(&p, W + NS), 0);
	assert_true(pit_out(&p, 0, W + NS));
	setup(&p, 1, 0x74, 10, W); /* channel 1 is not IRQ0 */
	assert_int_equal(pit_next_irq0_ns(&p, W + NS), 0);
	assert_false(pit_irq0_due(&p, W + NS));
	assert_false(pit_out(&p, 1, W + T(10)));
	assert_true(pit_out(&p, 1, W + T(11)));
}

static void test_irq0_edge_survives_reprogram(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x34, 10, W);
	ctrl(&p, 0x30, W + T(15)); /* after the edge at 11, before any due */
	assert_int_equal(pit_next_irq0_ns(&p, W + T(15)), W + T(15));
	assert_true(pit_irq0_due(&p, W + T(15)));
	assert_false(pit_irq0_due(&p, W + T(16)));
	assert_int_equal(pit_next_irq0_ns(&p, W + T(16)), 0);
	/* No edge before the reprogramming: nothing invented. */
	setup(&p, 0, 0x34, 10, W);
	ctrl(&p, 0x34, W + T(5));
	assert_false(pit_irq0_due(&p, W + T(5)));
}

static void test_mode2_new_count_at_period_end(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x34, 10, W);
	assert_true(pit_irq0_due(&p, W + T(14)));
	count16(&p, 0, 20, W + T(14)); /* mid-period: this one runs out first */
	assert_int_equal(read16(&p, 0, W + T(15)), 6);
	assert_false(pit_out(&p, 0, W + T(20)));
	assert_int_equal(read16(&p, 0, W + T(21)), 20);
	assert_int_equal(pit_next_irq0_ns(&p, W + T(14)), W + T(21));
	assert_true(pit_irq0_due(&p, W + T(21)));
	walk_from(&p, W, W + T(21), 41, 20, 5);
	assert_int_equal(read16(&p, 0, W + T(60)), 1);
}

static void test_mode3_new_count_at_half_period(void **state)
{
	(void)state;
	struct pit p;
	setup(&p, 0, 0x36, 10, W);
	count16(&p, 0, 6, W + T(3)); /* in the high half: the new count starts low */
	assert_true(pit_out(&p, 0, W + T(5)));
	assert_false(pit_out(&p, 0, W + T(6)));
	assert_int_equal(read16(&p, 0, W + T(6)), 6);
	assert_false(pit_out(&p, 0, W + T(8)));
	assert_int_equal(pit_next_irq0_ns(&p, W + T(3)), W + T(9));
	walk_edges(&p, W, 9, 6, 4);
	setup(&p, 0, 0x36, 10, W);
	count16(&p, 0, 4, W + T(7)); /* in the low half: high from the next rise */
	assert_false(pit_out(&p, 0, W + T(10)));
	assert_int_equal(pit_next_irq0_ns(&p, W + T(7)), W + T(11));
	assert_true(pit_out(&p, 0, W + T(12)));
	assert_false(pit_out(&p, 0, W + T(13)));
	walk_edges(&p, W, 11, 4, 4);
}

static void test_large_now(void **state)
{
	(void)state;
	struct pit p;
	/* Started early, read ten days later: no overflow, exact tick. */
	setup(&p, 0, 0x34, 1193, 1000);
	u64 now = DAYS10 + 777;
	u64 c = ticks(now - 1000) - 1;
	assert_int_equal(read16(&p, 0, now), 1193 - c % 1193);
	u64 next = pit_next_irq0_ns(&p, now);
	assert_int_equal(next, 1000 + T((c / 1193 + 1) * 1193 + 1));
	assert_true(pit_irq0_due(&p, next));
	/* And one programmed at 146 years of uptime. */
	u64 big = 1ull << 62;
	setup(&p, 0, 0x36, 0, big);
	walk_edges(&p, big, 0x10001, 0x10000, 3);
	assert_int_equal(read16(&p, 0, big + T(3)), 0xfffc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_state),
		cmocka_unit_test(test_mode0_terminal_count),
		cmocka_unit_test(test_mode0_rewrite_and_first_byte),
		cmocka_unit_test(test_mode1_one_shot),
		cmocka_unit_test(test_mode2_rate_generator),
		cmocka_unit_test(test_mode3_square_even),
		cmocka_unit_test(test_mode3_square_odd),
		cmocka_unit_test(test_mode4_software_strobe),
		cmocka_unit_test(test_mode5_hardware_strobe),
		cmocka_unit_test(test_modes_6_and_7_alias),
		cmocka_unit_test(test_latch_command),
		cmocka_unit_test(test_readback_count_and_status),
		cmocka_unit_test(test_readback_several_channels),
		cmocka_unit_test(test_null_count),
		cmocka_unit_test(test_word_flipflops),
		cmocka_unit_test(test_msb_only_access),
		cmocka_unit_test(test_count_zero),
		cmocka_unit_test(test_count_one_mode2),
		cmocka_unit_test(test_bcd),
		cmocka_unit_test(test_gate2_mode2_stop_restart),
		cmocka_unit_test(test_mode2_count_before_load),
		cmocka_unit_test(test_gate2_mode0_pause),
		cmocka_unit_test(test_port61),
		cmocka_unit_test(test_refresh_toggle),
		cmocka_unit_test(test_irq0_due_coalesces),
		cmocka_unit_test(test_next_irq0_exact_periodic),
		cmocka_unit_test(test_next_irq0_one_shots),
		cmocka_unit_test(test_next_irq0_none),
		cmocka_unit_test(test_irq0_edge_survives_reprogram),
		cmocka_unit_test(test_mode2_new_count_at_period_end),
		cmocka_unit_test(test_mode3_new_count_at_half_period),
		cmocka_unit_test(test_large_now),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
