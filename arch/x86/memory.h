/* SPDX-License-Identifier: GPL-2.0-only */
/* Physical memory set-up from the multiboot2 memory map. */
#ifndef ARCH_X86_MEMORY_H
#define ARCH_X86_MEMORY_H

#include "lib/types.h"

struct boot_info;

/* Feeds usable RAM to the page allocator, minus the kernel, boot info, modules and low 1 MiB. */
void memory_init(const struct boot_info *bi, u64 info_pa);

/* The page below 1 MiB the AP trampoline may use (free per the boot map), 0 when none. */
u64 memory_trampoline_page(void);

#endif
