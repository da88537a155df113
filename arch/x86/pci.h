/* SPDX-License-Identifier: GPL-2.0-only */
/* Host PCI: configuration-space access, the bus walk through bridges, BAR sizing, requester IDs. */
#ifndef ARCH_X86_PCI_H
#define ARCH_X86_PCI_H

#include "arch/x86/acpi.h"
#include "lib/types.h"

#define PCI_BDF(b, d, f) ((u16)(((b) << 8) | ((d) << 3) | (f)))
/* clang-format off */
#define PCI_BUS(bdf) ((u8)((bdf) >> 8))
#define PCI_DEV(bdf) ((u8)(((bdf) >> 3) & 0x1f))
#define PCI_FN(bdf) ((u8)((bdf) & 7))

/* Configuration-space registers the walk reads (PCI Local Bus 3.0, PCIe Base 5.0 ch. 7). */
#define PCI_VENDOR_ID     0x00
#define PCI_COMMAND       0x04
#define PCI_CLASS_REV     0x08
#define PCI_HEADER_TYPE   0x0e   /* byte of the dword at 0x0c */
#define PCI_BAR0          0x10
#define PCI_BUS_NUMBERS   0x18   /* type 1: primary, secondary, subordinate */
#define PCI_CAP_PTR       0x34
#define PCI_CMD_IO        BIT(0)
#define PCI_CMD_MEM       BIT(1)
#define PCI_CMD_MASTER    BIT(2)
#define PCI_STATUS_CAPS   BIT(4)   /* in the status half of the dword at 0x04 */
#define PCI_CAP_PCIE      0x10
#define PCIE_TYPE_PCI_BRIDGE 0x7   /* PCIe-to-PCI/PCI-X bridge: it owns its children's DMA */
/* clang-format on */

#define PCI_MAX_FUNCS 256
#define PCI_MAX_BARS 6

/* Dword access to one function's configuration space; off is dword-aligned, < 4096. */
struct pci_cfg {
	u32 (*read)(void *ctx, u16 bdf, u16 off);
	void (*write)(void *ctx, u16 bdf, u16 off, u32 v);
	void *ctx;
};

enum pci_bar_kind { PCI_BAR_NONE, PCI_BAR_IO, PCI_BAR_MEM32, PCI_BAR_MEM64 };

struct pci_bar {
	u64 base, size;
	u8 kind; /* enum pci_bar_kind */
	bool prefetch;
};

struct pci_func {
	u16 bdf;
	u16 vendor, device;
	u32 class;	     /* base class, subclass, programming interface: 0xCCSSPP */
	u8 header_type;	     /* 0 endpoint, 1 PCI-PCI bridge, 2 CardBus; bit 7 stripped */
	u8 sec_bus, sub_bus; /* bridges: the buses behind it */
	s8 pcie_type;	     /* device/port type of the PCIe capability, -1 without one */
	s16 parent;	     /* index of the bridge it sits behind, -1 on a root bus */
	u16 rid;	     /* the requester ID its DMA carries (an alias behind some bridges) */
	struct pci_bar bar[PCI_MAX_BARS];
};

struct pci_list {
	u32 count;
	u32 dropped;	 /* functions beyond PCI_MAX_FUNCS, not recorded */
	u32 bad_bridges; /* bridges whose secondary bus is not below them or seen twice */
	struct pci_func f[PCI_MAX_FUNCS];
};

/* An ECAM window of the MCFG (segment 0 only is used). */
struct pci_ecam {
	u64 base;
	u16 segment;
	u8 start_bus, end_bus;
	const char *error;
	char errbuf[112];
};

#define PCI_ERR_MCFG (-1)

/* Parses an MCFG whose header acpi_find_table checked; picks the segment 0 window. */
int pci_parse_mcfg(const struct acpi_header *mcfg, struct pci_ecam *out);

/*
 * Walks bus 0 and every bus behind a bridge, depth first, recording each function with its
 * BARs sized (decode off while sizing, except on host bridges) and its requester ID.
 */
void pci_enumerate(const struct pci_cfg *cfg, struct pci_list *out);

static inline bool pci_is_bridge(const struct pci_func *f)
{
	return (f->class >> 8) == 0x0604 || (f->class >> 8) == 0x0609 || f->header_type == 1;
}

static inline bool pci_is_host_bridge(const struct pci_func *f)
{
	return (f->class >> 8) == 0x0600;
}

/* Index of the function with this bdf, or -1. */
int pci_find(const struct pci_list *l, u16 bdf);

/* One line per function: "pci: BB:DD.F vvvv:dddd class CCSSPP ..." then one per BAR. */
void pci_print(const struct pci_list *l);

/* Boot: the MCFG's ECAM (mapped uncached) or mechanism #1, then the walk and the printout. */
void pci_host_init(const void *rsdp, size_t rsdp_len, acpi_map_fn map);
extern struct pci_list pci_host;
/* A dword of a function's configuration space through that access; all ones without one. */
u32 pci_host_cfg_read(u16 bdf, u16 off);
void pci_host_cfg_write(u16 bdf, u16 off, u32 v);

#endif
