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

#include "lib/types.h"

#define PCI_CAP_MSI 0x05
#define PCI_MSI_ENABLE BIT(0)
#define PCI_MSI_64BIT BIT(7)
#define PCI_MSI_MASKABLE BIT(8)

/* A guest's MSI as an interrupt: the local APICs its address names and its vector. */
struct pci_msi_msg {
	u8 vector;
	u8 dest;                /* the APIC ID, or the logical destination */
	bool logical;           /* address bit 2 (DM) */
	bool lowest;            /* delivery mode 1: one of the APICs named */
};

struct pci_msi {
	u8 off;                 /* the host capability's offset; 0: the function has no MSI */
	bool is64, maskable;    /* the host's 64-bit address and per-vector masking */
	bool enable, masked;    /* the guest's enable and mask bits */
	u32 addr_lo, addr_hi, data;
	bool host_on;           /* the host function's MSI is on (to ops->msi_route's message) */
	u64 host_addr;          /* the host address last programmed (0: never) */
	u64 warned;             /* the last refused message, (address << 16 | data) + 1 */
	u8 host_vector;         /* the host side's (vmm/pci_view.c): 0 for none */
};

struct pci_bus;
struct pci_bus_fn;

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
