/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for lib/printf.c: conversions, flags, truncation and the callback engine. */
/* Deliberately odd formats (unknown conversions, NULL %s) are part of what is tested. */
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-overflow"
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "tests/unit/harness.h"
#include "lib/printf.h"

#define CHECK(expect, ...) \
	do { \
		char b_[128]; \
		int n_ = fmt_snprintf(b_, sizeof(b_), __VA_ARGS__); \
		assert_string_equal(b_, expect); \
		assert_int_equal(n_, (int)strlen(expect)); \
	} while (0)

static void test_integers(void **state)
{
	(void)state;
	CHECK("0 -1 42 2147483647 -2147483648", "%d %i %d %d %d", 0, -1, 42, INT_MAX, INT_MIN);
	CHECK("4294967295", "%u", UINT_MAX);
	CHECK("ff FF deadbeef", "%x %X %x", 255, 255, 0xdeadbeefu);
	CHECK("-9223372036854775808", "%lld", LLONG_MIN);
	CHECK("18446744073709551615", "%llu", ULLONG_MAX);
	CHECK("ffffffffffffffff", "%lx", ULONG_MAX);
	CHECK("123456789012", "%zu", (size_t)123456789012ull);
	CHECK("-1 255 -1 65535", "%hhd %hhu %hd %hu", 255, 255, 65535, 65535);
}

static void test_flags_width(void **state)
{
	(void)state;
	CHECK("[   42]", "[%5d]", 42);
	CHECK("[42   ]", "[%-5d]", 42);
	CHECK("[00042]", "[%05d]", 42);
	CHECK("[-0042]", "[%05d]", -42);
	CHECK("[  -42]", "[%5d]", -42);
	CHECK("[42   ]", "[%-05d]", 42);
	CHECK("[0000beef]", "[%08x]", 0xbeef);
	CHECK("[123456]", "[%3d]", 123456);
	CHECK("0x1f 0X1F 0 [0x001f]", "%#x %#X %#x [%#06x]", 31, 31, 0, 31);
	CHECK("[  ab]", "[%*s]", 4, "ab");
	CHECK("[ab  ]", "[%*s]", -4, "ab");
}

static void test_strings_chars(void **state)
{
	(void)state;
	CHECK("hello", "%s", "hello");
	CHECK("(null)", "%s", (char *)NULL);
	CHECK("[  hi]", "[%4s]", "hi");
	CHECK("[hi  ]", "[%-4s]", "hi");
	CHECK("RSDT", "%.4s", "RSDTxyz");
	CHECK("ab", "%.*s", 2, "abcdef");
	CHECK("x", "%c", 'x');
	CHECK("[  x]", "[%3c]", 'x');
	CHECK("100%", "100%%");
	CHECK("", "%s", "");
}

static void test_pointer(void **state)
{
	(void)state;
	CHECK("0x0", "%p", (void *)0);
	CHECK("0xffff800000001000", "%p", (void *)0xffff800000001000ull);
}

static void test_unknown_and_trailing_percent(void **state)
{
	(void)state;
	CHECK("%q", "%q");
	CHECK("a%", "a%");
	char b[8];
	/* An absurd width saturates instead of overflowing int (UBSan would catch that). */
	assert_true(fmt_snprintf(b, sizeof(b), "%99999999999d", 1) > 1000);
	assert_string_equal(b, "       ");
}

static void test_matches_libc(void **state)
{
	(void)state;
	static const long long vals[] = { 0,	    1,	   -1,	   7,	       -7,
					  100,	    65536, -65536, 2147483647, -2147483647 - 1,
					  1ll << 40 };
	static const char *fmts[] = { "%lld",	 "%20lld", "%-20lld|", "%020lld", "%llx",
				      "%016llX", "%llu",   "%5lld",    "%#llx",	  "%#020llx" };
	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
		for (size_t v = 0; v < sizeof(vals) / sizeof(vals[0]); v++) {
			char ours[64], theirs[64];
			int a = fmt_snprintf(ours, sizeof(ours), fmts[f], vals[v]);
			int b = snprintf(theirs, sizeof(theirs), fmts[f], vals[v]);
			assert_string_equal(ours, theirs);
			assert_int_equal(a, b);
		}
	}
}

static void test_truncation(void **state)
{
	(void)state;
	char b[8];
	memset(b, 'Z', sizeof(b));
	assert_int_equal(fmt_snprintf(b, 5, "%s", "abcdefgh"), 8);
	assert_string_equal(b, "abcd");
	assert_int_equal(b[5], 'Z');

	memset(b, 'Z', sizeof(b));
	assert_int_equal(fmt_snprintf(b, 1, "%d", 12345), 5);
	assert_int_equal(b[0], '\0');
	assert_int_equal(b[1], 'Z');

	memset(b, 'Z', sizeof(b));
	assert_int_equal(fmt_snprintf(b, 0, "%d", 12345), 5);
	assert_int_equal(b[0], 'Z');
	assert_int_equal(fmt_snprintf(NULL, 0, "%s-%s", "ab", "cd"), 5);

	assert_int_equal(fmt_snprintf(b, sizeof(b), "%s", "1234567"), 7);
	assert_string_equal(b, "1234567");
}

struct sink {
	char text[64];
	int n;
};

static void sink_put(char c, void *arg)
{
	struct sink *s = arg;
	s->text[s->n++] = c;
}

static int cb_print(struct sink *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vcbprintf(sink_put, s, fmt, ap);
	va_end(ap);
	return n;
}

static void test_callback(void **state)
{
	(void)state;
	struct sink s = { { 0 }, 0 };
	int n = cb_print(&s, "cpu %u: apic %#x %s\n", 3u, 0x10u, "up");
	assert_string_equal(s.text, "cpu 3: apic 0x10 up\n");
	assert_int_equal(n, s.n);
	s = (struct sink){ { 0 }, 0 };
	n = cb_print(&s, "%s=%d", "cpus", 4);
	assert_string_equal(s.text, "cpus=4");
	assert_int_equal(n, 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_flags_width),
		cmocka_unit_test(test_strings_chars),
		cmocka_unit_test(test_pointer),
		cmocka_unit_test(test_unknown_and_trailing_percent),
		cmocka_unit_test(test_matches_libc),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_callback),
	};
	return cmocka_run_group_tests_name("printf", tests, NULL, NULL);
}
