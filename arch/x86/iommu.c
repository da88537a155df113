/* SPDX-License-Identifier: GPL-2.0-only */
/* IOMMU discovery: which unit covers a requester ID, the boot printout, the search for DMAR/IVRS. */
#include "arch/x86/iommu.h"
#include "lib/printf.h"
#include "lib/string.h"

struct iommu_list iommu_host;

struct iommu_unit *iommu_add_unit(struct iommu_list *l, u8 kind, u16 segment, u64 base)
{
	if (l->count == IOMMU_MAX_UNITS) {
		l->dropped++;
		return NULL;
	}
	struct iommu_unit *u = &l->u[l->count++];
	memset(u, 0, sizeof(*u));
	u->kind = kind;
	u->segment = segment;
	u->base = base;
	return u;
}

void iommu_add_range(struct iommu_unit *u, u16 first, u16 last)
{
	if (u->nranges == IOMMU_MAX_RANGES)
		u->ranges_dropped++;
	else
		u->r[u->nranges++] = (struct iommu_range){ first, last };
}

static bool listed(const struct iommu_unit *u, u16 rid)
{
	for (u32 i = 0; i < u->nranges; i++)
		if (rid >= u->r[i].first && rid <= u->r[i].last)
			return true;
	return false;
}

const struct iommu_unit *iommu_for(const struct iommu_list *l, u16 rid)
{
	/* A unit that names the function wins over the catch-all one (VT-d spec 8.3). */
	for (u32 i = 0; i < l->count; i++)
		if (!l->u[i].segment && listed(&l->u[i], rid))
			return &l->u[i];
	for (u32 i = 0; i < l->count; i++)
		if (!l->u[i].segment && l->u[i].all)
			return &l->u[i];
	return NULL;
}

static const char *kind_name(u8 kind)
{
	return kind == IOMMU_VTD ? "VT-d" : "AMD-Vi";
}

void iommu_print(const struct iommu_list *l, const struct pci_list *pci)
{
	for (u32 i = 0; i < l->count; i++) {
		const struct iommu_unit *u = &l->u[i];
		char self[24] = "";
		if (u->kind == IOMMU_AMDVI)
			fmt_snprintf(self, sizeof(self), " (itself %02x:%02x.%x)", PCI_BUS(u->rid),
				     PCI_DEV(u->rid), PCI_FN(u->rid));
		kinfo("iommu: unit %u %s at 0x%llx segment %u%s%s, %u ranges, %u non-PCI scopes\n",
		      i, kind_name(u->kind), (unsigned long long)u->base, u->segment,
		      u->all ? (u->kind == IOMMU_VTD ? " INCLUDE_PCI_ALL" : " all") : "", self,
		      u->nranges, u->other_scopes);
		for (u32 r = 0; r < u->nranges; r++)
			kinfo("iommu:   covers %02x:%02x.%x-%02x:%02x.%x\n", PCI_BUS(u->r[r].first),
			      PCI_DEV(u->r[r].first), PCI_FN(u->r[r].first), PCI_BUS(u->r[r].last),
			      PCI_DEV(u->r[r].last), PCI_FN(u->r[r].last));
		if (u->ranges_dropped)
			kprintf("iommu: unit %u: %u ranges beyond %u ignored: their functions count as uncovered\n",
				i, u->ranges_dropped, IOMMU_MAX_RANGES);
		if (u->unresolved)
			kprintf("iommu: unit %u: %u device scopes name a path the PCI walk did not find\n",
				i, u->unresolved);
	}
	if (l->dropped)
		kprintf("iommu: %u units beyond %u ignored\n", l->dropped, IOMMU_MAX_UNITS);
	u32 covered = 0;
	for (u32 i = 0; i < pci->count; i++) {
		const struct pci_func *f = &pci->f[i];
		const struct iommu_unit *u = iommu_for(l, f->rid);
		if (u) {
			covered++;
			continue;
		}
		kinfo("iommu: %02x:%02x.%x is behind no IOMMU\n", PCI_BUS(f->bdf), PCI_DEV(f->bdf),
		      PCI_FN(f->bdf));
	}
	kinfo("iommu: %u of %u PCI functions behind an IOMMU\n", covered, pci->count);
}

void iommu_host_init(const void *rsdp, size_t rsdp_len, acpi_map_fn map, const struct pci_list *pci)
{
	struct acpi_find f;
	const struct acpi_header *t;
	memset(&iommu_host, 0, sizeof(iommu_host));
	if (!rsdp) {
		kprintf("iommu: no RSDP: no IOMMU\n");
		return;
	}
	int err = acpi_find_table(rsdp, rsdp_len, map, NULL, "DMAR", IOMMU_ERR_TABLE, &t, &f);
	if (!err) {
		err = iommu_parse_dmar(t, pci, &iommu_host);
	} else if (err == ACPI_ERR_NO_TABLE) {
		err = acpi_find_table(rsdp, rsdp_len, map, NULL, "IVRS", IOMMU_ERR_TABLE, &t, &f);
		if (!err)
			err = iommu_parse_ivrs(t, &iommu_host);
	}
	if (err == ACPI_ERR_NO_TABLE) {
		kinfo("iommu: no DMAR or IVRS: no IOMMU\n");
		return;
	}
	if (err) {
		kprintf("iommu: %s: no IOMMU used\n",
			iommu_host.error ? iommu_host.error : f.error);
		memset(&iommu_host, 0, sizeof(iommu_host));
		return;
	}
	iommu_print(&iommu_host, pci);
}
