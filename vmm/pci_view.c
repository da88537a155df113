/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest's assigned PCI functions: the host's configuration space and BARs behind its PCI bus. */
#include "vmm/pci_view.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/pci.h"
#include "arch/x86/virt.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "mmu/tdp.h"
#include "vmm/intx.h"
#include "vmm/msi.h"
#include "vmm/remote_flush.h"
#include "vmm/shm.h"
#include "vmm/vm.h"

static u32 host_cfg_read(void *ctx, u16 bdf, u16 off)
{
	(void)ctx;
	return pci_host_cfg_read(bdf, off);
}

static void host_cfg_write(void *ctx, u16 bdf, u16 off, u32 val)
{
	(void)ctx;
	pci_host_cfg_write(bdf, off, val);
}

/* An I/O window at the host's own ports passes through every built vCPU's I/O bitmap; one
 * elsewhere exits and is forwarded (pci_view_pio). A vCPU built later gets the same
 * (pci_view_vcpu_created). */
static void pass_ports(struct vm *vm, const struct pci_bus_bar *bar, bool pass)
{
	if (bar->at != bar->host)
		return;
	for (u32 i = 0; i < vm->nr_vcpus; i++)
		if (vm->vcpus[i].hw.arch)
			virt->pass_ports(&vm->vcpus[i].hw, (u16)bar->at, (u32)bar->size, pass);
}

/* A memory BAR that decodes is a device slot at the guest's address: its pages map straight to
 * the host BAR's, uncached, at the first access of each (mmu/platform.h), so the guest's
 * register accesses take no exit. */
static void bar_map(void *ctx, unsigned dev, const struct pci_bus_bar *bar)
{
	struct vm *vm = ctx;
	(void)dev;
	if (bar->kind == PCI_BAR_IO)
		pass_ports(vm, bar, true);
	else
		for (int s = bar->slot; s >= 0 && s < bar->slot + bar->nslots; s++)
			memslots_dev_place(&vm->mem, (unsigned)s,
					   (bar->at + vm->mem.dev_hpa[s] - bar->host) >>
						   PAGE_SHIFT);
}

void pci_view_vcpu_created(struct vcpu *v)
{
	const struct pci_bus *b = &v->vm->board.pci;
	for (u32 d = 0; d < b->n; d++)
		for (unsigned i = 0; i < PCI_MAX_BARS; i++) {
			const struct pci_bus_bar *r = &b->fn[d].bar[i];
			if (r->live && r->kind == PCI_BAR_IO && r->at == r->host)
				virt->pass_ports(&v->hw, (u16)r->at, (u32)r->size, true);
		}
}

/* Every mapping of the slot goes before the slot does: the shadows all (a BAR moves or stops
 * decoding a few times at a guest's boot, while its OS sizes BARs; KVM zaps on a slot's removal
 * too), the nested table's leaves of the range, and every vCPU's TLB by the time the lock is
 * dropped (vm_unlock). */
static void bar_unmap(void *ctx, unsigned dev, const struct pci_bus_bar *bar)
{
	struct vm *vm = ctx;
	(void)dev;
	if (bar->kind == PCI_BAR_IO) {
		pass_ports(vm, bar, false);
		return;
	}
	if (bar->slot < 0)
		return;
	if (vm->tdp_on) {
		if (tdp_unmap(&vm->tdp, bar->at >> PAGE_SHIFT, bar->size >> PAGE_SHIFT))
			for (u32 i = 0; i < vm->nr_vcpus; i++)
				remote_flush_request(&vm->vcpus[i]);
	} else {
		mmu_zap_all(&vm->mmu);
	}
	for (int s = bar->slot; s < bar->slot + bar->nslots; s++)
		memslots_dev_remove(&vm->mem, (unsigned)s);
}

static bool msi_route(void *ctx, u8 vec, const struct pci_msi_msg *msg, u64 *addr, u32 *data)
{
	if (!vec)
		return false;
	msi_host_message(ctx, vec, msg, addr, data);
	return true;
}

/* A host BAR's register through Umbra's uncached map of it (pci_view_attach). */
static u32 bar_read(void *ctx, u64 hpa)
{
	(void)ctx;
	return hpa + 4 <= HOST_MAPPED_LIMIT ? *(volatile u32 *)phys_to_virt(hpa) : 0xffffffffu;
}

static void bar_write(void *ctx, u64 hpa, u32 val)
{
	(void)ctx;
	if (hpa + 4 <= HOST_MAPPED_LIMIT)
		*(volatile u32 *)phys_to_virt(hpa) = val;
}

static void send(void *ctx, u64 addr, u32 data)
{
	msi_send(ctx, addr, data);
}

