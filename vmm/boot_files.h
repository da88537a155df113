/* SPDX-License-Identifier: GPL-2.0-only */
/* The files a guest's line hands its kernel (modules, initrd), kept for a reload at reset. */
#ifndef VMM_BOOT_FILES_H
#define VMM_BOOT_FILES_H

#include "lib/types.h"

/* Named for multiboot v1, whose modules they were first; every format takes them. */
#define MB1_MAX_FILES 8

struct mb1_file {
	const u8 *data;
	u64 size;
	const char *cmdline;
};

#endif
