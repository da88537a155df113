/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for lib/string.c, built under lib_* names (see suite.mk) so libc's stay apart. */
#include <string.h>
#include "tests/unit/harness.h"
#include "lib/string.h"

static void test_memset_memcpy(void **state)
{
	(void)state;
	unsigned char b[40], c[40];
	assert_ptr_equal(memset(b, 0xab, sizeof(b)), b);
	for (size_t i = 0; i < sizeof(b); i++)
		assert_int_equal(b[i], 0xab);
	memset(b + 3, 0x100 + 7, 5); /* only the low byte of c counts */
	assert_int_equal(b[2], 0xab);
	assert_int_equal(b[3], 7);
	assert_int_equal(b[7], 7);
	assert_int_equal(b[8], 0xab);
	for (size_t i = 0; i < sizeof(c); i++)
		c[i] = (unsigned char)i;
	assert_ptr_equal(memcpy(b, c, sizeof(c)), b);
	assert_int_equal(memcmp(b, c, sizeof(b)), 0);
	memset(b, 1, 0);
	memcpy(b, c + 1, 0);
	assert_int_equal(b[0], 0);
}

static void test_memmove_overlap(void **state)
{
	(void)state;
	char b[16];
	memcpy(b, "0123456789", 11);
	assert_ptr_equal(memmove(b + 2, b, 8), b + 2);
	assert_memory_equal(b, "0101234567", 10);
	memcpy(b, "0123456789", 11);
	memmove(b, b + 3, 7);
	assert_memory_equal(b, "3456789789", 10);
	memmove(b, b, 10);
	assert_memory_equal(b, "3456789789", 10);
}

static void test_memcmp_sign(void **state)
{
	(void)state;
	assert_true(memcmp("abc", "abd", 3) < 0);
	assert_true(memcmp("abd", "abc", 3) > 0);
	assert_int_equal(memcmp("abc", "abd", 2), 0);
	/* Bytes compare as unsigned char. */
	assert_true(memcmp("\x80", "\x01", 1) > 0);
	assert_int_equal(memcmp("x", "y", 0), 0);
}

static void test_str(void **state)
{
	(void)state;
	assert_int_equal(strlen(""), 0);
	assert_int_equal(strlen("umbra"), 5);
	assert_int_equal(strnlen("umbra", 3), 3);
	assert_int_equal(strnlen("umbra", 10), 5);
	assert_int_equal(strnlen("", 0), 0);
	assert_int_equal(strcmp("a", "a"), 0);
	assert_true(strcmp("a", "b") < 0);
	assert_true(strcmp("ab", "a") > 0);
	assert_true(strcmp("\xff", "a") > 0);
	assert_int_equal(strncmp("cpus=4", "cpus=8", 5), 0);
	assert_true(strncmp("cpus=4", "cpus=8", 6) < 0);
	assert_int_equal(strncmp("a", "a", 100), 0);
	const char *s = "key=value";
	assert_ptr_equal(strchr(s, '='), s + 3);
	assert_ptr_equal(strchr(s, 'k'), s);
	assert_null(strchr(s, 'z'));
	assert_ptr_equal(strchr(s, '\0'), s + 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memset_memcpy),
		cmocka_unit_test(test_memmove_overlap),
		cmocka_unit_test(test_memcmp_sign),
		cmocka_unit_test(test_str),
	};
	return cmocka_run_group_tests_name("string", tests, NULL, NULL);
}
