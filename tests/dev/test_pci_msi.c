/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of the MSI capability the guest sees (vmm/dev/pci_msi.c): the filtered list, messages, refusals, the host's programming. */
#include "tests/unit/harness.h"
#include <string.h>
#include "tests/dev/pci_fake.h"

#define HOST_VEC 0x47
#define HOST_ADDR 0xfee02000ull /* the CPU ops->msi_route picks */

/* One host function's configuration space; what the bus asked of the host side. */
static struct {
	unsigned routes;
	struct pci_msi_msg last;
	bool no_vector;
} fk;

static bool f_route(void *ctx, u8 vec, const struct pci_msi_msg *msg, u64 *addr, u32 *data)
{
	(void)ctx, (void)vec;
	fk.routes++;
	fk.last = *msg;
	*addr = HOST_ADDR;
	*data = HOST_VEC;
	return !fk.no_vector;
}

static const struct pci_bus_ops ops = {
	.cfg_read = f_read, .cfg_write = f_write, .map = f_map, .unmap = f_map, .msi_route = f_route
};

/* A power-management capability at 0x40, MSI at 0x50 (64-bit, per-vector masking, 4 messages
 * capable), PCIe at 0x70: the guest must see MSI alone (MSI-X: tests/dev/test_pci_msix.c). */
static void setup(struct pci_bus *b, u32 msi_ctrl)
{
	memset(&fk, 0, sizeof(fk));
	memset(fake_cfg, 0, sizeof(fake_cfg));
	fake_cfg[0] = 0x11e81234;
	fake_cfg[1] = 0x00100000;
	fake_cfg[0x34 / 4] = 0x40;
	fake_cfg[0x40 / 4] = 0x00035001;	      /* PM, next 0x50 */
	fake_cfg[0x50 / 4] = 0x7005 | msi_ctrl << 16; /* MSI, next 0x70 */
	fake_cfg[0x70 / 4] = 0x00020010;	      /* PCIe, last */
	pci_bus_init(b, &ops, NULL, "g", 64ull << 20, 1ull << 40);
	struct pci_bar bars[PCI_MAX_BARS] = { { 0xfea00000, 1 << 20, PCI_BAR_MEM32, false } };
	assert_int_equal(pci_bus_add(b, BDF, bars), 1);
	pci_bus_reset(b);
}

static bool host_on(void)
{
	return fake_cfg[0x50 / 4] >> 16 & PCI_MSI_ENABLE;
}

static void test_list(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b, PCI_MSI_64BIT | PCI_MSI_MASKABLE | 2u << 1);
	assert_true(rd(&b, PCI_COMMAND) >> 16 & PCI_STATUS_CAPS);
	assert_int_equal(rd(&b, PCI_CAP_PTR), 0x50);
	/* Next 0; one message: Multiple Message Capable 0; 64-bit and maskable as the host. */
	assert_int_equal(rd(&b, 0x50), PCI_CAP_MSI | (PCI_MSI_64BIT | PCI_MSI_MASKABLE) << 16);
	assert_int_equal(rd(&b, 0x40), 0); /* PM hidden */
	assert_int_equal(rd(&b, 0x70), 0); /* PCIe hidden */
	wr(&b, PCI_CAP_PTR, 1, 0x70);
	assert_int_equal(rd(&b, PCI_CAP_PTR), 0x50);
	/* Multiple Message Enable keeps 0; the ID and next pointer are read-only. */
	wr(&b, 0x50, 4, 0x00704040);
	assert_int_equal(rd(&b, 0x50), PCI_CAP_MSI | (PCI_MSI_64BIT | PCI_MSI_MASKABLE) << 16);
	/* A function without capabilities shows none; a list that loops ends. */
	setup(&b, 0);
	fake_cfg[0x50 / 4] = 0x5001; /* PM pointing at itself */
	struct pci_bus b2;
	pci_bus_init(&b2, &ops, NULL, "g", 64ull << 20, 1ull << 40);
	assert_int_equal(pci_bus_add(&b2, BDF, (struct pci_bar[PCI_MAX_BARS]){ { 0 } }), 1);
	assert_int_equal(rd(&b2, PCI_CAP_PTR), 0);
	assert_false(rd(&b2, PCI_COMMAND) >> 16 & PCI_STATUS_CAPS);
}

