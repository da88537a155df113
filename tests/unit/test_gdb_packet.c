/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for vmm/debug/gdb_packet.c: framing, checksums, escapes, oversize, resync, hex codecs. */
#include <stdio.h>
#include <string.h>
#include "tests/unit/harness.h"
#include "vmm/debug/gdb_packet.h"

static struct gdb_rx rx;

/* Feeds bytes; returns the last event that was not GDB_RX_NONE (or NONE). */
static enum gdb_rx_event feed(const char *s, size_t n)
{
	enum gdb_rx_event last = GDB_RX_NONE;
	for (size_t i = 0; i < n; i++) {
		enum gdb_rx_event e = gdb_rx_byte(&rx, (unsigned char)s[i]);
		if (e != GDB_RX_NONE)
			last = e;
	}
	return last;
}
#define FEED(s) feed(s, sizeof(s) - 1)

static void test_good_packet(void **state)
{
	(void)state;
	gdb_rx_reset(&rx);
	assert_int_equal(FEED("+$g#67"), GDB_RX_PACKET);
	assert_string_equal(rx.buf, "g");
	assert_int_equal(FEED("$m100,4#5E"), GDB_RX_PACKET); /* upper/lower hex both taken */
	assert_string_equal(rx.buf, "m100,4");
	assert_int_equal(FEED("$#00"), GDB_RX_PACKET);
	assert_int_equal(rx.len, 0);
}

static void test_bad_checksum(void **state)
{
	(void)state;
	gdb_rx_reset(&rx);
	assert_int_equal(FEED("$g#68"), GDB_RX_BAD);
	assert_int_equal(FEED("$g#zz"), GDB_RX_BAD);
	assert_int_equal(FEED("$g#6"), GDB_RX_NONE);	/* incomplete: nothing yet */
	assert_int_equal(FEED("$g#67"), GDB_RX_PACKET); /* '$' resynchronizes */
}

static void test_interrupt_and_nack(void **state)
{
	(void)state;
	gdb_rx_reset(&rx);
	assert_int_equal(FEED("\x03"), GDB_RX_INTERRUPT);
	assert_int_equal(FEED("-"), GDB_RX_NACK);
	/* Inside a packet 0x03 and '-' are data. */
	char p[] = "$\x03-#30";
	assert_int_equal(FEED(p), GDB_RX_PACKET);
	assert_int_equal(rx.len, 2);
}

static void test_escape(void **state)
{
	(void)state;
	gdb_rx_reset(&rx);
	/* "}\x03" is '#' escaped; the checksum covers the bytes as sent. */
	unsigned sum = '}' + 0x03 + 'a';
	char p[16];
	snprintf(p, sizeof(p),
		 "$}\x03"
		 "a#%02x",
		 sum & 0xff);
	assert_int_equal(feed(p, strlen(p)), GDB_RX_PACKET);
	assert_string_equal(rx.buf, "#a");
}

static void test_oversize(void **state)
{
	(void)state;
	static char big[GDB_PACKET_MAX + 100];
	gdb_rx_reset(&rx);
	unsigned sum = 0;
	big[0] = '$';
	for (int i = 1; i <= GDB_PACKET_MAX + 10; i++) {
		big[i] = 'x';
		sum += 'x';
	}
	int n = GDB_PACKET_MAX + 11;
	n += snprintf(big + n, sizeof(big) - n, "#%02x", sum & 0xff);
	assert_int_equal(feed(big, n), GDB_RX_BAD);
	assert_true(rx.len <= GDB_PACKET_MAX);
	assert_int_equal(FEED("$g#67"), GDB_RX_PACKET);
}

static void test_hex(void **state)
{
	(void)state;
	const char *p = "1f,";
	unsigned long long v = 0;
	u64 val;
	assert_int_equal(gdb_parse_hex(&p, &val), 2);
	v = val;
	assert_int_equal(v, 0x1f);
	assert_int_equal(*p, ',');
	p = "";
	assert_int_equal(gdb_parse_hex(&p, &val), 0);
	p = "ffffffffffffffff";
	assert_int_equal(gdb_parse_hex(&p, &val), 16);
	assert_true(val == ~0ull);
	p = "10000000000000000"; /* 17 digits: would overflow */
	assert_int_equal(gdb_parse_hex(&p, &val), -1);
	unsigned char b[3];
	assert_true(gdb_from_hex(b, "00aBff", 3));
	assert_int_equal(b[1], 0xab);
	assert_false(gdb_from_hex(b, "0g", 1));
	assert_false(gdb_from_hex(b, "0", 1)); /* NUL is not a digit */
	char h[7] = { 0 };
	gdb_to_hex(h, b, 3);
	assert_string_equal(h, "00abff");
}

static void test_frame(void **state)
{
	(void)state;
	char out[32];
	u32 n = gdb_frame(out, sizeof(out), "OK", 2);
	assert_int_equal(n, 6);
	assert_memory_equal(out, "$OK#9a", 6);
	/* Special bytes are escaped, and what is framed parses back. */
	n = gdb_frame(out, sizeof(out), "a#$}*", 5);
	gdb_rx_reset(&rx);
	assert_int_equal(feed(out, n), GDB_RX_PACKET);
	assert_string_equal(rx.buf, "a#$}*");
	assert_int_equal(gdb_frame(out, 3, "OK", 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_packet),
		cmocka_unit_test(test_bad_checksum),
		cmocka_unit_test(test_interrupt_and_nack),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_oversize),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_frame),
	};
	return cmocka_run_group_tests_name("gdb_packet", tests, NULL, NULL);
}
