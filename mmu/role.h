/* SPDX-License-Identifier: GPL-2.0-only */
/* The role word of a shadow page: everything besides the gfn that changes what its entries mean. */
#ifndef MMU_ROLE_H
#define MMU_ROLE_H

#include "lib/types.h"

/* Access rights carried in roles and computed by the walker (a clear bit is a restriction). */
#define ACC_W 1u
#define ACC_U 2u
#define ACC_X 4u
#define ACC_ALL (ACC_W | ACC_U | ACC_X)

/* Guest paging modes, as the number of guest levels. */
#define GLEVELS_OFF 0
#define GLEVELS_32 2
#define GLEVELS_PAE 3
#define GLEVELS_LONG 4

union mmu_role {
	u32 word;
	struct {
		u32 glevels : 3;  /* guest paging levels, 0 = paging off */
		u32 level : 3;	  /* shadow level of this table, 1 = leaf table */
		u32 quadrant : 2; /* which part of a 32-bit guest table it covers */
		u32 direct : 1;	  /* no guest table behind it (paging off or large page) */
		u32 access : 3;	  /* ACC_* granted by the guest entries above it */
		u32 cr0_wp : 1;
		u32 nxe : 1;
		u32 smep : 1;
		u32 smap : 1;
		u32 pse : 1; /* 32-bit guests: CR4.PSE gives PDE.PS its meaning */
	};
};

#endif