static void test_message(void **state)
{
	(void)state;
	struct pci_bus b;
	struct pci_msi_msg m;
	setup(&b, PCI_MSI_64BIT | PCI_MSI_MASKABLE);
	wr(&b, 0x54, 4, 0xfee0300c); /* APIC ID 3, logical, RH */
	wr(&b, 0x58, 4, 0);
	wr(&b, 0x5c, 4, 0xffff0141); /* lowest priority, vector 0x41 */
	assert_int_equal(rd(&b, 0x54), 0xfee0300c);
	assert_int_equal(rd(&b, 0x5c), 0x0141);
	assert_false(host_on());
	assert_int_equal(fk.routes, 0);
	wr(&b, 0x52, 2, PCI_MSI_ENABLE);
	assert_true(host_on());
	assert_int_equal(fk.routes, 1);
	assert_int_equal(fk.last.vector, 0x41);
	assert_int_equal(fk.last.dest, 3);
	assert_true(fk.last.logical && fk.last.lowest);
	/* The host holds Umbra's message, never the guest's. */
	assert_int_equal(fake_cfg[0x54 / 4], (u32)HOST_ADDR);
	assert_int_equal(fake_cfg[0x58 / 4], 0);
	assert_int_equal(fake_cfg[0x5c / 4], HOST_VEC);
	assert_int_equal(fake_cfg[0x50 / 4] >> 16 & (7u << 4), 0);
	assert_true(pci_msi_message(&b.fn[0].msi, &m) && m.vector == 0x41);
	/* Masked: the host's mask bit follows, nothing is delivered; the pending bit reads through. */
	wr(&b, 0x60, 4, 1);
	assert_int_equal(fake_cfg[0x60 / 4], 1);
	assert_false(pci_msi_message(&b.fn[0].msi, &m));
	fake_cfg[0x64 / 4] = 1;
	assert_int_equal(rd(&b, 0x64), 1);
	wr(&b, 0x64, 4, 0); /* pending is read-only */
	assert_int_equal(fake_cfg[0x64 / 4], 1);
	wr(&b, 0x60, 4, 0);
	assert_int_equal(fake_cfg[0x60 / 4], 0);
	assert_true(pci_msi_message(&b.fn[0].msi, &m));
	/* Off: the host's too. */
	wr(&b, 0x52, 2, 0);
	assert_false(host_on());
	assert_false(pci_msi_message(&b.fn[0].msi, &m));
	/* No host vector: the host stays off. */
	fk.no_vector = true;
	wr(&b, 0x52, 2, PCI_MSI_ENABLE);
	assert_false(host_on());
}

/* What is no interrupt leaves the host's MSI off (nothing can arrive); right again, it works. */
static void test_refused(void **state)
{
	(void)state;
	struct pci_bus b;
	struct pci_msi_msg m;
	static const struct {
		u32 addr_lo, addr_hi, data;
	} bad[] = {
		{ 0xfee00000, 0, 0x0005 },			      /* vector below 16 */
		{ 0xfee00000, 0, 0x000f }, { 0xfed00000, 0, 0x0041 }, /* outside 0xFEExxxxx */
		{ 0x00001000, 0, 0x0041 }, /* RAM: a DMA write, not an interrupt */
		{ 0xfee00000, 1, 0x0041 }, /* above 4 GiB */
		{ 0xfee00000, 0, 0x0241 }, /* SMI */
		{ 0xfee00000, 0, 0x0441 }, /* NMI */
		{ 0xfee00000, 0, 0x0541 }, /* INIT */
		{ 0xfee00000, 0, 0x0741 }, /* ExtINT */
	};
	setup(&b, PCI_MSI_64BIT);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		wr(&b, 0x52, 2, 0);
		wr(&b, 0x54, 4, bad[i].addr_lo);
		wr(&b, 0x58, 4, bad[i].addr_hi);
		wr(&b, 0x5c, 4, bad[i].data);
		wr(&b, 0x52, 2, PCI_MSI_ENABLE);
		assert_false(host_on());
		assert_false(pci_msi_message(&b.fn[0].msi, &m));
		assert_int_equal(fk.routes, 0);
		assert_int_equal(rd(&b, 0x5c), bad[i].data); /* kept as written, as hardware */
	}
	wr(&b, 0x58, 4, 0);
	wr(&b, 0x5c, 4, 0x0041);
	assert_true(host_on());
	assert_int_equal(fk.routes, 1);
}

/* 32 bits, no masking: data at +8, nothing past it. */
static void test_32bit(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b, 0);
	fake_cfg[0x5c / 4] = 0xdeadbeef; /* past the capability: not the guest's */
	assert_int_equal(rd(&b, 0x50), PCI_CAP_MSI);
	wr(&b, 0x54, 4, 0xfee00000);
	wr(&b, 0x58, 4, 0x30);
	wr(&b, 0x52, 2, PCI_MSI_ENABLE);
	assert_true(host_on());
	assert_int_equal(fake_cfg[0x58 / 4], HOST_VEC);
	assert_int_equal(rd(&b, 0x5c), 0);
	assert_int_equal(fake_cfg[0x5c / 4], 0xdeadbeef);
}

/* The end quiesces the host's MSI and keeps the guest's view; the reset clears both. */
static void test_quiesce_reset(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b, PCI_MSI_64BIT);
	wr(&b, 0x54, 4, 0xfee00000);
	wr(&b, 0x5c, 4, 0x30);
	wr(&b, 0x52, 2, PCI_MSI_ENABLE);
	assert_true(host_on());
	pci_bus_quiesce(&b);
	assert_false(host_on());
	assert_int_equal(rd(&b, 0x52) & 0xffff, PCI_MSI_64BIT | PCI_MSI_ENABLE);
	pci_bus_reset(&b);
	assert_false(host_on());
	assert_int_equal(rd(&b, 0x50), PCI_CAP_MSI | PCI_MSI_64BIT << 16);
	assert_int_equal(rd(&b, 0x54), 0);
	assert_int_equal(rd(&b, 0x5c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list),	      cmocka_unit_test(test_message),
		cmocka_unit_test(test_refused),	      cmocka_unit_test(test_32bit),
		cmocka_unit_test(test_quiesce_reset),
	};
	return cmocka_run_group_tests_name("pci_msi", tests, NULL, NULL);
}