static const struct pci_bus_ops view_ops = {
	.cfg_read = host_cfg_read,
	.cfg_write = host_cfg_write,
	.map = bar_map,
	.unmap = bar_unmap,
	.msi_route = msi_route,
	.bar_read = bar_read,
	.bar_write = bar_write,
	.msi_send = send,
};

/* The MSI-X entries the guest sees: as many as host vectors were left for (pci_msix_offer). */
static void msix_vectors(struct vm *vm, unsigned dev)
{
	struct pci_msix *m = &vm->board.pci.fn[dev - 1].msix;
	unsigned n = 0;
	if (!m->off)
		return;
	while (n < m->x.n && (m->host_vector[n] = msi_vector_alloc(vm, dev, (u8)n)))
		n++;
	if (n < m->x.n)
		kprintf("guest %s: PCI 00:%02x.0: host vectors for %u of its %u MSI-X entries: it sees %u\n",
			vm->name, dev, n, m->x.n, n);
	pci_msix_offer(&vm->board.pci.fn[dev - 1], n);
}

/* A memory BAR of whole pages gets device slots, one per run of pages that hold none of its
 * MSI-X table and pending bits (those pages exit: pci_view_mmio_*); a smaller one shares its
 * page with whatever follows it on the host, so its accesses exit and are forwarded. */
static void bar_slots(struct vm *vm, unsigned dev, unsigned i)
{
	struct pci_bus_fn *f = &vm->board.pci.fn[dev - 1];
	struct pci_bus_bar *r = &f->bar[i];
	if (r->kind == PCI_BAR_IO || r->kind == PCI_BAR_NONE || r->size < PAGE_SIZE)
		return;
	u64 pages = r->size >> PAGE_SHIFT;
	for (u64 p = 0; p < pages;) {
		if (pci_msix_traps(&f->msix, i, p << PAGE_SHIFT)) {
			p++;
			continue;
		}
		u64 run = 1;
		while (p + run < pages && !pci_msix_traps(&f->msix, i, (p + run) << PAGE_SHIFT))
			run++;
		int s = memslots_dev_add(&vm->mem, r->host + (p << PAGE_SHIFT), run);
		if (s < 0) {
			kprintf("guest %s: PCI 00:%02x.0 BAR%u: no memory slot left: its accesses exit\n",
				vm->name, dev, i);
			return;
		}
		if (r->slot < 0)
			r->slot = s;
		r->nslots++;
		p += run;
	}
}

_Static_assert(PCI_BUS_FUNCS >= PCI_ASSIGN_MAX, "the bus holds every function pci= gives");

void pci_view_attach(struct vm *vm)
{
	struct pci_bus *b = &vm->board.pci;

	/* The guest's physical address width, as its MMU has it (CPUID's, set up before). */
	pci_bus_init(b, &view_ops, vm, vm->name, vm->mem.low_bytes, 1ull << vm->mmu.cfg.maxphyaddr);
	if (vm->mem.bytes > vm->mem.low_bytes)
		b->ram_high_end = memslots_high_end(&vm->mem);
	for (u32 k = 0; k < vm->config.pci.n; k++) {
		u16 bdf = vm->config.pci.bdf[k];
		const struct pci_func *f = &pci_host.f[pci_find(&pci_host, bdf)];
		/* Umbra reaches a memory BAR itself for accesses that exit (an instruction the
		 * MMU sends to the emulator): uncached, like the ECAM window. */
		for (unsigned i = 0; i < PCI_MAX_BARS; i++)
			if ((f->bar[i].kind == PCI_BAR_MEM32 || f->bar[i].kind == PCI_BAR_MEM64) &&
			    f->bar[i].base && !paging_map_uncached(f->bar[i].base, f->bar[i].size))
				kprintf("guest %s: PCI %02x:%02x.%x BAR%u at 0x%llx is beyond Umbra's map: its accesses that exit read all ones\n",
					vm->name, PCI_BUS(bdf), PCI_DEV(bdf), PCI_FN(bdf), i,
					(unsigned long long)f->bar[i].base);
		int dev = pci_bus_add(b, bdf, f->bar);
		if (dev < 0)
			continue;
		kprintf("guest %s: PCI %02x:%02x.%x is its 00:%02x.0\n", vm->name, PCI_BUS(bdf),
			PCI_DEV(bdf), PCI_FN(bdf), dev);
		struct pci_msi *msi = &b->fn[dev - 1].msi;
		if (msi->off &&
		    !(msi->host_vector = msi_vector_alloc(vm, (unsigned)dev, MSI_NOT_X)))
			kprintf("guest %s: PCI 00:%02x.0: no host vector left: its MSI stays off\n",
				vm->name, dev);
		msix_vectors(vm, (unsigned)dev);
		intx_attach(vm, (unsigned)dev, bdf);
		for (unsigned i = 0; i < PCI_MAX_BARS; i++)
			bar_slots(vm, (unsigned)dev, i);
	}
	shm_pci_attach(vm);
	pci_bus_reset(b);
}

