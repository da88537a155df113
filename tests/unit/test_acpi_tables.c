/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for vmm/load/acpi_tables.c: the guest's tables, checked by sums and by Umbra's own ACPI parser. */
#include <string.h>
#include "tests/unit/harness.h"
#include "arch/x86/acpi.h"
#include "arch/x86/pci.h"
#include "vmm/load/acpi_tables.h"
#include "vmm/dev/acpi_pm.h"
#include "vmm/dev/rcr.h"

#define GPA 0xf1000ull

static u8 mem[ACPI_TABLES_MAX];
static const struct acpi_board board = {
	.cpus = 3,
	.ioapic_id = 3,
	.ioapic_gpa = 0xfec00000u,
	.pm_base = ACPI_PM_BASE,
	.sci_irq = 9,
	.ecam_gpa = 0xfeb00000u,
};

static const void *map(u64 pa, size_t len, void *ctx)
{
	(void)ctx;
	if (pa < GPA || pa - GPA > sizeof(mem) || len > sizeof(mem) - (pa - GPA))
		return NULL;
	return mem + (pa - GPA);
}

static u32 get32(u64 pa)
{
	u32 v;
	memcpy(&v, map(pa, 4, NULL), 4);
	return v;
}
static u16 get16(u64 pa)
{
	u16 v;
	memcpy(&v, map(pa, 2, NULL), 2);
	return v;
}

static u16 get16u(const u8 *p)
{
	return (u16)(p[0] | p[1] << 8);
}

static u8 sum(const u8 *p, size_t n)
{
	u8 s = 0;
	while (n--)
		s += *p++;
	return s;
}

/* The table the XSDT lists with this signature, or 0. */
static u64 find(const char *sig)
{
	u64 xsdt;
	memcpy(&xsdt, mem + 24, 8);
	u32 len = get32(xsdt + 4);
	for (u32 off = 36; off + 8 <= len; off += 8) {
		u64 t;
		memcpy(&t, map(xsdt + off, 8, NULL), 8);
		if (!memcmp(map(t, 4, NULL), sig, 4))
			return t;
	}
	return 0;
}

static int setup(void **state)
{
	(void)state;
	memset(mem, 0xcc, sizeof(mem));
	return acpi_tables_build(mem, GPA, &board) ? 0 : -1;
}

static void rsdp_sums_and_revision(void **state)
{
	(void)state;
	assert_memory_equal(mem, "RSD PTR ", 8);
	assert_int_equal(sum(mem, 20), 0);
	assert_int_equal(sum(mem, 36), 0);
	assert_int_equal(mem[15], 2);
}

static void every_table_sums_to_zero(void **state)
{
	(void)state;
	static const char *const sigs[] = { "FACP", "APIC", "MCFG" };
	for (unsigned i = 0; i < 3; i++) {
		u64 t = find(sigs[i]);
		assert_true(t != 0);
		assert_int_equal(sum(map(t, get32(t + 4), NULL), get32(t + 4)), 0);
	}
	u64 dsdt = get32(find("FACP") + 40);
	assert_memory_equal(map(dsdt, 4, NULL), "DSDT", 4);
	assert_int_equal(sum(map(dsdt, get32(dsdt + 4), NULL), get32(dsdt + 4)), 0);
	u32 rsdt = get32(GPA + 16);
	assert_int_equal(sum(map(rsdt, get32(rsdt + 4), NULL), get32(rsdt + 4)), 0);
	assert_int_equal(get32(rsdt + 4), 36 + 3 * 4);
}

static void madt_parses_with_umbras_parser(void **state)
{
	(void)state;
	struct acpi_cpus cpus;
	assert_int_equal(acpi_find_cpus(mem, 36, map, NULL, &cpus), 0);
	assert_true(cpus.used_xsdt);
	assert_int_equal(cpus.count, 3);
	assert_int_equal(cpus.apic_id[2], 2);
	assert_int_equal(cpus.lapic_base, 0xfee00000u);
	assert_int_equal(cpus.madt_flags & 1, 1);
}

