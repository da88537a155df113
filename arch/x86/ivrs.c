/* SPDX-License-Identifier: GPL-2.0-only */
/* The ACPI IVRS (AMD I/O Virtualization spec ch. 5): IVHD blocks, their bases and device entries. */
#include "arch/x86/iommu.h"
#include "lib/printf.h"
#include "lib/string.h"

#define IVRS_BLOCKS_AT 48 /* SDT header, IVinfo, 8 reserved */
#define IVHD_10 0x10
#define IVHD_11 0x11
#define IVHD_40 0x40
#define DEV_PAD 0x00
#define DEV_ALL 0x01
#define DEV_SELECT 0x02
#define DEV_RANGE_START 0x03
#define DEV_RANGE_END 0x04
#define DEV_ALIAS_SELECT 0x42
#define DEV_ALIAS_RANGE 0x43
#define DEV_EXT_SELECT 0x46
#define DEV_EXT_RANGE 0x47
#define DEV_SPECIAL 0x48
#define DEV_ACPI_HID 0xf0
#define ACPI_HID_FIXED 22 /* type, devid, flags, HID, CID, UID format, UID length */

static u16 get16(const u8 *p)
{
	u16 v;
	memcpy(&v, p, 2);
	return v;
}
static u64 get64(const u8 *p)
{
	u64 v;
	memcpy(&v, p, 8);
	return v;
}

static bool is_ivhd(u8 type)
{
	return type == IVHD_10 || type == IVHD_11 || type == IVHD_40;
}

/* An entry's size follows from its type's top bits (4 << type[7:6] below 0x80); the ACPI
 * device entry says its own; anything else above 0x80 has no size anyone can know. */
static u32 entry_len(const u8 *e, u32 left)
{
	if (e[0] < 0x80)
		return 4u << (e[0] >> 6);
	if (e[0] == DEV_ACPI_HID && left >= ACPI_HID_FIXED)
		return ACPI_HID_FIXED + e[21];
	return e[0] == DEV_ACPI_HID ? ACPI_HID_FIXED : 0;
}

static int ivhd(struct iommu_list *out, const u8 *h, u32 at, u16 len)
{
	u32 hdr = h[0] == IVHD_10 ? 24 : 40;
	if (len < hdr)
		return FMT_ERROR(out, IOMMU_ERR_TABLE,
				 "ivrs: IVHD type 0x%x at offset %u: length %u < %u", h[0], at, len,
				 hdr);
	u64 base = get64(h + 8);
	if (!base || base & 0x3fff)
		return FMT_ERROR(
			out, IOMMU_ERR_TABLE,
			"ivrs: IVHD at offset %u: register base 0x%llx is not 16 KiB aligned", at,
			(unsigned long long)base);
	struct iommu_unit scratch, *u = iommu_add_unit(out, IOMMU_AMDVI, get16(h + 16), base);
	if (!u) {
		/* Past the table's end of units: still checked whole, a bad entry refuses it. */
		memset(&scratch, 0, sizeof(scratch));
		u = &scratch;
	}
	u->rid = get16(h + 4);
	u->cap = get16(h + 6);
	bool open = false;
	u16 start = 0;
	for (u32 off = hdr; off < len;) {
		const u8 *e = h + off;
		u32 el = entry_len(e, len - off);
		if (!el)
			return FMT_ERROR(
				out, IOMMU_ERR_TABLE,
				"ivrs: device entry type 0x%x at offset %u has no known length",
				e[0], at + off);
		if (el > len - off)
			return FMT_ERROR(
				out, IOMMU_ERR_TABLE,
				"ivrs: device entry type 0x%x at offset %u: %u bytes, %u left",
				e[0], at + off, el, len - off);
		u16 devid = get16(e + 1);
		switch (e[0]) {
		case DEV_ALL:
			u->all = true;
			break;
		case DEV_SELECT:
		case DEV_ALIAS_SELECT:
		case DEV_EXT_SELECT:
			iommu_add_range(u, devid, devid);
			break;
		case DEV_RANGE_START:
		case DEV_ALIAS_RANGE:
		case DEV_EXT_RANGE:
			if (open)
				return FMT_ERROR(
					out, IOMMU_ERR_TABLE,
					"ivrs: range start at offset %u inside the range opened at 0x%04x",
					at + off, start);
			open = true;
			start = devid;
			break;
		case DEV_RANGE_END:
			if (!open || devid < start)
				return FMT_ERROR(
					out, IOMMU_ERR_TABLE,
					"ivrs: range end 0x%04x at offset %u without a start below it",
					devid, at + off);
			iommu_add_range(u, start, devid);
			open = false;
			break;
		case DEV_SPECIAL:
		case DEV_ACPI_HID:
			u->other_scopes++;
			break;
		default: /* padding and reserved types: skipped by their length */
			break;
		}
		off += el;
	}
	if (open)
		return FMT_ERROR(out, IOMMU_ERR_TABLE,
				 "ivrs: IVHD at offset %u ends inside the range opened at 0x%04x",
				 at, start);
	return 0;
}

int iommu_parse_ivrs(const struct acpi_header *t, struct iommu_list *out)
{
	memset(out, 0, sizeof(*out));
	u32 len = t->length;
	const u8 *b = (const u8 *)t;
	if (len < IVRS_BLOCKS_AT)
		return FMT_ERROR(out, IOMMU_ERR_TABLE, "ivrs: length %u < %u", len, IVRS_BLOCKS_AT);
	/* Firmware describes each IOMMU once per IVHD type it supports: use the newest type
	 * present and only it, as Linux does, or every unit would be counted twice. */
	u8 use = 0;
	for (u32 off = IVRS_BLOCKS_AT; off < len;) {
		if (len - off < 4)
			return FMT_ERROR(out, IOMMU_ERR_TABLE, "ivrs: %u stray bytes at offset %u",
					 len - off, off);
		u16 blen = get16(b + off + 2);
		if (blen < 4 || blen > len - off)
			return FMT_ERROR(
				out, IOMMU_ERR_TABLE,
				"ivrs: block type 0x%x at offset %u: length %u outside [4, %u]",
				b[off], off, blen, len - off);
		if (is_ivhd(b[off]) && b[off] > use)
			use = b[off];
		off += blen;
	}
	for (u32 off = IVRS_BLOCKS_AT; off < len; off += get16(b + off + 2)) {
		if (b[off] != use)
			continue; /* IVMD blocks and the other IVHD types */
		int err = ivhd(out, b + off, off, get16(b + off + 2));
		if (err)
			return err;
	}
	if (!out->count)
		return FMT_ERROR(out, IOMMU_ERR_TABLE, "ivrs: no IVHD block");
	return 0;
}
