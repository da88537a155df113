/* SPDX-License-Identifier: GPL-2.0-only */
/* Booting ELF kernels through their PVH entry point (Xen's hvm_start_info protocol). */
#ifndef VMM_LOAD_PVH_H
#define VMM_LOAD_PVH_H

#include "vmm/load/format.h"

/* An ELF with a XEN_ELFNOTE_PHYS32_ENTRY note: the segments at their physical addresses, the
 * files as modules high in RAM, and the start info (command line from the module line's words
 * after "--", modules, e820 map, RSDP); the 32-bit entry state with EBX = the start info. */
extern const struct load_format pvh_format;

#endif
