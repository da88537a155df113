/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest's PCI bus: a host bridge and its assigned functions behind mechanism #1 and ECAM. */
#ifndef VMM_DEV_PCI_BUS_H
#define VMM_DEV_PCI_BUS_H

/*
 * The guest sees one bus, bus 0: a host bridge at 00:00.0, its pci= functions renumbered as
 * function 0 of devices 1, 2, ... in the order of its pci= list, whatever their host bus,
 * device and function (Jailhouse keeps host numbers; ACRN's partition mode renumbers). A
 * function 1 given without its function 0, or two functions with the same device and function
 * on two host buses, would otherwise be invisible to a guest's scan (which looks past function
 * 0 only when function 0 says it is multi-function) or collide. Functions of Umbra's own (a
 * shared region's ivshmem function, struct pci_vfn below) follow them.
 *
 * Configuration space is filtered, 256 bytes per function: vendor, device, class, revision,
 * subsystem and status read through from the host function (status without its capability
 * list bit); the command register passes I/O and memory decode, bus mastering and INTx disable
 * through and keeps nothing else; BARs are virtual (sizing reads the host BAR's size mask; the
 * address is the guest's); the expansion ROM, the capability pointer, the interrupt pin and
 * everything from 0x40 on read as zero, but for the capabilities the guest sees: MSI and
 * MSI-X, virtualized (vmm/dev/pci_msi.h, vmm/dev/pci_msix.h), and the vendor-specific ones,
 * which describe the device to its own driver (virtio's register layout, say) and pass through
 * as VFIO passes them, but for their header; the list links them in the host's order and the
 * status bit shows it where there is one (power management, PCIe and the others stay hidden;
 * a host function's INTx is not routed yet, a function of Umbra's own has INTA on IRQ 11).
 * Writes the guest may not make are
 * dropped, as hardware drops writes to read-only bits. Any other bus, device or function reads
 * all ones.
 *
 * The same space answers at two doors, through one code path (cfg_access): mechanism #1
 * (0xCF8/0xCFC) and an ECAM window for bus 0, 1 MiB at PCI_BUS_ECAM_BASE, which the guest's
 * MCFG lists (vmm/load/acpi_tables.c). There an access of 1, 2 or 4 bytes inside one dword reaches
 * the register; one crossing a dword, of another width, or to a function that is not there
 * reads all ones and writes nothing, as a PCIe root complex answers an unsupported request.
 * Extended space (0x100-0xFFF) of a present function reads zero: no extended capability is
 * shown (mechanism #1 cannot reach it at all).
 *
 * A BAR decodes while its command bit is on and its range can be claimed: above the guest's
 * RAM, clear of the local and I/O APICs' pages and of the ECAM window, inside the 16-bit port
 * space above the board's legacy ports (0x1000) for I/O, and overlapping no BAR already
 * decoding. A range that cannot
 * be claimed is not decoded (what is under it keeps answering, as a PC's RAM wins over a
 * misplaced device) and the guest's line says so once per address. Every change of what
 * decodes goes to ops->map and ops->unmap; Umbra maps memory windows into the guest's tables
 * and lets an I/O window's ports through the I/O bitmap while it sits at the host's ports,
 * where Umbra places it if it can.
 */

#include "arch/x86/pci.h"
#include "lib/types.h"
#include "vmm/dev/pci_msi.h"
#include "vmm/dev/pci_msix.h"

#define PCI_BUS_FUNCS 12               /* pci='s (PCI_ASSIGN_MAX) and Umbra's own (shm=) */
#define PCI_BUS_HOLE_BASE 0xc0000000ull /* where Umbra places memory BARs: above any guest RAM */
#define PCI_BUS_ECAM_BASE 0xfeb00000ull /* bus 0's ECAM window: the MiB below the I/O APIC */
#define PCI_BUS_ECAM_SIZE 0x100000ull
#define PCI_BUS_HOLE_END PCI_BUS_ECAM_BASE /* BARs and shared regions below the window */
#define PCI_BUS_FIXED_BASE 0xe0000000ull /* from here up: BARs at fixed places (shm regions) */
#define PCI_BUS_IO_BASE 0x1000          /* I/O BARs above the board's legacy ports */
#define PCI_BUS_IO_END 0x10000

