/* The platform operations Umbra gives its shadow MMU. */
#ifndef VMM_MMU_HOST_H
#define VMM_MMU_HOST_H

#include "mmu/platform.h"

extern const struct mmu_platform_ops mmu_host_ops;

#endif
