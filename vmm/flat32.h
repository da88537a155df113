/* SPDX-License-Identifier: GPL-2.0-only */
/* The flat 32-bit protected-mode state a boot protocol starts a vCPU in. */
#ifndef VMM_FLAT32_H
#define VMM_FLAT32_H

#include "lib/types.h"

struct x86_emu_ctx;

/* 32-bit protected mode, paging off, flat segments, interrupts off, EAX/EBX as given: the
 * loaders' entry state and the PV start of an AP (vmm/ipi.c). */
void flat32_state(struct x86_emu_ctx *r, u64 entry, u32 eax, u32 ebx);

#endif
