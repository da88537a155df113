/* VMX world switch: host callee-saved state on the stack, guest GPRs and CR2 from/to memory. */

/* Offsets of gpr[] in the array passed in %rdi (enum x86_gpr order). */
#define G(r) (r * 8)
#define VMCS_HOST_RSP 0x6c14
#define VMCS_HOST_RIP 0x6c16

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

	movq G(0)(%rdi), %rax
	movq G(1)(%rdi), %rcx
	movq G(2)(%rdi), %rdx
	movq G(3)(%rdi), %rbx
	movq G(5)(%rdi), %rbp
	movq G(6)(%rdi), %rsi
	movq G(8)(%rdi), %r8
	movq G(9)(%rdi), %r9
	movq G(10)(%rdi), %r10
	movq G(11)(%rdi), %r11
	movq G(12)(%rdi), %r12
	movq G(13)(%rdi), %r13
	movq G(14)(%rdi), %r14
	movq G(15)(%rdi), %r15
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
	movq %rax, G(0)(%rdi)
	movq %rcx, G(1)(%rdi)
	movq %rdx, G(2)(%rdi)
	movq %rbx, G(3)(%rdi)
	movq %rbp, G(5)(%rdi)
	movq %rsi, G(6)(%rdi)
	movq %r8, G(8)(%rdi)
	movq %r9, G(9)(%rdi)
	movq %r10, G(10)(%rdi)
	movq %r11, G(11)(%rdi)
	movq %r12, G(12)(%rdi)
	movq %r13, G(13)(%rdi)
	movq %r14, G(14)(%rdi)
	movq %r15, G(15)(%rdi)
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
