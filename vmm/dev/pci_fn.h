/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest's PCI bus as data: its functions, their BARs and capabilities, the host's capability walk. */
#ifndef VMM_DEV_PCI_FN_H
#define VMM_DEV_PCI_FN_H

/*
 * What the bus (vmm/dev/pci_bus.c) and the capabilities it shows (vmm/dev/pci_msi.c,
 * vmm/dev/pci_msix.c) share: the bus calls the capabilities, and they read the bus's
 * functions and the host's configuration space through this, never through the bus.
 */

#include "arch/x86/pci.h"
#include "lib/types.h"
#include "vmm/dev/msix.h"

/* The MSI capability's state (vmm/dev/pci_msi.h says what the guest sees). */
#define PCI_CAP_MSI 0x05
#define PCI_MSI_ENABLE BIT(0)
#define PCI_MSI_64BIT BIT(7)
#define PCI_MSI_MASKABLE BIT(8)

/* A guest's MSI as an interrupt: the local APICs its address names and its vector. */
struct pci_msi_msg {
	u8 vector;
	u8 dest;      /* the APIC ID, or the logical destination */
	bool logical; /* address bit 2 (DM) */
	bool lowest;  /* delivery mode 1: one of the APICs named */
};

struct pci_msi {
	u8 off;		     /* the host capability's offset; 0: the function has no MSI */
	bool is64, maskable; /* the host's 64-bit address and per-vector masking */
	bool enable, masked; /* the guest's enable and mask bits */
	u32 addr_lo, addr_hi, data;
	bool host_on;	/* the host function's MSI is on (to ops->msi_route's message) */
	u64 host_addr;	/* the host address last programmed (0: never) */
	u64 warned;	/* the last refused message, (address << 16 | data) + 1 */
	u8 host_vector; /* the host side's (vmm/pci_view.c): 0 for none */
};

/* The MSI-X capability's state (vmm/dev/pci_msix.h says what the guest sees). */
#define PCI_MSIX_MAX 32u

struct pci_msix {
	u8 off;	    /* the host capability's offset; 0: the guest sees no MSI-X */
	u16 host_n; /* the host table's size */
	u8 table_bar, pba_bar;
	u32 table_off, pba_off; /* in their BARs */
	struct msix x;		/* the guest's view: x.n entries */
	struct msix_entry table[PCI_MSIX_MAX];
	u8 host_vector[PCI_MSIX_MAX]; /* the host side's (vmm/pci_view.c): 0 for none */
	u64 host_addr[PCI_MSIX_MAX];  /* the host address last programmed (0: never) */
	u64 warned[PCI_MSIX_MAX];     /* the last refused message, (address << 16 | data) + 1 */
	bool host_on;
};

#define PCI_BUS_FUNCS 12		/* pci='s (PCI_ASSIGN_MAX) and Umbra's own (shm=) */
#define PCI_BUS_HOLE_BASE 0xc0000000ull /* where Umbra places memory BARs: above any guest RAM */
#define PCI_BUS_ECAM_BASE 0xfeb00000ull /* bus 0's ECAM window: the MiB below the I/O APIC */
#define PCI_BUS_ECAM_SIZE 0x100000ull
#define PCI_BUS_HOLE_END PCI_BUS_ECAM_BASE /* BARs and shared regions below the window */
#define PCI_BUS_FIXED_BASE 0xe0000000ull   /* from here up: BARs at fixed places (shm regions) */
#define PCI_BUS_IO_BASE 0x1000		   /* I/O BARs above the board's legacy ports */
#define PCI_BUS_IO_END 0x10000

