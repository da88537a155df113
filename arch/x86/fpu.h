/* SPDX-License-Identifier: GPL-2.0-only */
/* FPU/SSE state switching between guests that share a CPU (FXSAVE format; Umbra uses no FPU). */
#ifndef ARCH_X86_FPU_H
#define ARCH_X86_FPU_H

#include "lib/types.h"
#include "lib/string.h"

static inline void fpu_save(u8 *area)
{
	__asm__ volatile("fxsave64 (%0)" ::"r"(area) : "memory");
}
static inline void fpu_restore(const u8 *area)
{
	__asm__ volatile("fxrstor64 (%0)" ::"r"(area) : "memory");
}

/* The state after reset/FNINIT: x87 control word 0x37f, MXCSR 0x1f80, everything else 0. */
static inline void fpu_init_state(u8 *area)
{
	memset(area, 0, 512);
	area[0] = 0x7f;
	area[1] = 0x03;
	area[24] = 0x80;
	area[25] = 0x1f;
}

#endif
