/* SPDX-License-Identifier: GPL-2.0-only */
/* The machine's IOMMUs as ACPI describes them (VT-d DMAR, AMD-Vi IVRS): units and the requester IDs each covers. */
#ifndef ARCH_X86_IOMMU_H
#define ARCH_X86_IOMMU_H

#include "arch/x86/acpi.h"
#include "arch/x86/pci.h"
#include "lib/types.h"

#define IOMMU_MAX_UNITS 8
#define IOMMU_MAX_RANGES 32

enum iommu_kind { IOMMU_VTD = 1, IOMMU_AMDVI = 2 };

/* Requester IDs first..last (bus << 8 | dev << 3 | fn) of one PCI segment. */
struct iommu_range {
	u16 first, last;
};

struct iommu_unit {
	u8 kind;  /* enum iommu_kind */
	bool all; /* VT-d INCLUDE_PCI_ALL: what no other unit lists; IVHD ALL */
	u16 segment;
	u16 rid;  /* AMD-Vi: the IOMMU's own PCI function */
	u16 cap;  /* AMD-Vi: its capability block's offset in that function */
	u64 base; /* register block */
	u32 nranges;
	u32 ranges_dropped; /* beyond IOMMU_MAX_RANGES: not counted as covered */
	u32 other_scopes;   /* I/O APICs, HPETs, ACPI devices: not PCI functions */
	u32 unresolved;	    /* VT-d paths through a bridge the walk did not find */
	struct iommu_range r[IOMMU_MAX_RANGES];
};

struct iommu_list {
	u32 count;
	u32 dropped; /* units beyond IOMMU_MAX_UNITS */
	u8 haw;	     /* VT-d: host address width in bits */
	struct iommu_unit u[IOMMU_MAX_UNITS];
	const char *error; /* why the table was refused, NULL on success */
	char errbuf[128];
};

#define IOMMU_ERR_TABLE (-1)

/*
 * Parse a DMAR / IVRS whose header, length and checksum acpi_find_table checked. A DMAR
 * device scope is a path from a bus through bridges, resolved against the PCI walk. A
 * malformed table is refused whole (IOMMU_ERR_TABLE, out->error says where), never half used.
 */
int iommu_parse_dmar(const struct acpi_header *t, const struct pci_list *pci,
		     struct iommu_list *out);
int iommu_parse_ivrs(const struct acpi_header *t, struct iommu_list *out);

/* For the parsers: a new unit (NULL when full: counted in dropped), and a range it covers. */
struct iommu_unit *iommu_add_unit(struct iommu_list *l, u8 kind, u16 segment, u64 base);
void iommu_add_range(struct iommu_unit *u, u16 first, u16 last);

/* The unit DMA from requester ID rid (segment 0) goes through, or NULL. */
const struct iommu_unit *iommu_for(const struct iommu_list *l, u16 rid);

void iommu_print(const struct iommu_list *l, const struct pci_list *pci);

/* Boot: DMAR, else IVRS, parsed and printed with each PCI function's unit. */
void iommu_host_init(const void *rsdp, size_t rsdp_len, acpi_map_fn map,
		     const struct pci_list *pci);
extern struct iommu_list iommu_host;

#endif