#define PCI_SUBSYSTEM 0x2c
#define PCI_INTERRUPT_LINE 0x3c
#define PCI_CMD_INTX_DISABLE BIT(10)
#define PCI_BUS_CMD_PASS (PCI_CMD_IO | PCI_CMD_MEM | PCI_CMD_MASTER | PCI_CMD_INTX_DISABLE)
#define PCI_STATUS_INTX BIT(3)          /* in the status half: INTx asserted by the function */
#define PCI_CAP_VNDR 0x09                /* vendor-specific capability */
#define PCI_BUS_VNDR_MAX 8               /* vendor-specific ones passed through (virtio has 5) */
#define PCI_BUS_INTX_IRQ 11             /* every function's INTA: ISA IRQ 11, level, active low */

/* The host bridge the guest sees: Intel's 440FX, what a PC guest expects at 00:00.0. */
#define PCI_BUS_HB_ID 0x12378086u
#define PCI_BUS_HB_CLASS_REV 0x06000002u

struct pci_bus_bar {
	u8 kind;                /* enum pci_bar_kind of the host BAR; NONE: reads as zero */
	bool prefetch;
	u64 size;
	u64 host;               /* the host BAR's address */
	u64 guest;              /* the address the guest wrote (size-aligned) */
	u64 placed;             /* where Umbra puts it at reset; 0: nowhere room was left */
	bool live;              /* decoding now, at `at` */
	u64 at;
	u64 warned_at;          /* the last unclaimable address reported (+1; 0: none) */
	int slot;               /* the host side's (vmm/pci_view.c: its first memory slot, or -1) */
	u8 nslots;              /* slots from `slot` on: the BAR's runs of pages around its
				 * MSI-X table and pending bits, which no slot holds */
};

/*
 * A function of Umbra's own, with no host function behind it (the ivshmem function of a shared
 * region): its identity, what the firmware leaves in its command register (decode on, so a
 * guest that never scans the bus finds its BARs where Umbra said), and its model. A BAR with
 * a host address is host memory mapped into the guest (a shared, cached device slot); one
 * without is registers, each access going to the model.
 */
struct pci_vfn_ops {
	bool (*intx)(void *ctx);        /* INTA asserted (before the command register's disable) */
	u32 (*read)(void *ctx, unsigned bar, u64 off, unsigned len);
	void (*write)(void *ctx, unsigned bar, u64 off, unsigned len, u32 val);
	/* Its capabilities, from pci_vfn.cap on (dword-aligned; bytes: which the guest wrote). */
	u32 (*cap_read)(void *ctx, u16 reg);
	void (*cap_write)(void *ctx, u16 reg, u32 val, unsigned bytes);
};
struct pci_vfn {
	u32 id;                 /* device << 16 | vendor */
	u32 class_rev;
	u32 subsystem;
	u8 cap;                 /* its first capability (from 0x40), 0 for none */
	u16 reset_cmd;
	const struct pci_vfn_ops *ops;
	void *ctx;
};

struct pci_bus_fn {
	u16 host_bdf;
	const struct pci_vfn *vfn;      /* Umbra's own function, or NULL for a host one */
	u16 cmd;                /* the guest's command register: the PCI_BUS_CMD_PASS bits */
	u8 int_line;            /* scratch for the OS, as on hardware */
	struct pci_bus_bar bar[PCI_MAX_BARS];
	struct pci_msi msi;     /* its MSI capability as the guest sees it (vmm/dev/pci_msi.c) */
	struct pci_msix msix;   /* its MSI-X capability and table (vmm/dev/pci_msix.c) */
	/* Its vendor-specific capabilities (ID 0x09; e.g. virtio's register layout), passed
	 * through: offset and length of each, 0 past the last. */
	struct pci_bus_vndr {
		u8 off, len;
	} vndr[PCI_BUS_VNDR_MAX];
};

struct pci_bus;

