/* SPDX-License-Identifier: GPL-2.0-only */
/* Builds the guest's ACPI tables: enough for a kernel to find its CPUs, interrupt wiring, PM timer, soft-off and PCI. */
#include "vmm/load/acpi_tables.h"
#include "lib/assert.h"
#include "lib/string.h"
#include "vmm/dev/acpi_pm.h"
#include "vmm/dev/board.h"
#include "vmm/dev/lapic.h"

struct sdt_header {
	char sig[4];
	u32 length;
	u8 revision, checksum;
	char oem_id[6], oem_table_id[8];
	u32 oem_revision;
	char creator_id[4];
	u32 creator_revision;
} PACKED;

struct rsdp {
	char sig[8]; /* "RSD PTR " */
	u8 checksum; /* over the first 20 bytes (the ACPI 1.0 structure) */
	char oem_id[6];
	u8 revision; /* 2: XSDT and the extended fields below are valid */
	u32 rsdt;
	u32 length;
	u64 xsdt;
	u8 ext_checksum, reserved[3];
} PACKED;

/* The FADT of ACPI 3.0/4.0 (revision 4). The 64-bit X_ fields are left zero: a kernel then
 * uses the 32-bit ones, and the two can never disagree. */
struct fadt {
	struct sdt_header h;
	u32 facs, dsdt;
	u8 reserved0, pm_profile;
	u16 sci_int;
	u32 smi_cmd;
	u8 acpi_enable, acpi_disable, s4bios_req, pstate_cnt;
	u32 pm1a_evt, pm1b_evt, pm1a_cnt, pm1b_cnt, pm2_cnt, pm_tmr, gpe0, gpe1;
	u8 pm1_evt_len, pm1_cnt_len, pm2_cnt_len, pm_tmr_len, gpe0_len, gpe1_len, gpe1_base;
	u8 cst_cnt;
	u16 p_lvl2_lat, p_lvl3_lat, flush_size, flush_stride;
	u8 duty_offset, duty_width, day_alrm, mon_alrm, century;
	u16 boot_arch;
	u8 reserved1;
	u32 flags;
	u8 reset_reg[12];
	u8 reset_value, reserved2[3];
	u64 x_facs, x_dsdt;
	u8 x_blocks[8][12]; /* PM1a/b event, PM1a/b control, PM2, timer, GPE0, GPE1 */
} PACKED;

struct facs {
	char sig[4];
	u32 length;
	u32 hw_signature, waking_vector, global_lock, flags;
	u64 x_waking_vector;
	u8 version, reserved[31];
} PACKED;

/* An MCFG allocation (PCI Firmware 3.2, 4.1.2): one segment's buses and their ECAM base. */
struct mcfg_alloc {
	u64 base;
	u16 segment;
	u8 bus_start, bus_end;
	u32 reserved;
} PACKED;

struct madt_lapic {
	u8 type, len, acpi_id, apic_id;
	u32 flags;
} PACKED;
struct madt_ioapic {
	u8 type, len, id, reserved;
	u32 addr, gsi_base;
} PACKED;
struct madt_override {
	u8 type, len, bus, source;
	u32 gsi;
	u16 flags;
} PACKED;
struct madt_lapic_nmi {
	u8 type, len, acpi_id;
	u16 flags;
	u8 lint;
} PACKED;

BUILD_BUG_ON(sizeof(struct sdt_header) != 36);
BUILD_BUG_ON(sizeof(struct rsdp) != 36);
BUILD_BUG_ON(sizeof(struct fadt) != 244);
BUILD_BUG_ON(sizeof(struct facs) != 64);
BUILD_BUG_ON(sizeof(struct madt_override) != 10);
BUILD_BUG_ON(sizeof(struct madt_lapic_nmi) != 6);
BUILD_BUG_ON(sizeof(struct mcfg_alloc) != 16);

enum { MADT_LAPIC = 0, MADT_IOAPIC = 1, MADT_OVERRIDE = 2, MADT_LAPIC_NMI = 4 };
#define MADT_PCAT_COMPAT 1 /* a dual 8259 is present too */
#define MADT_ENABLED 1
#define MPS_HIGH_LEVEL 0x000d /* override flags: active high, level triggered */

#define FADT_WBINVD (1u << 0)
#define FADT_PROC_C1 (1u << 2)
#define FADT_PWR_BUTTON (1u << 4)     /* no fixed-feature power button */
#define FADT_SLP_BUTTON (1u << 5)     /* no fixed-feature sleep button */
#define FADT_TMR_VAL_EXT (1u << 8)    /* the PM timer counts 32 bits */
#define FADT_RESET_REG_SUP (1u << 10) /* the reset register below resets the machine */
#define BOOT_ARCH_LEGACY (1u << 0)    /* ISA devices (the UART, the RTC) that no AML lists */
#define BOOT_ARCH_NO_VGA (1u << 2)
#define CMOS_CENTURY 0x32

/* Name (_S5, Package (4) { 5, 5, 0, 0 }), the SLP_TYP values for soft-off that the PM model
 * recognises. */
static const u8 aml_s5[] = {
	0x08, '_',  'S', '5', '_', 0x12, 0x08, 0x04, 0x0a, ACPI_SLP_TYP_S5, 0x0a, ACPI_SLP_TYP_S5,
	0x00, 0x00,
};

/*
 * The PCI host bridge's _CRS (vmm/dev/pci_bus.c): bus 0 only (what the MCFG's window covers:
 * Linux warns of a bridge whose buses it covers partly); the configuration ports; the ports
 * around them (BARs go from 0x1000); the memory hole where Umbra places BARs and shared
 * regions, up to the ECAM window (which is the motherboard's, below). Word and DWord address
 * space descriptors (ACPI 6.4, 6.4.3.5): producer, minimum and maximum fixed, I/O over the
 * entire range, memory read-write.
 */
#define LE16(v) (u8)(v), (u8)((v) >> 8)
#define LE32(v) LE16(v), LE16((v) >> 16)
static const u8 pci_crs[] = {
	0x88,
	0x0d,
	0x00,
	2,
	0x0c,
	0,
	LE16(0),
	LE16(0),
	LE16(0),
	LE16(0),
	LE16(1),
	0x47,
	0x01,
	LE16(0xcf8),
	LE16(0xcf8),
	1,
	8,
	0x88,
	0x0d,
	0x00,
	1,
	0x0c,
	3,
	LE16(0),
	LE16(0),
	LE16(0xcf7),
	LE16(0),
	LE16(0xcf8),
	0x88,
	0x0d,
	0x00,
	1,
	0x0c,
	3,
	LE16(0),
	LE16(0xd00),
	LE16(0xffff),
	LE16(0),
	LE16(0xf300),
	0x87,
	0x17,
	0x00,
	0,
	0x0c,
	1,
	LE32(0),
	LE32(PCI_BUS_HOLE_BASE),
	LE32(PCI_BUS_HOLE_END - 1),
	LE32(0),
	LE32(PCI_BUS_HOLE_END - PCI_BUS_HOLE_BASE),
	0x79,
	0x00,
};

/* The ECAM window as a motherboard resource: Memory32Fixed, read-write, base patched in. */
static const u8 ecam_crs[] = {
	0x86, 0x09, 0x00, 1, LE32(0), LE32(PCI_BUS_ECAM_SIZE), 0x79, 0x00,
};

/* AML out of a fixed buffer; every PkgLength takes two bytes (up to 4095), patched on close. */
struct aml {
	u8 b[640];
	size_t n;
};

static void aml(struct aml *a, const void *p, size_t n)
{
	ASSERT(a->n + n <= sizeof(a->b));
	memcpy(a->b + a->n, p, n);
	a->n += n;
}

static void aml_byte(struct aml *a, u8 v)
{
	aml(a, &v, 1);
}

static size_t aml_open(struct aml *a, const void *op, size_t oplen)
{
	aml(a, op, oplen);
	size_t at = a->n;
	aml(a, "\0\0", 2);
	return at;
}

static void aml_close(struct aml *a, size_t at)
{
	size_t len = a->n - at;
	a->b[at] = (u8)(0x40 | (len & 0xf));
	a->b[at + 1] = (u8)(len >> 4);
}

static void aml_dword(struct aml *a, u32 v)
{
	aml_byte(a, 0x0c);
	aml(a, &v, 4);
}

/* Name (_CRS, Buffer () { desc }) with len bytes of resource descriptors. */
static void aml_crs(struct aml *a, const u8 *desc, u8 len)
{
	aml(a, "\x08_CRS", 5);
	size_t buf = aml_open(a, "\x11", 1);
	aml_byte(a, 0x0a);
	aml_byte(a, len);
	aml(a, desc, len);
	aml_close(a, buf);
}

/* Opens Device (name) { _HID eisa_id, _UID 0 }: where to close it. */
static size_t aml_device(struct aml *a, const char *name, u32 eisa_id)
{
	size_t dev = aml_open(a, "\x5b\x82", 2);
	aml(a, name, 4);
	aml(a, "\x08_HID", 5);
	aml_dword(a, eisa_id);
	aml(a, "\x08_UID\x00", 6);
	return dev;
}

/*
 * Device (\_SB.PCI0): a PCI root bridge (PNP0A03) for bus 0, so a kernel that reads the DSDT
 * (Linux does, and then scans only the buses it lists) finds the guest's functions, and a _PRT
 * routing INTA of every device to GSI 11, level and active low (the _PRT's default), as the
 * board wires it. Without it Linux sees no PCI device at all.
 */
static void aml_pci_root(struct aml *a)
{
	size_t dev = aml_device(a, "PCI0", 0x030ad041u); /* EisaId ("PNP0A03") */
	aml(a, "\x08_BBN\x00", 6);
	aml_crs(a, pci_crs, sizeof(pci_crs));
	aml(a, "\x08_PRT", 5);
	size_t prt = aml_open(a, "\x12", 1);
	aml_byte(a, PCI_BUS_FUNCS);
	for (u32 d = 1; d <= PCI_BUS_FUNCS; d++) {
		size_t e = aml_open(a, "\x12", 1);
		aml_byte(a, 4);
		aml_dword(a, d << 16 | 0xffff); /* the device, any function */
		aml(a, "\x00\x00\x0a", 3);	/* INTA, no link device, GSI: */
		aml_byte(a, PCI_BUS_INTX_IRQ);
		aml_close(a, e);
	}
	aml_close(a, prt);
	aml_close(a, dev);
}

/*
 * Device (\_SB.MRES): motherboard resources (PNP0C02) holding the ECAM window. Linux trusts
 * an MCFG window only where firmware reserved it, in the E820 map or here ("MMCONFIG at ...
 * reserved as ACPI motherboard resource"); the root bridge's windows leave it out, so nothing
 * is placed over it.
 */
static void aml_motherboard(struct aml *a, u32 ecam)
{
	u8 crs[sizeof(ecam_crs)];
	memcpy(crs, ecam_crs, sizeof(crs));
	memcpy(crs + 4, &ecam, 4);
	size_t dev = aml_device(a, "MRES", 0x020cd041u); /* EisaId ("PNP0C02") */
	aml_crs(a, crs, sizeof(crs));
	aml_close(a, dev);
}

/* A bump allocator over the output buffer, handing out guest addresses. */
struct out {
	u8 *buf;
	u64 gpa;
	size_t used;
	bool full;
};

static void *take(struct out *o, size_t len, size_t align, u32 *gpa)
{
	size_t at = (o->used + align - 1) & ~(align - 1);

	if (o->full || at + len > ACPI_TABLES_MAX) {
		o->full = true;
		return NULL;
	}
	o->used = at + len;
	*gpa = (u32)(o->gpa + at);
	memset(o->buf + at, 0, len);
	return o->buf + at;
}

static void header(struct sdt_header *h, const char *sig, u32 len, u8 revision)
{
	memcpy(h->sig, sig, 4);
	h->length = len;
	h->revision = revision;
	memcpy(h->oem_id, "UMBRA ", 6);
	memcpy(h->oem_table_id, "UMBRA VM", 8);
	h->oem_revision = 1;
	memcpy(h->creator_id, "UMBR", 4);
	h->creator_revision = 1;
}

static void seal(struct sdt_header *h)
{
	h->checksum = checksum8(h, h->length);
}

