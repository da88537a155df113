/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of the ivshmem registers (vmm/dev/ivshmem.c): mask, status, position, doorbell. */
#include "tests/unit/harness.h"
#include "vmm/dev/ivshmem.h"

static struct { unsigned n; u16 peer, vector; } rang;

static void ring(void *ctx, u16 peer, u16 vector)
{
	assert_ptr_equal(ctx, &rang);
	rang.n++;
	rang.peer = peer;
	rang.vector = vector;
}

static void test_registers(void **state)
{
	(void)state;
	struct ivshmem d;
	ivshmem_reset(&d, 3, ring, &rang);
	assert_int_equal(ivshmem_read(&d, IVSHMEM_INTR_MASK, 4), 0);
	assert_int_equal(ivshmem_read(&d, IVSHMEM_INTR_STATUS, 4), 0);
	assert_int_equal(ivshmem_read(&d, IVSHMEM_IVPOSITION, 4), 3);
	/* The position is read-only; unknown offsets read 0 and take nothing. */
	ivshmem_write(&d, IVSHMEM_IVPOSITION, 4, 9);
	ivshmem_write(&d, 0x10, 4, 0xffffffffu);
	ivshmem_write(&d, 0xfc, 4, 0xffffffffu);
	assert_int_equal(ivshmem_read(&d, IVSHMEM_IVPOSITION, 4), 3);
	assert_int_equal(ivshmem_read(&d, 0x10, 4), 0);
	assert_int_equal(ivshmem_read(&d, 0xfc, 4), 0);
	assert_int_equal(rang.n, 0);
	/* Narrow accesses: the low bytes of the register, the offset rounded down. */
	ivshmem_write(&d, IVSHMEM_INTR_MASK + 1, 1, 0x1ff);
	assert_int_equal(ivshmem_read(&d, IVSHMEM_INTR_MASK, 4), 0xff);
	assert_int_equal(ivshmem_read(&d, IVSHMEM_INTR_MASK + 2, 2), 0xff);
	/* The doorbell: peer in the high half, the vector in the low. */
	ivshmem_write(&d, IVSHMEM_DOORBELL, 4, 0x00050002u);
	assert_int_equal(rang.n, 1);
	assert_int_equal(rang.peer, 5);
	assert_int_equal(rang.vector, 2);
	assert_int_equal(ivshmem_read(&d, IVSHMEM_DOORBELL, 4), 0);   /* write-only */
}

static void test_interrupt(void **state)
{
	(void)state;
	struct ivshmem d;
	ivshmem_reset(&d, 0, ring, &rang);
	ivshmem_notify(&d);
	assert_false(ivshmem_intx(&d));           /* masked: the status waits */
	ivshmem_write(&d, IVSHMEM_INTR_MASK, 4, 1);
	assert_true(ivshmem_intx(&d));
	/* Reading the status acknowledges it; the line drops. */
	assert_int_equal(ivshmem_read(&d, IVSHMEM_INTR_STATUS, 4), 1);
	assert_false(ivshmem_intx(&d));
	assert_int_equal(ivshmem_read(&d, IVSHMEM_INTR_STATUS, 4), 0);
	/* A write sets the status (QEMU's); a bit outside the mask raises nothing. */
	ivshmem_write(&d, IVSHMEM_INTR_STATUS, 4, 2);
	assert_false(ivshmem_intx(&d));
	ivshmem_write(&d, IVSHMEM_INTR_STATUS, 4, 1);
	assert_true(ivshmem_intx(&d));
	ivshmem_reset(&d, 0, ring, &rang);
	assert_false(ivshmem_intx(&d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registers), cmocka_unit_test(test_interrupt),
	};
	return cmocka_run_group_tests_name("ivshmem", tests, NULL, NULL);
}
