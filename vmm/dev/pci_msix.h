/* SPDX-License-Identifier: GPL-2.0-only */
/* The MSI-X capability and table of an assigned function as its guest sees them: virtual entries, host programming. */
#ifndef VMM_DEV_PCI_MSIX_H
#define VMM_DEV_PCI_MSIX_H

/*
 * The guest sees the host function's MSI-X capability at the host's offset: its table size (at
 * most PCI_MSIX_MAX entries, and no more than Umbra had host vectors for: a smaller table is
 * one a device may have), the table's and the pending bits' BAR and offset as the host has
 * them. Message Control's enable and function mask are the guest's, and so is the table
 * (vmm/dev/msix.c): the pages of the BAR that hold the table and the pending bits are not
 * mapped into the guest, so each access to them exits and comes here; an access to another
 * register in those pages is forwarded to the device (pci_msix_access says false).
 *
 * The host function is programmed behind it: each entry the guest has gets a host vector of
 * Umbra's (arch/x86/devirq.h) aimed at the CPU running the vCPU its message names
 * (ops->msi_route), the entry's mask as the guest's, and the host's enable and function mask
 * as the guest's. So a masked entry waits in the device's own pending bit, which the guest
 * reads in the PBA (with the model's, for a message that arrived as the guest masked it), and
 * goes when the guest unmasks it. An arrival becomes the guest's message (ops->msi_send: the
 * local APICs its address names, or dropped and counted when it is no interrupt or names no
 * vCPU); a message that is no interrupt is said once on the guest's line when it is enabled.
 */

#include "vmm/dev/pci_fn.h" /* struct pci_msix, the bus and its functions */

/* Finds the host function's MSI-X capability; kept only when its table and pending bits lie
 * in memory BARs the bus has. Offers up to PCI_MSIX_MAX entries until pci_msix_offer. */
void pci_msix_find(struct pci_bus *b, struct pci_bus_fn *f);
/* The guest sees n entries (the host vectors it got; 0: no MSI-X at all). */
void pci_msix_offer(struct pci_bus_fn *f, unsigned n);
bool pci_msix_claims(const struct pci_msix *m, u16 reg);
u32 pci_msix_read(const struct pci_bus_fn *f, u16 reg);
/* bytes: which bytes of the dword the guest wrote (bit i: byte i); val is the dword merged. */
void pci_msix_write(struct pci_bus *b, unsigned d, u16 reg, u32 val, unsigned bytes);
/* Whether the page at off of BAR bar holds some of the table or the pending bits. */
bool pci_msix_traps(const struct pci_msix *m, unsigned bar, u64 off);
/* An access at off of BAR bar of function d: true when it lies in the table or the pending
 * bits (emulated), false when it is some other register (the caller forwards it). */
bool pci_msix_access(struct pci_bus *b, unsigned d, unsigned bar, u64 off, unsigned len, u64 *val,
		     bool write);
/* Entry v's host vector arrived: its message sent now, or held in its pending bit while
 * masked; false when the guest has MSI-X off (the caller drops and counts it). */
bool pci_msix_arrived(struct pci_bus *b, unsigned d, unsigned v);
/* The guest's view as at power-on (all masked, off), the host's MSI-X off. */
void pci_msix_reset(struct pci_bus *b, struct pci_bus_fn *f);
/* The host's MSI-X off, the guest's view kept (its end). */
void pci_msix_host_off(struct pci_bus *b, struct pci_bus_fn *f);

#endif
