/* VMX world switch: host callee-saved state on the stack, guest GPRs and CR2 from/to memory. */

/* Offsets of gpr[] in the array passed in %rdi (enum x86_gpr order). */
#define G(r) (r * 8)
#define VMCS_HOST_RSP 0x6c14
#define VMCS_HOST_RIP 0x6c16

/* The GPRs the stub moves itself: RSP lives in the VMCS, RDI (the array's base) goes last. */
.macro for_gprs op
	\op rax, 0
	\op rcx, 1
	\op rdx, 2
	\op rbx, 3
	\op rbp, 5
	\op rsi, 6
	\op r8, 8
	\op r9, 9
	\op r10, 10
	\op r11, 11
	\op r12, 12
	\op r13, 13
	\op r14, 14
	\op r15, 15
.endm
.macro load reg, i
	movq G(\i)(%rdi), %\reg
.endm
.macro save reg, i
	movq %\reg, G(\i)(%rdi)
.endm

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

	for_gprs load
	movq G(7)(%rdi), %rdi
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
	for_gprs save
	popq %rax
	movq %rax, G(7)(%rdi)
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
