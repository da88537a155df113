/* SPDX-License-Identifier: GPL-2.0-only */
/* AMD-Vi units as vmm/iommu_domain.c drives them: arch/x86/amdvi.c behind the IOMMU-kind operations. */
#include "arch/x86/amdvi.h"
#include "arch/x86/paging.h"
#include "arch/x86/pci.h"
#include "lib/printf.h"
#include "vmm/iommu_ops.h"

static struct amdvi_unit amd[IOMMU_MAX_UNITS];

/* The device table's last entry: every requester ID the IVHD names and every function the
 * walk found (a device the IVHD forgot is blocked too, not passed through by a missing entry). */
static u16 last_rid(const struct iommu_unit *iu)
{
	if (iu->all)
		return 0xffff;
	u16 last = 0;
	for (u32 r = 0; r < iu->nranges; r++)
		if (iu->r[r].last > last)
			last = iu->r[r].last;
	for (u32 f = 0; f < pci_host.count; f++)
		if (pci_host.f[f].rid > last)
			last = pci_host.f[f].rid;
	return last;
}

static int up(u32 i, const struct iommu_unit *iu, char *desc, u32 len, const char **why)
{
	struct amdvi_unit *u = &amd[i];
	if (!paging_map_uncached(iu->base, AMDVI_REGS_SPAN)) {
		*why = "registers outside Umbra's map";
		return -1;
	}
	u32 cap = pci_host_cfg_read(iu->rid, iu->cap);
	if (amdvi_unit_init(u, phys_to_virt(iu->base), iu->base, cap, last_rid(iu), &iommu_host_mem,
			    NULL) < 0) {
		*why = u->error;
		return -1;
	}
	fmt_snprintf(desc, len,
		     "%u-level tables, device table 00:00.0-%02x:%02x.%x, %u event log entries",
		     u->levels, PCI_BUS(u->last), PCI_DEV(u->last), PCI_FN(u->last),
		     AMDVI_RING_ENTRIES);
	return 0;
}

static bool on(u32 i)
{
	return amd[i].on;
}
static u8 levels(u32 i)
{
	return amd[i].levels;
}
static u64 lost(u32 i)
{
	return amd[i].lost;
}

static int attach(u32 i, u16 rid, const struct iommu_pt *d, const char **why)
{
	if (amdvi_attach(&amd[i], rid, d) == 0)
		return 0;
	*why = amd[i].error;
	return -1;
}

static void detach(u32 i, u16 rid)
{
	amdvi_detach(&amd[i], rid);
}

/* RW tells the direction only of an access to something present (a DTE counts) that was not
 * an interrupt (2.5.2); QEMU's model sets neither PR nor RW, so it reads "access" there. */
static const char *direction(const struct amdvi_event *e)
{
	if ((e->flags & (AMDVI_EVF_PR | AMDVI_EVF_I)) != AMDVI_EVF_PR)
		return "access";
	return e->write ? "write" : "read";
}

static void report(void *ctx, const struct amdvi_event *e)
{
	iommu_fault_report((u32)(uintptr_t)ctx,
			   &(struct iommu_fault){ .rid = e->rid,
						  .dma = amdvi_event_is_dma(e->code),
						  .dir = direction(e),
						  .addr = e->addr,
						  .reason = e->code,
						  .why = amdvi_event_name(e->code) });
}

static void poll(u32 i)
{
	amdvi_poll_events(&amd[i], report, (void *)(uintptr_t)i);
}

const struct iommu_ops iommu_amdvi_ops = {
	.name = "amdvi",
	.title = "AMD-Vi",
	.up = up,
	.on = on,
	.levels = levels,
	.format = &amdvi_pt_format,
	.attach = attach,
	.detach = detach,
	.poll = poll,
	.lost = lost,
};
