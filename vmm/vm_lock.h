/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest's lock, whose release completes the remote TLB flushes and page frees done under it. */
#ifndef VMM_VM_LOCK_H
#define VMM_VM_LOCK_H

#include "lib/types.h"

struct vm;

/* The guest's lock (MMU and device state). Unlocking first waits for the remote TLB flushes
 * requested under it (vmm/remote_flush.c), so every operation done under the lock is complete,
 * on every vCPU, once it is dropped. Lock order: vm->lock, then palloc's lock or the console
 * input lock, then the console output lock; the flush wait takes no lock at all. */
/* Returns the pause iterations it waited (0: the lock was free). */
u64 vm_lock(struct vm *vm);
void vm_unlock(struct vm *vm);

#endif
