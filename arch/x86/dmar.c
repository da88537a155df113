/* SPDX-License-Identifier: GPL-2.0-only */
/* The ACPI DMAR (Intel VT-d spec ch. 8): DRHD units, their register bases and device scopes. */
#include "arch/x86/iommu.h"
#include "lib/printf.h"
#include "lib/string.h"

#define DMAR_STRUCTS_AT 48 /* SDT header, host address width, flags, 10 reserved */
#define DMAR_DRHD 0
#define DRHD_LEN 16
#define DRHD_INCLUDE_PCI_ALL BIT(0)
#define SCOPE_MIN_LEN 8 /* 6 bytes and one (device, function) step */
#define SCOPE_ENDPOINT 1
#define SCOPE_BRIDGE 2	 /* the bridge and every bus below it */
#define SCOPE_TYPE_MAX 5 /* 3 I/O APIC, 4 HPET, 5 ACPI namespace device */

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

/* Follows a scope's path from its start bus through the bridges the walk found. */
static int scope(struct iommu_list *out, struct iommu_unit *u, const u8 *s, u32 at,
		 const struct pci_list *pci)
{
	u8 type = s[0], len = s[1];
	if (type == 0 || type > SCOPE_TYPE_MAX)
		return FMT_ERROR(out, IOMMU_ERR_TABLE,
				 "dmar: device scope at offset %u has type %u", at, type);
	if (type != SCOPE_ENDPOINT && type != SCOPE_BRIDGE) {
		u->other_scopes++;
		return 0;
	}
	u8 bus = s[5];
	for (u32 step = 6; step < len; step += 2) {
		u16 bdf = PCI_BDF(bus, s[step] & 0x1f, s[step + 1] & 7);
		if (s[step] > 0x1f || s[step + 1] > 7)
			return FMT_ERROR(out, IOMMU_ERR_TABLE,
					 "dmar: device scope at offset %u: device %u function %u",
					 at, s[step], s[step + 1]);
		int i = pci_find(pci, bdf);
		if (step + 2 >= len) {
			iommu_add_range(u, bdf, bdf);
			if (type == SCOPE_BRIDGE && i >= 0 && pci->f[i].header_type == 1)
				iommu_add_range(u, PCI_BDF(pci->f[i].sec_bus, 0, 0),
						PCI_BDF(pci->f[i].sub_bus, 31, 7));
			return 0;
		}
		if (i < 0 || pci->f[i].header_type != 1) {
			u->unresolved++; /* Linux skips these too: firmware lists absent slots */
			return 0;
		}
		bus = pci->f[i].sec_bus;
	}
	return 0;
}

static int drhd(struct iommu_list *out, const u8 *d, u32 at, u16 len, const struct pci_list *pci)
{
	if (len < DRHD_LEN)
		return FMT_ERROR(out, IOMMU_ERR_TABLE, "dmar: DRHD at offset %u: length %u < %u",
				 at, len, DRHD_LEN);
	u8 flags = d[4];
	u16 seg = get16(d + 6);
	u64 base = get64(d + 8);
	if (!base || base & 0xfff)
		return FMT_ERROR(out, IOMMU_ERR_TABLE,
				 "dmar: DRHD at offset %u: register base 0x%llx is not a page", at,
				 (unsigned long long)base);
	if (flags & DRHD_INCLUDE_PCI_ALL)
		for (u32 i = 0; i < out->count; i++)
			if (out->u[i].all && out->u[i].segment == seg)
				return FMT_ERROR(
					out, IOMMU_ERR_TABLE,
					"dmar: DRHD at offset %u: a second INCLUDE_PCI_ALL unit on segment %u",
					at, seg);
	struct iommu_unit scratch, *u = iommu_add_unit(out, IOMMU_VTD, seg, base);
	if (!u) {
		/* Past the table's end of units: still checked whole, a bad scope refuses it. */
		memset(&scratch, 0, sizeof(scratch));
		u = &scratch;
	}
	u->all = flags & DRHD_INCLUDE_PCI_ALL;
	for (u32 off = DRHD_LEN; off < len;) {
		if (len - off < 2 || d[off + 1] < SCOPE_MIN_LEN || d[off + 1] > len - off ||
		    (d[off + 1] - 6) % 2)
			return FMT_ERROR(
				out, IOMMU_ERR_TABLE,
				"dmar: device scope at offset %u: length %u does not fit the %u bytes left",
				at + off, len - off < 2 ? 0 : d[off + 1], len - off);
		int err = scope(out, u, d + off, at + off, pci);
		if (err)
			return err;
		off += d[off + 1];
	}
	return 0;
}

int iommu_parse_dmar(const struct acpi_header *t, const struct pci_list *pci,
		     struct iommu_list *out)
{
	memset(out, 0, sizeof(*out));
	u32 len = t->length;
	const u8 *b = (const u8 *)t;
	if (len < DMAR_STRUCTS_AT)
		return FMT_ERROR(out, IOMMU_ERR_TABLE, "dmar: length %u < %u", len,
				 DMAR_STRUCTS_AT);
	out->haw = (u8)(b[36] + 1);
	for (u32 off = DMAR_STRUCTS_AT; off < len;) {
		if (len - off < 4)
			return FMT_ERROR(out, IOMMU_ERR_TABLE, "dmar: %u stray bytes at offset %u",
					 len - off, off);
		u16 type = get16(b + off), slen = get16(b + off + 2);
		if (slen < 4 || slen > len - off)
			return FMT_ERROR(
				out, IOMMU_ERR_TABLE,
				"dmar: structure type %u at offset %u: length %u outside [4, %u]",
				type, off, slen, len - off);
		if (type == DMAR_DRHD) {
			int err = drhd(out, b + off, off, slen, pci);
			if (err)
				return err;
		}
		/* RMRR, ATSR, RHSA, ANDD, SATC: not needed to know which unit covers what. */
		off += slen;
	}
	if (!out->count)
		return FMT_ERROR(out, IOMMU_ERR_TABLE, "dmar: no DRHD unit");
	return 0;
}
