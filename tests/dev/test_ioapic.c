/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of the I/O APIC model: registers, edge and level pins, Remote IRR, EOI, messages. */
#include <string.h>
#include "tests/unit/harness.h"
#include "vmm/dev/ioapic.h"

#define FIXED_EDGE(vec) ((u32)(vec))
#define FIXED_LEVEL(vec) ((u32)(vec) | IOAPIC_RTE_LEVEL)

static u32 reg_read(struct ioapic *io, u32 idx)
{
	ioapic_mmio_write(io, IOAPIC_REGSEL, idx);
	return ioapic_mmio_read(io, IOAPIC_WIN);
}

static void reg_write(struct ioapic *io, u32 idx, u32 val)
{
	ioapic_mmio_write(io, IOAPIC_REGSEL, idx);
	ioapic_mmio_write(io, IOAPIC_WIN, val);
}

static u32 redir_lo(struct ioapic *io, unsigned pin)
{
	return reg_read(io, IOAPIC_REG_REDIR + 2 * pin);
}

static void set_entry(struct ioapic *io, unsigned pin, u32 lo, u8 dest)
{
	reg_write(io, IOAPIC_REG_REDIR + 2 * pin + 1, (u32)dest << 24);
	reg_write(io, IOAPIC_REG_REDIR + 2 * pin, lo);
}

/* Takes one message, which must carry vector. */
static void expect_msg(struct ioapic *io, u8 vector)
{
	struct ioapic_msg m;
	assert_true(ioapic_take(io, &m));
	assert_int_equal(m.vector, vector);
}

static void expect_none(struct ioapic *io)
{
	struct ioapic_msg m;
	assert_false(ioapic_take(io, &m));
}

static void edge(struct ioapic *io, unsigned pin)
{
	ioapic_set_irq(io, pin, false);
	ioapic_set_irq(io, pin, true);
}

static void test_reset_state(void **state)
{
	(void)state;
	struct ioapic io;
	memset(&io, 0xa5, sizeof(io));
	ioapic_reset(&io, 0x12); /* the ID is 4 bits */
	assert_int_equal(ioapic_mmio_read(&io, IOAPIC_REGSEL), 0);
	assert_int_equal(reg_read(&io, IOAPIC_REG_ID), 0x02000000);
	assert_int_equal(reg_read(&io, IOAPIC_REG_VER), 0x00170020);
	assert_int_equal(reg_read(&io, IOAPIC_REG_ARB), 0x02000000);
	for (unsigned pin = 0; pin < IOAPIC_PINS; pin++) {
		assert_int_equal(redir_lo(&io, pin), 0x00010000);
		assert_int_equal(reg_read(&io, IOAPIC_REG_REDIR + 2 * pin + 1), 0);
	}
	assert_int_equal(io.lines, 0);
	assert_int_equal(io.pending, 0);
	edge(&io, 4); /* masked: nothing */
	expect_none(&io);
}

static void test_id_version_arbitration(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 0);
	reg_write(&io, IOAPIC_REG_ID, 0xffffffff); /* only bits 24-27 stick */
	assert_int_equal(reg_read(&io, IOAPIC_REG_ID), 0x0f000000);
	assert_int_equal(io.id, 0xf);
	reg_write(&io, IOAPIC_REG_ID, 0x09000000);
	assert_int_equal(reg_read(&io, IOAPIC_REG_ID), 0x09000000);
	assert_int_equal(reg_read(&io, IOAPIC_REG_ARB), 0x09000000);
	reg_write(&io, IOAPIC_REG_VER, 0); /* read-only */
	reg_write(&io, IOAPIC_REG_ARB, 0x05000000);
	assert_int_equal(reg_read(&io, IOAPIC_REG_VER), 0x00170020);
	assert_int_equal(reg_read(&io, IOAPIC_REG_ARB), 0x09000000);
	assert_int_equal(io.id, 9);
}