struct pci_bus_ops {
	/* The host function's configuration space, a dword at a dword-aligned offset. */
	u32 (*cfg_read)(void *ctx, u16 host_bdf, u16 off);
	void (*cfg_write)(void *ctx, u16 host_bdf, u16 off, u32 val);
	/* BAR b of virtual device dev now decodes at bar->at, or no longer does. */
	void (*map)(void *ctx, unsigned dev, const struct pci_bus_bar *bar);
	void (*unmap)(void *ctx, unsigned dev, const struct pci_bus_bar *bar);
	/* The host message (address, data) that brings msg to the guest on host vector vec;
	 * false: none can (vec is 0, no host vector), the host's MSI stays off. NULL: none ever. */
	bool (*msi_route)(void *ctx, u8 vec, const struct pci_msi_msg *msg, u64 *addr, u32 *data);
	/* A host BAR's 32-bit register at host-physical hpa (an MSI-X table and its PBA). */
	u32 (*bar_read)(void *ctx, u64 hpa);
	void (*bar_write)(void *ctx, u64 hpa, u32 val);
	/* A guest's MSI-X message, to the local APICs it names (or dropped and counted). */
	void (*msi_send)(void *ctx, u64 addr, u32 data);
};

struct pci_bus {
	const struct pci_bus_ops *ops;
	void *ctx;
	const char *name;       /* the guest's, for its messages */
	u64 ram_end;            /* guest RAM is [0, ram_end) */
	u64 ram_high_end;       /* and [4 GiB, ram_high_end) when above 4 GiB (0: none) */
	u64 phys_end;           /* 1 << the guest's physical address width */
	u64 mem_next;           /* Umbra's placement cursors */
	u64 io_next;
	u32 addr;               /* 0xCF8 as last written */
	u32 n;
	struct pci_bus_fn fn[PCI_BUS_FUNCS];   /* fn[i] is device i + 1, function 0 */
	u64 refused;            /* decodes refused (unclaimable ranges), for the report */
};

void pci_bus_init(struct pci_bus *b, const struct pci_bus_ops *ops, void *ctx,
		  const char *name, u64 ram_end, u64 phys_end);
/* Adds a host function with its BARs (as the host walk sized them); its virtual device
 * number, or -1 when the bus is full. A host BAR without an address gets none. */
int pci_bus_add(struct pci_bus *b, u16 host_bdf, const struct pci_bar *bars);
/* Adds a function of Umbra's own with its BARs: bars[i].base is host memory behind BAR i (0:
 * registers), fixed[i] where it sits at reset (0: placed as a host BAR is). */
int pci_bus_add_virtual(struct pci_bus *b, const struct pci_vfn *vfn, const struct pci_bar *bars,
			const u64 *fixed);
/* Is some function's INTA asserted and not disabled by its command register? */
bool pci_bus_intx(const struct pci_bus *b);
/* An access to a register BAR of a function of Umbra's own, given to its model: true if one
 * decodes [addr, addr + len). */
bool pci_bus_vfn_access(struct pci_bus *b, u64 addr, unsigned len, u32 *val, bool write);
/* Power-on: every BAR back where Umbra places it, every command register (and the host's
 * decode, bus mastering and INTx disable) off, so the devices stop their DMA. */
void pci_bus_reset(struct pci_bus *b);
/* The guest is gone or about to be reset: every host function's bus mastering and decode go
 * off and its INTx is disabled, so no DMA it started lands in memory about to be reused and
 * no interrupt outlives it; the guest's view is left alone (pci_bus_reset puts it back). */
void pci_bus_quiesce(struct pci_bus *b);
/* An access of 1, 2 or 4 bytes to a port of 0xCF8-0xCFF (0xCF9 is the board's, not here). */
u32 pci_bus_read(struct pci_bus *b, u16 port, unsigned size);
void pci_bus_write(struct pci_bus *b, u16 port, unsigned size, u32 val);
/* An access to the ECAM window (none while the bus has no function): true when [addr,
 * addr + len) starts in it; *val is the register's bytes, or all ones. */
bool pci_bus_ecam_access(struct pci_bus *b, u64 addr, unsigned len, u64 *val, bool write);
/* A host function's capability with that ID: its offset (a bounded walk of its list), 0 for none. */
u8 pci_bus_cap_find(struct pci_bus *b, u16 host_bdf, u8 id);
/* An access to a memory BAR of a host function that lies in its MSI-X table or pending bits:
 * true when emulated here (the rest of the BAR is the device's). */
bool pci_bus_msix_access(struct pci_bus *b, u64 addr, unsigned len, u64 *val, bool write);
/* The host address of [addr, addr + len) when it lies in one decoding BAR of that kind. */
bool pci_bus_decodes(const struct pci_bus *b, bool io, u64 addr, unsigned len, u64 *host);

#endif
