/* SPDX-License-Identifier: GPL-2.0-only */
/* The machine's PCI configuration space: ECAM from the MCFG, else mechanism #1, and the boot walk. */
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/pci.h"
#include "lib/printf.h"
#include "lib/spinlock.h"

#define CF8_ADDR 0xcf8
#define CF8_DATA 0xcfc
#define CF8_ENABLE BIT(31)

struct pci_list pci_host;
static struct pci_ecam ecam;
/* The address and data ports are one register pair for all CPUs: guests' configuration
 * accesses (vmm/pci_view.c) run on any CPU. Innermost: nothing is taken under it. */
static spinlock_t cf8_lock = SPINLOCK_INIT;

static u32 ecam_read(void *ctx, u16 bdf, u16 off)
{
	(void)ctx;
	if (PCI_BUS(bdf) < ecam.start_bus || PCI_BUS(bdf) > ecam.end_bus)
		return 0xffffffff; /* outside the window: as an absent function reads */
	return *(volatile u32 *)phys_to_virt(ecam.base + ((u64)bdf << 12) + (off & 0xffc));
}

static void ecam_write(void *ctx, u16 bdf, u16 off, u32 v)
{
	(void)ctx;
	if (PCI_BUS(bdf) < ecam.start_bus || PCI_BUS(bdf) > ecam.end_bus)
		return;
	*(volatile u32 *)phys_to_virt(ecam.base + ((u64)bdf << 12) + (off & 0xffc)) = v;
}

/* Mechanism #1 reaches the first 256 bytes only: the extended space reads as absent. */
static u32 cf8_read(void *ctx, u16 bdf, u16 off)
{
	(void)ctx;
	if (off >= 256)
		return 0xffffffff;
	spin_lock(&cf8_lock);
	outl(CF8_ADDR, CF8_ENABLE | (u32)bdf << 8 | (off & 0xfc));
	u32 v = inl(CF8_DATA);
	spin_unlock(&cf8_lock);
	return v;
}

static void cf8_write(void *ctx, u16 bdf, u16 off, u32 v)
{
	(void)ctx;
	if (off >= 256)
		return;
	spin_lock(&cf8_lock);
	outl(CF8_ADDR, CF8_ENABLE | (u32)bdf << 8 | (off & 0xfc));
	outl(CF8_DATA, v);
	spin_unlock(&cf8_lock);
}

/* Mechanism #1 is there if 0xCF8 holds what is written to it (the test Linux makes). */
static bool cf8_present(void)
{
	u32 saved = inl(CF8_ADDR);
	outl(CF8_ADDR, CF8_ENABLE);
	bool ok = inl(CF8_ADDR) == CF8_ENABLE;
	outl(CF8_ADDR, saved);
	return ok;
}

static bool ecam_setup(const void *rsdp, size_t rsdp_len, acpi_map_fn map)
{
	struct acpi_find f;
	const struct acpi_header *mcfg;
	int err = acpi_find_table(rsdp, rsdp_len, map, NULL, "MCFG", PCI_ERR_MCFG, &mcfg, &f);
	if (err) {
		kinfo("pci: %s\n", err == ACPI_ERR_NO_TABLE ? "no MCFG" : f.error);
		return false;
	}
	if (pci_parse_mcfg(mcfg, &ecam) < 0) {
		kprintf("%s\n", ecam.error);
		return false;
	}
	u64 len = ((u64)ecam.end_bus - ecam.start_bus + 1) << 20;
	u64 start = ecam.base + ((u64)ecam.start_bus << 20);
	if (!paging_map_uncached(start, len)) {
		kprintf("pci: ECAM at 0x%llx (%llu MiB) is outside Umbra's map: not used\n",
			(unsigned long long)start, (unsigned long long)(len >> 20));
		return false;
	}
	kinfo("pci: ECAM at 0x%llx, buses %02x-%02x\n", (unsigned long long)ecam.base,
	      ecam.start_bus, ecam.end_bus);
	return true;
}

/* The access the walk used, kept for the drivers that read a function's registers later. */
static struct pci_cfg cfg;

u32 pci_host_cfg_read(u16 bdf, u16 off)
{
	return cfg.read ? cfg.read(cfg.ctx, bdf, off & 0xffc) : ~0u;
}

void pci_host_cfg_write(u16 bdf, u16 off, u32 v)
{
	if (cfg.write)
		cfg.write(cfg.ctx, bdf, off & 0xffc, v);
}

void pci_host_init(const void *rsdp, size_t rsdp_len, acpi_map_fn map)
{
	if (rsdp && ecam_setup(rsdp, rsdp_len, map)) {
		cfg = (struct pci_cfg){ ecam_read, ecam_write, NULL };
	} else if (cf8_present()) {
		kinfo("pci: configuration mechanism #1\n");
		cfg = (struct pci_cfg){ cf8_read, cf8_write, NULL };
	} else {
		kprintf("pci: no configuration access (no MCFG, no mechanism #1): no devices\n");
		return;
	}
	pci_enumerate(&cfg, &pci_host);
	kinfo("pci: %u functions\n", pci_host.count);
	pci_print(&pci_host);
}
