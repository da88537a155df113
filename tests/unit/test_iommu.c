/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for arch/x86/dmar.c and ivrs.c: synthetic DMAR and IVRS tables, good, odd and malformed. */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/harness.h"
#include "arch/x86/iommu.h"

static u8 tbl[1024];
static u32 len;
static struct iommu_list l;
static struct pci_list pci;

static void put16(u8 *p, u16 v)
{
	memcpy(p, &v, 2);
}
static void put32(u8 *p, u32 v)
{
	memcpy(p, &v, 4);
}
static void put64(u8 *p, u64 v)
{
	memcpy(p, &v, 8);
}

static const struct acpi_header *hdr(void)
{
	put32(tbl + 4, len);
	return (const struct acpi_header *)tbl;
}

static void begin(const char *sig)
{
	memset(tbl, 0, sizeof(tbl));
	memcpy(tbl, sig, 4);
	tbl[36] = 38; /* DMAR: host address width 39 bits */
	len = 48;
}

static void bytes(const u8 *b, u32 n)
{
	memcpy(tbl + len, b, n);
	len += n;
}

/* DMAR: a DRHD header; its length is fixed up by drhd_end once the scopes are in. */
static u32 drhd_at;
static void drhd(u8 flags, u64 base)
{
	u8 d[16] = { 0 };
	d[4] = flags;
	put64(d + 8, base);
	drhd_at = len;
	bytes(d, 16);
}

static void drhd_end(void)
{
	put16(tbl + drhd_at + 2, (u16)(len - drhd_at));
}

static void dscope(u8 type, u8 bus, const u8 *path, u8 steps)
{
	u8 s[6] = { type, (u8)(6 + 2 * steps), 0, 0, 0, bus };
	bytes(s, 6);
	bytes(path, 2u * steps);
}

/* The PCI walk the DMAR's paths resolve against: 00:1c.0 bridges to buses 1-2,
 * 01:00.0 to bus 2. */
static void fake_pci(void)
{
	memset(&pci, 0, sizeof(pci));
	struct pci_func *f = pci.f;
	f[0] = (struct pci_func){ .bdf = PCI_BDF(0, 0x1c, 0),
				  .header_type = 1,
				  .sec_bus = 1,
				  .sub_bus = 2,
				  .parent = -1 };
	f[1] = (struct pci_func){
		.bdf = PCI_BDF(1, 0, 0), .header_type = 1, .sec_bus = 2, .sub_bus = 2, .parent = 0
	};
	f[2] = (struct pci_func){ .bdf = PCI_BDF(2, 1, 0), .parent = 1 };
	f[3] = (struct pci_func){ .bdf = PCI_BDF(0, 5, 0), .parent = -1 };
	f[4] = (struct pci_func){ .bdf = PCI_BDF(0, 6, 0), .parent = -1 };
	for (int i = 0; i < 5; i++)
		f[i].rid = f[i].bdf;
	pci.count = 5;
}

static int dmar(void)
{
	return iommu_parse_dmar(hdr(), &pci, &l);
}

/* Two units: one names 00:05.0, a path to 02:01.0 and the bridge 00:1c.0 with its buses;
 * the other catches everything else. */
static void good_dmar(void)
{
	begin("DMAR");
	drhd(0, 0xfed90000);
	const u8 ep[2] = { 5, 0 }, deep[6] = { 0x1c, 0, 0, 0, 1, 0 }, br[2] = { 0x1c, 0 };
	dscope(1, 0, ep, 1);
	dscope(1, 0, deep, 3);
	dscope(2, 0, br, 1);
	dscope(3, 0, ep, 1); /* an I/O APIC: not a PCI function */
	drhd_end();
	u8 rmrr[24] = { 1, 0, 24, 0 }; /* another structure type: skipped */
	bytes(rmrr, 24);
	drhd(1, 0xfed91000);
	drhd_end();
}

