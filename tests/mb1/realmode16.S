/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 realmode kernel: the way down to real mode, the real-mode checks and the way back up. */
/*
 * rm_call (32-bit, cdecl) drops from the library's 32-bit protected mode through 16-bit
 * protected mode to real mode, runs the checks and comes back up through LGDT, MOV CR0 and a
 * far jump. Everything from rm_start to rm_end is copied by realmode.c to RM_BASE and runs
 * there in segment RM_SEG (offsets from rm_start are the real-mode addresses). realmode.c
 * fills the IVT at RM_IVT and reads the results at RM_RES (struct rm_results, same order).
 */
#define RM_BASE 0x9000
#define RM_SEG (RM_BASE >> 4)
#define RM_IVT 0x1000
#define RM_RES 0x2000
#define O(x) ((x) - rm_start)
#define LIN(x) (RM_BASE + (x) - rm_start)
/* struct rm_results */
#define R_SEG (RM_RES + 0)
#define R_STACK (RM_RES + 2)
#define R_INT40 (RM_RES + 4)
#define R_INT40_CS (RM_RES + 6)
#define R_INT40_FLAGS (RM_RES + 8)
#define R_BP (RM_RES + 10)
#define R_DE (RM_RES + 12)
#define R_FL_CLI (RM_RES + 14)
#define R_FL_STI (RM_RES + 16)
#define R_FL_POPF (RM_RES + 18)
#define R_CR0 (RM_RES + 20)
#define R_MSW (RM_RES + 22)
#define R_DEFAULT (RM_RES + 24)
#define R_FAR (RM_RES + 26)
#define R_IRQ (RM_RES + 28)
#define R_IRQ_IP (RM_RES + 30)
#define R_APIC_BASE (RM_RES + 32)

#include "tests/mb1/rmswitch.h"
	rm_switch_code

	.globl rm_after_hlt
	.globl rm_start, rm_end, rm_default, rm_int40, rm_bp, rm_de, rm_bad, rm_triple, rm_far, rm_irq0
	.p2align 3
rm_start:
	rm_switch_gdt
ivt_desc:
	.word 256 * 4 - 1
	.long RM_BASE + RM_IVT
rm_bad:	.byte 0
rm_triple: .byte 0
	.p2align 1
no_ivt:	.word 0
	.long 0
	.p2align 1
far_ptr: .word O(rm_far), RM_SEG
hello:	.asciz "realmode: hello from real mode\r\n"
strio:	.ascii "realmode: and by rep outsb\r\n"
strio_end:

	.code16
pm16:	/* 16-bit protected mode: the data segments' hidden bases are RM_BASE, not 0x20 * 16 */
	mov $0x20, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %fs
	mov %ax, %gs
	mov %ax, %ss
	mov $0xfff0, %sp
	mov %cr0, %eax
	and $0xfffffffe, %eax
	mov %eax, %cr0
	cmpb $0, O(rm_bad)
	je 1f
	/* bad=1: an instruction Umbra's emulator does not know while CS still holds protected
	 * mode's base (natively it just runs): the guest must end alone, with a message. */
	aam $10
1:	ljmp $RM_SEG, $O(real)

real:
	mov $RM_SEG, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	mov %ax, %fs
	mov %ax, %gs
	mov $0xfff0, %sp
	lidt O(ivt_desc)
	cmpb $0, O(rm_triple)
	je 1f
	/* triple=1 (check-bochs only): an interrupt vector table of limit 0; INT n, then the
	 * #GP and the #DF find no vector either: a triple fault, which ends this guest alone. */
	lidt O(no_ivt)
	int $0x40
1:
	/* Segment arithmetic: ES 0x300 paragraphs up is DS + 0x3000. */
	mov $RM_SEG + 0x300, %ax
	mov %ax, %es
	movw $0x1234, %es:0x10
	mov 0x3010, %ax
	mov %ax, R_SEG
	mov %ds, %ax
	mov %ax, %es

	/* The stack: a near call that rewrites its caller's pushed word. */
	push $0x5678
	call bump
	pop %ax
	mov %ax, R_STACK

	/* A software interrupt through the IVT (IVT base moved by LIDT). */
	mov $0x1000, %ax
	int $0x40
	mov %ax, R_INT40

	/* int3 and a divide error: #BP returns past it, #DE's handler skips the div. */
	int3
	xor %dx, %dx
	mov $1, %ax
	xor %cx, %cx
	div %cx

	/* A vector nobody set: the default handler counts it. */
	int $0x77

	/* Flags: IF by CLI, STI and POPF. */
	cli
	pushf
	pop %ax
	mov %ax, R_FL_CLI
	sti
	pushf
	pop %ax
	cli
	mov %ax, R_FL_STI
	push $0x0203
	popf
	pushf
	pop %ax
	cli
	mov %ax, R_FL_POPF

	/* External interrupts through the IVT: the 8254's IRQ 0 (realmode.c armed it, the
	 * 8259 has it on vector 0x20, masked until now) wakes "sti; hlt", after the hlt. */
	mov $0xfe, %al
	out %al, $0x21
	sti
	hlt
rm_after_hlt:
	cli
	mov $0xff, %al
	out %al, $0x21

	/* CR0 and the machine status word: PE is clear. */
	mov %cr0, %eax
	mov %ax, R_CR0
	smsw %ax
	mov %ax, R_MSW

	/* A far call and return within real mode, through a pointer in memory. */
	lcall *O(far_ptr)

	/* Port output: a line on COM1, waiting for THR empty. */
	mov $O(hello), %si
	cld
2:	lodsb
	test %al, %al
	jz 4f
	mov %al, %bl
	mov $0x3fd, %dx
3:	in %dx, %al
	test $0x20, %al
	jz 3b
	mov $0x3f8, %dx
	mov %bl, %al
	out %al, %dx
	jmp 2b
4:
	mov $O(strio), %si
	mov $strio_end - strio, %cx
	mov $0x3f8, %dx
	rep outsb

	/* An MSR: IA32_APIC_BASE, bits 8-11 (BSP, x2APIC, enable). */
	mov $0x1b, %ecx
	rdmsr
	mov %ax, R_APIC_BASE

	/* Up again: LGDT, PE, a far jump to 32-bit code. */
	cli
	lgdtl O(gdt_desc)
	mov %cr0, %eax
	or $1, %eax
	mov %eax, %cr0
	ljmpl $0x08, $pm32_back

bump:
	mov %sp, %bp
	incw 2(%bp)
	ret

rm_int40:
	add $0x1111, %ax
	push %bp
	mov %sp, %bp
	mov 4(%bp), %bx		/* the pushed CS */
	mov %bx, R_INT40_CS
	mov 6(%bp), %bx		/* the pushed FLAGS */
	mov %bx, R_INT40_FLAGS
	pop %bp
	iret

rm_bp:
	incw R_BP
	iret

rm_de:	/* a fault: the pushed IP is the div's; skip its two bytes */
	incw R_DE
	push %bp
	mov %sp, %bp
	addw $2, 2(%bp)
	pop %bp
	iret

rm_irq0:
	incw R_IRQ
	push %bp
	mov %sp, %bp
	push %ax
	mov 2(%bp), %ax		/* where it interrupted: the last one, past the hlt */
	mov %ax, R_IRQ_IP
	mov $0x20, %al
	out %al, $0x20		/* EOI */
	pop %ax
	pop %bp
	iret

rm_default:
	incw R_DEFAULT
	iret

rm_far:
	mov %cs, %ax
	mov %ax, R_FAR
	lret
rm_end:
