/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of an assigned function's MSI-X as its guest sees it (vmm/dev/pci_msix.c, vmm/dev/msix.c): the list, the table, pending bits, the host's programming, bad accesses. */
#include "tests/unit/harness.h"
#include <string.h>
#include "tests/dev/pci_fake.h"

#define HOST_ADDR 0xfee02000ull /* the CPU ops->msi_route picks */
#define BAR3_HOST 0xfeb00000ull /* e1000e's layout: table at 0, PBA at 0x2000 of BAR3 */
#define BAR3_SIZE 0x4000u
#define ENTRIES 5

static struct {
	u32 bar3[BAR3_SIZE / 4]; /* the host's MSI-X BAR */
	unsigned sends, host_writes;
	u64 addr;
	u32 data;
} fk;

/* The host vector rides in the data, the CPU in the address, as vmm/msi.c makes them. */
static bool f_route(void *ctx, u8 vec, const struct pci_msi_msg *msg, u64 *addr, u32 *data)
{
	(void)ctx, (void)msg;
	*addr = HOST_ADDR;
	*data = vec;
	return vec != 0;
}

static u32 *host_reg(u64 hpa)
{
	assert_true(hpa >= BAR3_HOST && hpa + 4 <= BAR3_HOST + BAR3_SIZE);
	assert_int_equal(hpa & 3, 0);
	return &fk.bar3[(hpa - BAR3_HOST) / 4];
}

static u32 f_bar_read(void *ctx, u64 hpa)
{
	(void)ctx;
	return *host_reg(hpa);
}

static void f_bar_write(void *ctx, u64 hpa, u32 val)
{
	(void)ctx;
	*host_reg(hpa) = val;
	fk.host_writes++;
}

static void f_send(void *ctx, u64 addr, u32 data)
{
	(void)ctx;
	fk.sends++;
	fk.addr = addr;
	fk.data = data;
}

static const struct pci_bus_ops ops = { .cfg_read = f_read,
					.cfg_write = f_write,
					.map = f_map,
					.unmap = f_map,
					.msi_route = f_route,
					.bar_read = f_bar_read,
					.bar_write = f_bar_write,
					.msi_send = f_send };

/* PM at 0x40, MSI at 0x50, PCIe at 0x60, MSI-X at 0x70 with five entries in BAR3; the guest
 * enables memory decode and gets a host vector 0x40 + v per entry. */
static u64 bar3; /* where the guest has BAR3 */
static void setup(struct pci_bus *b)
{
	memset(&fk, 0, sizeof(fk));
	memset(fake_cfg, 0, sizeof(fake_cfg));
	fake_cfg[0] = 0x10d38086;
	fake_cfg[1] = 0x00100000;
	fake_cfg[0x34 / 4] = 0x40;
	fake_cfg[0x40 / 4] = 0x00035001;
	fake_cfg[0x50 / 4] = 0x00806005; /* MSI, 64-bit */
	fake_cfg[0x60 / 4] = 0x00027010; /* PCIe */
	fake_cfg[0x70 / 4] = 0x00000011 | (ENTRIES - 1) << 16;
	fake_cfg[0x74 / 4] = 0x3;    /* table: BAR3 + 0 */
	fake_cfg[0x78 / 4] = 0x2003; /* PBA: BAR3 + 0x2000 */
	for (unsigned v = 0; v < ENTRIES; v++)
		fk.bar3[v * 4 + 3] = MSIX_ENTRY_MASKED;
	pci_bus_init(b, &ops, NULL, "g", 64ull << 20, 1ull << 40);
	struct pci_bar bars[PCI_MAX_BARS] = {
		[0] = { 0xfe800000, 0x20000, PCI_BAR_MEM32, false },
		[3] = { BAR3_HOST, BAR3_SIZE, PCI_BAR_MEM32, false },
	};
	assert_int_equal(pci_bus_add(b, BDF, bars), 1);
	for (unsigned v = 0; v < ENTRIES; v++)
		b->fn[0].msix.host_vector[v] = (u8)(0x40 + v);
	pci_bus_reset(b);
	wr(b, PCI_COMMAND, 2, PCI_CMD_MEM);
	bar3 = b->fn[0].bar[3].at;
	assert_true(b->fn[0].bar[3].live);
}

static u64 trd(struct pci_bus *b, u64 off, unsigned len)
{
	u64 v = 0xdead;
	assert_true(pci_bus_msix_access(b, bar3 + off, len, &v, false));
	return v;
}

