/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest's IOMMU domain: its RAM mapped for its devices' DMA, and the faults the IOMMUs record. */
#include "vmm/iommu_domain.h"
#include "arch/x86/cpu.h"
#include "arch/x86/iommu.h"
#include "arch/x86/paging.h"
#include "arch/x86/tsc.h"
#include "lib/palloc.h"
#include "lib/printf.h"
#include "vmm/iommu_ops.h"
#include "vmm/pci_assign.h"
#include "vmm/vm.h"

#define POLL_PER_S 500 /* fault records are read at most every 2 ms */

static const struct iommu_ops *const kinds[] = {
	[IOMMU_VTD] = &iommu_vtd_ops,
	[IOMMU_AMDVI] = &iommu_amdvi_ops,
};

/* Indexed as iommu_host.u. */
static u64 unowned[IOMMU_MAX_UNITS]; /* faults from functions no guest owns */
static u32 domains[IOMMU_MAX_UNITS];

static u64 page_alloc(void *ctx)
{
	(void)ctx;
	return palloc_alloc();
}

static u64 page_alloc_contig(void *ctx, u32 n)
{
	(void)ctx;
	return palloc_alloc_contig(n, n);
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

const struct iommu_mem iommu_host_mem = {
	.alloc = page_alloc, .free = page_free, .p2v = page_ptr, .alloc_contig = page_alloc_contig
};

static const struct iommu_ops *ops(u32 i)
{
	return kinds[iommu_host.u[i].kind];
}

void iommu_domains_init(bool off)
{
	if (off && iommu_host.count)
		kprintf("iommu: iommu=off: the IOMMUs are left as firmware left them\n");
	for (u32 i = 0; !off && i < iommu_host.count; i++) {
		const struct iommu_unit *iu = &iommu_host.u[i];
		const char *why = NULL;
		char desc[96];
		if (ops(i)->up(i, iu, desc, sizeof(desc), &why) < 0) {
			kprintf("iommu: %s%u at 0x%llx: %s: left off, its functions cannot be assigned\n",
				ops(i)->name, i, (unsigned long long)iu->base, why);
			continue;
		}
		kinfo("iommu: %s%u at 0x%llx: %s, all DMA blocked until a guest's devices get a domain\n",
		      ops(i)->name, i, (unsigned long long)iu->base, desc);
	}
}

static u16 rid_of(u16 bdf)
{
	return pci_host.f[pci_find(&pci_host, bdf)].rid;
}

/* The unit DMA from bdf goes through (pci_assign_check saw there is one). */
static bool unit_of(u16 bdf, u32 *i)
{
	const struct iommu_unit *iu = iommu_for(&iommu_host, rid_of(bdf));
	if (iu)
		*i = (u32)(iu - iommu_host.u);
	return iu != NULL;
}

/* Detaches the first n functions of vm's list (a refusal after some were attached). */
static void undo(struct vm *vm, const u32 *units, u32 n)
{
	for (u32 k = 0; k < n; k++)
		ops(units[k])->detach(units[k], rid_of(vm->config.pci.bdf[k]));
	iommu_pt_free(&vm->dma, &iommu_host_mem, ops(units[0])->format);
}

static void print_bdf_refusal(const struct vm *vm, u16 bdf, const char *why)
{
	kprintf("guest %s: pci: %02x:%02x.%x: %s: refused\n", vm->name, PCI_BUS(bdf), PCI_DEV(bdf),
		PCI_FN(bdf), why);
}

bool iommu_domain_create(struct vm *vm)
{
	const struct pci_assign_req *pci = &vm->config.pci;
	if (!pci->n || pci_assign_host.iommu_off)
		return true;
	u8 levels = 0;
	u32 units[PCI_ASSIGN_MAX];
	for (u32 k = 0; k < pci->n; k++) {
		u32 i;
		if (!unit_of(pci->bdf[k], &i)) {
			print_bdf_refusal(vm, pci->bdf[k], "no IOMMU covers it");
			return false;
		}
		units[k] = i;
		/* One machine has a DMAR or an IVRS, so one kind; the units may differ in depth. */
		if (!ops(i)->on(i) || (levels && ops(i)->levels(i) != levels)) {
			kprintf("guest %s: pci: %02x:%02x.%x: its %s unit is %s: refused\n",
				vm->name, PCI_BUS(pci->bdf[k]), PCI_DEV(pci->bdf[k]),
				PCI_FN(pci->bdf[k]), ops(i)->title,
				ops(i)->on(i) ? "of another table depth than the others'" : "off");
			return false;
		}
		levels = ops(i)->levels(i);
	}
	const struct iommu_ops *o = ops(units[0]);
	if (iommu_pt_init(&vm->dma, &iommu_host_mem, levels, (u16)(vm->id + 1)) < 0) {
		kprintf("guest %s: no memory for its IOMMU domain\n", vm->name);
		return false;
	}
	for (u32 s = 0; s < vm->mem.n; s++) {
		const struct mmu_slot *sl = &vm->mem.slot[s];
		if (iommu_pt_map(&vm->dma, &iommu_host_mem, o->format, sl->base_gfn << PAGE_SHIFT,
				 vm->mem.hpa[s], sl->npages << PAGE_SHIFT,
				 o->format->leaf_rights) < 0) {
			kprintf("guest %s: no memory for its IOMMU page tables\n", vm->name);
			undo(vm, units, 0);
			return false;
		}
	}
	char devs[PCI_ASSIGN_MAX * 9 + 1];
	u32 n = 0;
	for (u32 k = 0; k < pci->n; k++) {
		u16 bdf = pci->bdf[k], rid = rid_of(bdf);
		bool seen = false; /* functions behind one PCIe-to-PCI bridge share an entry */
		for (u32 j = 0; j < k; j++)
			seen |= rid_of(pci->bdf[j]) == rid;
		const char *why = NULL;
		if (!seen && ops(units[k])->attach(units[k], rid, &vm->dma, &why) < 0) {
			print_bdf_refusal(vm, bdf, why);
			undo(vm, units, k);
			return false;
		}
		n += fmt_snprintf(devs + n, sizeof(devs) - n, " %02x:%02x.%x", PCI_BUS(bdf),
				  PCI_DEV(bdf), PCI_FN(bdf));
	}
	for (u32 i = 0; i < iommu_host.count; i++)
		for (u32 k = 0; k < pci->n; k++)
			if (units[k] == i) {
				domains[i]++;
				break;
			}
	kinfo("iommu: guest %s: domain %u, %llu MiB mapped, devices%s\n", vm->name, vm->dma.did,
	      (unsigned long long)(vm->dma.mapped >> 20), devs);
	return true;
}

void iommu_domains_print(void)
{
	for (u32 i = 0; i < iommu_host.count; i++)
		if (ops(i)->on(i))
			kinfo("iommu: %s%u at 0x%llx: translation on, %u domains\n", ops(i)->name,
			      i, (unsigned long long)iommu_host.u[i].base, domains[i]);
}

void iommu_fault_report(u32 unit, const struct iommu_fault *f)
{
	if (!f->dma) {
		kprintf("iommu: %s%u: event 0x%x (%s) at 0x%llx\n", ops(unit)->name, unit,
			f->reason, f->why, (unsigned long long)f->addr);
		return;
	}
	struct vm *owner = NULL;
	for (u32 i = 0; i < pci_host.count; i++)
		if (pci_host.f[i].rid == f->rid && pci_assign_host.owner[i] != PCI_NO_OWNER)
			owner = vm_by_id(pci_assign_host.owner[i]);
	if (owner)
		owner->dma_faults++;
	else
		unowned[unit]++;
	kprintf("iommu: %s%u: DMA fault: %02x:%02x.%x (%s) %s at 0x%llx, reason 0x%x (%s): blocked\n",
		ops(unit)->name, unit, PCI_BUS(f->rid), PCI_DEV(f->rid), PCI_FN(f->rid),
		owner ? owner->name : "owned by no guest", f->dir, (unsigned long long)f->addr,
		f->reason, f->why);
}

void iommu_poll(bool now)
{
	static u64 next;
	u64 t = rdtsc();
	if (!now && t < next)
		return;
	next = t + tsc_hz / POLL_PER_S;
	for (u32 i = 0; i < iommu_host.count; i++)
		if (ops(i)->on(i))
			ops(i)->poll(i);
}

void iommu_domains_report(void)
{
	for (u32 i = 0; i < iommu_host.count; i++)
		if (ops(i)->on(i))
			kprintf("iommu: %s%u: dma_faults_unowned=%lu overflows=%lu\n", ops(i)->name,
				i, unowned[i], ops(i)->lost(i));
}
