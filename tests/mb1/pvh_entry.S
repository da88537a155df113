/* SPDX-License-Identifier: GPL-2.0-only */
/* PVH entry of the pvh kernels (tests/mb1/pvh.c): the Xen ELF note and the 32-bit start.
 * The image has no multiboot header (QEMU's -kernel and Umbra would take that first), so the
 * loader must enter it the PVH way: 32-bit protected mode, paging off, flat segments, EBX =
 * the physical address of struct hvm_start_info. The library's entry.S is linked too (its
 * stubs, GDT and boot stack); its _start is not used. */
#define XEN_ELFNOTE_PHYS32_ENTRY 18
#ifndef PVH_DESC_BYTES
#define PVH_DESC_BYTES 4 /* 8 for the ELF64 image: QEMU reads a 64-bit address there */
#endif

	/* An SHT_NOTE section of its own: pvh.ld puts it in a PT_NOTE program header. */
	.section .note.Xen, "a", @note
	.align 4
	.long 2f - 1f            /* namesz */
	.long 4f - 3f            /* descsz */
	.long XEN_ELFNOTE_PHYS32_ENTRY
1:	.asciz "Xen"
2:	.align 4
3:	.long pvh_start
#if PVH_DESC_BYTES == 8
	.long 0
#endif
4:	.align 4

	.section .text.entry, "ax"
	.code32
	.globl pvh_start
pvh_start:
	/* The entry state first, before anything here changes it (no stack yet). */
	mov %ebx, %ebp
	mov %cr0, %esi
	mov %cr4, %edi
	/* .bss first, as entry.S does: the boot values and the stack live there. */
	mov %edi, %edx
	mov $__bss_start, %edi
	mov $__bss_end, %ecx
	sub %edi, %ecx
	xor %eax, %eax
	cld
	rep stosb
	mov %ebp, pvh_ebx
	mov %esi, pvh_cr0
	mov %edx, pvh_cr4
	/* EFLAGS: pushf needs a stack; the boot stack is .bss, cleared now. EFLAGS was not
	 * changed by the code above but for the arithmetic flags (and cld: DF). */
	mov $boot_stack_top, %esp
	pushf
	pop pvh_eflags
	cli
	/* The library's GDT (entry.S: null, code32 0x08, data 0x10, code64, user code32/data/
	 * code64, the TSS at 0x38: 9 descriptors); the loader's selectors are its own. */
	lgdt pvh_gdt_desc
	ljmp $0x08, $1f
1:	mov $0x10, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	mov %ax, %fs
	mov %ax, %gs
	mov $boot_stack_top, %esp
	call pvh_early
	call lib_start
2:	hlt
	jmp 2b

	.data
	.align 4
pvh_gdt_desc:
	.word 9 * 8 - 1
	.long gdt

	.bss
	.align 4
	.globl pvh_ebx, pvh_cr0, pvh_cr4, pvh_eflags
pvh_ebx: .skip 4
pvh_cr0: .skip 4
pvh_cr4: .skip 4
pvh_eflags: .skip 4
	.section .note.GNU-stack, "", @progbits