#define PCI_SUBSYSTEM 0x2c
#define PCI_INTERRUPT_LINE 0x3c
#define PCI_CMD_INTX_DISABLE BIT(10)
#define PCI_BUS_CMD_PASS (PCI_CMD_IO | PCI_CMD_MEM | PCI_CMD_MASTER | PCI_CMD_INTX_DISABLE)
#define PCI_STATUS_INTX BIT(3) /* in the status half: INTx asserted by the function */
#define PCI_CAP_VNDR 0x09      /* vendor-specific capability */
#define PCI_BUS_VNDR_MAX 8     /* vendor-specific ones passed through (virtio has 5) */
#define PCI_BUS_INTX_IRQ 11    /* every function's INTA: ISA IRQ 11, level, active low */

/* The host bridge the guest sees: Intel's 440FX, what a PC guest expects at 00:00.0. */
#define PCI_BUS_HB_ID 0x12378086u
#define PCI_BUS_HB_CLASS_REV 0x06000002u

/* clang-format off */
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
/* clang-format on */

/*
 * A function of Umbra's own, with no host function behind it (the ivshmem function of a shared
 * region): its identity, what the firmware leaves in its command register (decode on, so a
 * guest that never scans the bus finds its BARs where Umbra said), and its model. A BAR with
 * a host address is host memory mapped into the guest (a shared, cached device slot); one
 * without is registers, each access going to the model.
 */
struct pci_vfn_ops {
	bool (*intx)(void *ctx); /* INTA asserted (before the command register's disable) */
	u32 (*read)(void *ctx, unsigned bar, u64 off, unsigned len);
	void (*write)(void *ctx, unsigned bar, u64 off, unsigned len, u32 val);
	/* Its capabilities, from pci_vfn.cap on (dword-aligned; bytes: which the guest wrote). */
	u32 (*cap_read)(void *ctx, u16 reg);
	void (*cap_write)(void *ctx, u16 reg, u32 val, unsigned bytes);
};
struct pci_vfn {
	u32 id; /* device << 16 | vendor */
	u32 class_rev;
	u32 subsystem;
	u8 cap; /* its first capability (from 0x40), 0 for none */
	u16 reset_cmd;
	const struct pci_vfn_ops *ops;
	void *ctx;
};

struct pci_bus_fn {
	u16 host_bdf;
	const struct pci_vfn *vfn; /* Umbra's own function, or NULL for a host one */
	u16 cmd;		   /* the guest's command register: the PCI_BUS_CMD_PASS bits */
	u8 int_line;		   /* scratch for the OS, as on hardware */
	/* A host function's INTx: routed to the guest (pci_bus_intx_route: its INTA, on the
	 * bus's line), and masked at the function by Umbra (its command register's INTx
	 * disable) from the host interrupt that found it asserted until the guest's EOI. */
	bool intx_routed, intx_masked;
	struct pci_bus_bar bar[PCI_MAX_BARS];
	struct pci_msi msi;   /* its MSI capability as the guest sees it (vmm/dev/pci_msi.c) */
	struct pci_msix msix; /* its MSI-X capability and table (vmm/dev/pci_msix.c) */
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
	const char *name; /* the guest's, for its messages */
	u64 ram_end;	  /* guest RAM is [0, ram_end) */
	u64 ram_high_end; /* and [4 GiB, ram_high_end) when above 4 GiB (0: none) */
	u64 phys_end;	  /* 1 << the guest's physical address width */
	u64 mem_next;	  /* Umbra's placement cursors */
	u64 io_next;
	u32 addr; /* 0xCF8 as last written */
	u32 n;
	struct pci_bus_fn fn[PCI_BUS_FUNCS]; /* fn[i] is device i + 1, function 0 */
	u64 refused; /* decodes refused (unclaimable ranges), for the report */
};

/* Walks the host function's capability list, calling fn with each one's offset and first
 * dword until it returns true: that offset, or 0 at the end. */
u8 pci_fn_cap_walk(struct pci_bus *b, u16 host_bdf, bool (*fn)(void *ctx, u8 off, u32 cap),
		   void *ctx);
/* A host function's capability with that ID: its offset (a bounded walk of its list), 0 for none. */
u8 pci_fn_cap_find(struct pci_bus *b, u16 host_bdf, u8 id);

#endif
