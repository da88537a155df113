/* Local APIC driver (xAPIC MMIO): enough to identify CPUs and send INIT and SIPI. */
#include "arch/x86/lapic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/delay.h"

enum { LAPIC_ID = 0x20, LAPIC_EOI = 0xb0, LAPIC_SVR = 0xf0, LAPIC_ESR = 0x280,
       LAPIC_ICR_LO = 0x300, LAPIC_ICR_HI = 0x310, LAPIC_LVT_TIMER = 0x320,
       LAPIC_TIMER_INIT = 0x380, LAPIC_TIMER_CUR = 0x390, LAPIC_TIMER_DIV = 0x3e0 };
#define LVT_MASKED (1u << 16)
#define LVT_PERIODIC (1u << 17)
#define ICR_PENDING (1u << 12)
#define ICR_INIT 0x500u
#define ICR_STARTUP 0x600u
#define ICR_ASSERT (1u << 14)
#define ICR_LEVEL (1u << 15)

static volatile u8 *lapic = (volatile u8 *)0xfee00000ull;

static u32 rd(u32 reg) { return *(volatile u32 *)(lapic + reg); }
static void wr(u32 reg, u32 v) { *(volatile u32 *)(lapic + reg) = v; }

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

void lapic_timer_periodic(u32 ms)
{
	if (!ms) {
		wr(LAPIC_LVT_TIMER, LVT_MASKED);
		return;
	}
	/* Measure the timer against the PIT once per CPU rather than guess the bus clock. */
	wr(LAPIC_TIMER_DIV, 0x3); /* divide by 16 */
	wr(LAPIC_LVT_TIMER, LVT_MASKED);
	wr(LAPIC_TIMER_INIT, 0xffffffffu);
	udelay(10000);
	u32 per_10ms = 0xffffffffu - rd(LAPIC_TIMER_CUR);
	u64 count = (u64)per_10ms * ms / 10;
	if (count == 0 || count > 0xffffffffu)
		count = 0x1000000;
	wr(LAPIC_LVT_TIMER, TIMER_VECTOR | LVT_PERIODIC);
	wr(LAPIC_TIMER_INIT, (u32)count);
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
