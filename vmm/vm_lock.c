/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest's lock: counted as it is taken; released only once the flushes under it are done. */
#include "vmm/vm_lock.h"
#include "lib/spinlock.h"
#include "vmm/mmu_host.h"
#include "vmm/remote_flush.h"
#include "vmm/vm.h"

u64 vm_lock(struct vm *vm)
{
	u64 spins = spin_lock_spins(&vm->lock);
	vm->lock_taken++;
	if (spins) {
		vm->lock_contended++;
		vm->lock_spins += spins;
	}
	return spins;
}

void vm_unlock(struct vm *vm)
{
	remote_flush_wait(vm);
	if (vm->deferred_free)
		mmu_host_release_deferred(vm);
	spin_unlock(&vm->lock);
}
