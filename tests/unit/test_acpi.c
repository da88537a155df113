/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for arch/x86/acpi.c on table images in a buffer that plays physical memory. */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/harness.h"
#include "arch/x86/acpi.h"

#define PBASE 0xe0000ull
#define PSIZE 0x10000ull
#define RSDT_PA 0xe1000ull
#define XSDT_PA 0xe2000ull
#define FACP_PA 0xe3000ull
#define MADT_PA 0xe4000ull

static u8 *phys;
static u8 rsdp[36];
static u32 madt_len;
static struct acpi_cpus cpus;

static const void *map(u64 pa, size_t len, void *ctx)
{
	(void)ctx;
	if (pa < PBASE || pa > PBASE + PSIZE || len > PBASE + PSIZE - pa)
		return NULL;
	return phys + (pa - PBASE);
}

static u8 *at(u64 pa)
{
	return phys + (pa - PBASE);
}

static void put32(u8 *p, u32 v)
{
	memcpy(p, &v, 4);
}
static void put64(u8 *p, u64 v)
{
	memcpy(p, &v, 8);
}

static u8 sum(const u8 *p, size_t n)
{
	u8 s = 0;
	while (n--)
		s += *p++;
	return s;
}

/* Recomputes an SDT's checksum over its length field. */
static void fix(u64 pa)
{
	u8 *t = at(pa);
	u32 len;
	memcpy(&len, t + 4, 4);
	if (len > PBASE + PSIZE - pa) /* a corrupted length: the parser must refuse it */
		len = (u32)(PBASE + PSIZE - pa);
	t[9] = 0;
	t[9] = (u8)-sum(t, len);
}

static u8 *sdt(u64 pa, const char *sig, u32 len)
{
	u8 *t = at(pa);
	memset(t, 0, len);
	memcpy(t, sig, 4);
	put32(t + 4, len);
	t[8] = 1;
	memcpy(t + 10, "UMBRA ", 6);
	return t;
}

static void madt_begin(u32 lapic)
{
	u8 *t = sdt(MADT_PA, "APIC", 44);
	put32(t + 36, lapic);
	put32(t + 40, 1);
	madt_len = 44;
}

static void madt_entry(const u8 *e)
{
	memcpy(at(MADT_PA) + madt_len, e, e[1]);
	madt_len += e[1];
	put32(at(MADT_PA) + 4, madt_len);
	fix(MADT_PA);
}

static void madt_lapic(u8 id, u32 flags)
{
	u8 e[8] = { 0, 8, id, id };
	put32(e + 4, flags);
	madt_entry(e);
}

static void madt_x2apic(u32 id, u32 flags)
{
	u8 e[16] = { 9, 16 };
	put32(e + 4, id);
	put32(e + 8, flags);
	put32(e + 12, id);
	madt_entry(e);
}

static void madt_override(u64 addr)
{
	u8 e[12] = { 5, 12 };
	put64(e + 4, addr);
	madt_entry(e);
}

static void madt_ioapic(u8 id, u32 addr, u32 gsi_base)
{
	u8 e[12] = { 1, 12, id };
	put32(e + 4, addr);
	put32(e + 8, gsi_base);
	madt_entry(e);
}

static void madt_iso(u8 bus, u8 irq, u32 gsi, u16 flags)
{
	u8 e[10] = { 2, 10, bus, irq };
	put32(e + 4, gsi);
	e[8] = (u8)flags;
	e[9] = (u8)(flags >> 8);
	madt_entry(e);
}

static void root_tables(void)
{
	u8 *r = sdt(RSDT_PA, "RSDT", 36 + 8);
	put32(r + 36, (u32)FACP_PA);
	put32(r + 40, (u32)MADT_PA);
	fix(RSDT_PA);
	/* XSDT entries start at offset 36: 8-byte values, not 8-byte aligned. */
	u8 *x = sdt(XSDT_PA, "XSDT", 36 + 16);
	put64(x + 36, FACP_PA);
	put64(x + 44, MADT_PA);
	fix(XSDT_PA);
}

static void make_rsdp(u8 rev, u64 xsdt)
{
	memset(rsdp, 0, sizeof(rsdp));
	memcpy(rsdp, "RSD PTR ", 8);
	memcpy(rsdp + 9, "UMBRA ", 6);
	rsdp[15] = rev;
	put32(rsdp + 16, (u32)RSDT_PA);
	put32(rsdp + 20, 36);
	put64(rsdp + 24, xsdt);
	rsdp[8] = (u8)-sum(rsdp, 20);
	rsdp[32] = (u8)-sum(rsdp, 36);
}

