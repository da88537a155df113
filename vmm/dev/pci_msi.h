/* SPDX-License-Identifier: GPL-2.0-only */
/* The MSI capability of an assigned function as its guest sees it: virtual message, host programming. */
#ifndef VMM_DEV_PCI_MSI_H
#define VMM_DEV_PCI_MSI_H

/*
 * The guest sees the host function's MSI capability at the host's offset, in a list that holds
 * it and MSI-X alone (vmm/dev/pci_bus.c sets the next pointers), offering one message: Multiple
 * Message Capable reads 0 and Multiple Message Enable keeps 0, as a device with one vector
 * (QEMU's and KVM's assigned devices give the same for a start). Its address, data and mask bit
 * are the guest's and stay virtual: the host function is programmed with a host vector of
 * Umbra's (arch/x86/devirq.h) aimed at the physical CPU that runs the guest's target vCPU
 * (ops->msi_route), and when that vector arrives vmm/msi.c delivers the guest's vector to the
 * vCPUs its address names (pci_msi_message). A message that is no interrupt (an address outside
 * 0xFEExxxxx, a vector below 16, a delivery mode other than fixed or lowest priority) leaves the
 * host's MSI off, so nothing arrives, and the guest's line says so once per message. The guest's
 * mask bit (where the host function has per-vector masking) is the host's, so a masked message
 * waits in the device's pending bit, which reads through.
 */

#include "vmm/dev/pci_fn.h" /* struct pci_msi, the bus and its functions */

/* Finds the host function's MSI capability (a bounded walk of its list). */
void pci_msi_find(struct pci_bus *b, struct pci_bus_fn *f);
/* Whether the dword at reg lies in the capability the guest sees. */
bool pci_msi_claims(const struct pci_msi *m, u16 reg);
u32 pci_msi_read(struct pci_bus *b, const struct pci_bus_fn *f, u16 reg);
/* bytes: which bytes of the dword the guest wrote (bit i: byte i); val is the dword merged. */
void pci_msi_write(struct pci_bus *b, unsigned d, u16 reg, u32 val, unsigned bytes);
/* The guest's message off and zero, the host's MSI off. */
void pci_msi_reset(struct pci_bus *b, struct pci_bus_fn *f);
/* The host's MSI off, the guest's view kept (its end). */
void pci_msi_host_off(struct pci_bus *b, struct pci_bus_fn *f);
/* The message (address, data) as an interrupt; NULL, or why it is none. */
const char *pci_msi_decode(u64 addr, u32 data, struct pci_msi_msg *out);
/* Whether some function of the bus could send its guest an MSI or MSI-X message (a HLT may
 * wait for one). */
bool pci_msi_may_arrive(const struct pci_bus *b);
/* What the guest's MSI delivers now: false while it is off, masked or no interrupt. */
bool pci_msi_message(const struct pci_msi *m, struct pci_msi_msg *out);

#endif
