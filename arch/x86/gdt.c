/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-CPU GDT and TSS: flat 64-bit kernel segments, and a TSS with no IST stacks. */
#include "arch/x86/percpu.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "lib/string.h"

struct percpu percpus[NR_CPUS];
u32 cpus_online;

extern u8 boot_stack[];

static u64 tss_desc_low(u64 base, u32 limit)
{
	return (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89ull << 40) |
	       ((u64)((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
}

void percpu_init(struct percpu *pc, u32 index, u32 apic_id)
{
	pc->self = pc;
	pc->index = index;
	pc->apic_id = apic_id;
	if (index == 0) {
		pc->bsp = true;
		pc->kstack = boot_stack;
	}
	pc->gdt[0] = 0;
	pc->gdt[1] = 0x00af9a000000ffffull; /* kernel code, L=1 */
	pc->gdt[2] = 0x00cf92000000ffffull; /* kernel data */
	memset(&pc->tss, 0, sizeof(pc->tss));
	pc->tss.rsp[0] = (u64)pc->kstack + KSTACK_SIZE;
	pc->tss.iomap_base = sizeof(pc->tss); /* no I/O bitmap */
	pc->gdt[3] = tss_desc_low((u64)&pc->tss, sizeof(pc->tss) - 1);
	pc->gdt[4] = (u64)&pc->tss >> 32;
}

void percpu_load(struct percpu *pc)
{
	struct {
		u16 limit;
		u64 base;
	} PACKED gdtr = { sizeof(pc->gdt) - 1, (u64)pc->gdt };

	__asm__ volatile("lgdt %0\n\t"
			 "pushq %1\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movw %w2, %%ds\n\t"
			 "movw %w2, %%es\n\t"
			 "movw %w2, %%ss\n\t" ::"m"(gdtr),
			 "i"(GDT_KCODE), "r"(GDT_KDATA)
			 : "rax", "memory");
	__asm__ volatile("ltr %w0" ::"r"(GDT_TSS));
	wrmsr(MSR_GS_BASE, (u64)pc);
	idt_load();
}

int this_cpu_index(void)
{
	/* Early boot prints before GS is set: GS base 0 means "the BSP". */
	if (!rdmsr(MSR_GS_BASE))
		return 0;
	return (int)this_cpu()->index;
}
