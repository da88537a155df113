/* SPDX-License-Identifier: GPL-2.0-only */
/* Assigned functions' MSIs: the host vector of each, and their delivery as the guest's vector. */
#ifndef VMM_MSI_H
#define VMM_MSI_H

#include "lib/types.h"

struct vm;
struct pci_msi_msg;

#define MSI_NOT_X 0xff /* msi_vector_alloc's entry for a function's MSI */

/* A host vector for virtual device dev of vm, its MSI (entry MSI_NOT_X) or MSI-X entry; 0
 * when none is left. */
u8 msi_vector_alloc(struct vm *vm, unsigned dev, u8 entry);
/* The host message for msg: Umbra's vector for the function, aimed at the CPU that runs the
 * first vCPU msg names (vCPU 0's when none does yet). Caller holds the guest's lock. */
void msi_host_message(struct vm *vm, u8 vector, const struct pci_msi_msg *msg, u64 *addr,
		      u32 *data);
/* A message of one of the guest's functions (an assigned one's, or its ivshmem function's
 * MSI-X), decoded: into each local APIC it names, counted in the guest's msi: line as
 * delivered, or dropped when it names none. Caller holds the guest's lock. */
void msi_to_guest(struct vm *vm, const struct pci_msi_msg *msg);
/* A message as a device writes it: decoded and given to msi_to_guest, or, when it is no
 * interrupt, dropped (as a chipset drops a write that decodes to no APIC) and counted. Caller
 * holds the guest's lock. */
void msi_send(struct vm *vm, u64 addr, u32 data);
/* Delivers the MSIs that arrived on this CPU (arch/x86/devirq.c) to their guests, and the
 * INTx lines' arrivals to vmm/intx.c; takes each guest's lock, so the caller holds none. */
void msi_dispatch(void);

#endif
