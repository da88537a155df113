/* SPDX-License-Identifier: GPL-2.0-only */
/* PV test guests: a multiboot2 header (GRUB boots the images without Umbra) and timer stubs. */
#define MB2_MAGIC 0xe85250d6
	.section .multiboot, "a"
	.align 8
mb2_start:
	.long MB2_MAGIC, 0, mb2_end - mb2_start, -(MB2_MAGIC + (mb2_end - mb2_start))
	.word 0, 0
	.long 8 /* end tag */
mb2_end:

	.text
#ifdef __x86_64__
#define IRET iretq
#define INC(v) lock incq v(%rip)
#else
#define IRET iret
#define INC(v) lock incl v
#endif
/* No EOI: Umbra injects the timer as a bare external interrupt, with no local APIC. */
	.globl irq_stub_a, irq_stub_b
irq_stub_a:
	INC(irq_count_a)
	IRET
irq_stub_b:
	INC(irq_count_b)
	IRET

	.section .note.GNU-stack, "", @progbits
