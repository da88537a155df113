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

#include "vmm/dev/pci_fn.h"
#include "vmm/dev/pci_msi.h"
#include "vmm/dev/pci_msix.h"

void pci_bus_init(struct pci_bus *b, const struct pci_bus_ops *ops, void *ctx, const char *name,
		  u64 ram_end, u64 phys_end);
/* Adds a host function with its BARs (as the host walk sized them); its virtual device
 * number, or -1 when the bus is full. A host BAR without an address gets none. */
int pci_bus_add(struct pci_bus *b, u16 host_bdf, const struct pci_bar *bars);
/* Adds a function of Umbra's own with its BARs: bars[i].base is host memory behind BAR i (0:
 * registers), fixed[i] where it sits at reset (0: placed as a host BAR is). */
int pci_bus_add_virtual(struct pci_bus *b, const struct pci_vfn *vfn, const struct pci_bar *bars,
			const u64 *fixed);
/* Is some function's INTA asserted and not disabled by its command register? A host
 * function's counts from pci_bus_intx_take to pci_bus_intx_eoi. */
bool pci_bus_intx(const struct pci_bus *b);
/* Host function dev (1..n) shows INTA to the guest, and its interrupts reach it. */
void pci_bus_intx_route(struct pci_bus *b, unsigned dev);
/* The host line of routed function dev rose: if the function asserts INTx (its status), it
 * is masked at the function and its INTA is asserted for the guest (true); false if it is not
 * the one asserting or is masked already. */
bool pci_bus_intx_take(struct pci_bus *b, unsigned dev);
/* The guest ended the interrupt of the bus's line (its EOI): every masked function unmasked;
 * one still asserting raises its host line again. Whether any was. */
bool pci_bus_intx_eoi(struct pci_bus *b);
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
/* An access to a memory BAR of a host function that lies in its MSI-X table or pending bits:
 * true when emulated here (the rest of the BAR is the device's). */
bool pci_bus_msix_access(struct pci_bus *b, u64 addr, unsigned len, u64 *val, bool write);
/* The host address of [addr, addr + len) when it lies in one decoding BAR of that kind. */
bool pci_bus_decodes(const struct pci_bus *b, bool io, u64 addr, unsigned len, u64 *host);

#endif
