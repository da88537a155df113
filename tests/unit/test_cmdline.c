/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for lib/cmdline.c: word iteration, lookup, truncation and number parsing. */
#include <string.h>
#include "tests/unit/harness.h"
#include "lib/cmdline.h"

static void expect_word(const char **c, const char *key, const char *val)
{
	char k[16], v[16];
	assert_true(cmdline_next(c, k, sizeof(k), v, sizeof(v)));
	assert_string_equal(k, key);
	assert_string_equal(v, val);
}

static void test_iterate(void **state)
{
	(void)state;
	const char *c = "  log=debug\tcpus=4  nosmp a=b=c x= \n";
	char k[16], v[16];
	expect_word(&c, "log", "debug");
	expect_word(&c, "cpus", "4");
	expect_word(&c, "nosmp", "");
	expect_word(&c, "a", "b=c");
	expect_word(&c, "x", "");
	assert_false(cmdline_next(&c, k, sizeof(k), v, sizeof(v)));
	assert_int_equal(*c, '\0');
	assert_false(cmdline_next(&c, k, sizeof(k), v, sizeof(v)));
}

static void test_empty(void **state)
{
	(void)state;
	const char *c = "";
	char k[4], v[4];
	assert_false(cmdline_next(&c, k, sizeof(k), v, sizeof(v)));
	c = "   \t ";
	assert_false(cmdline_next(&c, k, sizeof(k), v, sizeof(v)));
	assert_int_equal(*c, '\0');
}

static void test_truncation_reported(void **state)
{
	(void)state;
	char k[5], v[4];
	/* "logxyz" must not come out as a truncated "log" that would match an option. */
	const char *c = "cpus=4 logxyz=1 next";
	assert_true(cmdline_next(&c, k, sizeof(k), v, sizeof(v)));
	assert_false(cmdline_next(&c, k, sizeof(k), v, sizeof(v)));
	assert_string_equal(c, "logxyz=1 next");

	c = "log=debug"; /* value too long for v[4] */
	assert_false(cmdline_next(&c, k, sizeof(k), v, sizeof(v)));
	assert_string_equal(c, "log=debug");

	c = "abcd=xyz"; /* exactly fits: 4 + NUL and 3 + NUL */
	assert_true(cmdline_next(&c, k, sizeof(k), v, sizeof(v)));
	assert_string_equal(k, "abcd");
	assert_string_equal(v, "xyz");

	c = "a";
	assert_false(cmdline_next(&c, k, 0, v, sizeof(v)));
}

static void test_get(void **state)
{
	(void)state;
	char v[8];
	const char *c = "cpus=2 log=info cpus2=9 nosmp cpus=3";
	assert_true(cmdline_get(c, "cpus", v, sizeof(v)));
	assert_string_equal(v, "3"); /* last one wins */
	assert_true(cmdline_get(c, "cpus2", v, sizeof(v)));
	assert_string_equal(v, "9");
	assert_true(cmdline_get(c, "nosmp", v, sizeof(v)));
	assert_string_equal(v, "");
	assert_false(cmdline_get(c, "cpu", v, sizeof(v)));
	assert_string_equal(v, "");
	assert_false(cmdline_get(c, "smp", v, sizeof(v)));
	assert_false(cmdline_get("", "log", v, sizeof(v)));
	assert_false(cmdline_get("log=verylongvalue", "log", v, sizeof(v)));
	assert_string_equal(v, "");
	assert_false(cmdline_get("log=x", "log", v, 0));
}

static void test_parse_u64(void **state)
{
	(void)state;
	u64 x = 77;
	assert_true(parse_u64("0", &x));
	assert_int_equal(x, 0);
	assert_true(parse_u64("123", &x));
	assert_int_equal(x, 123);
	assert_true(parse_u64("0x1F", &x));
	assert_int_equal(x, 0x1f);
	assert_true(parse_u64("0XaBc", &x));
	assert_int_equal(x, 0xabc);
	assert_true(parse_u64("18446744073709551615", &x));
	assert_int_equal(x, ~0ull);
	assert_true(parse_u64("0xffffffffffffffff", &x));
	assert_int_equal(x, ~0ull);
	assert_true(parse_u64("007", &x));
	assert_int_equal(x, 7);
	x = 77;
	static const char *bad[] = { "",
				     "0x",
				     "12a",
				     "-1",
				     " 1",
				     "1 ",
				     "+1",
				     "0xg",
				     "18446744073709551616",
				     "99999999999999999999",
				     "0x10000000000000000",
				     "1e3",
				     "0b1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_u64(bad[i], &x))
			fail_msg("parse_u64 accepted \"%s\"", bad[i]);
		assert_int_equal(x, 77);
	}
}

static void test_parse_size(void **state)
{
	(void)state;
	u64 x = 0;
	assert_true(parse_size("16", &x));
	assert_int_equal(x, 16);
	assert_true(parse_size("4K", &x));
	assert_int_equal(x, 4096);
	assert_true(parse_size("2m", &x));
	assert_int_equal(x, 2ull << 20);
	assert_true(parse_size("1G", &x));
	assert_int_equal(x, 1ull << 30);
	assert_true(parse_size("0x10k", &x));
	assert_int_equal(x, 16ull << 10);
	assert_true(parse_size("17179869183G", &x));
	assert_int_equal(x, 17179869183ull << 30);
	static const char *bad[] = {
		"", "K", "4KB", "4T", "17179869184G", "0xK", "123456789012345678901234K", "-4K"
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse_size(bad[i], &x))
			fail_msg("parse_size accepted \"%s\"", bad[i]);
}

static void test_parse_mib(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		u64 mib;
	} good[] = { { "512", 512 },
		     { "6G", 6144 },
		     { "6g", 6144 },
		     { "512M", 512 },
		     { "1m", 1 },
		     { "1048576K", 1024 },
		     { "0x10", 16 },
		     { "0", 0 },
		     { "17592186044415", (1ull << 44) - 1 },
		     { "17179869183G", 17179869183ull << 10 } };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		u64 x = 0;
		if (!parse_mib(good[i].s, &x))
			fail_msg("parse_mib refused \"%s\"", good[i].s);
		assert_int_equal(x, good[i].mib);
	}
	/* Fractions of a MiB, units it does not know, bytes past 64 bits, no number at all. */
	static const char *bad[] = { "",
				     "G",
				     "M",
				     "1536K",
				     "1K",
				     "1.5G",
				     "6GB",
				     "6T",
				     "6 G",
				     "-1",
				     "+1",
				     "17592186044416",
				     "17179869184G",
				     "0xG",
				     "6Gi",
				     "99999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		u64 x = 77;
		if (parse_mib(bad[i], &x))
			fail_msg("parse_mib accepted \"%s\"", bad[i]);
		assert_int_equal(x, 77);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iterate),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_truncation_reported),
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_mib),
	};
	return cmocka_run_group_tests_name("cmdline", tests, NULL, NULL);
}