/* The entries after the CPUs: the I/O APIC, IRQ 0 -> GSI 2, the SCI level/high, LINT1 NMI. */
static void madt_wiring(void **state)
{
	(void)state;
	u64 e = find("APIC") + 44 + 3 * 8;
	assert_int_equal(mem[e - GPA], 1);
	assert_int_equal(mem[e - GPA + 2], 3);
	assert_int_equal(get32(e + 4), 0xfec00000u);
	assert_int_equal(get32(e + 8), 0);
	e += 12;
	assert_int_equal(mem[e - GPA], 2);
	assert_int_equal(mem[e - GPA + 3], 0);
	assert_int_equal(get32(e + 4), 2);
	e += 10;
	assert_int_equal(mem[e - GPA + 3], 9);
	assert_int_equal(get16(e + 8), 0x000d);
	e += 10;
	assert_int_equal(mem[e - GPA], 4);
	assert_int_equal(mem[e - GPA + 5], 1);
	assert_int_equal(e + 6, find("APIC") + get32(find("APIC") + 4));
}

static void fadt_points_at_the_pm_block(void **state)
{
	(void)state;
	u64 f = find("FACP");
	assert_int_equal(get32(f + 4), 244);
	assert_int_equal(get16(f + 46), 9);
	assert_int_equal(get32(f + 48), 0); /* no SMI command: ACPI mode always */
	assert_int_equal(get32(f + 56), ACPI_PM_BASE + ACPI_PM1_EVT);
	assert_int_equal(get32(f + 64), ACPI_PM_BASE + ACPI_PM1_CNT);
	assert_int_equal(get32(f + 76), ACPI_PM_BASE + ACPI_PM_TMR);
	assert_int_equal(mem[f - GPA + 88], 4);
	assert_int_equal(mem[f - GPA + 89], 2);
	assert_int_equal(mem[f - GPA + 91], 4);
	assert_true(get32(f + 112) & (1u << 8)); /* TMR_VAL_EXT: 32-bit timer */
	/* IAPC_BOOT_ARCH (offset 109): legacy devices, no VGA, and MSI not refused (bit 3). */
	assert_int_equal(get16(f + 109), 0x5);
	/* RESET_REG_SUP and the reset register: system I/O, 8 bits, byte access, port 0xCF9,
	 * value 6 (a hard reset through the reset control register model). */
	assert_true(get32(f + 112) & (1u << 10));
	assert_int_equal(mem[f - GPA + 116], 1);
	assert_int_equal(mem[f - GPA + 117], 8);
	assert_int_equal(mem[f - GPA + 118], 0);
	assert_int_equal(mem[f - GPA + 119], 1);
	assert_int_equal(get32(f + 120), RCR_PORT);
	assert_int_equal(get32(f + 124), 0);
	assert_int_equal(mem[f - GPA + 128], RCR_RESET_VALUE);
	u64 facs = get32(f + 36);
	assert_int_equal(facs % 64, 0);
	assert_memory_equal(map(facs, 4, NULL), "FACS", 4);
}

/* \_S5 must carry the SLP_TYP the PM model powers off on. */
static void dsdt_has_s5(void **state)
{
	(void)state;
	u64 d = get32(find("FACP") + 40);
	const u8 *aml = map(d + 36, get32(d + 4) - 36, NULL);
	assert_memory_equal(aml, "\x08_S5_\x12", 6);
	assert_int_equal(aml[9], ACPI_SLP_TYP_S5);
}

/* An AML PkgLength at p (ACPI 6.4, 20.2.4): its value, *n its own bytes. */
static u32 pkg_length(const u8 *p, unsigned *n)
{
	*n = 1 + (p[0] >> 6);
	if (*n == 1)
		return p[0] & 0x3f;
	u32 len = p[0] & 0xf;
	for (unsigned i = 1; i < *n; i++)
		len |= (u32)p[i] << (4 + 8 * (i - 1));
	return len;
}

/* The object after Name (seg) inside [p, end), or NULL. */
static const u8 *named(const u8 *p, const u8 *end, const char *seg)
{
	for (; p + 5 < end; p++)
		if (p[0] == 0x08 && !memcmp(p + 1, seg, 4))
			return p + 5;
	return NULL;
}

