/* SPDX-License-Identifier: GPL-2.0-only */
/* Booting Linux bzImages as guests (the 32-bit boot protocol). */
#ifndef VMM_LINUX_H
#define VMM_LINUX_H

#include "lib/types.h"

struct vm;
struct mb1_file;

/* Does the image carry a Linux setup header ("HdrS")? */
bool linux_is_bzimage(const u8 *img, u64 size);
/* Loads the protected-mode kernel at 1 MiB, the zero page (setup header, e820 map, command
 * line from the module line's words after "--") and files[0] as the initrd; sets the 32-bit
 * entry state. 0, or <0 with *why saying what the image or the guest's memory cannot meet. */
int linux_load(struct vm *vm, const u8 *img, u64 size, const struct mb1_file *files,
	       unsigned nfiles, const char **why);

#endif
