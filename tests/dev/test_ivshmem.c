/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of the ivshmem registers (vmm/dev/ivshmem.c): mask, status, position, doorbell. */
#include "tests/unit/harness.h"
#include <string.h>
#include "vmm/dev/ivshmem.h"

static struct {
	unsigned n;
	u16 peer, vector;
} rang;
static struct {
	unsigned n;
	u64 addr;
	u32 data;
} sent;

static void ring(void *ctx, u16 peer, u16 vector)
{
	assert_ptr_equal(ctx, &rang);
	rang.n++;
	rang.peer = peer;
	rang.vector = vector;
}

static void msi(void *ctx, u64 addr, u32 data)
{
	assert_ptr_equal(ctx, &rang);
	sent.n++;
	sent.addr = addr;
	sent.data = data;
}

static void test_registers(void **state)
{
	(void)state;
	struct ivshmem d;
	ivshmem_reset(&d, 3, ring, msi, &rang);
	assert_int_equal(ivshmem_read(&d, 0, IVSHMEM_INTR_MASK, 4), 0);
	assert_int_equal(ivshmem_read(&d, 0, IVSHMEM_INTR_STATUS, 4), 0);
	assert_int_equal(ivshmem_read(&d, 0, IVSHMEM_IVPOSITION, 4), 3);
	/* The position is read-only; unknown offsets read 0 and take nothing. */
	ivshmem_write(&d, 0, IVSHMEM_IVPOSITION, 4, 9);
	ivshmem_write(&d, 0, 0x10, 4, 0xffffffffu);
	ivshmem_write(&d, 0, 0xfc, 4, 0xffffffffu);
	assert_int_equal(ivshmem_read(&d, 0, IVSHMEM_IVPOSITION, 4), 3);
	assert_int_equal(ivshmem_read(&d, 0, 0x10, 4), 0);
	assert_int_equal(ivshmem_read(&d, 0, 0xfc, 4), 0);
	assert_int_equal(rang.n, 0);
	/* Narrow accesses: the low bytes of the register, the offset rounded down. */
	ivshmem_write(&d, 0, IVSHMEM_INTR_MASK + 1, 1, 0x1ff);
	assert_int_equal(ivshmem_read(&d, 0, IVSHMEM_INTR_MASK, 4), 0xff);
	assert_int_equal(ivshmem_read(&d, 0, IVSHMEM_INTR_MASK + 2, 2), 0xff);
	/* The doorbell: peer in the high half, the vector in the low. */
	ivshmem_write(&d, 0, IVSHMEM_DOORBELL, 4, 0x00050002u);
	assert_int_equal(rang.n, 1);
	assert_int_equal(rang.peer, 5);
	assert_int_equal(rang.vector, 2);
	assert_int_equal(ivshmem_read(&d, 0, IVSHMEM_DOORBELL, 4), 0); /* write-only */
}

static void test_interrupt(void **state)
{
	(void)state;
	struct ivshmem d;
	ivshmem_reset(&d, 0, ring, msi, &rang);
	ivshmem_notify(&d, 0);
	assert_false(ivshmem_intx(&d)); /* masked: the status waits */
	ivshmem_write(&d, 0, IVSHMEM_INTR_MASK, 4, 1);
	assert_true(ivshmem_intx(&d));
	/* Reading the status acknowledges it; the line drops. */
	assert_int_equal(ivshmem_read(&d, 0, IVSHMEM_INTR_STATUS, 4), 1);
	assert_false(ivshmem_intx(&d));
	assert_int_equal(ivshmem_read(&d, 0, IVSHMEM_INTR_STATUS, 4), 0);
	/* A write sets the status (QEMU's); a bit outside the mask raises nothing. */
	ivshmem_write(&d, 0, IVSHMEM_INTR_STATUS, 4, 2);
	assert_false(ivshmem_intx(&d));
	ivshmem_write(&d, 0, IVSHMEM_INTR_STATUS, 4, 1);
	assert_true(ivshmem_intx(&d));
	ivshmem_reset(&d, 0, ring, msi, &rang);
	assert_false(ivshmem_intx(&d));
}

/* MSI-X: the capability, the table and pending bits in BAR1, masking per entry and for the
 * function, and INTx silent while MSI-X is on. */
