/* SPDX-License-Identifier: GPL-2.0-only */
/* Exception entry stubs: push a uniform frame (vector, error code, GPRs) and call trap_handler. */
#include "arch/x86/devirq.h"
	.text

/* Vectors whose exception pushes an error code. */
#define HAS_ERR(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

.macro STUB v
	.balign 16
trap_stub_\v:
	.if !((\v == 8) || ((\v >= 10) && (\v <= 14)) || (\v == 17) || (\v == 21) || (\v == 29) || (\v == 30))
	pushq $0
	.endif
	pushq $\v
	jmp trap_common
.endm

	.globl trap_stubs
	.balign 16
trap_stubs_begin:
.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,255
	STUB \v
.endr

/* The device vectors (arch/x86/devirq.h): 16-byte stubs from devirq_stubs, in order. */
	.globl devirq_stubs
	.balign 16
devirq_stubs:
	.set vec, DEVIRQ_FIRST
	.rept DEVIRQ_COUNT
	.balign 16
	pushq $0
	pushq $vec
	jmp trap_common
	.set vec, vec + 1
	.endr

trap_common:
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	cld
	movq %rsp, %rdi
	call trap_handler
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp
	iretq

	.section .rodata
	.balign 8
trap_stubs:
.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,255
	.quad trap_stub_\v
.endr
