/* SVM world switch: host callee-saved state on the stack, guest GPRs from/to struct vcpu. */

/* Offsets of gpr[] in the array passed in %rsi (enum x86_gpr order). */
#define G(r) (r * 8)

/* Every GPR the world switch moves by hand (RAX and RSP travel in the VMCB, RSI holds the
 * array and comes last): one list for the load and for the save. */
.macro GUEST_GPRS op
	\op rcx, 1
	\op rdx, 2
	\op rbx, 3
	\op rbp, 5
	\op rdi, 7
	\op r8, 8
	\op r9, 9
	\op r10, 10
	\op r11, 11
	\op r12, 12
	\op r13, 13
	\op r14, 14
	\op r15, 15
.endm
.macro LOAD_GPR reg, idx
	movq G(\idx)(%rsi), %\reg
.endm
.macro SAVE_GPR reg, idx
	movq %\reg, G(\idx)(%rsi)
.endm

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

	GUEST_GPRS LOAD_GPR
	movq G(6)(%rsi), %rsi
	movq (%rsp), %rax	/* guest VMCB: RAX and RSP live in it */
	vmload
	vmrun
	vmsave

	/* The gpr array pointer sits above the two saved addresses. */
	pushq %rsi
	movq 24(%rsp), %rsi
	GUEST_GPRS SAVE_GPR
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
