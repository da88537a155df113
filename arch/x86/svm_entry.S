/* SVM world switch: host callee-saved state on the stack, guest GPRs from/to struct vcpu. */

/* Offsets of gpr[] in the array passed in %rsi (enum x86_gpr order). */
#define G(r) (r * 8)

	.text
	.globl svm_world_switch
/* void svm_world_switch(u64 vmcb_pa, u64 *gpr, u64 host_vmcb_pa) */
svm_world_switch:
	pushq %rbp
	movq %rsp, %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	pushq %rsi		/* the gpr array, needed again after the exit */
	pushq %rdx		/* host save area */
	pushq %rdi		/* guest VMCB */

	/* GIF=0 from here to the end: nothing may interrupt a half-switched state. */
	clgi
	/* Host FS/GS/TR/LDTR/syscall MSRs: VMLOAD of the guest's would clobber them. */
	movq %rdx, %rax
	vmsave

	movq G(1)(%rsi), %rcx
	movq G(2)(%rsi), %rdx
	movq G(3)(%rsi), %rbx
	movq G(5)(%rsi), %rbp
	movq G(7)(%rsi), %rdi
	movq G(8)(%rsi), %r8
	movq G(9)(%rsi), %r9
	movq G(10)(%rsi), %r10
	movq G(11)(%rsi), %r11
	movq G(12)(%rsi), %r12
	movq G(13)(%rsi), %r13
	movq G(14)(%rsi), %r14
	movq G(15)(%rsi), %r15
	movq G(6)(%rsi), %rsi
	movq (%rsp), %rax	/* guest VMCB: RAX and RSP live in it */
	vmload
	vmrun
	vmsave

	/* The gpr array pointer sits above the two saved addresses. */
	pushq %rsi
	movq 24(%rsp), %rsi
	movq %rcx, G(1)(%rsi)
	movq %rdx, G(2)(%rsi)
	movq %rbx, G(3)(%rsi)
	movq %rbp, G(5)(%rsi)
	movq %rdi, G(7)(%rsi)
	movq %r8, G(8)(%rsi)
	movq %r9, G(9)(%rsi)
	movq %r10, G(10)(%rsi)
	movq %r11, G(11)(%rsi)
	movq %r12, G(12)(%rsi)
	movq %r13, G(13)(%rsi)
	movq %r14, G(14)(%rsi)
	movq %r15, G(15)(%rsi)
	popq %rax
	movq %rax, G(6)(%rsi)

	popq %rdi
	popq %rax		/* host save area */
	vmload
	stgi
	popq %rsi
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
