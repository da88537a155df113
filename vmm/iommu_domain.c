/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest's IOMMU domain: its RAM mapped for its devices' DMA, and the faults the IOMMUs record. */
#include "vmm/iommu_domain.h"
#include "arch/x86/cpu.h"
#include "arch/x86/iommu.h"
#include "arch/x86/paging.h"
#include "arch/x86/tsc.h"
#include "arch/x86/vtd.h"
#include "lib/palloc.h"
#include "lib/printf.h"
#include "vmm/pci_assign.h"
#include "vmm/vm.h"

#define POLL_PER_S 500   /* fault records are read at most every 2 ms */

/* Indexed as iommu_host.u: the driver's state of each VT-d unit. */
static struct vtd_unit vtd[IOMMU_MAX_UNITS];
static u64 unowned[IOMMU_MAX_UNITS];   /* faults from functions no guest owns */

static u64 page_alloc(void *ctx)
{
	(void)ctx;
	return palloc_alloc();
}

static void page_free(void *ctx, u64 pa)
{
	(void)ctx;
	palloc_free(pa);
}

static void *page_ptr(void *ctx, u64 pa)
{
	(void)ctx;
	return phys_to_virt(pa);
}

static const struct iommu_mem mem = { .alloc = page_alloc, .free = page_free, .p2v = page_ptr };

static bool map_regs(u64 base)
{
	if (!paging_map_uncached(base, PAGE_SIZE))
		return false;
	const volatile u64 *r = phys_to_virt(base);
	u32 span = vtd_regs_span(r[VTD_REG_CAP / 8], r[VTD_REG_ECAP / 8]);
	return span <= PAGE_SIZE || paging_map_uncached(base, ALIGN_UP(span, PAGE_SIZE));
}

void iommu_domains_init(bool off)
{
	if (off && iommu_host.count)
		kprintf("iommu: iommu=off: the IOMMUs are left as firmware left them\n");
	for (u32 i = 0; !off && i < iommu_host.count; i++) {
		const struct iommu_unit *iu = &iommu_host.u[i];
		if (iu->kind != IOMMU_VTD)
			continue;
		if (!map_regs(iu->base)) {
			kprintf("iommu: dmar%u at 0x%llx: registers outside Umbra's map: left off\n", i,
				(unsigned long long)iu->base);
			continue;
		}
		struct vtd_unit *u = &vtd[i];
		if (vtd_unit_init(u, phys_to_virt(iu->base), iu->base, &mem, NULL) < 0) {
			kprintf("iommu: dmar%u at 0x%llx: %s: left off, its functions cannot be assigned\n",
				i, (unsigned long long)iu->base, u->error);
			continue;
		}
		kinfo("iommu: dmar%u at 0x%llx: %u-level tables, %u fault records, all DMA blocked until a guest's devices get a domain\n",
		      i, (unsigned long long)iu->base, u->levels, u->nfr);
	}
}

static struct vtd_unit *unit_of(u16 bdf)
{
	const struct iommu_unit *iu = iommu_for(&iommu_host, pci_host.f[pci_find(&pci_host, bdf)].rid);
	return iu && iu->kind == IOMMU_VTD ? &vtd[iu - iommu_host.u] : NULL;
}

static u16 rid_of(u16 bdf)
{
	return pci_host.f[pci_find(&pci_host, bdf)].rid;
}

/* Detaches the first n functions of vm's list (a refusal after some were attached). */
static void undo(struct vm *vm, struct vtd_unit *const *units, u32 n)
{
	for (u32 k = 0; k < n; k++)
		vtd_detach(units[k], &mem, rid_of(vm->pci.bdf[k]));
	vtd_domain_free(&vm->dma, &mem);
}

