/* SPDX-License-Identifier: GPL-2.0-only */
/* Local APIC driver (xAPIC MMIO): CPU identity, the IPIs that start and kick CPUs, the one-shot timer. */
#include "arch/x86/lapic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/delay.h"
#include "arch/x86/percpu.h"
#include "arch/x86/tsc.h"
#include "lib/spinlock.h"

enum {
	LAPIC_ID = 0x20,
	LAPIC_EOI = 0xb0,
	LAPIC_SVR = 0xf0,
	LAPIC_ESR = 0x280,
	LAPIC_ICR_LO = 0x300,
	LAPIC_ICR_HI = 0x310,
	LAPIC_LVT_TIMER = 0x320,
	LAPIC_TIMER_INIT = 0x380,
	LAPIC_TIMER_CUR = 0x390,
	LAPIC_TIMER_DIV = 0x3e0
};
#define LVT_MASKED (1u << 16)
#define LVT_TSC_DEADLINE (2u << 17)
#define CPUID_TSC_DEADLINE (1u << 24)
#define MSR_TSC_DEADLINE 0x6e0
#define ICR_PENDING (1u << 12)
#define ICR_INIT 0x500u
#define ICR_STARTUP 0x600u
#define ICR_ASSERT (1u << 14)
#define ICR_LEVEL (1u << 15)

static volatile u8 *lapic = (volatile u8 *)APIC_DEFAULT_BASE;

static u32 rd(u32 reg)
{
	return *(volatile u32 *)(lapic + reg);
}
static void wr(u32 reg, u32 v)
{
	*(volatile u32 *)(lapic + reg) = v;
}

void lapic_init(u64 base)
{
	lapic = (volatile u8 *)(uintptr_t)base;
	/* The firmware leaves the 8259s unmasked with IRQ 0 on vector 8: the first sti (a CPU
	 * sleeping while its guests wait for their timers) would take the PIT tick as a #DF. */
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
}

void lapic_enable(void)
{
	/* Software-enable with spurious vector 0xff; APIC_BASE's global enable is left as found. */
	wr(LAPIC_SVR, 0x100 | SPURIOUS_VECTOR);
}

void lapic_eoi(void)
{
	wr(LAPIC_EOI, 0);
}

/* One-shot timer state: how it is driven on this machine, and what each CPU armed. */
static bool use_tsc_deadline;
static u64 lapic_timer_hz; /* one-shot mode: timer ticks per second after the divide-by-16 */

void lapic_timer_init(void)
{
	use_tsc_deadline = cpuid(1, 0).ecx & CPUID_TSC_DEADLINE;
	if (use_tsc_deadline)
		return;
	/* Measure the timer against the TSC (itself measured against the PIT) once: every CPU
	 * of the machine has the same bus clock. */
	wr(LAPIC_TIMER_DIV, 0x3); /* divide by 16 */
	wr(LAPIC_LVT_TIMER, LVT_MASKED);
	wr(LAPIC_TIMER_INIT, 0xffffffffu);
	u64 t0 = rdtsc(), span = tsc_hz / 100;
	while (rdtsc() - t0 < span)
		cpu_relax();
	u32 ticks = 0xffffffffu - rd(LAPIC_TIMER_CUR);
	wr(LAPIC_TIMER_INIT, 0);
	lapic_timer_hz = (u64)ticks * 100;
	if (!lapic_timer_hz)
		lapic_timer_hz = 1000000; /* a timer that did not count: fire early, never late */
}

const char *lapic_timer_mode(void)
{
	return use_tsc_deadline ? "tsc-deadline" : "one-shot";
}

void lapic_timer_arm(u64 tsc)
{
	struct percpu *pc = this_cpu();

	if (tsc == pc->timer_armed)
		return;
	pc->timer_armed = tsc;
	if (use_tsc_deadline) {
		if (!pc->timer_mode_set) {
			wr(LAPIC_LVT_TIMER, TIMER_VECTOR | LVT_TSC_DEADLINE);
			/* The SDM asks for the LVT write to be ordered before the first MSR write. */
			__asm__ volatile("mfence" ::: "memory");
			pc->timer_mode_set = true;
		}
		wrmsr(MSR_TSC_DEADLINE, tsc);
		return;
	}
	if (!pc->timer_mode_set) {
		wr(LAPIC_TIMER_DIV, 0x3);
		wr(LAPIC_LVT_TIMER, TIMER_VECTOR); /* one-shot */
		pc->timer_mode_set = true;
	}
	if (!tsc) {
		wr(LAPIC_TIMER_INIT, 0);
		return;
	}
	u64 now = rdtsc(), delta = tsc > now ? tsc - now : 1;
	u64 count = (u64)((unsigned __int128)delta * lapic_timer_hz / tsc_hz) + 1;
	wr(LAPIC_TIMER_INIT, count > 0xffffffffu ? 0xffffffffu : (u32)count);
}

void lapic_timer_expired(void)
{
	struct percpu *pc = this_cpu();
	if (!pc->timer_armed)
		return;
	/* A one-shot runs at a measured rate and may fire a little early; once it has, it has
	 * stopped, and the same deadline must arm it again (a vCPU spinning until another
	 * vCPU of its CPU runs would otherwise keep the CPU until a kick). */
	if (rdtsc() >= pc->timer_armed || (!use_tsc_deadline && !rd(LAPIC_TIMER_CUR)))
		pc->timer_armed = 0;
}

void lapic_send_fixed(u32 apic_id, u8 vector)
{
	wr(LAPIC_ICR_HI, apic_id << 24);
	wr(LAPIC_ICR_LO, vector);
}

u32 lapic_id(void)
{
	return rd(LAPIC_ID) >> 24;
}

static void send_ipi(u32 apic_id, u32 cmd)
{
	wr(LAPIC_ESR, 0);
	wr(LAPIC_ICR_HI, apic_id << 24);
	wr(LAPIC_ICR_LO, cmd);
	for (int i = 0; i < 1000 && (rd(LAPIC_ICR_LO) & ICR_PENDING); i++)
		udelay(10);
}

void lapic_send_init(u32 apic_id)
{
	send_ipi(apic_id, ICR_INIT | ICR_ASSERT | ICR_LEVEL);
	udelay(200);
	send_ipi(apic_id, ICR_INIT | ICR_LEVEL); /* de-assert, as older APICs need */
}

void lapic_send_sipi(u32 apic_id, u8 vector_page)
{
	send_ipi(apic_id, ICR_STARTUP | vector_page);
}
