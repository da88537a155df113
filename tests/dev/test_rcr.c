/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of the reset control register model (vmm/dev/rcr.c): which writes reset. */
#include "tests/unit/harness.h"
#include "vmm/dev/rcr.h"

static void test_writes(void **state)
{
	(void)state;
	struct rcr r;
	rcr_reset(&r);
	assert_int_equal(rcr_read(&r), 0);
	assert_false(rcr_write(&r, 0x02)); /* SYS_RST alone: a choice, no reset */
	assert_int_equal(rcr_read(&r), 0x02);
	assert_true(rcr_write(&r, RCR_RESET_VALUE)); /* SYS_RST | RST_CPU: hard reset */
	assert_int_equal(rcr_read(&r), 0x02);	     /* RST_CPU reads 0 */
	assert_true(rcr_write(&r, 0x04));	     /* soft reset */
	assert_true(rcr_write(&r, 0x0e));	     /* full reset */
	assert_int_equal(rcr_read(&r), 0x0a);
	assert_false(rcr_write(&r, 0xf1)); /* reserved bits only */
	assert_int_equal(rcr_read(&r), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_writes) };
	return cmocka_run_group_tests_name("rcr", tests, NULL, NULL);
}
