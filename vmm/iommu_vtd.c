/* SPDX-License-Identifier: GPL-2.0-only */
/* VT-d units as vmm/iommu_domain.c drives them: arch/x86/vtd.c behind the IOMMU-kind operations. */
#include "arch/x86/paging.h"
#include "arch/x86/vtd.h"
#include "lib/printf.h"
#include "vmm/iommu_ops.h"

static struct vtd_unit vtd[IOMMU_MAX_UNITS];

static bool map_regs(u64 base)
{
	if (!paging_map_uncached(base, PAGE_SIZE))
		return false;
	const volatile u64 *r = phys_to_virt(base);
	u32 span = vtd_regs_span(r[VTD_REG_CAP / 8], r[VTD_REG_ECAP / 8]);
	return span <= PAGE_SIZE || paging_map_uncached(base, ALIGN_UP(span, PAGE_SIZE));
}

static int up(u32 i, const struct iommu_unit *iu, char *desc, u32 len, const char **why)
{
	struct vtd_unit *u = &vtd[i];
	if (!map_regs(iu->base)) {
		*why = "registers outside Umbra's map";
		return -1;
	}
	if (vtd_unit_init(u, phys_to_virt(iu->base), iu->base, &iommu_host_mem, NULL) < 0) {
		*why = u->error;
		return -1;
	}
	fmt_snprintf(desc, len, "%u-level tables, %u fault records", u->levels, u->nfr);
	return 0;
}

static bool on(u32 i)
{
	return vtd[i].on;
}
static u8 levels(u32 i)
{
	return vtd[i].levels;
}
static u64 lost(u32 i)
{
	return vtd[i].lost;
}

static int attach(u32 i, u16 rid, const struct iommu_pt *d, const char **why)
{
	if (vtd_attach(&vtd[i], &iommu_host_mem, rid, d) == 0)
		return 0;
	*why = vtd[i].error;
	return -1;
}

static void detach(u32 i, u16 rid)
{
	vtd_detach(&vtd[i], &iommu_host_mem, rid);
}

static void report(void *ctx, const struct vtd_fault *f)
{
	iommu_fault_report((u32)(uintptr_t)ctx,
			   &(struct iommu_fault){ .rid = f->sid,
						  .dma = true,
						  .dir = f->read ? "read" : "write",
						  .addr = f->addr,
						  .reason = f->reason,
						  .why = vtd_fault_reason(f->reason) });
}

static void poll(u32 i)
{
	vtd_poll_faults(&vtd[i], report, (void *)(uintptr_t)i);
}

const struct iommu_ops iommu_vtd_ops = {
	.name = "dmar",
	.title = "VT-d",
	.up = up,
	.on = on,
	.levels = levels,
	.format = &vtd_sl_format,
	.attach = attach,
	.detach = detach,
	.poll = poll,
	.lost = lost,
};
