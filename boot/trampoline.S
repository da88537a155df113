/* The AP trampoline: copied to AP_TRAMPOLINE_BASE, takes an AP from real mode to long mode. */
#include "arch/x86/regs.h"
#include "arch/x86/smp.h"

#define T(sym) (AP_TRAMPOLINE_BASE + ((sym) - ap_tramp_start))

	.section .rodata
	.globl ap_tramp_start, ap_tramp_end, ap_tramp_cr3, ap_tramp_stack, ap_tramp_arg, ap_tramp_entry
	.balign 16
	.code16
ap_tramp_start:
	cli
	cld
	movw %cs, %ax
	movw %ax, %ds
	lgdtl ap_tramp_gdt_ptr - ap_tramp_start
	movl %cr0, %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	ljmpl $0x08, $T(ap_tramp32)

	.code32
ap_tramp32:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %cr4, %eax
	orl $(CR4_PAE | CR4_PGE), %eax
	movl %eax, %cr4
	movl T(ap_tramp_cr3), %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $(EFER_LME | EFER_NXE), %eax
	wrmsr
	movl %cr0, %eax
	orl $(CR0_PG | CR0_WP | CR0_NE), %eax
	movl %eax, %cr0
	ljmp $0x18, $T(ap_tramp64)

	.code64
ap_tramp64:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movq T(ap_tramp_stack), %rsp
	movq T(ap_tramp_arg), %rdi
	movq T(ap_tramp_entry), %rax
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
	.long T(ap_tramp_gdt)
ap_tramp_end:
