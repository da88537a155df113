/* SPDX-License-Identifier: GPL-2.0-only */
/* 32-bit multiboot2 entry: checks the CPU, builds an early 4 GiB identity map, enters long mode. */
#include "arch/x86/regs.h"

#define BOOT_STACK_SIZE 16384

	.section .text.boot, "ax"
	.code32
	.globl _start
_start:
	cli
	cld
	movl $(boot_stack + BOOT_STACK_SIZE), %esp
	movl %eax, mb_magic
	movl %ebx, mb_info

	/* Long mode needs CPUID leaf 0x80000001 with LM; say so on the serial port if absent. */
	movl $0x80000000, %eax
	cpuid
	cmpl $0x80000001, %eax
	jb no_long_mode
	movl $0x80000001, %eax
	cpuid
	testl $(1 << 29), %edx
	jz no_long_mode

	/* Early map: PML4[0] -> PDPT, PDPT[0..3] -> 4 PDs of 512 x 2 MiB. */
	movl $early_pdpt, %eax
	orl $(PTE_P | PTE_W), %eax
	movl %eax, early_pml4

	xorl %ecx, %ecx
1:	movl %ecx, %eax
	shll $12, %eax
	addl $early_pd, %eax
	orl $(PTE_P | PTE_W), %eax
	movl %eax, early_pdpt(,%ecx,8)
	incl %ecx
	cmpl $4, %ecx
	jb 1b

	xorl %ecx, %ecx
2:	movl %ecx, %eax
	shll $21, %eax
	orl $(PTE_P | PTE_W | PTE_PS), %eax
	movl %eax, early_pd(,%ecx,8)
	incl %ecx
	cmpl $2048, %ecx
	jb 2b

	movl %cr4, %eax
	orl $(CR4_PAE | CR4_PGE), %eax
	movl %eax, %cr4
	movl $early_pml4, %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $(EFER_LME), %eax
	wrmsr
	movl %cr0, %eax
	orl $(CR0_PG | CR0_PE | CR0_WP | CR0_NE), %eax
	movl %eax, %cr0

	lgdt early_gdt_ptr
	ljmp $0x08, $long_entry

no_long_mode:
	movl $no_lm_msg, %esi
3:	lodsb
	testb %al, %al
	jz 5f
	movw $0x3fd, %dx
4:	inb %dx, %al
	testb $0x20, %al
	jz 4b
	movb -1(%esi), %al
	movw $0x3f8, %dx
	outb %al, %dx
	jmp 3b
5:	hlt
	jmp 5b

	.code64
long_entry:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movq $(boot_stack + BOOT_STACK_SIZE), %rsp
	xorq %rbp, %rbp
	movl mb_magic, %edi
	movl mb_info, %esi
	call kmain
6:	cli
	hlt
	jmp 6b

	.section .rodata
no_lm_msg:
	.asciz "umbra: this CPU has no long mode; cannot boot\r\n"

	.balign 8
early_gdt:
	.quad 0
	.quad 0x00af9a000000ffff	/* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff	/* 0x10: data */
early_gdt_end:
early_gdt_ptr:
	.short early_gdt_end - early_gdt - 1
	.long early_gdt

	.section .data
	.globl mb_magic, mb_info
mb_magic: .long 0
mb_info:  .long 0

	.section .bss
	.balign 4096
	.globl early_pml4
early_pml4: .space 4096
early_pdpt: .space 4096
early_pd:   .space 4 * 4096
	.globl boot_stack
boot_stack: .space BOOT_STACK_SIZE
