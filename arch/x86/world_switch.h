/* SPDX-License-Identifier: GPL-2.0-only */
/* Assembly helpers both world-switch stubs use to move guest GPRs to and from struct vcpu. */
#ifndef ARCH_X86_WORLD_SWITCH_H
#define ARCH_X86_WORLD_SWITCH_H

/* Offset of gpr[r] in the vCPU's register array (enum x86_gpr order). */
#define GPR_OFF(r) ((r) * 8)

/* One GPR between the array at %base and the register. */
.macro GPR_LOAD reg, idx, base
	movq GPR_OFF(\idx)(%\base), %\reg
.endm
.macro GPR_SAVE reg, idx, base
	movq %\reg, GPR_OFF(\idx)(%\base)
.endm

/* The GPRs every stub moves by hand. RAX, RSP, RSI and RDI are left to each stub: one of them
 * holds the array, and the vendors keep RAX/RSP in different places. */
.macro FOR_COMMON_GPRS op, base
	\op rcx, 1, \base
	\op rdx, 2, \base
	\op rbx, 3, \base
	\op rbp, 5, \base
	\op r8, 8, \base
	\op r9, 9, \base
	\op r10, 10, \base
	\op r11, 11, \base
	\op r12, 12, \base
	\op r13, 13, \base
	\op r14, 14, \base
	\op r15, 15, \base
.endm

#endif