static void test_regsel_window(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 3);
	ioapic_mmio_write(&io, IOAPIC_REGSEL, 0xabcd0111); /* only the low 8 bits: 0x11 */
	assert_int_equal(ioapic_mmio_read(&io, IOAPIC_REGSEL), 0x11);
	ioapic_mmio_write(&io, IOAPIC_WIN, 0x7a000000);
	assert_int_equal(io.redir[0], 0x7a00000000010000ull);
	ioapic_mmio_write(&io, IOAPIC_REGSEL, 0x12);
	ioapic_mmio_write(&io, IOAPIC_WIN, 0x31);
	assert_int_equal(io.redir[1], 0x31);
	assert_int_equal(ioapic_mmio_read(&io, IOAPIC_WIN), 0x31);
	/* The last entry is at 0x3e/0x3f. */
	set_entry(&io, 23, 0x1fe, 0x44);
	assert_int_equal(io.redir[23], 0x44000000000001feull);
	/* Other offsets: reads 0, writes do nothing (not even to the selected register). */
	assert_int_equal(ioapic_mmio_read(&io, 0x04), 0);
	assert_int_equal(ioapic_mmio_read(&io, 0x14), 0);
	assert_int_equal(ioapic_mmio_read(&io, 0x20), 0);
	assert_int_equal(ioapic_mmio_read(&io, IOAPIC_EOI), 0);
	ioapic_mmio_write(&io, IOAPIC_REGSEL, IOAPIC_REG_REDIR + 2);
	ioapic_mmio_write(&io, 0x14, 0x55);
	ioapic_mmio_write(&io, 0x20, 0x55);
	ioapic_mmio_write(&io, 0xff0, 0x55);
	assert_int_equal(ioapic_mmio_read(&io, IOAPIC_REGSEL), 0x12);
	assert_int_equal(ioapic_mmio_read(&io, IOAPIC_WIN), 0x31);
}

static void test_read_only_and_reserved_bits(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 0);
	reg_write(&io, IOAPIC_REG_REDIR + 2 * 5, 0xffffffff);
	/* Bits 0-11, 13, 15, 16; not delivery status, Remote IRR or 17-31. */
	assert_int_equal(redir_lo(&io, 5), 0x0001afff);
	reg_write(&io, IOAPIC_REG_REDIR + 2 * 5 + 1, 0xffffffff);
	assert_int_equal(reg_read(&io, IOAPIC_REG_REDIR + 2 * 5 + 1), 0xff000000);
	/* Remote IRR set by a delivery survives writes that clear or set bits 12 and 14. */
	set_entry(&io, 5, FIXED_LEVEL(0x35), 0);
	ioapic_set_irq(&io, 5, true);
	expect_msg(&io, 0x35);
	assert_int_equal(redir_lo(&io, 5), 0x0000c035);
	reg_write(&io, IOAPIC_REG_REDIR + 2 * 5, FIXED_LEVEL(0x36));
	assert_int_equal(redir_lo(&io, 5), 0x0000c036);
	reg_write(&io, IOAPIC_REG_REDIR + 2 * 5 + 1, 0x01000000);
	assert_int_equal(redir_lo(&io, 5), 0x0000c036);
	/* Writing both read-only bits as 1 on an idle pin sets neither. */
	reg_write(&io, IOAPIC_REG_REDIR + 2 * 6, 0x5040 | IOAPIC_RTE_LEVEL);
	assert_int_equal(redir_lo(&io, 6), 0x00008040);
	expect_none(&io);
}

static void test_reserved_indices(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 7);
	set_entry(&io, 0, 0x20, 1);
	struct ioapic before;
	memcpy(&before, &io, sizeof(io)); /* padding too: reset cleared it */
	static const u32 idx[] = { 0x03, 0x08, 0x0f, 0x40, 0x41, 0x80, 0xff };
	for (unsigned i = 0; i < ARRAY_SIZE(idx); i++) {
		assert_int_equal(reg_read(&io, idx[i]), 0);
		reg_write(&io, idx[i], 0xffffffff);
		assert_int_equal(reg_read(&io, idx[i]), 0);
	}
	io.sel = before.sel;
	assert_memory_equal(&io, &before, sizeof(io));
}

static void test_edge_once_per_edge(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 0);
	set_entry(&io, 4, FIXED_EDGE(0x34), 0);
	ioapic_set_irq(&io, 4, true);
	ioapic_set_irq(&io, 4, true); /* staying high: no second edge */
	expect_msg(&io, 0x34);
	expect_none(&io);
	ioapic_set_irq(&io, 4, true);
	expect_none(&io);
	ioapic_set_irq(&io, 4, false); /* falling edge: nothing */
	expect_none(&io);
	/* Two edges before a take: one request (the latch holds one). */
	edge(&io, 4);
	edge(&io, 4);
	expect_msg(&io, 0x34);
	expect_none(&io);
	/* A request latched then the line falls: still delivered (it was an edge). */
	edge(&io, 4);
	ioapic_set_irq(&io, 4, false);
	expect_msg(&io, 0x34);
	assert_int_equal(redir_lo(&io, 4), 0x34); /* no Remote IRR for edge */
}

