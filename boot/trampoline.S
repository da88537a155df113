/* SPDX-License-Identifier: GPL-2.0-only */
/* The AP trampoline: copied to a free page below 1 MiB, takes an AP from real mode to long mode. */
#include "arch/x86/regs.h"

/* Offsets in the copy: the page is chosen at boot from the memory map (boot/lowmem.c), so
 * every address the code needs is its base, from CS, plus one of these. */
#define OFF(sym) ((sym) - ap_tramp_start)

	.section .rodata
	.globl ap_tramp_start, ap_tramp_end, ap_tramp_cr3, ap_tramp_stack, ap_tramp_arg, ap_tramp_entry
	.balign 16
	.code16
ap_tramp_start:
	cli
	cld
	movw %cs, %ax
	movw %ax, %ds
	movzwl %ax, %ebx
	shll $4, %ebx			/* ebx = the copy's physical base from here to the end */
	/* The GDT pointer and the far jumps hold linear addresses: fill them in for this page. */
	leal OFF(ap_tramp_gdt)(%ebx), %eax
	movl %eax, OFF(ap_tramp_gdt_ptr) + 2
	leal OFF(ap_tramp32)(%ebx), %eax
	movl %eax, OFF(ap_tramp_jmp32)
	leal OFF(ap_tramp64)(%ebx), %eax
	movl %eax, OFF(ap_tramp_jmp64)
	lgdtl OFF(ap_tramp_gdt_ptr)
	movl %cr0, %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	ljmpl *OFF(ap_tramp_jmp32)

	.code32
ap_tramp32:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %cr4, %eax
	orl $(CR4_PAE | CR4_PGE), %eax
	movl %eax, %cr4
	movl OFF(ap_tramp_cr3)(%ebx), %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $(EFER_LME | EFER_NXE), %eax
	wrmsr
	movl %cr0, %eax
	orl $(CR0_PG | CR0_WP | CR0_NE), %eax
	movl %eax, %cr0
	ljmpl *OFF(ap_tramp_jmp64)(%ebx)

	.code64
ap_tramp64:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %ebx, %ebx			/* the upper half is undefined across the mode switch */
	movq OFF(ap_tramp_stack)(%rbx), %rsp
	movq OFF(ap_tramp_arg)(%rbx), %rdi
	movq OFF(ap_tramp_entry)(%rbx), %rax
	xorq %rbp, %rbp
	jmpq *%rax

	.balign 8
ap_tramp_cr3:   .quad 0
ap_tramp_stack: .quad 0
ap_tramp_arg:   .quad 0
ap_tramp_entry: .quad 0
ap_tramp_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff	/* 0x08: 32-bit code */
	.quad 0x00cf92000000ffff	/* 0x10: data */
	.quad 0x00af9a000000ffff	/* 0x18: 64-bit code */
ap_tramp_gdt_end:
ap_tramp_gdt_ptr:
	.short ap_tramp_gdt_end - ap_tramp_gdt - 1
	.long 0				/* base: filled in by the code above */
ap_tramp_jmp32:
	.long 0				/* far pointer m16:32: offset filled in above */
	.short 0x08
ap_tramp_jmp64:
	.long 0
	.short 0x18
ap_tramp_end:
