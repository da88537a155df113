/* SPDX-License-Identifier: GPL-2.0-only */
/* One IOMMU kind as vmm/iommu_domain.c drives its units: VT-d (vmm/iommu_vtd.c), AMD-Vi (vmm/iommu_amdvi.c). */
#ifndef VMM_IOMMU_OPS_H
#define VMM_IOMMU_OPS_H

#include "arch/x86/iommu.h"
#include "arch/x86/iommu_pt.h"
#include "lib/types.h"

/* A request a unit recorded, in the kind's own words. */
struct iommu_fault {
	u16 rid;
	bool dma; /* a device's access the unit blocked (else a unit event, e.g. a command) */
	const char *dir; /* "read", "write", or "access" when the record does not say */
	u64 addr;
	u32 reason;
	const char *why;
};

/* Unit i is iommu_host.u[i]; each kind keeps its drivers' state by that index. */
struct iommu_ops {
	const char *name;  /* the units' log prefix: dmar0, amdvi0 */
	const char *title; /* VT-d, AMD-Vi */
	/* Brings the unit up with all DMA blocked; 0 and what to print about it in desc, or -1
	 * and *why. */
	int (*up)(u32 i, const struct iommu_unit *iu, char *desc, u32 len, const char **why);
	bool (*on)(u32 i);
	u8 (*levels)(u32 i);
	const struct iommu_pt_format *format; /* its domains' page tables */
	/* rid's DMA through d; -1 and *why. */
	int (*attach)(u32 i, u16 rid, const struct iommu_pt *d, const char **why);
	void (*detach)(u32 i, u16 rid);
	/* Hands each recorded fault to iommu_fault_report once and clears it; never allocates. */
	void (*poll)(u32 i);
	u64 (*lost)(u32 i); /* records the unit dropped when full */
};

extern const struct iommu_ops iommu_vtd_ops, iommu_amdvi_ops;
/* Zeroed pages from the page allocator for the drivers' tables. */
extern const struct iommu_mem iommu_host_mem;
/* Prints the fault once and counts it for the requester's owner, or for the unit. */
void iommu_fault_report(u32 unit, const struct iommu_fault *f);

#endif