static void test_dmar_units_and_scopes(void **state)
{
	(void)state;
	fake_pci();
	good_dmar();
	assert_int_equal(dmar(), 0);
	assert_null(l.error);
	assert_int_equal(l.haw, 39);
	assert_int_equal(l.count, 2);
	assert_int_equal(l.u[0].kind, IOMMU_VTD);
	assert_int_equal(l.u[0].base, 0xfed90000);
	assert_false(l.u[0].all);
	assert_int_equal(l.u[0].other_scopes, 1);
	assert_true(l.u[1].all);
	const struct iommu_unit *a = &l.u[0], *b = &l.u[1];
	assert_ptr_equal(iommu_for(&l, PCI_BDF(0, 5, 0)), a);
	assert_ptr_equal(iommu_for(&l, PCI_BDF(2, 1, 0)), a); /* the path through two bridges */
	assert_ptr_equal(iommu_for(&l, PCI_BDF(0, 0x1c, 0)), a);
	assert_ptr_equal(iommu_for(&l, PCI_BDF(2, 7, 3)), a); /* under the bridge scope */
	assert_ptr_equal(iommu_for(&l, PCI_BDF(0, 6, 0)), b); /* INCLUDE_PCI_ALL catches it */
	assert_ptr_equal(iommu_for(&l, PCI_BDF(3, 0, 0)), b);
	iommu_print(&l, &pci);
}

static void test_dmar_unresolved_path_and_no_catch_all(void **state)
{
	(void)state;
	fake_pci();
	begin("DMAR");
	drhd(0, 0xfed90000);
	const u8 missing[4] = { 0x1d, 0, 0, 0 }, ep[2] = { 6, 0 };
	dscope(1, 0, missing, 2); /* through 00:1d.0, which the walk did not find */
	dscope(1, 0, ep, 1);
	drhd_end();
	assert_int_equal(dmar(), 0);
	assert_int_equal(l.u[0].unresolved, 1);
	assert_ptr_equal(iommu_for(&l, PCI_BDF(0, 6, 0)), &l.u[0]);
	assert_null(iommu_for(&l, PCI_BDF(0, 5, 0))); /* no unit covers it */
}

static void expect_dmar_err(const char *substr)
{
	assert_int_equal(dmar(), IOMMU_ERR_TABLE);
	assert_error_has(l.error, substr);
}

static void test_dmar_malformed(void **state)
{
	(void)state;
	fake_pci();
	good_dmar();
	u32 good = len;
	len = 40;
	expect_dmar_err("length 40 < 48");
	len = good - 14; /* 2 bytes of the last DRHD's 16 */
	expect_dmar_err("2 stray bytes at offset 124");
	len = good - 8;
	expect_dmar_err("length 16 outside [4, 8]");
	len = good;
	put16(tbl + drhd_at + 2, 0); /* a zero length would loop forever */
	expect_dmar_err("length 0 outside [4,");
	put16(tbl + drhd_at + 2, 12);
	expect_dmar_err("DRHD at offset");
	put16(tbl + drhd_at + 2, 16);
	put64(tbl + drhd_at + 8, 0xfed91800);
	expect_dmar_err("register base 0xfed91800 is not a page");
	put64(tbl + drhd_at + 8, 0xfed91000);
	tbl[drhd_at + 4] = 0;
	assert_int_equal(dmar(), 0);
	/* Two catch-all units on one segment. */
	good_dmar();
	drhd(1, 0xfed92000);
	drhd_end();
	expect_dmar_err("second INCLUDE_PCI_ALL");
	/* Scopes: too short, past the DRHD, odd path, bad type, bad device. */
	good_dmar();
	tbl[48 + 16 + 1] = 5;
	expect_dmar_err("device scope at offset 64: length 5");
	good_dmar();
	tbl[48 + 16 + 1] = 200;
	expect_dmar_err("length 200 does not fit");
	good_dmar();
	tbl[48 + 16 + 1] = 9;
	expect_dmar_err("length 9");
	good_dmar();
	tbl[48 + 16] = 9;
	expect_dmar_err("has type 9");
	good_dmar();
	tbl[48 + 16 + 6] = 40;
	expect_dmar_err("device 40 function 0");
	/* No unit at all. */
	begin("DMAR");
	expect_dmar_err("no DRHD unit");
}

