/* SPDX-License-Identifier: GPL-2.0-only */
/* Booting ELF kernels through their PVH entry point (Xen's hvm_start_info protocol). */
#ifndef VMM_PVH_H
#define VMM_PVH_H

#include "lib/types.h"

struct vm;
struct mb1_file;

/* The image's XEN_ELFNOTE_PHYS32_ENTRY note: 1 found, 0 none, -1 a malformed note. */
int pvh_find_entry(const u8 *img, u64 size, u64 *entry);
/* Loads the segments at their physical addresses, the files as modules high in RAM, and the
 * start info (command line from the module line's words after "--", modules, e820 map, RSDP);
 * sets the 32-bit entry state with EBX = the start info. 0, or <0 with *why. */
int pvh_load(struct vm *vm, const u8 *img, u64 size, u64 entry, const struct mb1_file *files,
	     unsigned nfiles, const char **why);

#endif
