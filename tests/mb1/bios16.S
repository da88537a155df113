/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 bios kernel: down to real mode with the BIOS's own IVT, strings and flags, sti; hlt, and back up. */
/*
 * rm_call (32-bit, cdecl, rmswitch.h) drops to real mode as in realmode16.S, but keeps the interrupt
 * vector table the BIOS left at 0 and programs no timer: the 8254 and the 8259s are as the
 * BIOS left them. Between clearing CR0.PE and the far jump (DS and ES still hold protected
 * mode's base, which on VMX without unrestricted guest means every instruction is emulated) it
 * runs the flag and string instructions a real-mode kernel uses; then "sti; hlt" must wake on
 * the BIOS's timer tick, whose handler counts it at 0x46C. Results at RM_BASE + RES.
 */
#define RM_BASE 0x9000
#define RM_SEG (RM_BASE >> 4)
#define RES 0x2000
#define BUF 0x3000
#define O(x) ((x) - rm_start)
#define LIN(x) (RM_BASE + (x) - rm_start)
/* struct bios_results (bios.c) */
#define R_CMPS_CX (RES + 0)
#define R_CMPS_FL (RES + 2)
#define R_SCAS_CX (RES + 4)
#define R_SCAS_DI (RES + 6)
#define R_LODS (RES + 8)
#define R_LODS_SI (RES + 10)
#define R_SBB (RES + 12)
#define R_FLAGS (RES + 14)
#define R_PUSHED (RES + 16)
#define R_TICKS0 (RES + 20)
#define R_TICKS1 (RES + 24)
#define R_IRQ_IVT (RES + 28)
#define R_TICKS2 (RES + 32)
#define R_ROLL (RES + 36)

#include "tests/mb1/rmswitch.h"
	rm_switch_code

	.globl rm_start, rm_end
	.p2align 3
rm_start:
	rm_switch_gdt
	.p2align 1
bios_ivt:			/* the table the BIOS left */
	.word 256 * 4 - 1
	.long 0

	.code16
pm16:
	mov $0x20, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	mov $0xfff0, %sp
	mov %cr0, %eax
	and $0xfffffffe, %eax
	mov %eax, %cr0
	/* Real mode with protected mode's bases: strings and flags. */
	cld
	mov $BUF, %di
	mov $0xa55a, %ax
	mov $4, %cx
	rep stosw
	mov $BUF, %si
	mov $BUF + 0x10, %di
	mov $8, %cx
	rep movsb
	mov $BUF, %si
	mov $BUF + 0x10, %di
	mov $8, %cx
	repe cmpsb
	mov %cx, R_CMPS_CX
	lahf
	mov %ah, R_CMPS_FL
	mov $BUF + 0x10, %di
	mov $0xa5, %al
	mov $8, %cx
	repne scasb
	mov %cx, R_SCAS_CX
	mov %di, R_SCAS_DI
	std
	mov $BUF + 0x17, %si
	lodsb
	mov %al, R_LODS
	mov %si, R_LODS_SI
	cld
	stc
	cmc
	sbb %bx, %bx			/* CF clear: 0 */
	stc
	sbb %dx, %dx			/* CF set: 0xffff */
	sub %dx, %bx			/* 0 - 0xffff = 1 */
	mov %bx, R_SBB
	mov $0x46, %ah
	sahf				/* ZF and PF from AH, CF clear */
	pushf
	pop %ax
	mov %ax, R_FLAGS
	push $0x1234
	pop %ax
	mov %ax, R_PUSHED
	ljmp $RM_SEG, $O(b_real)

b_real:
	mov $RM_SEG, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	xor %ax, %ax
	mov %ax, %fs
	mov $0xfff0, %sp
	lidt O(bios_ivt)
	mov %fs:0x20, %eax		/* the IVT's IRQ0 entry (vector 8) */
	mov %eax, R_IRQ_IVT
	mov %fs:0x46c, %eax
	mov %eax, R_TICKS0
	/* Nothing programmed: only the BIOS's 18.2 Hz tick can end these. */
	sti
	hlt
	hlt
	cli
	mov %fs:0x46c, %eax
	mov %eax, R_TICKS1
	/* Past a day's worth of ticks (0x1800B0 here, 0x1800B2 in SeaBIOS): the next resets the
	 * count and sets the rollover flag. */
	movl $0x1800b5, %fs:0x46c
	movb $0, %fs:0x470
	sti
	hlt
	cli
	mov %fs:0x46c, %eax
	mov %eax, R_TICKS2
	mov %fs:0x470, %al
	mov %al, R_ROLL

	lgdtl O(gdt_desc)
	mov %cr0, %eax
	or $1, %eax
	mov %eax, %cr0
	ljmpl $0x08, $pm32_back
rm_end:
