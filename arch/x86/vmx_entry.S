/* SPDX-License-Identifier: GPL-2.0-only */
/* VMX world switch: host callee-saved state on the stack, guest GPRs and CR2 from/to memory. */

#include "arch/x86/world_switch.h"

#define VMCS_HOST_RSP 0x6c14
#define VMCS_HOST_RIP 0x6c16

/* RSP lives in the VMCS; RDI holds the array, so it is loaded last and saved through a push. */

	.text
	.globl vmx_world_switch
/*
 * int vmx_world_switch(u64 *gpr, int launched, u64 *cr2)
 * 0 after a VM exit; 1 on VMfailInvalid, 2 on VMfailValid (the guest never ran).
 */
vmx_world_switch:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	pushq %rdi		/* the gpr array, needed again after the exit */
	pushq %rdx		/* where the guest's CR2 lives */

	/* The exit lands here with this very stack: the CPU reloads RSP from the VMCS. */
	movl $VMCS_HOST_RSP, %eax
	vmwrite %rsp, %rax
	movl $VMCS_HOST_RIP, %eax
	leaq .Lexit(%rip), %rcx
	vmwrite %rcx, %rax

	/* CR2 is not part of the VMCS: the guest's value must be live in the real register. */
	movq (%rdx), %rax
	movq %rax, %cr2

	/* Decide now: nothing below may touch the flags. */
	testl %esi, %esi

	FOR_COMMON_GPRS GPR_LOAD, rdi
	GPR_LOAD rax, 0, rdi
	GPR_LOAD rsi, 6, rdi
	GPR_LOAD rdi, 7, rdi
	jz 1f
	vmresume
	jmp .Lfail
1:	vmlaunch
.Lfail:
	/* CF: no current VMCS; ZF: the VM-instruction error field says why. */
	movl $1, %eax
	jc 2f
	movl $2, %eax
2:	addq $16, %rsp
	jmp .Lout

.Lexit:
	pushq %rdi
	movq 16(%rsp), %rdi	/* the gpr array, above the guest RDI and the CR2 slot */
	FOR_COMMON_GPRS GPR_SAVE, rdi
	GPR_SAVE rax, 0, rdi
	GPR_SAVE rsi, 6, rdi
	popq %rax
	GPR_SAVE rax, 7, rdi
	popq %rdx
	movq %cr2, %rax
	movq %rax, (%rdx)
	addq $8, %rsp
	xorl %eax, %eax
.Lout:
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
