/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared memory between guests: regions declared on Umbra's line, their members, doorbells. */
#ifndef VMM_SHM_H
#define VMM_SHM_H

#include "lib/types.h"
#include "pv/abi.h"
#include "vmm/shm_port.h"

struct vm;
struct vcpu;

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
