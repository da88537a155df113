/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 real-mode kernels' way down and up (assembler macros): rm_call, pm32_back and the GDT. */
/*
 * The includer defines RM_BASE, rm_start (where the copied part begins), O(x) = x - rm_start
 * and LIN(x) = RM_BASE + O(x), and a 16-bit label pm16 in the copied part. rm_call (32-bit,
 * cdecl) saves the library's state and far-jumps to pm16 in 16-bit protected mode; the
 * real-mode code comes back with "ljmpl $0x08, $pm32_back". rm_switch_gdt goes at rm_start.
 */
.macro rm_switch_code
	.data
saved_esp: .long 0
saved_cs: .long 0
saved_ds: .long 0
saved_gdt: .word 0
	.long 0
saved_idt: .word 0
	.long 0

	.text
	.code32
	.globl rm_call
rm_call:
	pushal
	pushfl
	cli
	mov %esp, saved_esp
	mov %cs, saved_cs
	mov %ds, saved_ds
	sgdt saved_gdt
	sidt saved_idt
	lgdt LIN(gdt_desc)
	ljmp $0x18, $O(pm16)

	/* Back from real mode: the library's descriptors again. */
pm32_back:
	mov $0x10, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	mov %ax, %fs
	mov %ax, %gs
	lgdt saved_gdt
	lidt saved_idt
	mov saved_esp, %esp
	pushl saved_cs
	pushl $1f
	lret
1:	mov saved_ds, %eax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	mov %ax, %fs
	mov %ax, %gs
	popfl
	popal
	ret
.endm

.macro rm_switch_gdt
gdt:	.quad 0
	.quad 0x00cf9a000000ffff	/* 0x08: 32-bit code, flat */
	.quad 0x00cf92000000ffff	/* 0x10: 32-bit data, flat */
	.quad 0x00009a009000ffff	/* 0x18: 16-bit code at RM_BASE */
	.quad 0x000092009000ffff	/* 0x20: 16-bit data at RM_BASE */
gdt_desc:
	.word 5 * 8 - 1
	.long LIN(gdt)
.endm