/* IVRS: an IVHD of the given type, entries after it; its length is fixed up by ivhd_end. */
static u32 ivhd_at;
static void ivhd(u8 type, u16 self, u64 base)
{
	u8 h[40] = { type, 0 };
	put16(h + 4, self);
	put16(h + 6, 0x40); /* the capability block's offset */
	put64(h + 8, base);
	ivhd_at = len;
	bytes(h, type == 0x10 ? 24 : 40);
}

static void ivhd_end(void)
{
	put16(tbl + ivhd_at + 2, (u16)(len - ivhd_at));
}

static void dev(u8 type, u16 devid)
{
	u8 e[8] = { type };
	put16(e + 1, devid);
	bytes(e, type < 0x40 ? 4 : 8);
}

static int ivrs(void)
{
	return iommu_parse_ivrs(hdr(), &l);
}

static void good_ivrs(void)
{
	begin("IVRS");
	/* The same IOMMU described twice, by an old and a new IVHD type: counted once. */
	ivhd(0x10, PCI_BDF(0, 2, 0), 0xfeb80000);
	dev(1, 0);
	ivhd_end();
	ivhd(0x40, PCI_BDF(0, 3, 0), 0xfed80000);
	dev(2, PCI_BDF(0, 5, 0));
	dev(3, PCI_BDF(1, 0, 0));
	dev(0, 0); /* padding */
	dev(4, PCI_BDF(2, 31, 7));
	dev(0x42, PCI_BDF(0, 7, 0));
	dev(0x47, PCI_BDF(4, 0, 0));
	dev(4, PCI_BDF(4, 0, 7));
	dev(0x48, 0xa0); /* I/O APIC */
	u8 hid[22 + 3] = { 0xf0 };
	hid[21] = 3;
	bytes(hid, sizeof(hid));
	ivhd_end();
	u8 ivmd[32] = { 0x21, 0, 32, 0 };
	bytes(ivmd, 32);
}

static void test_ivrs_blocks_and_entries(void **state)
{
	(void)state;
	good_ivrs();
	assert_int_equal(ivrs(), 0);
	assert_null(l.error);
	assert_int_equal(l.count, 1);
	const struct iommu_unit *u = &l.u[0];
	assert_int_equal(u->kind, IOMMU_AMDVI);
	assert_int_equal(u->base, 0xfed80000);
	assert_int_equal(u->rid, PCI_BDF(0, 3, 0));
	assert_int_equal(u->cap, 0x40);
	assert_false(u->all); /* the ALL entry was in the type 0x10 block */
	assert_int_equal(u->other_scopes, 2);
	assert_ptr_equal(iommu_for(&l, PCI_BDF(0, 5, 0)), u);
	assert_ptr_equal(iommu_for(&l, PCI_BDF(1, 4, 0)), u);
	assert_ptr_equal(iommu_for(&l, PCI_BDF(2, 31, 7)), u);
	assert_ptr_equal(iommu_for(&l, PCI_BDF(0, 7, 0)), u);
	assert_ptr_equal(iommu_for(&l, PCI_BDF(4, 0, 3)), u);
	assert_null(iommu_for(&l, PCI_BDF(0, 6, 0)));
	assert_null(iommu_for(&l, PCI_BDF(4, 1, 0)));
	/* With only the old type, its ALL entry covers everything. */
	begin("IVRS");
	ivhd(0x10, 0x10, 0xfeb80000);
	dev(1, 0);
	ivhd_end();
	assert_int_equal(ivrs(), 0);
	assert_true(l.u[0].all);
	assert_ptr_equal(iommu_for(&l, PCI_BDF(9, 9, 1)), &l.u[0]);
}

static void expect_ivrs_err(const char *substr)
{
	assert_int_equal(ivrs(), IOMMU_ERR_TABLE);
	assert_error_has(l.error, substr);
}