static void test_masked_edge_lost(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 0);
	set_entry(&io, 3, FIXED_EDGE(0x33) | IOAPIC_RTE_MASKED, 0);
	ioapic_set_irq(&io, 3, true);
	assert_int_equal(io.pending, 0);
	reg_write(&io, IOAPIC_REG_REDIR + 6, FIXED_EDGE(0x33));
	expect_none(&io); /* still high, but the edge is gone */
	ioapic_set_irq(&io, 3, false);
	ioapic_set_irq(&io, 3, true);
	expect_msg(&io, 0x33);
}

static void test_edge_latched_then_masked(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 0);
	set_entry(&io, 7, FIXED_EDGE(0x37), 0);
	edge(&io, 7);
	reg_write(&io, IOAPIC_REG_REDIR + 14, FIXED_EDGE(0x37) | IOAPIC_RTE_MASKED);
	expect_none(&io);
	assert_int_equal(redir_lo(&io, 7), 0x00010037);
	reg_write(&io, IOAPIC_REG_REDIR + 14, FIXED_EDGE(0x37));
	assert_int_equal(redir_lo(&io, 7), 0x00001037);
	expect_msg(&io, 0x37);
	expect_none(&io);
}

static void test_delivery_status(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 0);
	set_entry(&io, 1, FIXED_EDGE(0x31), 0);
	set_entry(&io, 2, FIXED_LEVEL(0x32), 0);
	assert_int_equal(redir_lo(&io, 1) & IOAPIC_RTE_DELIVS, 0);
	assert_int_equal(redir_lo(&io, 2) & IOAPIC_RTE_DELIVS, 0);
	edge(&io, 1);
	ioapic_set_irq(&io, 2, true);
	assert_int_equal(redir_lo(&io, 1), 0x1031);
	assert_int_equal(redir_lo(&io, 2), 0x9032);
	expect_msg(&io, 0x31);
	expect_msg(&io, 0x32);
	assert_int_equal(redir_lo(&io, 1), 0x0031);
	assert_int_equal(redir_lo(&io, 2), 0xc032); /* Remote IRR, not pending */
}

static void test_level_remote_irr_eoi(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 0);
	set_entry(&io, 10, FIXED_LEVEL(0x5a), 0);
	ioapic_set_irq(&io, 10, true);
	struct ioapic_msg m;
	assert_true(ioapic_take(&io, &m));
	assert_int_equal(m.vector, 0x5a);
	assert_true(m.level);
	assert_int_equal(redir_lo(&io, 10) & IOAPIC_RTE_REMOTE_IRR, IOAPIC_RTE_REMOTE_IRR);
	expect_none(&io);      /* Remote IRR holds it while still asserted */
	ioapic_eoi(&io, 0x5b); /* another vector: nothing */
	expect_none(&io);
	ioapic_eoi(&io, 0x5a); /* still asserted: again */
	expect_msg(&io, 0x5a);
	expect_none(&io);
	ioapic_set_irq(&io, 10, false);
	assert_int_equal(redir_lo(&io, 10) & IOAPIC_RTE_REMOTE_IRR, IOAPIC_RTE_REMOTE_IRR);
	ioapic_eoi(&io, 0x5a);
	assert_int_equal(redir_lo(&io, 10), 0x805a);
	expect_none(&io);
	/* Asserted then deasserted before anyone took it: the request is withdrawn. */
	ioapic_set_irq(&io, 10, true);
	ioapic_set_irq(&io, 10, false);
	expect_none(&io);
}

static void test_eoi_shared_vector(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 0);
	set_entry(&io, 16, FIXED_LEVEL(0x60), 0);
	set_entry(&io, 17, FIXED_LEVEL(0x60), 0);
	set_entry(&io, 18, FIXED_EDGE(0x60), 0);
	ioapic_set_irq(&io, 16, true);
	ioapic_set_irq(&io, 17, true);
	expect_msg(&io, 0x60);
	expect_msg(&io, 0x60);
	expect_none(&io);
	ioapic_set_irq(&io, 16, false);
	ioapic_eoi(&io, 0x60); /* both level pins with the vector */
	assert_int_equal(redir_lo(&io, 16), 0x8060);
	assert_int_equal(redir_lo(&io, 17), 0x9060);
	expect_msg(&io, 0x60);
	expect_none(&io);
	assert_int_equal(redir_lo(&io, 18), 0x0060);
}