/* \_SB.PCI0: a PNP0A03 root for bus 0, its windows, INTA of every device on GSI 11. Walked as
 * a kernel's AML parser does: every package length must end where the next object starts. */
static void dsdt_has_pci_root(void **state)
{
	(void)state;
	u64 d = get32(find("FACP") + 40);
	u32 len = get32(d + 4) - 36;
	const u8 *aml = map(d + 36, len, NULL), *end = aml + len, *p = aml + 14;
	unsigned n;
	assert_int_equal(p[0], 0x10); /* Scope */
	assert_ptr_equal(p + 1 + pkg_length(p + 1, &n), end);
	p += 1 + n;
	assert_memory_equal(p, "\\_SB_", 5);
	p += 5;
	assert_memory_equal(p, "\x5b\x82", 2); /* Device */
	const u8 *mres = p + 2 + pkg_length(p + 2, &n);
	end = mres; /* PCI0's end: MRES follows */
	p += 2 + n;
	assert_memory_equal(p, "PCI0", 4);
	assert_memory_equal(named(p, end, "_HID"), "\x0c\x41\xd0\x0a\x03", 5);
	assert_memory_equal(named(p, end, "_BBN"), "\x00", 1);
	/* _CRS: a Buffer whose descriptors end with the end tag exactly at its end. */
	const u8 *crs = named(p, end, "_CRS");
	assert_non_null(crs);
	assert_int_equal(crs[0], 0x11);
	u32 blen = pkg_length(crs + 1, &n);
	assert_int_equal(crs[1 + n], 0x0a);
	const u8 *r = crs + 1 + n + 2, *rend = r + crs[1 + n + 1];
	assert_ptr_equal(rend, crs + 1 + blen);
	unsigned mem_windows = 0;
	/* First the bus numbers: bus 0 alone, as the MCFG's window. */
	assert_memory_equal(r, "\x88\x0d\x00\x02", 4);
	assert_int_equal(get16u(r + 8), 0);
	assert_int_equal(get16u(r + 10), 0);
	assert_int_equal(get16u(r + 14), 1);
	while (r < rend && r[0] != 0x79) {
		unsigned size = r[0] & 0x80 ? 3u + (r[1] | r[2] << 8) : 1u + (r[0] & 7);
		if (r[0] == 0x87) { /* DWord memory: the hole */
			u32 min, max;
			memcpy(&min, r + 10, 4);
			memcpy(&max, r + 14, 4);
			assert_int_equal(min, 0xc0000000u);
			assert_int_equal(max, 0xfeafffffu); /* below the ECAM window */
			mem_windows++;
		}
		r += size;
	}
	assert_int_equal(mem_windows, 1);
	assert_ptr_equal(r + 2, rend); /* the end tag, last */
	/* _PRT: one INTA entry per device, all on GSI 11. */
	const u8 *prt = named(p, end, "_PRT");
	assert_non_null(prt);
	assert_int_equal(prt[0], 0x12);
	u32 plen = pkg_length(prt + 1, &n);
	const u8 *e = prt + 1 + n + 1, *pend = prt + 1 + plen;
	unsigned count = prt[1 + n];
	assert_int_equal(count, 12);
	for (unsigned i = 0; i < count; i++) {
		unsigned en;
		assert_int_equal(e[0], 0x12);
		u32 elen = pkg_length(e + 1, &en);
		const u8 *x = e + 1 + en;
		assert_int_equal(x[0], 4);
		u32 addr;
		memcpy(&addr, x + 2, 4);
		assert_int_equal(x[1], 0x0c);
		assert_int_equal(addr, (i + 1) << 16 | 0xffff);
		assert_memory_equal(x + 6, "\x00\x00\x0a\x0b", 4); /* INTA, no link, GSI 11 */
		e += 1 + elen;
	}
	assert_ptr_equal(e, pend);
	/* \_SB.MRES: PNP0C02 reserving exactly the ECAM window, and the scope's last object. */
	const u8 *send = aml + len;
	assert_memory_equal(mres, "\x5b\x82", 2);
	assert_ptr_equal(mres + 2 + pkg_length(mres + 2, &n), send);
	p = mres + 2 + n;
	assert_memory_equal(p, "MRES", 4);
	assert_memory_equal(named(p, send, "_HID"), "\x0c\x41\xd0\x0c\x02", 5);
	crs = named(p, send, "_CRS");
	assert_non_null(crs);
	blen = pkg_length(crs + 1, &n);
	r = crs + 1 + n + 2;
	assert_int_equal(crs[1 + n + 1], 14);
	assert_ptr_equal(r + 14, crs + 1 + blen);
	assert_memory_equal(r, "\x86\x09\x00\x01", 4); /* Memory32Fixed, read-write */
	u32 base, size;
	memcpy(&base, r + 4, 4);
	memcpy(&size, r + 8, 4);
	assert_int_equal(base, 0xfeb00000u);
	assert_int_equal(size, 0x100000);
	assert_memory_equal(r + 12, "\x79\x00", 2);
}