bool iommu_domain_create(struct vm *vm)
{
	if (!vm->pci.n || pci_assign_host.iommu_off)
		return true;
	u8 levels = 0;
	struct vtd_unit *units[PCI_ASSIGN_MAX];
	for (u32 k = 0; k < vm->pci.n; k++) {
		const struct vtd_unit *u = units[k] = unit_of(vm->pci.bdf[k]);
		if (!u)
			return true;   /* AMD-Vi: its domains are not built yet */
		if (!u->on || (levels && u->levels != levels)) {
			kprintf("guest %s: pci: %02x:%02x.%x: its VT-d unit is %s: refused\n", vm->name,
				PCI_BUS(vm->pci.bdf[k]), PCI_DEV(vm->pci.bdf[k]), PCI_FN(vm->pci.bdf[k]),
				u->on ? "of another table depth than the others'" : "off");
			return false;
		}
		levels = u->levels;
	}
	if (vtd_domain_init(&vm->dma, &mem, levels, (u16)(vm->id + 1)) < 0) {
		kprintf("guest %s: no memory for its IOMMU domain\n", vm->name);
		return false;
	}
	for (u32 s = 0; s < vm->mem.n; s++) {
		const struct mmu_slot *sl = &vm->mem.slot[s];
		if (vtd_map(&vm->dma, &mem, sl->base_gfn << PAGE_SHIFT, vm->mem.hpa[s],
			    sl->npages << PAGE_SHIFT, VTD_SL_R | VTD_SL_W) < 0) {
			kprintf("guest %s: no memory for its IOMMU page tables\n", vm->name);
			undo(vm, units, 0);
			return false;
		}
	}
	char devs[PCI_ASSIGN_MAX * 9 + 1];
	u32 n = 0;
	for (u32 k = 0; k < vm->pci.n; k++) {
		u16 bdf = vm->pci.bdf[k], rid = rid_of(bdf);
		bool seen = false;   /* functions behind one PCIe-to-PCI bridge share a context */
		for (u32 j = 0; j < k; j++)
			seen |= rid_of(vm->pci.bdf[j]) == rid;
		if (!seen && vtd_attach(units[k], &mem, rid, &vm->dma) < 0) {
			kprintf("guest %s: pci: %02x:%02x.%x: %s: refused\n", vm->name, PCI_BUS(bdf),
				PCI_DEV(bdf), PCI_FN(bdf), units[k]->error);
			undo(vm, units, k);
			return false;
		}
		n += fmt_snprintf(devs + n, sizeof(devs) - n, " %02x:%02x.%x", PCI_BUS(bdf),
				  PCI_DEV(bdf), PCI_FN(bdf));
	}
	for (u32 i = 0; i < iommu_host.count; i++)
		for (u32 k = 0; k < vm->pci.n; k++)
			if (units[k] == &vtd[i]) {
				vtd[i].domains++;
				break;
			}
	kinfo("iommu: guest %s: domain %u, %llu MiB mapped, devices%s\n", vm->name, vm->dma.did,
	      (unsigned long long)(vm->dma.mapped >> 20), devs);
	return true;
}

void iommu_domains_print(void)
{
	for (u32 i = 0; i < iommu_host.count; i++)
		if (vtd[i].on)
			kinfo("iommu: dmar%u at 0x%llx: translation on, %u domains\n", i,
			      (unsigned long long)vtd[i].base, vtd[i].domains);
}

static void report(void *ctx, const struct vtd_fault *f)
{
	struct vm *owner = NULL;
	for (u32 i = 0; i < pci_host.count; i++)
		if (pci_host.f[i].rid == f->sid && pci_assign_host.owner[i] != PCI_NO_OWNER)
			owner = &vms[pci_assign_host.owner[i]];
	if (owner)
		owner->dma_faults++;
	else
		unowned[(uintptr_t)ctx]++;
	kprintf("iommu: dmar%u: DMA fault: %02x:%02x.%x (%s) %s at 0x%llx, reason 0x%x (%s): blocked\n",
		(u32)(uintptr_t)ctx, PCI_BUS(f->sid), PCI_DEV(f->sid), PCI_FN(f->sid),
		owner ? owner->name : "owned by no guest", f->read ? "read" : "write",
		(unsigned long long)f->addr, f->reason, vtd_fault_reason(f->reason));
}

void iommu_poll(bool now)
{
	static u64 next;
	u64 t = rdtsc();
	if (!now && t < next)
		return;
	next = t + tsc_hz / POLL_PER_S;
	for (u32 i = 0; i < iommu_host.count; i++)
		vtd_poll_faults(&vtd[i], report, (void *)(uintptr_t)i);
}

void iommu_domains_report(void)
{
	for (u32 i = 0; i < iommu_host.count; i++)
		if (vtd[i].on)
			kprintf("iommu: dmar%u: dma_faults_unowned=%lu overflows=%lu\n", i,
				unowned[i], vtd[i].lost);
}