static int setup(void **state)
{
	(void)state;
	phys = calloc(1, PSIZE);
	sdt(FACP_PA, "FACP", 116);
	fix(FACP_PA);
	madt_begin(0xfee00000);
	for (u8 i = 0; i < 4; i++)
		madt_lapic(i, 1);
	root_tables();
	make_rsdp(0, 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(phys);
	return 0;
}

static int find(size_t rsdp_len)
{
	return acpi_find_cpus(rsdp, rsdp_len, map, NULL, &cpus);
}

static void expect_err(size_t rsdp_len, int code, const char *substr)
{
	assert_int_equal(find(rsdp_len), code);
	assert_error_has(cpus.error, substr);
}

static void test_v1_rsdt(void **state)
{
	(void)state;
	assert_int_equal(find(20), 0);
	assert_null(cpus.error);
	assert_false(cpus.used_xsdt);
	assert_int_equal(cpus.lapic_base, 0xfee00000);
	assert_int_equal(cpus.count, 4);
	for (u32 i = 0; i < 4; i++)
		assert_int_equal(cpus.apic_id[i], i);
	assert_int_equal(cpus.madt_flags, 1);
}

static void test_v2_xsdt_x2apic_override(void **state)
{
	(void)state;
	madt_begin(0xfee00000);
	madt_lapic(0, 1);
	madt_x2apic(0x100, 1);
	madt_x2apic(0, 1); /* the same CPU again: counted once */
	madt_override(0xfed00000ull);
	root_tables();
	make_rsdp(2, XSDT_PA);
	/* Break the RSDT: it must not be used when the XSDT is there. */
	at(RSDT_PA)[0] = 'X';
	assert_int_equal(find(36), 0);
	assert_true(cpus.used_xsdt);
	assert_int_equal(cpus.count, 2);
	assert_int_equal(cpus.apic_id[0], 0);
	assert_int_equal(cpus.apic_id[1], 0x100);
	assert_int_equal(cpus.lapic_base, 0xfed00000ull);
}

static void test_v2_fallbacks_to_rsdt(void **state)
{
	(void)state;
	/* Revision 2, but only the 20-byte part was copied: RSDT. */
	make_rsdp(2, XSDT_PA);
	at(XSDT_PA)[0] = 'Y';
	assert_int_equal(find(20), 0);
	assert_false(cpus.used_xsdt);
	/* Revision 2 with no XSDT address: RSDT. */
	make_rsdp(2, 0);
	assert_int_equal(find(36), 0);
	assert_false(cpus.used_xsdt);
	assert_int_equal(cpus.count, 4);
}

static void test_rsdp_errors(void **state)
{
	(void)state;
	assert_int_equal(acpi_find_cpus(NULL, 36, map, NULL, &cpus), ACPI_ERR_RSDP);
	assert_error_has(cpus.error, "RSDP missing");
	expect_err(19, ACPI_ERR_RSDP, "19 bytes < 20");
	rsdp[0] = 'r';
	expect_err(20, ACPI_ERR_RSDP, "signature");
	make_rsdp(0, 0);
	rsdp[8]++;
	expect_err(20, ACPI_ERR_RSDP, "checksum (first 20 bytes)");
	make_rsdp(2, XSDT_PA);
	rsdp[32]++;
	expect_err(36, ACPI_ERR_RSDP, "extended checksum");
	make_rsdp(2, XSDT_PA);
	put32(rsdp + 20, 64); /* claims more than the copy holds */
	rsdp[8] = 0;
	rsdp[8] = (u8)-sum(rsdp, 20);
	expect_err(36, ACPI_ERR_RSDP, "RSDP length 64 outside [36, 36]");
}

static void test_root_errors(void **state)
{
	(void)state;
	at(RSDT_PA)[40]++;
	expect_err(20, ACPI_ERR_ROOT, "RSDT at 0xe1000: bad checksum");
	root_tables();
	memcpy(at(RSDT_PA), "RSDX", 4);
	fix(RSDT_PA);
	expect_err(20, ACPI_ERR_ROOT, "signature \"RSDX\", expected RSDT");
	root_tables();
	put32(at(RSDT_PA) + 4, 20);
	expect_err(20, ACPI_ERR_ROOT, "length 20 outside [36,");
	put32(at(RSDT_PA) + 4, 0x7fffffff);
	expect_err(20, ACPI_ERR_ROOT, "length 2147483647 outside");
	/* Length in bounds, but the table runs off mappable memory. */
	put32(at(RSDT_PA) + 4, (u32)(PBASE + PSIZE - RSDT_PA + 4));
	expect_err(20, ACPI_ERR_MAP, "cannot map RSDT at 0xe1000");
	make_rsdp(2, 0x1000); /* XSDT nowhere */
	expect_err(36, ACPI_ERR_MAP, "cannot map XSDT header at 0x1000");
	make_rsdp(2, XSDT_PA);
	at(XSDT_PA)[9]++;
	expect_err(36, ACPI_ERR_ROOT, "XSDT at 0xe2000: bad checksum");
}

static void test_madt_missing(void **state)
{
	(void)state;
	u8 *r = sdt(RSDT_PA, "RSDT", 40);
	put32(r + 36, (u32)FACP_PA);
	fix(RSDT_PA);
	expect_err(20, ACPI_ERR_NO_MADT, "no APIC table among 1 RSDT entries");
	put32(r + 36, 0xdead0000);
	fix(RSDT_PA);
	expect_err(20, ACPI_ERR_MAP, "cannot map table header at 0xdead0000 (RSDT entry 0)");
	sdt(RSDT_PA, "RSDT", 36);
	fix(RSDT_PA);
	expect_err(20, ACPI_ERR_NO_MADT, "among 0 RSDT entries");
}

static void test_madt_errors(void **state)
{
	(void)state;
	at(MADT_PA)[50]++;
	expect_err(20, ACPI_ERR_MADT, "APIC at 0xe4000: bad checksum");

	sdt(MADT_PA, "APIC", 40); /* shorter than the MADT's fixed part */
	fix(MADT_PA);
	expect_err(20, ACPI_ERR_MADT, "MADT at 0xe4000: length 40 < 44");

	madt_begin(0xfee00000);
	madt_lapic(0, 1);
	u8 zero[2] = { 0, 0 };
	memcpy(at(MADT_PA) + madt_len, zero, 2);
	madt_len += 2;
	put32(at(MADT_PA) + 4, madt_len);
	fix(MADT_PA);
	expect_err(20, ACPI_ERR_MADT, "entry type 0 at offset 52: length 0 < 2");

	madt_begin(0xfee00000);
	madt_lapic(0, 1);
	madt_lapic(1, 1);
	put32(at(MADT_PA) + 4, madt_len - 3); /* cuts the last entry */
	fix(MADT_PA);
	expect_err(20, ACPI_ERR_MADT,
		   "entry type 0 at offset 52: length 8 runs past the end (5 left)");

	madt_begin(0xfee00000);
	madt_lapic(0, 1);
	put32(at(MADT_PA) + 4, madt_len + 1); /* one stray byte */
	fix(MADT_PA);
	expect_err(20, ACPI_ERR_MADT, "stray byte at offset 52");

	madt_begin(0xfee00000);
	u8 shortl[6] = { 0, 6, 0, 0, 1, 0 };
	madt_entry(shortl);
	expect_err(20, ACPI_ERR_MADT, "entry type 0 at offset 44: length 6 < 8");

	madt_begin(0xfee00000);
	u8 shortx[12] = { 9, 12 };
	madt_entry(shortx);
	expect_err(20, ACPI_ERR_MADT, "entry type 9 at offset 44: length 12 < 16");
}

/* I/O APICs and ISA overrides are recorded as given; an override of a bus other than ISA is
 * not one; short entries are refused like the CPUs'; more than the arrays hold are counted,
 * not stored. */
static void test_ioapics_and_overrides(void **state)
{
	(void)state;
	madt_begin(0xfee00000);
	madt_lapic(0, 1);
	madt_ioapic(2, 0xfec00000u, 0);
	madt_iso(0, 0, 2, 0);
	madt_iso(0, 9, 9, ACPI_ISO_POLARITY_LOW | ACPI_ISO_TRIGGER_LEVEL);
	madt_iso(1, 5, 5, 0);
	madt_ioapic(3, 0xfec01000u, 24);
	root_tables();
	make_rsdp(0, 0);
	assert_int_equal(find(20), 0);
	assert_int_equal(cpus.n_ioapics, 2);
	assert_int_equal(cpus.ioapic[0].base, 0xfec00000u);
	assert_int_equal(cpus.ioapic[0].gsi_base, 0);
	assert_int_equal(cpus.ioapic[0].id, 2);
	assert_int_equal(cpus.ioapic[1].base, 0xfec01000u);
	assert_int_equal(cpus.ioapic[1].gsi_base, 24);
	assert_int_equal(cpus.n_isos, 2);
	assert_int_equal(cpus.iso[0].irq, 0);
	assert_int_equal(cpus.iso[0].gsi, 2);
	assert_int_equal(cpus.iso[1].irq, 9);
	assert_int_equal(cpus.iso[1].flags, ACPI_ISO_POLARITY_LOW | ACPI_ISO_TRIGGER_LEVEL);

	madt_begin(0xfee00000);
	madt_lapic(0, 1);
	for (u8 i = 0; i < ACPI_MAX_IOAPICS + 2; i++)
		madt_ioapic(i, 0xfec00000u + i * 0x1000u, i * 24u);
	assert_int_equal(find(20), 0);
	assert_int_equal(cpus.n_ioapics, ACPI_MAX_IOAPICS + 2);
	assert_int_equal(cpus.ioapic[ACPI_MAX_IOAPICS - 1].gsi_base, (ACPI_MAX_IOAPICS - 1) * 24);

	madt_begin(0xfee00000);
	u8 shorti[10] = { 1, 10 };
	madt_entry(shorti);
	expect_err(20, ACPI_ERR_MADT, "entry type 1 at offset 44: length 10 < 12");
	madt_begin(0xfee00000);
	u8 shorto[8] = { 2, 8 };
	madt_entry(shorto);
	expect_err(20, ACPI_ERR_MADT, "entry type 2 at offset 44: length 8 < 10");
}

static void test_disabled_and_online_capable(void **state)
{
	(void)state;
	madt_begin(0xfee00000);
	madt_lapic(0, 1);
	madt_lapic(1, 0);	      /* disabled */
	madt_lapic(2, 2);	      /* online-capable */
	madt_x2apic(3, 0);	      /* disabled */
	u8 ioapic[12] = { 1, 12, 0 }; /* other entry types are skipped */
	madt_entry(ioapic);
	madt_lapic(4, 3);
	assert_int_equal(find(20), 0);
	assert_int_equal(cpus.count, 3);
	assert_int_equal(cpus.apic_id[0], 0);
	assert_int_equal(cpus.apic_id[1], 2);
	assert_int_equal(cpus.apic_id[2], 4);
	assert_int_equal(cpus.disabled, 2);

	madt_begin(0xfee00000);
	madt_lapic(0, 0);
	expect_err(20, ACPI_ERR_MADT, "lists no usable CPU");
}

static void test_more_than_max_cpus(void **state)
{
	(void)state;
	madt_begin(0xfee00000);
	for (u32 i = 0; i < ACPI_MAX_CPUS + 6; i++)
		madt_x2apic(i * 2, 1);
	assert_int_equal(find(20), 0);
	assert_int_equal(cpus.count, ACPI_MAX_CPUS);
	assert_int_equal(cpus.dropped, 6);
	assert_int_equal(cpus.apic_id[ACPI_MAX_CPUS - 1], (ACPI_MAX_CPUS - 1) * 2);
}

static void test_random_corruption(void **state)
{
	(void)state;
	madt_begin(0xfee00000);
	madt_lapic(0, 1);
	madt_x2apic(1, 1);
	madt_override(0xfee00000);
	madt_lapic(2, 1);
	u8 *saved = malloc(madt_len);
	u32 len = madt_len;
	memcpy(saved, at(MADT_PA), len);
	srand(4321);
	for (int iter = 0; iter < 20000; iter++) {
		memcpy(at(MADT_PA), saved, len);
		for (int k = rand() % 3 + 1; k; k--)
			at(MADT_PA)[rand() % len] = (u8)rand();
		/* Keep the checksum right so the entry walk itself gets exercised. */
		fix(MADT_PA);
		int r = find(20);
		if (r != 0 && !cpus.error)
			fail_msg("error %d without a message", r);
		assert_true(cpus.count <= ACPI_MAX_CPUS);
	}
	free(saved);
}

/* Any table by signature, as the PCI and IOMMU discovery look up MCFG, DMAR and IVRS. */
static void test_find_table(void **state)
{
	(void)state;
	struct acpi_find f;
	const struct acpi_header *h;
	make_rsdp(2, XSDT_PA);
	assert_int_equal(acpi_find_table(rsdp, 36, map, NULL, "FACP", -9, &h, &f), 0);
	assert_ptr_equal(h, at(FACP_PA));
	assert_int_equal(f.pa, FACP_PA);
	assert_true(f.used_xsdt);
	assert_int_equal(acpi_find_table(rsdp, 36, map, NULL, "DMAR", -9, &h, &f),
			 ACPI_ERR_NO_TABLE);
	assert_null(h);
	assert_error_has(f.error, "no DMAR table among 2 XSDT entries");
	/* A bad table found by its signature is refused with the caller's code. */
	at(FACP_PA)[40]++;
	assert_int_equal(acpi_find_table(rsdp, 36, map, NULL, "FACP", -9, &h, &f), -9);
	assert_error_has(f.error, "FACP at 0xe3000: bad checksum");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_v1_rsdt),
		T(test_v2_xsdt_x2apic_override),
		T(test_v2_fallbacks_to_rsdt),
		T(test_rsdp_errors),
		T(test_root_errors),
		T(test_madt_missing),
		T(test_madt_errors),
		T(test_ioapics_and_overrides),
		T(test_disabled_and_online_capable),
		T(test_more_than_max_cpus),
		T(test_random_corruption),
		T(test_find_table),
	};
	return cmocka_run_group_tests_name("acpi", tests, NULL, NULL);
}
