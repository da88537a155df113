/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 kernel: the machine as the BIOS leaves it: its IVT and tick count wake sti; hlt in real mode. */
#include "tests/mb1/mb1.h"

const char guest_name[] = "bios";

/* As bios16.S has them. */
#define RM_BASE 0x9000u
#define RES 0x2000u

struct bios_results {
	uint16_t cmps_cx, cmps_fl, scas_cx, scas_di, lods, lods_si, sbb, flags, pushed, pad;
	uint32_t ticks0, ticks1, irq_ivt, ticks2;
	uint8_t roll;
} __attribute__((packed));

extern char rm_start[], rm_end[];
void rm_call(void);

void test_main(void)
{
	volatile char *dst = (volatile char *)(ulong)RM_BASE;
	volatile struct bios_results *r = (volatile struct bios_results *)(ulong)(RM_BASE + RES);
	volatile uint8_t *z = (volatile uint8_t *)r;

	/* Interrupts were never on; the BIOS's timer has been counting since before the kernel. */
	CHECK(!(inb(0x21) & 1), "8259: IRQ0 masked (%x)", inb(0x21));
	kprintf("8259: IRQ0 unmasked\n");
	for (long i = 0; i < rm_end - rm_start; i++)
		dst[i] = rm_start[i];
	for (unsigned i = 0; i < sizeof(*r); i++)
		z[i] = 0;
	rm_call();
	kprintf("back in protected mode\n");
	/* cmps: 8 equal bytes (ZF); scas: the first 0xa5 is the second byte; lods backwards. */
	CHECK(r->cmps_cx == 0 && (r->cmps_fl & 0x40), "repe cmpsb: cx %x flags %x", r->cmps_cx,
	      r->cmps_fl);
	CHECK(r->scas_cx == 6 && r->scas_di == 0x3012, "repne scasb: cx %x di %x", r->scas_cx,
	      r->scas_di);
	CHECK(r->lods == 0xa5 && r->lods_si == 0x3016, "std; lodsb: al %x si %x", r->lods,
	      r->lods_si);
	CHECK(r->sbb == 1, "stc, cmc, sbb: %x", r->sbb);
	CHECK((r->flags & 0x4c5) == 0x44, "sahf, cld: flags %x", r->flags);
	CHECK(r->pushed == 0x1234, "push/pop: %x", r->pushed);
	kprintf("strings and flags with protected mode's bases: ok\n");
	CHECK(r->irq_ivt != 0, "the IVT's vector 8 is empty");
	CHECK(r->ticks1 != r->ticks0, "sti; hlt: the tick count stayed at %u", r->ticks0);
	kprintf("sti; hlt woke on the BIOS's timer, which counted at 0x46c\n");
	CHECK(r->ticks2 < 0x100 && r->roll == 1,
	      "midnight: ticks %x after 0x1800b5, rollover flag %u", r->ticks2, r->roll);
	kprintf("a tick past a day's worth resets the count and sets the rollover flag\n");
	uint32_t now;
	asm volatile("movl 0x46c, %0" : "=r"(now)); /* GCC will not dereference the first page */
	CHECK(now == r->ticks2, "ticks counted in protected mode with IF=0: %u, %u", now,
	      r->ticks2);
}
