/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest's IOMMU domain: its RAM mapped for its devices' DMA, and the faults the IOMMUs record. */
#ifndef VMM_IOMMU_DOMAIN_H
#define VMM_IOMMU_DOMAIN_H

#include "lib/types.h"

struct vm;

/* Boot, after iommu_host_init: each unit of the DMAR or IVRS brought up with translation on
 * and nothing mapped, so all DMA faults until a guest's devices get a domain. Nothing with off. */
void iommu_domains_init(bool off);
/* A guest with pci= functions: its domain built and its functions attached;
 * false (printed why, nothing left behind) when a unit is off or memory ran out. */
bool iommu_domain_create(struct vm *vm);
/* Each unit: translation state and how many domains it carries. */
void iommu_domains_print(void);
/* Reads, reports and clears the fault records: every few ms at most unless now (one CPU
 * only: the scheduler's CPU 0, then the final report). */
void iommu_poll(bool now);
/* At the end: per unit on, the faults from functions no guest owns (Umbra's count) and
 * those the unit dropped when its records were full. */
void iommu_domains_report(void);

#endif
