/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest image loading: which boot format an image speaks, its firmware tables, its entry. */
#ifndef VMM_LOAD_LOADER_H
#define VMM_LOAD_LOADER_H

#include "vmm/boot_files.h"

struct vm;

/* Loads the image [img, img + size) into vm's RAM and sets its entry state: the first format
 * of the loader's table that claims it (a Linux bzImage, a multiboot v1 kernel, an ELF with a
 * PVH note, those with files as their modules), anything else with Umbra's boot protocol
 * (pv/abi.h). 0, or <0 with *why saying what is wrong with the image. */
int loader_load(struct vm *vm, const u8 *img, u64 size, const struct mb1_file *files,
		unsigned nfiles, const char **why);
/* What a reset calls (registered with vmm/reset.h at boot): the image and files again, then
 * the devices as the BIOS leaves them if the guest booted on its leftovers. */
int loader_reload(struct vm *vm, const char **why);

#endif
