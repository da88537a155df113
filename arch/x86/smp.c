/* SPDX-License-Identifier: GPL-2.0-only */
/* Starts the APs one by one and hands each its stacks and per-CPU data. */
#include "arch/x86/smp.h"
#include "arch/x86/acpi.h"
#include "arch/x86/cpu.h"
#include "arch/x86/delay.h"
#include "arch/x86/lapic.h"
#include "arch/x86/memory.h"
#include "arch/x86/paging.h"
#include "arch/x86/percpu.h"
#include "lib/assert.h"
#include "lib/palloc.h"
#include "lib/printf.h"
#include "lib/string.h"

extern char ap_tramp_start[], ap_tramp_end[];
extern u64 ap_tramp_cr3, ap_tramp_stack, ap_tramp_arg, ap_tramp_entry;

/* The page below 1 MiB the trampoline is copied to (memory_trampoline_page). */
static u64 tramp_pa;

/* The trampoline's variables, as seen in its copy. */
/* clang-format off */
#define TVAR(sym) (*(volatile u64 *)phys_to_virt(tramp_pa + \
		((uintptr_t)&(sym) - (uintptr_t)ap_tramp_start)))
/* clang-format on */

static void (*ap_setup)(void);
static void (*ap_run)(void);

static NORETURN void ap_main(struct percpu *pc)
{
	percpu_load(pc);
	lapic_enable();
	ap_setup();
	__atomic_add_fetch(&cpus_online, 1, __ATOMIC_SEQ_CST);
	pc->online = true;
	ap_run();
	halt_forever();
}

static bool alloc_stacks(struct percpu *pc)
{
	u64 k = palloc_alloc_contig(KSTACK_SIZE / PAGE_SIZE, 1);
	if (!k)
		return false;
	pc->kstack = phys_to_virt(k);
	return true;
}

static bool start_one(struct percpu *pc)
{
	TVAR(ap_tramp_cr3) = paging_host_cr3();
	TVAR(ap_tramp_stack) = (u64)pc->kstack + KSTACK_SIZE;
	TVAR(ap_tramp_arg) = (u64)pc;
	TVAR(ap_tramp_entry) = (u64)ap_main;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	lapic_send_init(pc->apic_id);
	mdelay(10);
	for (int sipi = 0; sipi < 2; sipi++) {
		lapic_send_sipi(pc->apic_id, (u8)(tramp_pa >> PAGE_SHIFT));
		for (int i = 0; i < 200 && !pc->online; i++)
			udelay(sipi ? 5000 : 100);
		if (pc->online)
			return true;
	}
	return false;
}

void smp_boot_aps(const struct acpi_cpus *cpus, u32 max_cpus, void (*setup)(void),
		  void (*run)(void))
{
	u32 bsp = lapic_id();
	u32 next = 1;

	ap_setup = setup;
	ap_run = run;

	tramp_pa = memory_trampoline_page();
	/* The chosen page was checked alone: the copy must fit in it (the assembler cannot tell). */
	size_t size = (size_t)((uintptr_t)ap_tramp_end - (uintptr_t)ap_tramp_start);
	if (size > PAGE_SIZE)
		panic("smp: the AP trampoline is %zu bytes, more than a page", size);
	if (!tramp_pa) {
		kprintf("smp: no page for the AP trampoline: running on the boot CPU only\n");
		return;
	}
	memcpy(phys_to_virt(tramp_pa), ap_tramp_start, size);
	paging_allow_exec(tramp_pa);

	for (u32 i = 0; i < cpus->count && next < max_cpus && next < NR_CPUS; i++) {
		struct percpu *pc = &percpus[next];

		if (cpus->apic_id[i] == bsp)
			continue;
		if (!pc->kstack && !alloc_stacks(pc)) {
			kprintf("smp: out of memory for CPU stacks; stopping at %u CPUs\n", next);
			return;
		}
		percpu_init(pc, next, cpus->apic_id[i]);
		if (!start_one(pc)) {
			kprintf("smp: CPU with APIC ID %u did not start\n", cpus->apic_id[i]);
			continue;
		}
		next++;
	}
}
