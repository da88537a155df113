/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 kernel for the gdb tests (tests/gdb): a small call chain and globals for gdb to inspect. */
#include "tests/mb1/mb1.h"

const char guest_name[] = "gdbtarget";

/* gdb sets answer to 42 to let the loop end; counter is watched. */
volatile int answer = 1;
volatile int counter;

__attribute__((noinline)) int step_inner(int a)
{
	counter = counter + a;
	return a * 3;
}

__attribute__((noinline)) int step_outer(int a)
{
	return step_inner(a + 1) + 1;
}

/* The kernel's own debug registers, which must stay its own while gdb uses the CPU's for
 * hardware breakpoints: DR1 (not enabled) takes the loop counter, DR7 keeps what the kernel
 * wrote (DR2 enabled, on an address nothing executes). */
#define OWN_DR7 0x420ul /* G2 | reserved bit 10 */
__attribute__((noinline)) static void own_debug_regs(ulong i)
{
	ulong dr1, dr7;
	asm volatile("mov %0, %%dr1" : : "r"(i));
	asm volatile("mov %%dr1, %0" : "=r"(dr1));
	asm volatile("mov %%dr7, %0" : "=r"(dr7));
	CHECK(dr1 == i && dr7 == OWN_DR7, "own debug registers: dr1 %lx (wrote %lx) dr7 %lx", dr1,
	      i, dr7);
}

/* The monitor's nmi command (tests/monitor): each NMI is counted and said. */
static volatile int nmis;
static void on_nmi(struct frame *f)
{
	(void)f;
	kprintf("nmi %d taken\n", ++nmis);
}

void test_main(void)
{
	int total = 0;
	set_irq_handler(2, on_nmi);
	ulong never = 0xfffff000ul;
	asm volatile("mov %0, %%dr2" : : "r"(never));
	asm volatile("mov %0, %%dr7" : : "r"(OWN_DR7));
	/* Bounded: without gdb the kernel ends (and fails) instead of spinning forever; loops=0
	 * (the monitor's test) spins until stopped. */
	ulong loops = mb1_arg_num("loops", 20000000);
	ulong i;
	for (i = 0; (!loops || i < loops) && answer != 42; i++) {
		total += step_outer(i & 7);
		if (!(i & 0xff))
			own_debug_regs(0x1000 + i);
	}
	own_debug_regs(0x2000 + i);
	kprintf("answer=%d counter=%d total=%d\n", answer, counter, total);
	CHECK(answer == 42, "gdb did not set answer (it is %d)", answer);
}
