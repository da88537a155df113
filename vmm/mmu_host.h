/* SPDX-License-Identifier: GPL-2.0-only */
/* The platform operations Umbra gives its shadow MMU. */
#ifndef VMM_MMU_HOST_H
#define VMM_MMU_HOST_H

#include "mmu/platform.h"

extern const struct mmu_platform_ops mmu_host_ops;

struct vm;
/* Frees the shadow pages the MMU gave back during this hold of vm->lock; called by vm_unlock
 * once every vCPU that might still reach them has left guest mode. */
void mmu_host_release_deferred(struct vm *vm);

#endif