static void test_active_low(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 0);
	set_entry(&io, 11, FIXED_LEVEL(0x4b) | IOAPIC_RTE_ACTIVE_LOW, 0);
	set_entry(&io, 12, FIXED_EDGE(0x4c) | IOAPIC_RTE_ACTIVE_LOW, 0);
	ioapic_set_irq(&io, 11, true); /* idle high */
	ioapic_set_irq(&io, 12, true); /* a rising edge is a deasserting one here */
	expect_none(&io);
	ioapic_set_irq(&io, 12, false); /* falling: asserted */
	expect_msg(&io, 0x4c);
	expect_none(&io);
	ioapic_set_irq(&io, 11, false);
	expect_msg(&io, 0x4b);
	ioapic_set_irq(&io, 11, true);
	ioapic_eoi(&io, 0x4b);
	expect_none(&io);
	/* The same level pin active high: line high now asserts it. */
	reg_write(&io, IOAPIC_REG_REDIR + 22, FIXED_LEVEL(0x4b));
	expect_msg(&io, 0x4b);
}

static void test_unmask_asserted_level(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 0);
	set_entry(&io, 9, FIXED_LEVEL(0x49) | IOAPIC_RTE_MASKED, 0);
	ioapic_set_irq(&io, 9, true);
	expect_none(&io);
	assert_int_equal(redir_lo(&io, 9), 0x18049); /* no delivery status while masked */
	reg_write(&io, IOAPIC_REG_REDIR + 18, FIXED_LEVEL(0x49));
	assert_int_equal(redir_lo(&io, 9), 0x9049);
	expect_msg(&io, 0x49);
	/* Masked with Remote IRR set: EOI clears it, delivery waits for the unmask. */
	reg_write(&io, IOAPIC_REG_REDIR + 18, FIXED_LEVEL(0x49) | IOAPIC_RTE_MASKED);
	ioapic_eoi(&io, 0x49);
	assert_int_equal(redir_lo(&io, 9), 0x18049);
	expect_none(&io);
	reg_write(&io, IOAPIC_REG_REDIR + 18, FIXED_LEVEL(0x49));
	expect_msg(&io, 0x49);
}

static void test_trigger_change_clears_remote_irr(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 0);
	set_entry(&io, 14, FIXED_LEVEL(0x4e), 0);
	ioapic_set_irq(&io, 14, true);
	expect_msg(&io, 0x4e);
	/* Linux's EOI without the EOI register: mask, edge, level, unmask. */
	u32 idx = IOAPIC_REG_REDIR + 28;
	reg_write(&io, idx, FIXED_LEVEL(0x4e) | IOAPIC_RTE_MASKED);
	assert_int_equal(redir_lo(&io, 14), 0x1c04e);
	reg_write(&io, idx, FIXED_EDGE(0x4e) | IOAPIC_RTE_MASKED);
	assert_int_equal(redir_lo(&io, 14), 0x1004e);
	reg_write(&io, idx, FIXED_LEVEL(0x4e) | IOAPIC_RTE_MASKED);
	assert_int_equal(redir_lo(&io, 14), 0x1804e);
	expect_none(&io);
	reg_write(&io, idx, FIXED_LEVEL(0x4e));
	expect_msg(&io, 0x4e); /* still asserted */
	/* Going to edge with the line high is no edge. */
	reg_write(&io, idx, FIXED_EDGE(0x4e));
	assert_int_equal(redir_lo(&io, 14), 0x004e);
	expect_none(&io);
}

static void test_edge_to_level_drops_latch(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 0);
	set_entry(&io, 6, FIXED_EDGE(0x46), 0);
	edge(&io, 6);
	ioapic_set_irq(&io, 6, false);
	reg_write(&io, IOAPIC_REG_REDIR + 12, FIXED_LEVEL(0x46));
	expect_none(&io); /* level, and the line is low */
	assert_int_equal(io.pending, 0);
	reg_write(&io, IOAPIC_REG_REDIR + 12, FIXED_EDGE(0x46));
	expect_none(&io);
}

static void test_eoi_register(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 0);
	set_entry(&io, 20, FIXED_LEVEL(0x70), 0);
	ioapic_set_irq(&io, 20, true);
	expect_msg(&io, 0x70);
	ioapic_mmio_write(&io, IOAPIC_EOI, 0x71);
	expect_none(&io);
	ioapic_mmio_write(&io, IOAPIC_EOI, 0xffffff70); /* the vector is bits 0-7 */
	assert_int_equal(redir_lo(&io, 20), 0x9070);
	expect_msg(&io, 0x70);
	ioapic_set_irq(&io, 20, false);
	ioapic_mmio_write(&io, IOAPIC_EOI, 0x70);
	assert_int_equal(redir_lo(&io, 20), 0x8070);
	assert_int_equal(ioapic_mmio_read(&io, IOAPIC_EOI), 0); /* write-only */
	expect_none(&io);
}