/* The MCFG, read by Umbra's own parser of the machine's: segment 0, bus 0 alone, the window. */
static void mcfg_lists_the_window(void **state)
{
	(void)state;
	const struct acpi_header *mcfg;
	struct acpi_find f;
	struct pci_ecam ecam;
	assert_int_equal(acpi_find_table(mem, 36, map, NULL, "MCFG", PCI_ERR_MCFG, &mcfg, &f), 0);
	assert_int_equal(pci_parse_mcfg(mcfg, &ecam), 0);
	assert_int_equal(ecam.base, 0xfeb00000u);
	assert_int_equal(ecam.segment, 0);
	assert_int_equal(ecam.start_bus, 0);
	assert_int_equal(ecam.end_bus, 0);
	assert_int_equal(get32(find("MCFG") + 4), 36 + 8 + 16);
}

/* A guest with no PCI bus: no MCFG, no motherboard resource, two tables in the roots; the
 * root bridge is still there (Linux looks for one either way). */
static void no_bus_no_mcfg(void **state)
{
	(void)state;
	struct acpi_board none = board;
	none.ecam_gpa = 0;
	memset(mem, 0xcc, sizeof(mem));
	assert_int_not_equal(acpi_tables_build(mem, GPA, &none), 0);
	assert_int_equal(find("MCFG"), 0);
	assert_int_not_equal(find("APIC"), 0);
	assert_int_equal(get32(get32(GPA + 16) + 4), 36 + 2 * 4);
	u64 d = get32(find("FACP") + 40);
	u32 len = get32(d + 4) - 36;
	const u8 *aml = map(d + 36, len, NULL);
	bool pci0 = false, mres = false;
	for (u32 i = 0; i + 4 <= len; i++) {
		pci0 |= !memcmp(aml + i, "PCI0", 4);
		mres |= !memcmp(aml + i, "MRES", 4) || !memcmp(aml + i, "\x41\xd0\x0c\x02", 4);
	}
	assert_true(pci0);
	assert_false(mres);
	const struct acpi_header *mcfg;
	struct acpi_find f;
	assert_int_equal(acpi_find_table(mem, 36, map, NULL, "MCFG", PCI_ERR_MCFG, &mcfg, &f),
			 ACPI_ERR_NO_TABLE);
}

static void too_many_cpus_do_not_fit(void **state)
{
	(void)state;
	struct acpi_board big = board;
	big.cpus = ACPI_TABLES_MAX / 8;
	assert_int_equal(acpi_tables_build(mem, GPA, &big), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(rsdp_sums_and_revision, setup),
		cmocka_unit_test_setup(every_table_sums_to_zero, setup),
		cmocka_unit_test_setup(madt_parses_with_umbras_parser, setup),
		cmocka_unit_test_setup(madt_wiring, setup),
		cmocka_unit_test_setup(fadt_points_at_the_pm_block, setup),
		cmocka_unit_test_setup(dsdt_has_s5, setup),
		cmocka_unit_test_setup(dsdt_has_pci_root, setup),
		cmocka_unit_test_setup(mcfg_lists_the_window, setup),
		cmocka_unit_test(no_bus_no_mcfg),
		cmocka_unit_test(too_many_cpus_do_not_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
