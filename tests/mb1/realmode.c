/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 kernel: real mode, dropped to from protected mode and left again (realmode16.S), twice. */
#include "tests/mb1/mb1.h"

const char guest_name[] = "realmode";

/* As realmode16.S has them. */
#define RM_BASE 0x9000u
#define RM_SEG (RM_BASE >> 4)
#define RM_IVT 0x1000u
#define RM_RES 0x2000u

struct rm_results {
	uint16_t seg, stack, int40, int40_cs, int40_flags, bp, de, fl_cli, fl_sti, fl_popf, cr0,
		msw, dflt, far, irq, irq_ip, apic_base;
};

extern char rm_start[], rm_end[], rm_default[], rm_int40[], rm_bp[], rm_de[], rm_bad[], rm_triple[],
	rm_irq0[], rm_after_hlt[];
void rm_call(void);

static uint32_t vector(const char *handler)
{
	return (RM_SEG << 16) | (uint32_t)(handler - rm_start);
}

static void round_trip(int n)
{
	volatile struct rm_results *r = (volatile struct rm_results *)(ulong)(RM_BASE + RM_RES);
	volatile uint8_t *z = (volatile uint8_t *)r;

	for (unsigned i = 0; i < sizeof(*r); i++)
		z[i] = 0;
	/* IRQ 0 every millisecond (8254 channel 0, mode 2), held by the 8259's mask until the
	 * real-mode code opens it. Periodic, because under Umbra on QEMU's SVM the interrupt
	 * window opens right after STI, before the HLT its shadow covers (docs/testing.md): the
	 * first interrupt may come before the HLT and the next one wakes it. */
	pic_set_mask(0xffff);
	outb(0x43, 0x34);
	outb(0x40, 0xa9);
	outb(0x40, 0x04);
	rm_call();
	pic_set_mask(0xffff);
	kprintf("round %d: back in protected mode\n", n);
	CHECK(r->seg == 0x1234, "segment arithmetic: %x", r->seg);
	CHECK(r->stack == 0x5679, "stack: %x", r->stack);
	CHECK(r->int40 == 0x2111 && r->int40_cs == RM_SEG && !(r->int40_flags & 0x200),
	      "int 0x40: ax %x, pushed cs %x flags %x", r->int40, r->int40_cs, r->int40_flags);
	CHECK(r->bp == 1 && r->de == 1 && r->dflt == 1, "int3 %u, #DE %u, int 0x77 %u", r->bp,
	      r->de, r->dflt);
	CHECK(!(r->fl_cli & 0x200) && (r->fl_sti & 0x200) && (r->fl_popf & 0x201) == 0x201,
	      "flags: cli %x sti %x popf %x", r->fl_cli, r->fl_sti, r->fl_popf);
	CHECK(!(r->cr0 & 1) && !(r->msw & 1) && (r->cr0 & 0x10), "cr0 %x msw %x", r->cr0, r->msw);
	CHECK(r->far == RM_SEG, "far call: cs %x", r->far);
	CHECK(r->irq >= 1 && r->irq_ip == (uint16_t)(rm_after_hlt - rm_start),
	      "irq0: %u times, at %x", r->irq, r->irq_ip);
	kprintf("round %d: segments, stack, int 0x40, int3, #DE, default vector, flags, cr0, "
		"far call checked\n",
		n);
	kprintf("round %d: irq 0 through the IVT woke sti; hlt\n", n);
	CHECK((r->apic_base & 0x900) == 0x900, "rdmsr apic base: %x", r->apic_base);
	kprintf("round %d: rdmsr of IA32_APIC_BASE: BSP, enabled\n", n);
}

void test_main(void)
{
	volatile char *dst = (volatile char *)(ulong)RM_BASE;
	volatile uint32_t *ivt = (volatile uint32_t *)(ulong)(RM_BASE + RM_IVT);

	/* The 8259 on vectors 0x20-0x2f; only IRQ 0 ever reaches the real-mode code. */
	pic_remap(0x20, 0x28);
	pic_set_mask(0xffff);
	for (long i = 0; i < rm_end - rm_start; i++)
		dst[i] = rm_start[i];
	for (unsigned v = 0; v < 256; v++)
		ivt[v] = vector(rm_default);
	ivt[0] = vector(rm_de);
	ivt[3] = vector(rm_bp);
	ivt[0x40] = vector(rm_int40);
	ivt[0x20] = vector(rm_irq0);
	dst[rm_bad - rm_start] = (char)mb1_arg_num("bad", 0);
	dst[rm_triple - rm_start] = (char)mb1_arg_num("triple", 0);
	round_trip(1);
	round_trip(2);
}
