/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared memory between guests: regions declared on Umbra's line, their members, doorbells. */
#ifndef VMM_SHM_H
#define VMM_SHM_H

#include "lib/types.h"
#include "pv/abi.h"
#include "vmm/dev/ivshmem.h"
#include "vmm/dev/pci_bus.h"

#define SHM_REGIONS 8           /* shm=NAME:SIZE words on Umbra's line */
#define SHM_PER_GUEST 4         /* shm=NAME words on one module line */
#define SHM_MEMBERS 16          /* guests sharing one region */
#define SHM_NAME_LEN 16

struct vm;
struct vcpu;

/*
 * A guest's end of a region. `rung` is written by its peers from their CPUs (atomically, without
 * this guest's lock): one bit per doorbell vector rung and not yet taken. Everything else is
 * the guest's own, under its lock.
 */
struct shm_port {
	u8 region;
	u8 peer_id;
	bool ro;
	u32 rung;                       /* atomic */
	u8 bound[UMBRA_SHM_VECTORS];    /* SHM_BIND: the IDT vector a doorbell vector becomes */
	u32 bound_mask;                 /* the doorbell vectors bound */
	u64 rings;                      /* doorbells this guest rang */
	u64 coalesced;                  /* of those, onto one already pending at the peer */
	u64 refused;                    /* doorbell register writes naming no peer or vector */
	u64 taken;                      /* doorbells this guest took (interrupts, status bits) */
	struct ivshmem dev;             /* its ivshmem function's registers */
	struct pci_vfn vfn;
	struct vm *vm;
};

/* shm=NAME:SIZE on Umbra's line (SIZE with K, M or G, a page multiple): false, said why. */
bool shm_declare(const char *val);
/* After the memory map: each region gets its zeroed memory and its place; a region that
 * cannot is refused, with why (and so is every guest that names it). */
void shm_init(void);
/* The regions the guest's shm= words name (vm->config.shm, in their order) become its ports:
 * false, said why, for a region not declared, refused at boot, named twice or full (the guest
 * is refused). */
bool shm_join(struct vm *vm);
/* The guest was created: it becomes a member of its regions (its peer numbers are given in
 * module order). */
void shm_commit(struct vm *vm);
/* The guest's reset (and creation): its ivshmem registers at power-on, its doorbells unbound and
 * none pending; its regions' memory, as any RAM a peer shares, keeps what it holds. */
void shm_reset(struct vm *vm);
/* Its ivshmem functions join its PCI bus (vmm/pci_view.c, before the bus's reset). */
void shm_pci_attach(struct vm *vm);

/* A doorbell: from guest `from`'s region k to peer's vector. 0 delivered, 1 coalesced into one
 * pending, or -UMBRA_* (no such region or peer, peer ended, vector out of range). */
s64 shm_ring(struct vm *from, u64 k, u64 peer, u64 vector);
/* SHM_BIND: doorbell vector `vector` of region k becomes IDT vector idt (0: unbound). */
s64 shm_bind(struct vm *vm, u64 k, u64 vector, u64 idt);
/* SHM_INFO for region k. */
s64 shm_info(const struct vm *vm, u64 k, struct umbra_shm_info *out);

/* Interrupt delivery (vmm/irq.c), vCPU 0 only: is a bound doorbell waiting, and take it. */
bool shm_irq_pending(const struct vcpu *v);
u8 shm_irq_ack(struct vcpu *v);
/* Doorbells that are no bound vector's go to the ivshmem functions: MSI-X, or INTx status. */
void shm_fold_intx(struct vm *vm);
/* Could a peer ring this guest (a HLT waiting for it is not a hang)? */
bool shm_may_ring(const struct vm *vm);
/* Its regions for the guest's report. */
void shm_report(const struct vm *vm);

#endif
