/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for vmm/pci_assign.c: pci= parsing and every refusal, on a made-up machine. */
#include <string.h>
#include "tests/unit/harness.h"
#include "vmm/pci_assign.h"

static struct pci_list pci;
static struct iommu_list io;
static struct pci_assign_ctx ctx;
static struct pci_assign_req req, why;

static struct pci_func *fn(u16 bdf, u32 class, u8 ht, s16 parent, u16 rid)
{
	struct pci_func *f = &pci.f[pci.count++];
	*f = (struct pci_func){ .bdf = bdf,
				.class = class,
				.header_type = ht,
				.parent = parent,
				.rid = rid,
				.pcie_type = -1 };
	return f;
}

/* 00:00.0 host bridge, 00:03.0 an AMD IOMMU, 00:04.0 a serial card holding port 0x3f8,
 * 00:05.0 and 00:06.0 endpoints, 00:1c.0 root port -> 01:00.0 PCIe-to-PCI bridge -> bus 2
 * with 02:01.0 and 02:02.0 (both DMA as 02:00.0), 00:07.0 outside every IOMMU. */
static int setup(void **state)
{
	(void)state;
	memset(&pci, 0, sizeof(pci));
	memset(&io, 0, sizeof(io));
	fn(PCI_BDF(0, 0, 0), 0x060000, 0, -1, PCI_BDF(0, 0, 0));
	fn(PCI_BDF(0, 3, 0), 0x080600, 0, -1, PCI_BDF(0, 3, 0));
	struct pci_func *uart = fn(PCI_BDF(0, 4, 0), 0x070002, 0, -1, PCI_BDF(0, 4, 0));
	uart->bar[0] = (struct pci_bar){ .base = 0x3f8, .size = 8, .kind = PCI_BAR_IO };
	fn(PCI_BDF(0, 5, 0), 0x00ff00, 0, -1, PCI_BDF(0, 5, 0));
	fn(PCI_BDF(0, 6, 0), 0x020000, 0, -1, PCI_BDF(0, 6, 0));
	struct pci_func *rp = fn(PCI_BDF(0, 0x1c, 0), 0x060400, 1, -1, PCI_BDF(0, 0x1c, 0));
	rp->sec_bus = 1;
	rp->sub_bus = 2;
	struct pci_func *p2p = fn(PCI_BDF(1, 0, 0), 0x060400, 1, 5, PCI_BDF(1, 0, 0));
	p2p->sec_bus = p2p->sub_bus = 2;
	fn(PCI_BDF(2, 1, 0), 0x00ff00, 0, 6, PCI_BDF(2, 0, 0));
	fn(PCI_BDF(2, 2, 0), 0x00ff00, 0, 6, PCI_BDF(2, 0, 0));
	fn(PCI_BDF(0, 7, 0), 0x010000, 0, -1, PCI_BDF(0, 7, 0));
	struct iommu_unit *u = iommu_add_unit(&io, IOMMU_AMDVI, 0, 0xfed80000);
	u->rid = PCI_BDF(0, 3, 0);
	iommu_add_range(u, PCI_BDF(0, 0, 0), PCI_BDF(0, 6, 7));
	iommu_add_range(u, PCI_BDF(0, 0x1c, 0), PCI_BDF(2, 31, 7));
	pci_assign_init(&ctx, &pci, &io, false, 0x3f8);
	return 0;
}

static void parse_err(const char *val, const char *substr)
{
	assert_false(pci_assign_parse(val, &req));
	assert_error_has(req.error, substr);
}

static void test_parse(void **state)
{
	(void)state;
	assert_true(pci_assign_parse("00:05.0", &req));
	assert_int_equal(req.n, 1);
	assert_int_equal(req.bdf[0], PCI_BDF(0, 5, 0));
	assert_true(pci_assign_parse("02:1F.7,0a:00.1", &req));
	assert_int_equal(req.n, 2);
	assert_int_equal(req.bdf[0], PCI_BDF(2, 0x1f, 7));
	assert_int_equal(req.bdf[1], PCI_BDF(0xa, 0, 1));
	parse_err("", "'' is not BB:DD.F");
	parse_err("0:05.0", "is not BB:DD.F");
	parse_err("00:05", "is not BB:DD.F");
	parse_err("00:20.0", "is not BB:DD.F"); /* device 0x20 */
	parse_err("00:05.8", "is not BB:DD.F");
	parse_err("00:05.0,", "'' is not BB:DD.F");
	parse_err("00:05.0x", "is not BB:DD.F");
	parse_err("zz:05.0", "is not BB:DD.F");
	parse_err("00:05.0,00:06.0,00:05.0", "00:05.0 given twice");
	parse_err("00:01.0,00:02.0,00:03.0,00:04.0,00:05.0,00:06.0,00:07.0,00:08.0,00:09.0",
		  "more than 8 functions");
}

