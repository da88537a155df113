/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest's end of a shared memory region, which struct vm embeds, and the regions' limits. */
#ifndef VMM_SHM_PORT_H
#define VMM_SHM_PORT_H

#include "lib/types.h"
#include "pv/abi.h"
#include "vmm/dev/ivshmem.h"
#include "vmm/dev/pci_bus.h"

#define SHM_REGIONS 8	/* shm=NAME:SIZE words on Umbra's line */
#define SHM_PER_GUEST 4 /* shm=NAME words on one module line */
#define SHM_MEMBERS 16	/* guests sharing one region */
#define SHM_NAME_LEN 16

struct vm;

/*
 * A guest's end of a region. `rung` is written by its peers from their CPUs (atomically, without
 * this guest's lock): one bit per doorbell vector rung and not yet taken. Everything else is
 * the guest's own, under its lock.
 */
struct shm_port {
	u8 region;
	u8 peer_id;
	bool ro;
	u32 rung;		     /* atomic */
	u8 bound[UMBRA_SHM_VECTORS]; /* SHM_BIND: the IDT vector a doorbell vector becomes */
	u32 bound_mask;		     /* the doorbell vectors bound */
	u64 rings;		     /* doorbells this guest rang */
	u64 coalesced;		     /* of those, onto one already pending at the peer */
	u64 refused;		     /* doorbell register writes naming no peer or vector */
	u64 taken;		     /* doorbells this guest took (interrupts, status bits) */
	struct ivshmem dev;	     /* its ivshmem function's registers */
	struct pci_vfn vfn;
	struct vm *vm;
};

#endif
