/* SPDX-License-Identifier: GPL-2.0-only */
/* Booting unmodified multiboot (v1) kernels the way QEMU's -kernel does. */
#ifndef VMM_LOAD_MULTIBOOT1_H
#define VMM_LOAD_MULTIBOOT1_H

#include "vmm/load/format.h"

#define MB1_HEADER_MAGIC 0x1badb002u
#define MB1_BOOT_MAGIC 0x2badb002u

/* An image with a multiboot v1 header in its first 8 KiB: the kernel (ELF32, or the header's
 * a.out-kludge addresses), the information block, the command line, the memory map and the
 * files as modules after it; the entry state with EAX = MB1_BOOT_MAGIC, EBX = the block. */
extern const struct load_format mb1_format;

#endif
