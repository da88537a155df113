/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of the 8042 model (vmm/dev/kbc.c): status, command byte, output port, reset, A20. */
#include "tests/unit/harness.h"
#include "vmm/dev/kbc.h"

static struct kbc fresh(void)
{
	struct kbc k;
	kbc_reset(&k);
	return k;
}

static void test_status_and_self_test(void **state)
{
	(void)state;
	struct kbc k = fresh();
	assert_int_equal(kbc_read(&k, KBC_CMD) & 0x07, 0x04); /* system flag, buffers empty */
	assert_false(kbc_write(&k, KBC_CMD, 0xaa));
	assert_int_equal(kbc_read(&k, KBC_CMD) & 0x09, 0x09); /* output full, last a command */
	assert_int_equal(kbc_read(&k, KBC_DATA), 0x55);
	assert_int_equal(kbc_read(&k, KBC_CMD) & 0x01, 0);
	assert_false(kbc_write(&k, KBC_CMD, 0xab));
	assert_int_equal(kbc_read(&k, KBC_DATA), 0x00);
}

static void test_command_byte(void **state)
{
	(void)state;
	struct kbc k = fresh();
	kbc_write(&k, KBC_CMD, 0x20);
	assert_int_equal(kbc_read(&k, KBC_DATA), 0x45);
	kbc_write(&k, KBC_CMD, 0x60);
	assert_false(kbc_write(&k, KBC_DATA, 0x41));
	assert_int_equal(kbc_read(&k, KBC_CMD) & 0x08, 0); /* last write was data */
	kbc_write(&k, KBC_CMD, 0x20);
	assert_int_equal(kbc_read(&k, KBC_DATA), 0x41);
	kbc_write(&k, KBC_CMD, 0xad);
	kbc_write(&k, KBC_CMD, 0x20);
	assert_int_equal(kbc_read(&k, KBC_DATA), 0x51);
	/* A data byte with no command waiting is the keyboard's: nobody answers. */
	assert_false(kbc_write(&k, KBC_DATA, 0xff));
	assert_int_equal(kbc_read(&k, KBC_CMD) & 0x01, 0);
}

/* 0xFE (and any pulse of bit 0) resets; 0xFF and pulses of other lines do not. */
static void test_reset_pulse(void **state)
{
	(void)state;
	struct kbc k = fresh();
	assert_true(kbc_write(&k, KBC_CMD, 0xfe));
	assert_true(kbc_write(&k, KBC_CMD, 0xf0));
	assert_false(kbc_write(&k, KBC_CMD, 0xff));
	assert_false(kbc_write(&k, KBC_CMD, 0xfd));
	/* The output port written with the reset line low. */
	kbc_write(&k, KBC_CMD, 0xd1);
	assert_false(kbc_write(&k, KBC_DATA, 0x03));
	kbc_write(&k, KBC_CMD, 0xd1);
	assert_true(kbc_write(&k, KBC_DATA, 0x02));
	/* 0xFE as a data byte is not a reset. */
	k = fresh();
	assert_false(kbc_write(&k, KBC_DATA, 0xfe));
}

static void test_a20(void **state)
{
	(void)state;
	struct kbc k = fresh();
	assert_true(kbc_a20(&k));
	kbc_write(&k, KBC_CMD, 0xdd);
	assert_false(kbc_a20(&k));
	kbc_write(&k, KBC_CMD, 0xdf);
	assert_true(kbc_a20(&k));
	kbc_write(&k, KBC_CMD, 0xd1);
	kbc_write(&k, KBC_DATA, 0x01);
	assert_false(kbc_a20(&k));
	kbc_write(&k, KBC_CMD, 0xd0);
	assert_int_equal(kbc_read(&k, KBC_DATA), 0x01);
	kbc_write(&k, KBC_CMD, 0xd1);
	kbc_write(&k, KBC_DATA, 0x03);
	assert_true(kbc_a20(&k));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_and_self_test),
		cmocka_unit_test(test_command_byte),
		cmocka_unit_test(test_reset_pulse),
		cmocka_unit_test(test_a20),
	};
	return cmocka_run_group_tests_name("kbc", tests, NULL, NULL);
}
