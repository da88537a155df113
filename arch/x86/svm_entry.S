/* SPDX-License-Identifier: GPL-2.0-only */
/* SVM world switch: host callee-saved state on the stack, guest GPRs from/to struct vcpu. */

#include "arch/x86/world_switch.h"

/* RAX and RSP travel in the VMCB; RSI holds the array, so it is loaded last and saved first. */

	.text
	.globl svm_world_switch
/* void svm_world_switch(u64 vmcb_pa, u64 *gpr, u64 host_vmcb_pa, u64 shadow) */
svm_world_switch:
	pushq %rbp
	movq %rsp, %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	pushq %rcx		/* shadow: the guest enters inside an STI/MOV SS shadow */
	pushq %rsi		/* the gpr array, needed again after the exit */
	pushq %rdx		/* host save area */
	pushq %rdi		/* guest VMCB */

	/* GIF=0 from here to the end: nothing may interrupt a half-switched state. */
	clgi
	/* Host FS/GS/TR/LDTR/syscall MSRs: VMLOAD of the guest's would clobber them. */
	movq %rdx, %rax
	vmsave

	FOR_COMMON_GPRS GPR_LOAD, rsi
	GPR_LOAD rdi, 7, rsi
	GPR_LOAD rsi, 6, rsi
	movq (%rsp), %rax	/* guest VMCB: RAX and RSP live in it */
	vmload
	/* Host IF=1 at VMRUN is what lets a physical interrupt exit the guest (V_INTR_MASKING);
	 * GIF=0 still holds it off the host until the exit is handled. #VMEXIT restores the
	 * host's RFLAGS with IF=1: clear it before STGI, so the host takes the interrupt only
	 * where it chooses to.
	 * QEMU before 9.1 does not load the VMCB's interrupt shadow: its guest inherits the
	 * host's, so VMRUN sits in STI's shadow exactly when the guest's shadow is on. A guest
	 * entered at an STI inside a shadow it does not have would lose that STI's own shadow
	 * (a second STI does not extend it). */
	cmpq $0, 24(%rsp)
	jne 1f
	sti
	jmp 2f			/* STI's shadow ends on the jump */
1:	sti
2:	vmrun
	cli
	vmsave

	/* The gpr array pointer sits above the two saved addresses. */
	pushq %rsi
	movq 24(%rsp), %rsi
	FOR_COMMON_GPRS GPR_SAVE, rsi
	GPR_SAVE rdi, 7, rsi
	popq %rax
	GPR_SAVE rax, 6, rsi

	popq %rdi
	popq %rax		/* host save area */
	vmload
	stgi
	popq %rsi
	popq %rcx
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
