/* SPDX-License-Identifier: GPL-2.0-only */
/* Guests from multiboot2 modules: each gets its memory, its image loaded, its MMU and a vCPU. */
#ifndef VMM_GUEST_H
#define VMM_GUEST_H

#include "lib/types.h"

struct boot_info;

/* Creates one VM per module (a bad module is reported and skipped); returns how many. */
u32 guests_create(const struct boot_info *bi, u32 ncpus);
/* Modules refused at load time (bad image, bad options, no memory): reported, never run. */
u32 guests_rejected(void);

#endif
