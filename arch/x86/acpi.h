/* SPDX-License-Identifier: GPL-2.0-only */
/* ACPI: RSDP, RSDT/XSDT walk to any table, and the MADT's usable CPUs, I/O APICs and IRQ overrides. */
#ifndef ARCH_X86_ACPI_H
#define ARCH_X86_ACPI_H

#include "lib/types.h"

#define ACPI_MAX_CPUS 64
#ifndef MAX_CPUS
#define MAX_CPUS ACPI_MAX_CPUS
#endif
/* Tables larger than this are treated as corrupt rather than mapped. */
#define ACPI_MAX_TABLE_LEN (1u << 20)

#define ACPI_ERR_RSDP (-1)     /* RSDP missing, short, bad signature or checksum */
#define ACPI_ERR_MAP (-2)      /* map() refused a range */
#define ACPI_ERR_ROOT (-3)     /* RSDT/XSDT header, length or checksum */
#define ACPI_ERR_NO_TABLE (-4) /* no table with the signature asked for */
#define ACPI_ERR_NO_MADT ACPI_ERR_NO_TABLE
#define ACPI_ERR_MADT (-5) /* MADT length, checksum or an entry */

struct acpi_header {
	char signature[4];
	u32 length;
	u8 revision;
	u8 checksum;
	char oem_id[6];
	char oem_table_id[8];
	u32 oem_revision;
	u32 creator_id;
	u32 creator_revision;
} PACKED;

/* The map callback every ACPI parser takes: a readable pointer to physical [pa, pa+len), or NULL. */
typedef const void *(*acpi_map_fn)(u64 pa, size_t len, void *ctx);

struct acpi_find {
	u64 pa; /* where the table found is */
	bool used_xsdt;
	const char *error; /* first problem found, NULL on success */
	char errbuf[112];
};

#define ACPI_MAX_IOAPICS 8
#define ACPI_MAX_ISOS 16

/* An I/O APIC of the MADT (type 1): its registers and the first GSI its inputs carry. */
struct acpi_ioapic {
	u64 base;
	u32 gsi_base;
	u8 id;
};

/* An interrupt source override (type 2): ISA IRQ irq arrives at GSI gsi; flags as the MADT
 * gives them (bits 0-1 polarity, 2-3 trigger; 0 is the bus's default). */
struct acpi_iso {
	u32 gsi;
	u16 flags;
	u8 irq;
};
#define ACPI_ISO_POLARITY_LOW 3
#define ACPI_ISO_TRIGGER_LEVEL (3 << 2)

struct acpi_cpus {
	u64 lapic_base; /* MADT field, or its type 5 override */
	u32 count;	/* IDs in apic_id[] */
	u32 apic_id[ACPI_MAX_CPUS];
	u32 dropped;	       /* usable CPUs beyond ACPI_MAX_CPUS, ignored */
	u32 disabled;	       /* entries neither enabled nor online-capable */
	u32 madt_flags;	       /* bit 0: PC-AT compatible dual 8259 PICs present */
	u32 n_ioapics, n_isos; /* beyond the arrays' sizes: ignored */
	struct acpi_ioapic ioapic[ACPI_MAX_IOAPICS];
	struct acpi_iso iso[ACPI_MAX_ISOS];
	bool used_xsdt;
	const char *error; /* first problem found, NULL on success */
	char errbuf[112];
};

/*
 * rsdp points to a copy of the RSDP (e.g. from the multiboot2 tag) of rsdp_len
 * bytes; map(pa, len, ctx) returns a readable pointer to physical [pa, pa+len)
 * or NULL. Returns 0, or an ACPI_ERR_* value with out->error set.
 */
int acpi_find_cpus(const void *rsdp, size_t rsdp_len,
		   const void *(*map)(u64 pa, size_t len, void *ctx), void *ctx,
		   struct acpi_cpus *out);

/*
 * Finds the table with signature sig (4 characters) through the RSDP's root table, checks its
 * length and checksum and sets *tbl to it (its whole length mapped). Returns 0,
 * ACPI_ERR_NO_TABLE when no root entry has that signature, err_bad for a bad table, or another
 * ACPI_ERR_*; out->error says why.
 */
int acpi_find_table(const void *rsdp, size_t rsdp_len, acpi_map_fn map, void *ctx, const char *sig,
		    int err_bad, const struct acpi_header **tbl, struct acpi_find *out);

/*
 * Finds the table with signature sig (4 characters) through the RSDP's root table, checks its
 * length and checksum and sets *tbl to it (its whole length mapped). Returns 0,
 * ACPI_ERR_NO_TABLE when no root entry has that signature, err_bad for a bad table, or another
 * ACPI_ERR_*; out->error says why.
 */
int acpi_find_table(const void *rsdp, size_t rsdp_len, acpi_map_fn map, void *ctx, const char *sig,
		    int err_bad, const struct acpi_header **tbl, struct acpi_find *out);

#endif