static void twr(struct pci_bus *b, u64 off, unsigned len, u64 val)
{
	assert_true(pci_bus_msix_access(b, bar3 + off, len, &val, true));
}

/* Entry v to APIC 0 at the guest's vector, unmasked. */
static void program(struct pci_bus *b, unsigned v, u32 vector)
{
	twr(b, v * 16, 4, 0xfee00000u);
	twr(b, v * 16 + 4, 4, 0);
	twr(b, v * 16 + 8, 4, vector);
	twr(b, v * 16 + 12, 4, 0);
}

static bool host_on(void)
{
	return fake_cfg[0x70 / 4] >> 16 & MSIX_ENABLE;
}
static bool host_maskall(void)
{
	return fake_cfg[0x70 / 4] >> 16 & MSIX_MASKALL;
}

static void test_list(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	/* MSI, then MSI-X, then the end: PM and PCIe hidden, the host's order kept. */
	assert_true(rd(&b, PCI_COMMAND) >> 16 & PCI_STATUS_CAPS);
	assert_int_equal(rd(&b, PCI_CAP_PTR), 0x50);
	assert_int_equal(rd(&b, 0x50) >> 8 & 0xff, 0x70);
	assert_int_equal(rd(&b, 0x70), PCI_CAP_MSIX | (ENTRIES - 1) << 16);
	assert_int_equal(rd(&b, 0x74), 0x3);
	assert_int_equal(rd(&b, 0x78), 0x2003);
	assert_int_equal(rd(&b, 0x60), 0);
	assert_int_equal(rd(&b, 0x40), 0);
	/* Enable and function mask are the guest's; table size, ID, next pointer and the
	 * placement dwords are read-only (their writes counted). */
	wr(&b, 0x70, 4, 0xffffffffu);
	assert_int_equal(rd(&b, 0x70), PCI_CAP_MSIX | (MSIX_ENABLE | MSIX_MASKALL | (ENTRIES - 1))
							      << 16);
	wr(&b, 0x72, 2, 0x07ff);
	assert_int_equal(rd(&b, 0x70), PCI_CAP_MSIX | (ENTRIES - 1) << 16);
	u64 bad = b.fn[0].msix.x.bad;
	wr(&b, 0x70, 1, 0x05);
	assert_int_equal(rd(&b, 0x70) & 0xffff, PCI_CAP_MSIX);
	wr(&b, 0x74, 4, 0x1234);
	wr(&b, 0x78, 4, 0x1234);
	assert_int_equal(rd(&b, 0x74), 0x3);
	assert_int_equal(rd(&b, 0x78), 0x2003);
	assert_int_equal(b.fn[0].msix.x.bad, bad + 3);
	/* MSI-X alone: the head is MSI-X, its next 0. */
	setup(&b);
	fake_cfg[0x50 / 4] = 0x00006001; /* PM instead of MSI */
	fake_cfg[1] = 0x00100000;	 /* the fake kept the command write's zero status */
	struct pci_bus b2;
	pci_bus_init(&b2, &ops, NULL, "g", 64ull << 20, 1ull << 40);
	struct pci_bar bars[PCI_MAX_BARS] = { [3] = { BAR3_HOST, BAR3_SIZE, PCI_BAR_MEM32,
						      false } };
	assert_int_equal(pci_bus_add(&b2, BDF, bars), 1);
	assert_int_equal(rd(&b2, PCI_CAP_PTR), 0x70);
	assert_int_equal(rd(&b2, 0x70) >> 8 & 0xff, 0);
	/* A table outside its BAR, or in an I/O BAR, hides MSI-X. */
	fake_cfg[0x74 / 4] = 0x4003;
	pci_bus_init(&b2, &ops, NULL, "g", 64ull << 20, 1ull << 40);
	assert_int_equal(pci_bus_add(&b2, BDF, bars), 1);
	assert_int_equal(rd(&b2, PCI_CAP_PTR), 0);
	assert_false(rd(&b2, PCI_COMMAND) >> 16 & PCI_STATUS_CAPS);
	fake_cfg[0x74 / 4] = 0x3;
	bars[3].kind = PCI_BAR_IO;
	pci_bus_init(&b2, &ops, NULL, "g", 64ull << 20, 1ull << 40);
	assert_int_equal(pci_bus_add(&b2, BDF, bars), 1);
	assert_int_equal(b2.fn[0].msix.off, 0);
}