static u32 build_dsdt(struct out *o, const struct acpi_board *b)
{
	static struct aml body;
	u32 gpa;

	body.n = 0;
	aml(&body, aml_s5, sizeof(aml_s5));
	size_t scope = aml_open(&body, "\x10", 1);
	aml(&body, "\\_SB_", 5);
	aml_pci_root(&body);
	if (b->ecam_gpa)
		aml_motherboard(&body, b->ecam_gpa);
	aml_close(&body, scope);
	struct sdt_header *h = take(o, sizeof(*h) + body.n, 8, &gpa);
	if (!h)
		return 0;
	header(h, "DSDT", (u32)(sizeof(*h) + body.n), 2);
	memcpy(h + 1, body.b, body.n);
	seal(h);
	return gpa;
}

static u32 build_facs(struct out *o)
{
	u32 gpa;
	struct facs *f = take(o, sizeof(*f), 64, &gpa);

	if (!f)
		return 0;
	memcpy(f->sig, "FACS", 4);
	f->length = sizeof(*f);
	f->version = 2;
	return gpa;
}

static u32 build_fadt(struct out *o, const struct acpi_board *b, u32 facs, u32 dsdt)
{
	u32 gpa;
	struct fadt *f = take(o, sizeof(*f), 8, &gpa);

	if (!f)
		return 0;
	header(&f->h, "FACP", sizeof(*f), 4);
	f->facs = facs;
	f->dsdt = dsdt;
	f->sci_int = b->sci_irq;
	/* No SMI command port: the board is in ACPI mode from power-on (SCI_EN reads 1). */
	f->pm1a_evt = b->pm_base + ACPI_PM1_EVT;
	f->pm1a_cnt = b->pm_base + ACPI_PM1_CNT;
	f->pm_tmr = b->pm_base + ACPI_PM_TMR;
	f->pm1_evt_len = 4;
	f->pm1_cnt_len = 2;
	f->pm_tmr_len = 4;
	/* Above 100 and 1000: C2 and C3 not supported, HLT (C1) is the only idle state. */
	f->p_lvl2_lat = 101;
	f->p_lvl3_lat = 1001;
	f->century = CMOS_CENTURY;
	/* MSI is offered: the ivshmem functions' MSI-X, assigned functions' MSI. */
	f->boot_arch = BOOT_ARCH_LEGACY | BOOT_ARCH_NO_VGA;
	f->flags = FADT_WBINVD | FADT_PROC_C1 | FADT_PWR_BUTTON | FADT_SLP_BUTTON |
		   FADT_TMR_VAL_EXT | FADT_RESET_REG_SUP;
	/* The reset register: system I/O, 8 bits at port 0xCF9, byte access, as on Intel's
	 * chipsets (and QEMU's q35); the value is a hard reset. */
	const u8 reset_reg[12] = { 1, 8, 0, 1, RCR_PORT & 0xff, RCR_PORT >> 8 };
	memcpy(f->reset_reg, reset_reg, sizeof(reset_reg));
	f->reset_value = RCR_RESET_VALUE;
	seal(&f->h);
	return gpa;
}

