/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest's assigned PCI functions: the host's configuration space and BARs behind its PCI bus. */
#include "vmm/pci_view.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/pci.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "vmm/cpuid.h"
#include "vmm/vm.h"

static u32 host_cfg_read(void *ctx, u16 bdf, u16 off)
{
	(void)ctx;
	return pci_host_cfg.read(pci_host_cfg.ctx, bdf, off);
}

static void host_cfg_write(void *ctx, u16 bdf, u16 off, u32 val)
{
	(void)ctx;
	pci_host_cfg.write(pci_host_cfg.ctx, bdf, off, val);
}

static void bar_map(void *ctx, unsigned dev, const struct pci_bus_bar *bar)
{
	(void)ctx, (void)dev, (void)bar;
}

static void bar_unmap(void *ctx, unsigned dev, const struct pci_bus_bar *bar)
{
	(void)ctx, (void)dev, (void)bar;
}

static const struct pci_bus_ops view_ops = {
	.cfg_read = host_cfg_read,
	.cfg_write = host_cfg_write,
	.map = bar_map,
	.unmap = bar_unmap,
};

void pci_view_attach(struct vm *vm)
{
	struct pci_bus *b = &vm->board.pci;

	pci_bus_init(b, &view_ops, vm, vm->name, vm->mem.bytes, 1ull << cpuid_maxphyaddr());
	for (u32 k = 0; k < vm->pci.n; k++) {
		u16 bdf = vm->pci.bdf[k];
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
		kprintf("guest %s: PCI %02x:%02x.%x is its 00:%02x.0\n", vm->name, PCI_BUS(bdf),
			PCI_DEV(bdf), PCI_FN(bdf), dev);
	}
	pci_bus_reset(b);
}

/* One device access of exactly len bytes where the width allows it (registers care). */
static void mmio_load(volatile void *dev, u8 *buf, unsigned len)
{
	switch (len) {
	case 1: { u8 v = *(volatile u8 *)dev; memcpy(buf, &v, 1); return; }
	case 2: { u16 v = *(volatile u16 *)dev; memcpy(buf, &v, 2); return; }
	case 4: { u32 v = *(volatile u32 *)dev; memcpy(buf, &v, 4); return; }
	case 8: { u64 v = *(volatile u64 *)dev; memcpy(buf, &v, 8); return; }
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
	case 1: *(volatile u8 *)dev = (u8)v; return;
	case 2: *(volatile u16 *)dev = (u16)v; return;
	case 4: *(volatile u32 *)dev = (u32)v; return;
	case 8: *(volatile u64 *)dev = v; return;
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
