/* SPDX-License-Identifier: GPL-2.0-only */
/* Booting unmodified multiboot (v1) kernels the way QEMU's -kernel does. */
#ifndef VMM_MULTIBOOT1_H
#define VMM_MULTIBOOT1_H

#include "lib/types.h"

#define MB1_HEADER_MAGIC 0x1badb002u
#define MB1_BOOT_MAGIC 0x2badb002u

struct vm;

/* Files handed to a multiboot v1 guest as its modules. */
#define MB1_MAX_FILES 8

struct mb1_file {
	const u8 *data;
	u64 size;
	const char *cmdline;
};

/* The multiboot v1 header in the image's first 8 KiB, or NULL. */
const u32 *mb1_find_header(const u8 *img, u64 size);
/* Loads the kernel (ELF32, or the header's a.out-kludge addresses), places the information
 * block, the command line, the memory map and the modules after it, and sets the entry state
 * (EAX = MB1_BOOT_MAGIC, EBX = the information block). 0, or <0 with *why. */
int mb1_load(struct vm *vm, const u8 *img, u64 size, const u32 *hdr, const struct mb1_file *files,
	     unsigned nfiles, const char **why);

#endif