static u32 build_madt(struct out *o, const struct acpi_board *b)
{
	size_t len = sizeof(struct sdt_header) + 8 + b->cpus * sizeof(struct madt_lapic) +
		     sizeof(struct madt_ioapic) + 2 * sizeof(struct madt_override) +
		     sizeof(struct madt_lapic_nmi);
	u32 gpa;
	struct sdt_header *h = take(o, len, 8, &gpa);
	if (!h)
		return 0;
	u8 *p = (u8 *)(h + 1);
	header(h, "APIC", (u32)len, 3);
	memcpy(p, &(u32){ (u32)VLAPIC_BASE }, 4);
	memcpy(p + 4, &(u32){ MADT_PCAT_COMPAT }, 4);
	p += 8;
	for (unsigned i = 0; i < b->cpus; i++, p += sizeof(struct madt_lapic))
		memcpy(p,
		       &(struct madt_lapic){ MADT_LAPIC, sizeof(struct madt_lapic), (u8)i, (u8)i,
					     MADT_ENABLED },
		       sizeof(struct madt_lapic));
	memcpy(p,
	       &(struct madt_ioapic){ MADT_IOAPIC, sizeof(struct madt_ioapic), b->ioapic_id, 0,
				      b->ioapic_gpa, 0 },
	       sizeof(struct madt_ioapic));
	p += sizeof(struct madt_ioapic);
	/* The one ISA IRQ not on its own pin: the PIT's. */
	memcpy(p,
	       &(struct madt_override){ MADT_OVERRIDE, sizeof(struct madt_override), 0, 0,
					isa_gsi(0), 0 },
	       sizeof(struct madt_override));
	p += sizeof(struct madt_override);
	/* The SCI is level triggered, active high (the ACPI default would be active low). */
	memcpy(p,
	       &(struct madt_override){ MADT_OVERRIDE, sizeof(struct madt_override), 0, b->sci_irq,
					b->sci_irq, MPS_HIGH_LEVEL },
	       sizeof(struct madt_override));
	p += sizeof(struct madt_override);
	memcpy(p,
	       &(struct madt_lapic_nmi){ MADT_LAPIC_NMI, sizeof(struct madt_lapic_nmi), 0xff, 0,
					 1 },
	       sizeof(struct madt_lapic_nmi));
	seal(h);
	return gpa;
}

/* The PCI bus's ECAM window: segment 0, bus 0 alone. */
static u32 build_mcfg(struct out *o, const struct acpi_board *b)
{
	size_t len = sizeof(struct sdt_header) + 8 + sizeof(struct mcfg_alloc);
	u32 gpa;
	struct sdt_header *h = take(o, len, 8, &gpa);
	if (!h)
		return 0;
	header(h, "MCFG", (u32)len, 1);
	memcpy((u8 *)(h + 1) + 8, &(struct mcfg_alloc){ b->ecam_gpa, 0, 0, 0, 0 },
	       sizeof(struct mcfg_alloc));
	seal(h);
	return gpa;
}

/* The RSDT (32-bit entries) and XSDT (64-bit) list the same tables, for kernels of any age. */
static bool build_roots(struct out *o, struct rsdp *r, const u32 *tables, unsigned n)
{
	u32 rsdt_gpa, xsdt_gpa;
	struct sdt_header *rsdt = take(o, sizeof(*rsdt) + 4 * n, 8, &rsdt_gpa);
	struct sdt_header *xsdt = take(o, sizeof(*xsdt) + 8 * n, 8, &xsdt_gpa);

	if (!rsdt || !xsdt)
		return false;
	header(rsdt, "RSDT", (u32)(sizeof(*rsdt) + 4 * n), 1);
	header(xsdt, "XSDT", (u32)(sizeof(*xsdt) + 8 * n), 1);
	for (unsigned i = 0; i < n; i++) {
		memcpy((u8 *)(rsdt + 1) + 4 * i, &tables[i], 4);
		memcpy((u8 *)(xsdt + 1) + 8 * i, &(u64){ tables[i] }, 8);
	}
	seal(rsdt);
	seal(xsdt);
	r->rsdt = rsdt_gpa;
	r->xsdt = xsdt_gpa;
	return true;
}

size_t acpi_tables_build(u8 *buf, u64 gpa, const struct acpi_board *b)
{
	struct out o = { .buf = buf, .gpa = gpa };
	u32 rsdp_gpa, tables[3];
	unsigned n = 0;
	struct rsdp *r = take(&o, sizeof(*r), 16, &rsdp_gpa);
	u32 dsdt = build_dsdt(&o, b), facs = build_facs(&o);

	tables[n++] = build_fadt(&o, b, facs, dsdt);
	tables[n++] = build_madt(&o, b);
	if (b->ecam_gpa)
		tables[n++] = build_mcfg(&o, b);
	if (o.full || !build_roots(&o, r, tables, n))
		return 0;
	memcpy(r->sig, "RSD PTR ", 8);
	memcpy(r->oem_id, "UMBRA ", 6);
	r->revision = 2;
	r->length = sizeof(*r);
	r->checksum = checksum8(r, 20);
	r->ext_checksum = checksum8(r, sizeof(*r));
	return o.used;
}
