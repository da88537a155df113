/* SPDX-License-Identifier: GPL-2.0-only */
/* ACPI table walk (RSDP, RSDT/XSDT, any table by signature) and the MADT: every length and
 * checksum is checked before the bytes are used. */
#include "arch/x86/acpi.h"
#include "lib/printf.h"
#include "lib/string.h"

struct acpi_rsdp {
	char signature[8];
	u8 checksum;
	char oem_id[6];
	u8 revision;
	u32 rsdt;
	u32 length; /* revision >= 2 from here on */
	u64 xsdt;
	u8 ext_checksum;
	u8 reserved[3];
} PACKED;

struct acpi_madt {
	struct acpi_header hdr;
	u32 lapic_addr;
	u32 flags;
} PACKED;

struct madt_entry {
	u8 type, length;
} PACKED;

struct madt_lapic {
	struct madt_entry e;
	u8 uid, apic_id;
	u32 flags;
} PACKED;

struct madt_lapic_override {
	struct madt_entry e;
	u16 reserved;
	u64 addr;
} PACKED;

struct madt_ioapic {
	struct madt_entry e;
	u8 id, reserved;
	u32 addr, gsi_base;
} PACKED;

struct madt_iso {
	struct madt_entry e;
	u8 bus, irq;
	u32 gsi;
	u16 flags;
} PACKED;

struct madt_x2apic {
	struct madt_entry e;
	u16 reserved;
	u32 x2apic_id, flags, uid;
} PACKED;

#define MADT_LAPIC 0
#define MADT_IOAPIC 1
#define MADT_ISO 2
#define MADT_LAPIC_OVERRIDE 5
#define MADT_X2APIC 9
#define MADT_CPU_ENABLED BIT(0)
#define MADT_CPU_ONLINE_CAPABLE BIT(1)

#define RSDP_V1_LEN 20

struct walk {
	const void *(*map)(u64 pa, size_t len, void *ctx);
	void *ctx;
	struct acpi_find *out;
};

static u8 checksum(const void *p, size_t len)
{
	const u8 *b = p;
	u8 sum = 0;
	while (len--)
		sum += *b++;
	return sum;
}

/*
 * Maps the table at pa whole once its header shows the expected signature and
 * a sane length, and checks its checksum. err is the code for a bad table.
 */
static int map_table(struct walk *w, u64 pa, const char *sig, int err,
		     const struct acpi_header **tbl)
{
	const struct acpi_header *h = w->map(pa, sizeof(*h), w->ctx);
	if (!h)
		return FMT_ERROR(w->out, ACPI_ERR_MAP, "acpi: cannot map %s header at 0x%llx", sig,
				 (unsigned long long)pa);
	if (memcmp(h->signature, sig, 4))
		return FMT_ERROR(w->out, err,
				 "acpi: table at 0x%llx has signature \"%.4s\", expected %s",
				 (unsigned long long)pa, h->signature, sig);
	u32 len = h->length;
	if (len < sizeof(*h) || len > ACPI_MAX_TABLE_LEN)
		return FMT_ERROR(w->out, err, "acpi: %s at 0x%llx: length %u outside [%zu, %u]",
				 sig, (unsigned long long)pa, len, sizeof(*h), ACPI_MAX_TABLE_LEN);
	h = w->map(pa, len, w->ctx);
	if (!h)
		return FMT_ERROR(w->out, ACPI_ERR_MAP, "acpi: cannot map %s at 0x%llx (%u bytes)",
				 sig, (unsigned long long)pa, len);
	if (checksum(h, len))
		return FMT_ERROR(w->out, err, "acpi: %s at 0x%llx: bad checksum", sig,
				 (unsigned long long)pa);
	*tbl = h;
	return 0;
}

