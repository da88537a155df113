/* SPDX-License-Identifier: GPL-2.0-only */
/* pci=BB:DD.F,... on a guest's line: which host PCI functions a guest may own, and the refusals. */
#ifndef VMM_PCI_ASSIGN_H
#define VMM_PCI_ASSIGN_H

#include "arch/x86/iommu.h"
#include "arch/x86/pci.h"
#include "lib/types.h"

#define PCI_ASSIGN_MAX 8 /* functions one guest may own */
#define PCI_NO_OWNER 0xff

/* The machine as assignment sees it; owner[i] is the guest index owning pci->f[i]. */
struct pci_assign_ctx {
	const struct pci_list *pci;
	const struct iommu_list *iommu;
	bool iommu_off;	  /* iommu=off: assignment without DMA confinement (unsafe) */
	u16 console_port; /* Umbra's console UART: never assignable */
	u8 owner[PCI_MAX_FUNCS];
};

struct pci_assign_req {
	u32 n;
	u16 bdf[PCI_ASSIGN_MAX];
	const char *error;
	char errbuf[160];
};

void pci_assign_init(struct pci_assign_ctx *c, const struct pci_list *pci,
		     const struct iommu_list *iommu, bool iommu_off, u16 console_port);

/* Parses "BB:DD.F[,BB:DD.F...]" (hex); false with req->error on a malformed list, more
 * than PCI_ASSIGN_MAX functions or one given twice. */
bool pci_assign_parse(const char *val, struct pci_assign_req *req);

/* Checks the guest may own every function of req (each refusal its own message), claims
 * nothing. */
bool pci_assign_check(const struct pci_assign_ctx *c, const struct pci_assign_req *req, u8 guest,
		      struct pci_assign_req *why);

/* Records guest as the owner of every function of req (after pci_assign_check passed). */
void pci_assign_commit(struct pci_assign_ctx *c, const struct pci_assign_req *req, u8 guest);

/* What the boot log must say of a function the IOMMU may not confine after all, or NULL: a
 * transitional virtio device (legacy interface) of an emulator, which QEMU lets DMA around
 * its virtual IOMMU (a modern-only one with iommu_platform=on does not). */
const char *pci_assign_caveat(const struct pci_func *f);

/* Umbra's own context: the host walk, the IOMMUs found, iommu=off, COM1. */
extern struct pci_assign_ctx pci_assign_host;

#endif
