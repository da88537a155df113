/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest entry: multiboot v1 header, 32-bit start, exception and interrupt stubs, ring 3. */
/* 64-bit images switch to long mode here, before any C runs. */
#define MB_MAGIC 0x1badb002
#define MB_FLAGS 0x3 /* page-aligned modules, memory information */

	.section .multiboot, "a"
	.align 4
	.long MB_MAGIC, MB_FLAGS, -(MB_MAGIC + MB_FLAGS)

	.section .text.entry, "ax"
	.code32
	.globl _start
_start:
	cli
	cld
	mov %eax, %ebp
	/* .bss first: the boot values and the stack live there. */
	mov $__bss_start, %edi
	mov $__bss_end, %ecx
	sub %edi, %ecx
	xor %eax, %eax
	rep stosb
	mov %ebp, boot_magic
	mov %ebx, boot_info
	lgdt gdt_desc
	ljmp $0x08, $1f
1:	mov $0x10, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	mov %ax, %fs
	mov %ax, %gs
	mov $boot_stack_top, %esp
#ifdef __x86_64__
	/* Long mode needs paging: identity-map 1 GiB with 2 MiB pages until the test builds its own. */
	mov $boot_pd, %edi
	mov $0x83, %eax
	mov $512, %ecx
2:	mov %eax, (%edi)
	movl $0, 4(%edi)
	add $0x200000, %eax
	add $8, %edi
	loop 2b
	movl $boot_pd + 3, boot_pdpt
	movl $boot_pdpt + 3, boot_pml4
	mov %cr4, %eax
	or $0x20, %eax
	mov %eax, %cr4
	mov $boot_pml4, %eax
	mov %eax, %cr3
	mov $0xc0000080, %ecx
	rdmsr
	or $0x100, %eax
	wrmsr
	mov %cr0, %eax
	or $0x80000001, %eax
	mov %eax, %cr0
	ljmp $0x18, $3f
	.code64
3:	mov $boot_stack_top, %esp
	call lib_start
#else
	call lib_start
#endif
4:	hlt
	jmp 4b

/* Exception stubs: each pushes a dummy error code where the CPU pushes none, then its vector. */
.macro stub vec
	.align 16
	.if (\vec == 8) || (\vec >= 10 && \vec <= 14) || (\vec == 17) || (\vec == 21) || (\vec == 29) || (\vec == 30)
	.else
	push $0
	.endif
	push $\vec
	jmp trap_common
.endm
	.align 16
	.globl trap_stubs
trap_stubs:
	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,128
	stub \v
	.endr

/* Interrupt stubs for vectors 32-255 (0x80 keeps its own gate above): no error code, the
 * vector, then the common path, which dispatches to handlers registered per vector. */
.macro irq_stub vec
	.align 16
	push $0
	push $\vec
	jmp trap_common
.endm
	.align 16
	.globl irq_stubs
irq_stubs:
	.irp hi, 2,3,4,5,6,7,8,9,10,11,12,13,14,15
	.irp lo, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	irq_stub (\hi * 16 + \lo)
	.endr
	.endr

#ifdef __x86_64__
trap_common:
	push %rax
	push %rcx
	push %rdx
	push %rbx
	push %rbp
	push %rsi
	push %rdi
	push %r8
	push %r9
	push %r10
	push %r11
	push %r12
	push %r13
	push %r14
	push %r15
	mov %rsp, %rdi
	call trap_handler
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	pop %rbp
	pop %rbx
	pop %rdx
	pop %rcx
	pop %rax
	add $16, %rsp
	iretq

/* ulong user_call(ip, sp, ax, bx, cx): runs ring-3 code until it traps; the trap handler
 * calls user_return(value), which resumes here as if user_call returned value. */
	.globl user_call, user_return
user_call:
	push %rbp
	push %rbx
	push %r12
	push %r13
	push %r14
	push %r15
	mov %rsp, user_saved_sp(%rip)
	mov %rdx, %rax
	mov %rcx, %rbx
	mov %r8, %rcx
	push $0x2b
	push %rsi
	push $2
	push $0x33
	push %rdi
	iretq
user_return:
	mov %rdi, %rax
	mov user_saved_sp(%rip), %rsp
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %rbx
	pop %rbp
	ret
#else
trap_common:
	pusha
	push %esp
	call trap_handler
	add $4, %esp
	popa
	add $8, %esp
	iret

	.globl user_call, user_return
user_call:
	push %ebp
	push %ebx
	push %esi
	push %edi
	mov %esp, user_saved_sp
	mov 20(%esp), %edx
	mov 24(%esp), %esi
	mov 28(%esp), %eax
	mov 32(%esp), %ebx
	mov 36(%esp), %ecx
	push $0x2b
	push %esi
	push $2
	push $0x23
	push %edx
	/* Data segments must be usable at CPL 3, or iret clears them. */
	mov $0x2b, %si
	mov %si, %ds
	mov %si, %es
	iret
user_return:
	mov 4(%esp), %eax
	mov user_saved_sp, %esp
	pop %edi
	pop %esi
	pop %ebx
	pop %ebp
	ret
#endif

/* Ring-3 stubs, copied into a user page; the same bytes decode alike in 32- and 64-bit code. */
	.section .rodata
	.globl ustub_start, ustub_read, ustub_write, ustub_end
ustub_start:
ustub_read:
	.byte 0x8b, 0x03        /* mov (%ebx/%rbx), %eax */
	.byte 0xcd, 0x80        /* int $0x80 */
ustub_write:
	.byte 0x89, 0x0b        /* mov %ecx, (%ebx/%rbx) */
	.byte 0xcd, 0x80
ustub_end:

	.data
	.align 16
	.globl gdt
gdt:
	.quad 0
	.quad 0x00cf9a000000ffff /* 0x08 code32 */
	.quad 0x00cf92000000ffff /* 0x10 data */
	.quad 0x00af9a000000ffff /* 0x18 code64 */
	.quad 0x00cffa000000ffff /* 0x20 user code32 */
	.quad 0x00cff2000000ffff /* 0x28 user data */
	.quad 0x00affa000000ffff /* 0x30 user code64 */
	.quad 0, 0               /* 0x38 TSS, filled in by the library */
gdt_end:
gdt_desc:
	.word gdt_end - gdt - 1
	.long gdt

	.bss
	.align 4096
#ifdef __x86_64__
boot_pml4: .skip 4096
boot_pdpt: .skip 4096
boot_pd:   .skip 4096
#endif
	.globl boot_stack_top, boot_magic, boot_info, user_saved_sp
	.skip 16384
boot_stack_top:
boot_magic: .skip 8
boot_info: .skip 8
user_saved_sp: .skip 8
	.section .note.GNU-stack, "", @progbits
