/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest that never exits by itself: it spins from its very first instruction, with IF as
 * built (-DSTI: interrupts enabled first). Only Umbra's preemption can take the CPU back. */
	.code32
	.text
	.globl _start
_start:
#ifdef STI
	sti
#endif
1:	jmp 1b
