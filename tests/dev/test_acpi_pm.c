/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of the ACPI PM register model: the PM timer's rate and width, PM1 status, enable and control, soft-off. */
#include "tests/unit/harness.h"
#include "vmm/dev/acpi_pm.h"

#define T0 1000000000ull /* the fake clock's power-on instant */
#define SEC 1000000000ull

static struct acpi_pm pm;

static int setup(void **state)
{
	(void)state;
	acpi_pm_reset(&pm, T0);
	return 0;
}

static void timer_counts_at_3579545_hz(void **state)
{
	(void)state;
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM_TMR, 4, T0), 0);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM_TMR, 4, T0 + SEC), 3579545);
	/* 1 ms is 3579.545 ticks: whole ticks only, never early. */
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM_TMR, 4, T0 + 1000000), 3579);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM_TMR, 4, T0 + 279), 0);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM_TMR, 4, T0 + 280), 1);
}

/* 32 bits wrap after 2^32 ticks (about 1200 s); the count never jumps backwards otherwise. */
static void timer_wraps_at_32_bits(void **state)
{
	(void)state;
	u64 wrap_s = (1ull << 32) / ACPI_PM_TMR_HZ + 1;
	u64 expect = wrap_s * ACPI_PM_TMR_HZ - (1ull << 32);
	assert_int_equal(acpi_pm_timer(&pm, T0 + wrap_s * SEC), expect);
	/* Days of uptime do not overflow the arithmetic. */
	assert_int_equal(acpi_pm_timer(&pm, T0 + 86400 * 40 * SEC),
			 (u32)(86400ull * 40 * ACPI_PM_TMR_HZ));
}

static void timer_bytes_and_readonly(void **state)
{
	(void)state;
	u64 t = T0 + 3 * SEC; /* 10738635 = 0x00a3dbcb */
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM_TMR, 1, t), 0xcb);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM_TMR + 1, 2, t), 0xa3db);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM_TMR + 3, 1, t), 0x00);
	acpi_pm_write(&pm, ACPI_PM_TMR, 4, 0, t);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM_TMR, 4, t), 0x00a3dbcb);
}

static void sci_en_always_set(void **state)
{
	(void)state;
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM1_CNT, 2, T0), 1);
	acpi_pm_write(&pm, ACPI_PM1_CNT, 2, 0, T0);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM1_CNT, 2, T0), 1);
}

/* SLP_TYP is kept, SLP_EN reads 0, and only SLP_TYP 5 with SLP_EN powers off. */
static void sleep_types(void **state)
{
	(void)state;
	acpi_pm_write(&pm, ACPI_PM1_CNT, 2, 3 << 10, T0);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM1_CNT, 2, T0), (3 << 10) | 1);
	assert_false(pm.soft_off);
	acpi_pm_write(&pm, ACPI_PM1_CNT, 2, (1 << 13) | (1 << 10), T0); /* S1: not offered */
	assert_false(pm.soft_off);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM1_CNT, 2, T0), (1 << 10) | 1);
	acpi_pm_write(&pm, ACPI_PM1_CNT, 2, ACPI_SLP_TYP_S5 << 10, T0);
	assert_false(pm.soft_off);
	/* The high byte alone, as a byte-wide access would write it. */
	acpi_pm_write(&pm, ACPI_PM1_CNT + 1, 1, 0x20 | ACPI_SLP_TYP_S5 << 2, T0);
	assert_true(pm.soft_off);
}

static void enables_keep_only_defined_bits(void **state)
{
	(void)state;
	acpi_pm_write(&pm, ACPI_PM1_EVT + 2, 2, 0xffff, T0);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM1_EVT + 2, 2, T0), 0x0521);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM1_EVT, 4, T0), 0x05210000);
	/* A byte write to the low enable byte leaves the high one. */
	acpi_pm_write(&pm, ACPI_PM1_EVT + 2, 1, 0, T0);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM1_EVT + 2, 2, T0), 0x0500);
}

/* TMR_STS sets when bit 31 of the count changes and clears by writing 1; writing the enable
 * half does not clear status. */
static void timer_status(void **state)
{
	(void)state;
	u64 half = ((1ull << 31) / ACPI_PM_TMR_HZ + 1) * SEC;
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM1_EVT, 2, T0 + half - 2 * SEC), 0);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM1_EVT, 2, T0 + half), 1);
	acpi_pm_write(&pm, ACPI_PM1_EVT + 2, 2, 0x0001, T0 + half);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM1_EVT, 2, T0 + half), 1);
	acpi_pm_write(&pm, ACPI_PM1_EVT, 2, 0x0000, T0 + half);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM1_EVT, 2, T0 + half), 1);
	acpi_pm_write(&pm, ACPI_PM1_EVT, 2, 0x0001, T0 + half);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM1_EVT, 2, T0 + half), 0);
	assert_int_equal(acpi_pm_read(&pm, ACPI_PM1_EVT, 2, T0 + 2 * half), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(timer_counts_at_3579545_hz, setup),
		cmocka_unit_test_setup(timer_wraps_at_32_bits, setup),
		cmocka_unit_test_setup(timer_bytes_and_readonly, setup),
		cmocka_unit_test_setup(sci_en_always_set, setup),
		cmocka_unit_test_setup(sleep_types, setup),
		cmocka_unit_test_setup(enables_keep_only_defined_bits, setup),
		cmocka_unit_test_setup(timer_status, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
