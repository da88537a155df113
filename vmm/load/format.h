/* SPDX-License-Identifier: GPL-2.0-only */
/* One boot protocol as the loader's table holds it: does an image speak it, and load it. */
#ifndef VMM_LOAD_FORMAT_H
#define VMM_LOAD_FORMAT_H

#include "vmm/boot_files.h"

struct vm;

struct load_format {
	const char *name;
	/* 1: the image is this format's; 0: not; -1: it claims to be but is malformed (*why). */
	int (*probe)(const u8 *img, u64 size, const char **why);
	/* Loads it and sets vCPU 0's entry state: 0, or <0 with *why saying what is wrong. */
	int (*load)(struct vm *vm, const u8 *img, u64 size, const struct mb1_file *files,
		    unsigned nfiles, const char **why);
	/* bios= absent gives it the BIOS's leftovers (vmm/load/bios.h). */
	bool bios_default;
};

#endif