static void add_cpu(struct acpi_cpus *out, u32 id, u32 flags)
{
	if (!(flags & (MADT_CPU_ENABLED | MADT_CPU_ONLINE_CAPABLE))) {
		out->disabled++;
		return;
	}
	/* Firmware may list a CPU in both a type 0 and a type 9 entry. */
	for (u32 i = 0; i < out->count; i++)
		if (out->apic_id[i] == id)
			return;
	if (out->count == ACPI_MAX_CPUS)
		out->dropped++;
	else
		out->apic_id[out->count++] = id;
}

static int parse_madt(const struct acpi_madt *madt, u64 pa, struct acpi_cpus *out)
{
	u32 len = madt->hdr.length;
	if (len < sizeof(*madt))
		return FMT_ERROR(out, ACPI_ERR_MADT, "acpi: MADT at 0x%llx: length %u < %zu",
				 (unsigned long long)pa, len, sizeof(*madt));
	out->lapic_base = madt->lapic_addr;
	out->madt_flags = madt->flags;
	const u8 *base = (const u8 *)madt;
	for (u32 off = sizeof(*madt); off < len;) {
		const struct madt_entry *e = (const void *)(base + off);
		if (len - off < sizeof(*e))
			return FMT_ERROR(
				out, ACPI_ERR_MADT,
				"acpi: MADT: stray byte at offset %u, too short for an entry", off);
		if (e->length < sizeof(*e))
			return FMT_ERROR(out, ACPI_ERR_MADT,
					 "acpi: MADT entry type %u at offset %u: length %u < 2",
					 e->type, off, e->length);
		if (e->length > len - off)
			return FMT_ERROR(
				out, ACPI_ERR_MADT,
				"acpi: MADT entry type %u at offset %u: length %u runs past the end (%u left)",
				e->type, off, e->length, len - off);
		u32 need = e->type == MADT_LAPIC	    ? sizeof(struct madt_lapic)
			   : e->type == MADT_X2APIC	    ? sizeof(struct madt_x2apic)
			   : e->type == MADT_LAPIC_OVERRIDE ? sizeof(struct madt_lapic_override)
			   : e->type == MADT_IOAPIC	    ? sizeof(struct madt_ioapic)
			   : e->type == MADT_ISO	    ? sizeof(struct madt_iso)
							    : sizeof(*e);
		if (e->length < need)
			return FMT_ERROR(out, ACPI_ERR_MADT,
					 "acpi: MADT entry type %u at offset %u: length %u < %u",
					 e->type, off, e->length, need);
		if (e->type == MADT_LAPIC) {
			const struct madt_lapic *l = (const void *)e;
			add_cpu(out, l->apic_id, l->flags);
		} else if (e->type == MADT_X2APIC) {
			const struct madt_x2apic *x = (const void *)e;
			add_cpu(out, x->x2apic_id, x->flags);
		} else if (e->type == MADT_LAPIC_OVERRIDE) {
			out->lapic_base =
				((const struct madt_lapic_override *)(const void *)e)->addr;
		} else if (e->type == MADT_IOAPIC) {
			const struct madt_ioapic *io = (const void *)e;
			if (out->n_ioapics < ACPI_MAX_IOAPICS)
				out->ioapic[out->n_ioapics] = (struct acpi_ioapic){
					.base = io->addr, .gsi_base = io->gsi_base, .id = io->id
				};
			out->n_ioapics++;
		} else if (e->type == MADT_ISO) {
			const struct madt_iso *o = (const void *)e;
			/* Bus 0 is ISA, the only one overrides are defined for. */
			if (!o->bus && out->n_isos < ACPI_MAX_ISOS)
				out->iso[out->n_isos++] = (struct acpi_iso){ .gsi = o->gsi,
									     .flags = o->flags,
									     .irq = o->irq };
		}
		off += e->length;
	}
	if (!out->count)
		return FMT_ERROR(out, ACPI_ERR_MADT, "acpi: MADT at 0x%llx lists no usable CPU",
				 (unsigned long long)pa);
	return 0;
}