static void test_traps(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	const struct pci_msix *m = &b.fn[0].msix;
	assert_true(pci_msix_traps(m, 3, 0));
	assert_true(pci_msix_traps(m, 3, 0xfff));
	assert_false(pci_msix_traps(m, 3, 0x1000));
	assert_true(pci_msix_traps(m, 3, 0x2000));
	assert_false(pci_msix_traps(m, 3, 0x3000));
	assert_false(pci_msix_traps(m, 0, 0));
	/* Another register in the table's page is the device's: not claimed, so forwarded. */
	u64 v;
	assert_false(pci_bus_msix_access(&b, bar3 + 0x100, 4, &v, false));
	assert_false(pci_bus_msix_access(&b, bar3 + 0x2008, 4, &v, false));
	assert_false(pci_bus_msix_access(&b, b.fn[0].bar[0].at, 4, &v, false));
}

static void test_table(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	/* At reset every entry is masked and zero. */
	for (unsigned v = 0; v < ENTRIES; v++) {
		assert_int_equal(trd(&b, v * 16 + 12, 4), MSIX_ENTRY_MASKED);
		assert_int_equal(trd(&b, v * 16, 4), 0);
	}
	/* The guest's fields read back as written, but address bits 1:0 and the reserved vector
	 * control bits, which read 0; a qword access is two fields. */
	twr(&b, 2 * 16, 4, 0xfee01003u);
	twr(&b, 2 * 16 + 8, 8, 0xffffffff00004041ull);
	assert_int_equal(trd(&b, 2 * 16, 4), 0xfee01000u);
	assert_int_equal(trd(&b, 2 * 16 + 8, 4), 0x4041);
	assert_int_equal(trd(&b, 2 * 16 + 12, 4), MSIX_ENTRY_MASKED);
	assert_int_equal(trd(&b, 2 * 16, 8), 0xfee01000u);
	assert_int_equal(trd(&b, 2 * 16 + 9, 1), 0x40); /* a byte read: its byte, counted */
	/* The host's entry: Umbra's vector at the CPU msi_route chose, masked as the guest's. */
	assert_int_equal(fk.bar3[2 * 4], (u32)HOST_ADDR);
	assert_int_equal(fk.bar3[2 * 4 + 1], 0);
	assert_int_equal(fk.bar3[2 * 4 + 2], 0x42);
	assert_int_equal(fk.bar3[2 * 4 + 3], MSIX_ENTRY_MASKED);
	twr(&b, 2 * 16 + 12, 4, 0xfffffffe);
	assert_int_equal(fk.bar3[2 * 4 + 3], 0);
	assert_int_equal(trd(&b, 2 * 16 + 12, 4), 0);
	twr(&b, 2 * 16 + 12, 4, 1);
	assert_int_equal(fk.bar3[2 * 4 + 3], MSIX_ENTRY_MASKED);
	/* The guest's enable and function mask are the host's; while on, a HLT may wait for a
	 * message. */
	assert_false(host_on());
	assert_false(pci_msi_may_arrive(&b));
	wr(&b, 0x72, 2, MSIX_ENABLE | MSIX_MASKALL);
	assert_true(host_on());
	assert_true(pci_msi_may_arrive(&b));
	assert_true(host_maskall());
	wr(&b, 0x72, 2, MSIX_ENABLE);
	assert_true(host_on());
	assert_false(host_maskall());
	wr(&b, 0x72, 2, 0);
	assert_false(host_on());
	assert_false(pci_msi_may_arrive(&b));
}

