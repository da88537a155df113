/* SPDX-License-Identifier: GPL-2.0-only */
/* The entry format of a nested page table (NPT, EPT), as a backend describes it to mmu/tdp.c. */
#ifndef ARCH_X86_TDP_FORMAT_H
#define ARCH_X86_TDP_FORMAT_H

#include "lib/types.h"

/* The entry format. Every entry gets present | write | exec | user (each mask may be 0 when the
 * format has no such bit), tables also table_extra, leaves also leaf_extra (leaf_uc instead on a
 * device's frames: the bits that make the access uncached whatever the guest's PAT says), 2 MiB
 * leaves also large. The address is bits 12..51 in both known formats. */
struct tdp_format {
	u64 present; /* the bit(s) that make an entry valid */
	u64 write, exec, user;
	u64 large; /* page-size bit of a level-2 leaf; 0: no 2 MiB leaves */
	u64 table_extra, leaf_extra, leaf_uc;
};

#endif
