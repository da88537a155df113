/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest's assigned PCI functions on its bus: the host side of vmm/dev/pci_bus.c. */
#ifndef VMM_PCI_VIEW_H
#define VMM_PCI_VIEW_H

#include "lib/types.h"

struct vm;
struct vcpu;

/* Puts the guest's pci= functions (owned already) on its bus with their BARs placed and
 * decode off, and says where each appears. */
void pci_view_attach(struct vm *vm);
/* An access that exited into a decoding BAR goes to the host BAR: true if one decodes it. */
bool pci_view_mmio_read(struct vm *vm, u64 gpa, void *buf, unsigned len);
bool pci_view_mmio_write(struct vm *vm, u64 gpa, const void *buf, unsigned len);
bool pci_view_pio(struct vm *vm, u16 port, unsigned size, u32 *val, bool write);
/* Bus mastering and decode off on every function of the guest (when: "at its end", "for its
 * reset"), before its memory is reused; each function's command register is logged. */
void pci_view_quiesce(struct vm *vm, const char *when);
/* A vCPU's control structure was just built (under the guest's lock): the ports of its
 * guest's I/O windows pass through its bitmap too. */
void pci_view_vcpu_created(struct vcpu *v);

#endif