static void test_delivery(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	program(&b, 1, 0x51);
	/* Off: an arrival is the caller's to drop. */
	assert_false(pci_msix_arrived(&b, 0, 1));
	assert_int_equal(fk.sends, 0);
	wr(&b, 0x72, 2, MSIX_ENABLE);
	assert_true(pci_msix_arrived(&b, 0, 1));
	assert_int_equal(fk.sends, 1);
	assert_int_equal(fk.addr, 0xfee00000u);
	assert_int_equal(fk.data, 0x51);
	/* Masked: held in the pending bit, once however often it fires; sent at the unmask. */
	twr(&b, 16 + 12, 4, 1);
	assert_true(pci_msix_arrived(&b, 0, 1));
	assert_true(pci_msix_arrived(&b, 0, 1));
	assert_int_equal(fk.sends, 1);
	assert_int_equal(trd(&b, 0x2000, 4), BIT(1));
	assert_int_equal(trd(&b, 0x2000, 8), BIT(1));
	twr(&b, 16 + 12, 4, 0);
	assert_int_equal(fk.sends, 2);
	assert_int_equal(trd(&b, 0x2000, 4), 0);
	/* The function mask holds it alike. */
	wr(&b, 0x72, 2, MSIX_ENABLE | MSIX_MASKALL);
	assert_true(pci_msix_arrived(&b, 0, 1));
	assert_int_equal(fk.sends, 2);
	wr(&b, 0x72, 2, MSIX_ENABLE);
	assert_int_equal(fk.sends, 3);
	/* What the device holds behind a masked host entry reads in the PBA too (entries the
	 * guest has only). */
	fk.bar3[0x2000 / 4] = BIT(3) | BIT(7);
	assert_int_equal(trd(&b, 0x2000, 4), BIT(3));
	assert_int_equal(trd(&b, 0x2004, 4), 0);
	/* A message that is no interrupt still goes (the guest's side drops and counts it). */
	program(&b, 0, 0x05);
	assert_true(pci_msix_arrived(&b, 0, 0));
	assert_int_equal(fk.data, 0x05);
	/* An entry past the table is nobody's. */
	assert_false(pci_msix_arrived(&b, 0, ENTRIES));
	assert_int_equal(fk.sends, 4);
}

static void test_bad(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	/* Fewer host vectors than entries: the guest sees 3. */
	pci_msix_offer(&b.fn[0], 3);
	assert_int_equal(rd(&b, 0x70) >> 16 & MSIX_QSIZE, 2);
	program(&b, 0, 0x51);
	u64 bad = b.fn[0].msix.x.bad;
	unsigned writes = fk.host_writes;
	/* Entry 3 is beyond its table: dropped, reads 0. */
	twr(&b, 3 * 16, 4, 0xfee00000u);
	assert_int_equal(trd(&b, 3 * 16, 4), 0);
	/* A byte, a word, a misaligned dword and a misaligned qword write: dropped. */
	twr(&b, 8, 1, 0x99);
	twr(&b, 8, 2, 0x9999);
	twr(&b, 10, 4, 0x99999999u);
	twr(&b, 4, 8, 0x99999999ull);
	/* The pending bits are read-only. */
	twr(&b, 0x2000, 4, 0xffffffffu);
	assert_int_equal(trd(&b, 8, 4), 0x51);
	assert_int_equal(trd(&b, 0x2000, 4), 0);
	assert_int_equal(b.fn[0].msix.x.bad, bad + 7); /* each counted, the read of entry 3 too */
	assert_int_equal(fk.host_writes, writes);
	/* An arrival for an entry the guest does not see is dropped. */
	wr(&b, 0x72, 2, MSIX_ENABLE);
	assert_false(pci_msix_arrived(&b, 0, 3));
	/* No host vector: the host entry stays masked. */
	b.fn[0].msix.host_vector[1] = 0;
	program(&b, 1, 0x52);
	assert_int_equal(fk.bar3[1 * 4 + 3], MSIX_ENTRY_MASKED);
}

static void test_reset(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	program(&b, 0, 0x51);
	wr(&b, 0x72, 2, MSIX_ENABLE);
	assert_true(host_on());
	/* The end: the host's MSI-X off with bus mastering, the guest's view kept. */
	pci_bus_quiesce(&b);
	assert_false(host_on());
	assert_int_equal(rd(&b, 0x70) >> 16 & MSIX_ENABLE, MSIX_ENABLE);
	/* The reset: as at power-on. */
	pci_bus_reset(&b);
	assert_false(host_on());
	assert_int_equal(rd(&b, 0x70) >> 16, ENTRIES - 1);
	wr(&b, PCI_COMMAND, 2, PCI_CMD_MEM);
	assert_int_equal(trd(&b, 8, 4), 0);
	assert_int_equal(trd(&b, 12, 4), MSIX_ENTRY_MASKED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list),  cmocka_unit_test(test_traps),
		cmocka_unit_test(test_table), cmocka_unit_test(test_delivery),
		cmocka_unit_test(test_bad),   cmocka_unit_test(test_reset),
	};
	return cmocka_run_group_tests_name("pci_msix", tests, NULL, NULL);
}