static void test_msix(void **state)
{
	(void)state;
	struct ivshmem d;
	memset(&sent, 0, sizeof(sent));
	ivshmem_reset(&d, 1, ring, msi, &rang);
	assert_int_equal(ivshmem_cap_read(&d, IVSHMEM_MSIX_CAP), 0x000f0011u);
	assert_int_equal(ivshmem_cap_read(&d, IVSHMEM_MSIX_CAP + 4), 1);
	assert_int_equal(ivshmem_cap_read(&d, IVSHMEM_MSIX_CAP + 8), IVSHMEM_PBA | 1);
	assert_int_equal(ivshmem_cap_read(&d, IVSHMEM_MSIX_CAP + 12), 0);
	for (unsigned v = 0; v < IVSHMEM_VECTORS; v++)
		assert_int_equal(ivshmem_read(&d, 1, v * 16 + 12, 4), 1); /* masked at reset */
	/* Entry 2: address, data, unmasked; a partial write of a field is dropped. */
	ivshmem_write(&d, 1, 2 * 16, 4, 0xfee01000u);
	ivshmem_write(&d, 1, 2 * 16 + 8, 4, 0x41);
	ivshmem_write(&d, 1, 2 * 16 + 8, 1, 0x99);
	ivshmem_write(&d, 1, 2 * 16 + 12, 4, 0);
	assert_int_equal(ivshmem_read(&d, 1, 2 * 16 + 8, 4), 0x41);
	assert_int_equal(ivshmem_read(&d, 1, 2 * 16 + 1, 1), 0x10);
	/* Off: a doorbell is INTx status; the PBA and the capability's read-only bits ignore writes. */
	ivshmem_notify(&d, 2);
	assert_int_equal(sent.n, 0);
	assert_int_equal(ivshmem_read(&d, 0, IVSHMEM_INTR_STATUS, 4), 1);
	ivshmem_write(&d, 1, IVSHMEM_PBA, 4, 0xffffffffu);
	assert_int_equal(ivshmem_read(&d, 1, IVSHMEM_PBA, 4), 0);
	ivshmem_cap_write(&d, IVSHMEM_MSIX_CAP, 0xffff0000u | 0x1234, 0xf);
	assert_int_equal(ivshmem_cap_read(&d, IVSHMEM_MSIX_CAP), 0xc00f0011u);
	ivshmem_cap_write(&d, IVSHMEM_MSIX_CAP, MSIX_ENABLE << 16, 0xc);
	/* On: the entry's message; INTx stays quiet whatever the mask register says. */
	ivshmem_write(&d, 0, IVSHMEM_INTR_MASK, 4, 1);
	ivshmem_notify(&d, 2);
	assert_int_equal(sent.n, 1);
	assert_int_equal(sent.addr, 0xfee01000u);
	assert_int_equal(sent.data, 0x41);
	assert_false(ivshmem_intx(&d));
	/* A masked entry holds its message in the PBA until unmasked, once however often rung. */
	ivshmem_notify(&d, 5);
	ivshmem_notify(&d, 5);
	assert_int_equal(sent.n, 1);
	assert_int_equal(ivshmem_read(&d, 1, IVSHMEM_PBA, 4), BIT(5));
	ivshmem_write(&d, 1, 5 * 16 + 8, 4, 0x42);
	ivshmem_write(&d, 1, 5 * 16 + 12, 4, 0);
	assert_int_equal(sent.n, 2);
	assert_int_equal(sent.data, 0x42);
	assert_int_equal(ivshmem_read(&d, 1, IVSHMEM_PBA, 4), 0);
	/* The function mask holds them all; clearing it sends what waited. */
	ivshmem_cap_write(&d, IVSHMEM_MSIX_CAP, (MSIX_ENABLE | MSIX_MASKALL) << 16, 0xc);
	ivshmem_notify(&d, 2);
	assert_int_equal(sent.n, 2);
	assert_int_equal(ivshmem_read(&d, 1, IVSHMEM_PBA, 4), BIT(2));
	ivshmem_cap_write(&d, IVSHMEM_MSIX_CAP, MSIX_ENABLE << 16, 0xc);
	assert_int_equal(sent.n, 3);
	assert_int_equal(sent.data, 0x41);
	/* A vector past the table is nobody's; reading outside the table and PBA gives 0. */
	ivshmem_notify(&d, IVSHMEM_VECTORS);
	assert_int_equal(sent.n, 3);
	assert_int_equal(ivshmem_read(&d, 1, 0x400, 4), 0);
	/* Reset: off, every entry masked. */
	ivshmem_reset(&d, 1, ring, msi, &rang);
	assert_int_equal(ivshmem_cap_read(&d, IVSHMEM_MSIX_CAP) >> 16, 0x000f);
	assert_int_equal(ivshmem_read(&d, 1, 2 * 16 + 12, 4), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registers),
		cmocka_unit_test(test_interrupt),
		cmocka_unit_test(test_msix),
	};
	return cmocka_run_group_tests_name("ivshmem", tests, NULL, NULL);
}
