/* SPDX-License-Identifier: GPL-2.0-only */
/* SVM world switch: host callee-saved state on the stack, guest GPRs from/to struct vcpu. */

#include "arch/x86/regs.h"
#include "arch/x86/svm_entry.h"
#include "arch/x86/world_switch.h"

/* RAX and RSP travel in the VMCB; RSI holds the array, so it is loaded last and saved first.
 * The registers VMLOAD and VMSAVE move (FS, GS, TR, LDTR, KernelGsBase, the SYSCALL and
 * SYSENTER MSRs) stay the guest's across exits: the host uses only GS's base, swapped here by
 * WRMSR. VMLOAD runs when the caller asks (the CPU does not hold this vCPU's set), VMSAVE in
 * svm.c when Umbra reads them or the vCPU's turn ends. */

/* Stack slots once the arguments are pushed. */
#define S_VMCB 0
#define S_GPR 8
#define S_FLAGS 16
#define S_GUEST_GS 24
#define S_HOST_GS 32

	.text
	.globl svm_world_switch
/* void svm_world_switch(u64 vmcb_pa, u64 *gpr, u64 flags, u64 *guest_gs_base, u64 host_gs_base) */
svm_world_switch:
	pushq %rbp
	movq %rsp, %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	pushq %r8		/* host GS base: the per-CPU pointer */
	pushq %rcx		/* where the guest's GS base waits between exits */
	pushq %rdx		/* flags */
	pushq %rsi		/* the gpr array, needed again after the exit */
	pushq %rdi		/* guest VMCB */

	/* GIF=0 from here to the end: nothing may interrupt a half-switched state, and from
	 * here the host's GS base is gone until the exit. */
	clgi
	testq $SVM_SWITCH_VMLOAD, %rdx
	jz 1f
	movq %rdi, %rax
	vmload
	jmp 2f
1:	movq (%rcx), %rax
	movq %rax, %rdx
	shrq $32, %rdx
	movl $MSR_GS_BASE, %ecx
	wrmsr
2:
	FOR_COMMON_GPRS GPR_LOAD, rsi
	GPR_LOAD rdi, 7, rsi
	GPR_LOAD rsi, 6, rsi
	movq S_VMCB(%rsp), %rax	/* guest VMCB: RAX and RSP live in it */
	/* Host IF=1 at VMRUN is what lets a physical interrupt exit the guest (V_INTR_MASKING);
	 * GIF=0 still holds it off the host until the exit is handled. #VMEXIT restores the
	 * host's RFLAGS with IF=1: clear it before STGI, so the host takes the interrupt only
	 * where it chooses to.
	 * QEMU before 9.1 does not load the VMCB's interrupt shadow: its guest inherits the
	 * host's, so VMRUN sits in STI's shadow exactly when the guest's shadow is on. A guest
	 * entered at an STI inside a shadow it does not have would lose that STI's own shadow
	 * (a second STI does not extend it). */
	testq $SVM_SWITCH_SHADOW, S_FLAGS(%rsp)
	jnz 3f
	sti
	jmp 4f			/* STI's shadow ends on the jump */
3:	sti
4:	vmrun
	cli

	/* The gpr array pointer sits above the guest RSI pushed here. */
	pushq %rsi
	movq S_GPR+8(%rsp), %rsi
	FOR_COMMON_GPRS GPR_SAVE, rsi
	GPR_SAVE rdi, 7, rsi
	popq %rax
	GPR_SAVE rax, 6, rsi

	/* The guest's GS base aside, the host's back: this_cpu() reads %gs:0. */
	movl $MSR_GS_BASE, %ecx
	rdmsr
	movq S_GUEST_GS(%rsp), %rbx
	movl %eax, (%rbx)
	movl %edx, 4(%rbx)
	movq S_HOST_GS(%rsp), %rax
	movq %rax, %rdx
	shrq $32, %rdx
	wrmsr
	addq $40, %rsp
	stgi
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