static void test_pin_out_of_range(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 0);
	for (unsigned pin = 0; pin < IOAPIC_PINS; pin++)
		set_entry(&io, pin, FIXED_EDGE(0x20 + pin), 0);
	ioapic_set_irq(&io, IOAPIC_PINS, true);
	ioapic_set_irq(&io, 31, true);
	ioapic_set_irq(&io, 32, true);
	ioapic_set_irq(&io, 1000, true);
	assert_int_equal(io.lines, 0);
	assert_int_equal(io.pending, 0);
	expect_none(&io);
	ioapic_set_irq(&io, IOAPIC_PINS - 1, true);
	expect_msg(&io, 0x20 + IOAPIC_PINS - 1);
}

static void test_message_fields(void **state)
{
	(void)state;
	struct ioapic io;
	struct ioapic_msg m;
	ioapic_reset(&io, 0);
	set_entry(&io, 0, 0x41 | IOAPIC_DM_LOWEST << 8 | IOAPIC_RTE_LOGICAL, 0xa5);
	set_entry(&io, 1, 0x00 | IOAPIC_DM_NMI << 8, 0x03);
	set_entry(&io, 2, 0x00 | IOAPIC_DM_EXTINT << 8 | IOAPIC_RTE_LEVEL, 0xff);
	edge(&io, 0);
	edge(&io, 1);
	ioapic_set_irq(&io, 2, true);
	assert_true(ioapic_take(&io, &m));
	assert_int_equal(m.vector, 0x41);
	assert_int_equal(m.dest, 0xa5);
	assert_int_equal(m.delivery, IOAPIC_DM_LOWEST);
	assert_true(m.logical);
	assert_false(m.level);
	assert_true(ioapic_take(&io, &m));
	assert_int_equal(m.vector, 0);
	assert_int_equal(m.dest, 0x03);
	assert_int_equal(m.delivery, IOAPIC_DM_NMI);
	assert_false(m.logical);
	assert_false(m.level);
	assert_true(ioapic_take(&io, &m));
	assert_int_equal(m.dest, 0xff);
	assert_int_equal(m.delivery, IOAPIC_DM_EXTINT);
	assert_true(m.level);
	assert_false(ioapic_take(&io, &m));
	/* Reserved high bits written do not leak into the destination. */
	reg_write(&io, IOAPIC_REG_REDIR + 1, 0x12ffffff);
	edge(&io, 0);
	assert_true(ioapic_take(&io, &m));
	assert_int_equal(m.dest, 0x12);
}

static void test_order_lowest_pin_first(void **state)
{
	(void)state;
	struct ioapic io;
	ioapic_reset(&io, 0);
	set_entry(&io, 17, FIXED_EDGE(0x91), 0);
	set_entry(&io, 9, FIXED_EDGE(0x89), 0);
	set_entry(&io, 2, FIXED_EDGE(0xe2), 0);
	set_entry(&io, 5, FIXED_LEVEL(0x25), 0);
	edge(&io, 17);
	edge(&io, 9);
	ioapic_set_irq(&io, 5, true);
	edge(&io, 2);
	assert_int_equal(io.pending, (1u << 17) | (1u << 9) | (1u << 2));
	expect_msg(&io, 0xe2);
	expect_msg(&io, 0x25);
	edge(&io, 2); /* comes in again before 9 and 17 go */
	expect_msg(&io, 0xe2);
	expect_msg(&io, 0x89);
	expect_msg(&io, 0x91);
	expect_none(&io);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_state),
		cmocka_unit_test(test_id_version_arbitration),
		cmocka_unit_test(test_regsel_window),
		cmocka_unit_test(test_read_only_and_reserved_bits),
		cmocka_unit_test(test_reserved_indices),
		cmocka_unit_test(test_edge_once_per_edge),
		cmocka_unit_test(test_masked_edge_lost),
		cmocka_unit_test(test_edge_latched_then_masked),
		cmocka_unit_test(test_delivery_status),
		cmocka_unit_test(test_level_remote_irr_eoi),
		cmocka_unit_test(test_eoi_shared_vector),
		cmocka_unit_test(test_active_low),
		cmocka_unit_test(test_unmask_asserted_level),
		cmocka_unit_test(test_trigger_change_clears_remote_irr),
		cmocka_unit_test(test_edge_to_level_drops_latch),
		cmocka_unit_test(test_eoi_register),
		cmocka_unit_test(test_pin_out_of_range),
		cmocka_unit_test(test_message_fields),
		cmocka_unit_test(test_order_lowest_pin_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