static void test_ivrs_malformed(void **state)
{
	(void)state;
	good_ivrs();
	u32 good = len;
	len = 47;
	expect_ivrs_err("length 47 < 48");
	len = good - 1;
	expect_ivrs_err("block type 0x21 at offset"); /* the IVMD cut short */
	len = good;
	put16(tbl + ivhd_at + 2, 0);
	expect_ivrs_err("length 0 outside [4,");
	begin("IVRS");
	ivhd(0x40, 0, 0xfed80000);
	len -= 10;
	ivhd_end();
	expect_ivrs_err("IVHD type 0x40 at offset 48: length 30 < 40");
	good_ivrs();
	put64(tbl + ivhd_at + 8, 0xfed81000);
	expect_ivrs_err("register base 0xfed81000 is not 16 KiB aligned");
	/* An ACPI device entry whose UID runs past the block. */
	good_ivrs();
	tbl[ivhd_at + 40 + 4 * 5 + 8 * 3 + 21] = 100;
	expect_ivrs_err("device entry type 0xf0");
	/* An entry type whose size nobody knows. */
	good_ivrs();
	tbl[ivhd_at + 40] = 0x90;
	expect_ivrs_err("type 0x90 at offset");
	/* Ranges: an end first, a start twice, a start never ended, a reversed range. */
	begin("IVRS");
	ivhd(0x40, 0, 0xfed80000);
	dev(4, 5);
	ivhd_end();
	expect_ivrs_err("range end 0x0005");
	begin("IVRS");
	ivhd(0x40, 0, 0xfed80000);
	dev(3, 5);
	dev(0x43, 7);
	ivhd_end();
	expect_ivrs_err("inside the range opened at 0x0005");
	begin("IVRS");
	ivhd(0x40, 0, 0xfed80000);
	dev(3, 5);
	ivhd_end();
	expect_ivrs_err("ends inside the range opened at 0x0005");
	begin("IVRS");
	ivhd(0x40, 0, 0xfed80000);
	dev(3, 9);
	dev(4, 5);
	ivhd_end();
	expect_ivrs_err("without a start below it");
	/* An entry cut by the block's end. */
	begin("IVRS");
	ivhd(0x40, 0, 0xfed80000);
	dev(0x42, 5);
	len -= 2;
	ivhd_end();
	expect_ivrs_err("8 bytes, 6 left");
	begin("IVRS");
	expect_ivrs_err("no IVHD block");
}

/* Every truncation and many random corruptions of good tables: refused or parsed, never a
 * read past the table (ASan watches the heap copy, sized to the table's length). */
static void test_truncations_and_corruption(void **state)
{
	(void)state;
	fake_pci();
	srand(29);
	for (int kind = 0; kind < 2; kind++) {
		kind ? good_ivrs() : good_dmar();
		u32 full = len;
		u8 orig[1024];
		memcpy(orig, tbl, sizeof(orig));
		for (u32 cut = 36; cut <= full; cut++) {
			memcpy(tbl, orig, sizeof(tbl));
			len = cut;
			u8 *copy = malloc(cut);
			memcpy(copy, hdr(), cut);
			int err = kind ? iommu_parse_ivrs((void *)copy, &l)
				       : iommu_parse_dmar((void *)copy, &pci, &l);
			assert_true(err == 0 || (err == IOMMU_ERR_TABLE && l.error));
			free(copy);
		}
		for (int n = 0; n < 20000; n++) {
			memcpy(tbl, orig, sizeof(tbl));
			len = full;
			for (int k = 0; k < 3; k++)
				tbl[36 + (u32)rand() % (full - 36)] = (u8)rand();
			u8 *copy = malloc(full);
			memcpy(copy, hdr(), full);
			int err = kind ? iommu_parse_ivrs((void *)copy, &l)
				       : iommu_parse_dmar((void *)copy, &pci, &l);
			assert_true(err == 0 || (err == IOMMU_ERR_TABLE && l.error));
			assert_true(l.count <= IOMMU_MAX_UNITS);
			free(copy);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dmar_units_and_scopes),
		cmocka_unit_test(test_dmar_unresolved_path_and_no_catch_all),
		cmocka_unit_test(test_dmar_malformed),
		cmocka_unit_test(test_ivrs_blocks_and_entries),
		cmocka_unit_test(test_ivrs_malformed),
		cmocka_unit_test(test_truncations_and_corruption),
	};
	return cmocka_run_group_tests_name("iommu", tests, NULL, NULL);
}