void pci_view_quiesce(struct vm *vm, const char *when)
{
	struct pci_bus *b = &vm->board.pci;
	pci_bus_quiesce(b);
	/* Read back from the function itself: what the device now obeys, not what was meant. */
	for (u32 d = 0; d < b->n; d++) {
		u16 bdf = b->fn[d].host_bdf;
		kinfo("guest %s: PCI %02x:%02x.%x quiesced %s: command 0x%04x\n", vm->name,
		      PCI_BUS(bdf), PCI_DEV(bdf), PCI_FN(bdf), when,
		      pci_host_cfg_read(bdf, PCI_COMMAND) & 0xffff);
	}
}

/* One device access of exactly len bytes where the width allows it (registers care). */
static void mmio_load(volatile void *dev, u8 *buf, unsigned len)
{
	switch (len) {
	case 1: {
		u8 v = *(volatile u8 *)dev;
		memcpy(buf, &v, 1);
		return;
	}
	case 2: {
		u16 v = *(volatile u16 *)dev;
		memcpy(buf, &v, 2);
		return;
	}
	case 4: {
		u32 v = *(volatile u32 *)dev;
		memcpy(buf, &v, 4);
		return;
	}
	case 8: {
		u64 v = *(volatile u64 *)dev;
		memcpy(buf, &v, 8);
		return;
	}
	default:
		for (unsigned i = 0; i < len; i++)
			buf[i] = ((volatile u8 *)dev)[i];
	}
}

static void mmio_store(volatile void *dev, const u8 *buf, unsigned len)
{
	u64 v = 0;
	memcpy(&v, buf, len < 8 ? len : 8);
	switch (len) {
	case 1:
		*(volatile u8 *)dev = (u8)v;
		return;
	case 2:
		*(volatile u16 *)dev = (u16)v;
		return;
	case 4:
		*(volatile u32 *)dev = (u32)v;
		return;
	case 8:
		*(volatile u64 *)dev = v;
		return;
	default:
		for (unsigned i = 0; i < len; i++)
			((volatile u8 *)dev)[i] = buf[i];
	}
}

/* The host BAR behind gpa, or NULL (all ones) where Umbra cannot reach it. */
static volatile void *mmio_target(struct vm *vm, u64 gpa, unsigned len, bool *claimed)
{
	u64 hpa;
	*claimed = vm->board.pci.n && pci_bus_decodes(&vm->board.pci, false, gpa, len, &hpa);
	return *claimed && hpa + len <= HOST_MAPPED_LIMIT ? phys_to_virt(hpa) : NULL;
}

bool pci_view_mmio_read(struct vm *vm, u64 gpa, void *buf, unsigned len)
{
	u64 x;
	if (len <= 8 && (pci_bus_ecam_access(&vm->board.pci, gpa, len, &x, false) ||
			 pci_bus_msix_access(&vm->board.pci, gpa, len, &x, false))) {
		memcpy(buf, &x, len);
		return true;
	}
	u32 val;
	if (len <= 4 && pci_bus_vfn_access(&vm->board.pci, gpa, len, &val, false)) {
		memcpy(buf, &val, len);
		return true;
	}
	bool claimed;
	volatile void *dev = mmio_target(vm, gpa, len, &claimed);
	if (dev)
		mmio_load(dev, buf, len);
	else if (claimed)
		memset(buf, 0xff, len);
	return claimed;
}

bool pci_view_mmio_write(struct vm *vm, u64 gpa, const void *buf, unsigned len)
{
	u64 x = 0;
	memcpy(&x, buf, len < 8 ? len : 8);
	if (len <= 8 && (pci_bus_ecam_access(&vm->board.pci, gpa, len, &x, true) ||
			 pci_bus_msix_access(&vm->board.pci, gpa, len, &x, true)))
		return true;
	u32 val = (u32)x;
	if (len <= 4 && pci_bus_vfn_access(&vm->board.pci, gpa, len, &val, true))
		return true;
	bool claimed;
	volatile void *dev = mmio_target(vm, gpa, len, &claimed);
	if (dev)
		mmio_store(dev, buf, len);
	return claimed;
}

bool pci_view_pio(struct vm *vm, u16 port, unsigned size, u32 *val, bool write)
{
	u64 host;
	if (!vm->board.pci.n || !pci_bus_decodes(&vm->board.pci, true, port, size, &host))
		return false;
	u16 p = (u16)host;
	if (write) {
		if (size == 1)
			outb(p, (u8)*val);
		else if (size == 2)
			outw(p, (u16)*val);
		else
			outl(p, *val);
	} else {
		*val = size == 1 ? inb(p) : size == 2 ? inw(p) : inl(p);
	}
	return true;
}