static int check_rsdp(const struct acpi_rsdp *r, size_t len, struct acpi_find *out)
{
	if (!r || len < RSDP_V1_LEN)
		return FMT_ERROR(out, ACPI_ERR_RSDP, "acpi: RSDP missing or %zu bytes < %u",
				 r ? len : 0, RSDP_V1_LEN);
	if (memcmp(r->signature, "RSD PTR ", 8))
		return FMT_ERROR(out, ACPI_ERR_RSDP, "acpi: RSDP signature is not \"RSD PTR \"");
	if (checksum(r, RSDP_V1_LEN))
		return FMT_ERROR(out, ACPI_ERR_RSDP, "acpi: RSDP checksum (first 20 bytes) is bad");
	out->used_xsdt = r->revision >= 2 && len >= sizeof(*r);
	if (!out->used_xsdt)
		return 0;
	if (r->length < sizeof(*r) || r->length > len)
		return FMT_ERROR(out, ACPI_ERR_RSDP, "acpi: RSDP length %u outside [%zu, %zu]",
				 r->length, sizeof(*r), len);
	if (checksum(r, r->length))
		return FMT_ERROR(out, ACPI_ERR_RSDP, "acpi: RSDP extended checksum is bad");
	/* Some firmware sets revision 2 but leaves the XSDT out: the RSDT still works. */
	out->used_xsdt = r->xsdt != 0;
	return 0;
}

int acpi_find_table(const void *rsdp, size_t rsdp_len,
		    const void *(*map)(u64 pa, size_t len, void *ctx), void *ctx, const char *sig,
		    int err_bad, const struct acpi_header **tbl, struct acpi_find *out)
{
	memset(out, 0, sizeof(*out));
	*tbl = NULL;
	const struct acpi_rsdp *r = rsdp;
	int err = check_rsdp(r, rsdp_len, out);
	if (err)
		return err;

	struct walk w = { map, ctx, out };
	u64 root_pa = out->used_xsdt ? r->xsdt : r->rsdt;
	const char *root_sig = out->used_xsdt ? "XSDT" : "RSDT";
	size_t esz = out->used_xsdt ? 8 : 4;
	const struct acpi_header *root;
	err = map_table(&w, root_pa, root_sig, ACPI_ERR_ROOT, &root);
	if (err)
		return err;

	size_t n = (root->length - sizeof(*root)) / esz;
	const u8 *entries = (const u8 *)(root + 1);
	for (size_t i = 0; i < n; i++) {
		u64 pa = 0;
		memcpy(&pa, entries + i * esz, esz); /* little-endian, possibly unaligned */
		const struct acpi_header *h = map(pa, sizeof(*h), ctx);
		if (!h)
			return FMT_ERROR(out, ACPI_ERR_MAP,
					 "acpi: cannot map table header at 0x%llx (%s entry %zu)",
					 (unsigned long long)pa, root_sig, i);
		if (memcmp(h->signature, sig, 4))
			continue;
		err = map_table(&w, pa, sig, err_bad, tbl);
		if (!err)
			out->pa = pa;
		return err;
	}
	return FMT_ERROR(out, ACPI_ERR_NO_TABLE, "acpi: no %.4s table among %zu %s entries", sig, n,
			 root_sig);
}

int acpi_find_cpus(const void *rsdp, size_t rsdp_len,
		   const void *(*map)(u64 pa, size_t len, void *ctx), void *ctx,
		   struct acpi_cpus *out)
{
	struct acpi_find f;
	const struct acpi_header *h;
	memset(out, 0, sizeof(*out));
	int err = acpi_find_table(rsdp, rsdp_len, map, ctx, "APIC", ACPI_ERR_MADT, &h, &f);
	out->used_xsdt = f.used_xsdt;
	if (err) {
		memcpy(out->errbuf, f.errbuf, sizeof(out->errbuf));
		out->error = out->errbuf;
		return err;
	}
	return parse_madt((const struct acpi_madt *)h, f.pa, out);
}