static void refused(const char *val, u8 guest, const char *substr)
{
	assert_true(pci_assign_parse(val, &req));
	assert_false(pci_assign_check(&ctx, &req, guest, &why));
	assert_error_has(why.error, substr);
}

static void test_refusals(void **state)
{
	(void)state;
	refused("00:09.0", 0, "00:09.0: no such function");
	refused("00:00.0", 0, "00:00.0 is a host bridge");
	refused("00:1c.0", 0, "00:1c.0 is a bridge");
	refused("01:00.0", 0, "01:00.0 is a bridge");
	refused("00:03.0", 0, "00:03.0 is an IOMMU");
	refused("00:04.0", 0, "Umbra's console UART (port 0x3f8)");
	refused("00:07.0", 0, "00:07.0: no IOMMU covers it");
	/* One bad function refuses the whole list. */
	refused("00:05.0,00:07.0", 0, "00:07.0: no IOMMU covers it");
	assert_int_equal(ctx.owner[3], PCI_NO_OWNER);
}

static void test_ownership_and_shared_requester_id(void **state)
{
	(void)state;
	assert_true(pci_assign_parse("00:05.0,02:01.0", &req));
	assert_true(pci_assign_check(&ctx, &req, 0, &why));
	assert_null(why.error);
	pci_assign_commit(&ctx, &req, 0);
	assert_int_equal(ctx.owner[3], 0);
	assert_int_equal(ctx.owner[7], 0);
	refused("00:05.0", 1, "00:05.0 already belongs to another guest");
	refused("02:02.0", 1, "02:02.0 shares requester ID 02:00.0 with 02:01.0 of another guest");
	/* The same guest may have both functions behind the bridge. */
	assert_true(pci_assign_parse("02:02.0", &req));
	assert_true(pci_assign_check(&ctx, &req, 0, &why));
	/* Another guest gets an unrelated function. */
	assert_true(pci_assign_parse("00:06.0", &req));
	assert_true(pci_assign_check(&ctx, &req, 1, &why));
}

/* A transitional virtio device (1af4:1000-103f) gets the boot log's warning; a modern-only one
 * (1af4:1040 and up) and other vendors' functions do not. */
static void test_caveat(void **state)
{
	(void)state;
	struct pci_func f = { .vendor = 0x1af4, .device = 0x1001 };
	assert_non_null(pci_assign_caveat(&f));
	f.device = 0x1000;
	assert_non_null(pci_assign_caveat(&f));
	f.device = 0x103f;
	assert_non_null(pci_assign_caveat(&f));
	f.device = 0x1042;
	assert_null(pci_assign_caveat(&f));
	f.device = 0x0fff;
	assert_null(pci_assign_caveat(&f));
	f = (struct pci_func){ .vendor = 0x8086, .device = 0x1001 };
	assert_null(pci_assign_caveat(&f));
}

static void test_iommu_off(void **state)
{
	(void)state;
	ctx.iommu_off = true;
	assert_true(pci_assign_parse("00:07.0", &req));
	assert_true(pci_assign_check(&ctx, &req, 0, &why));
	/* iommu=off lifts only the coverage check. */
	refused("00:03.0", 0, "is an IOMMU");
	refused("00:04.0", 0, "console UART");
	/* No IOMMU at all (Bochs): refused without iommu=off. */
	pci_assign_init(&ctx, &pci, NULL, false, 0x3f8);
	refused("00:05.0", 0, "no IOMMU covers it");
	/* An empty request (no pci=) is always fine. */
	memset(&req, 0, sizeof(req));
	assert_true(pci_assign_check(&ctx, &req, 0, &why));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_caveat),
		cmocka_unit_test_setup(test_refusals, setup),
		cmocka_unit_test_setup(test_ownership_and_shared_requester_id, setup),
		cmocka_unit_test_setup(test_iommu_off, setup),
	};
	return cmocka_run_group_tests_name("pci_assign", tests, NULL, NULL);
}
