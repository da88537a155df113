/* SPDX-License-Identifier: GPL-2.0-only */
/* The ACPI PM1 event/control registers and the 3.579545 MHz PM timer, in closed form from the clock. */
#include "vmm/dev/acpi_pm.h"

#define NSEC 1000000000ull

#define STS_TMR 0x0001 /* the timer's bit 31 changed */
/* The enables a guest may set: timer, global lock, power button, RTC (no status but the
 * timer's is ever set here, and no SCI is raised: the board has no SCI source wired). */
#define EN_BITS 0x0521 /* TMR_EN, GBL_EN, PWRBTN_EN, RTC_EN (SLPBTN absent: FADT flag) */

#define CNT_SCI_EN 0x0001
#define CNT_BM_RLD 0x0002
#define CNT_SLP_TYP_SHIFT 10
#define CNT_SLP_TYP 0x1c00
#define CNT_SLP_EN 0x2000 /* write-only: enter the sleep state in SLP_TYP */
#define CNT_KEPT (CNT_BM_RLD | CNT_SLP_TYP)

/* Ticks since start, split at whole seconds so the product cannot overflow. */
static u64 ticks(const struct acpi_pm *pm, u64 now_ns)
{
	u64 ns = now_ns > pm->start_ns ? now_ns - pm->start_ns : 0;
	return ns / NSEC * ACPI_PM_TMR_HZ + ns % NSEC * ACPI_PM_TMR_HZ / NSEC;
}

u32 acpi_pm_timer(const struct acpi_pm *pm, u64 now_ns)
{
	return (u32)ticks(pm, now_ns);
}

/* TMR_STS is set whenever the count's bit 31 has changed since the guest last cleared it. */
static u16 status(const struct acpi_pm *pm, u64 now_ns)
{
	bool tmr = ticks(pm, now_ns) >> 31 != pm->tmr_clear_tick >> 31;
	return (u16)(pm->sts | (tmr ? STS_TMR : 0));
}

void acpi_pm_reset(struct acpi_pm *pm, u64 now_ns)
{
	*pm = (struct acpi_pm){ .cnt = CNT_SCI_EN, .start_ns = now_ns };
}

/* The 16-bit register value laid out over the 12-byte block, for one byte lane. */
static u32 reg_bytes(struct acpi_pm *pm, unsigned off, u64 now_ns)
{
	switch (off & ~3u) {
	case ACPI_PM1_EVT:
		return status(pm, now_ns) | (u32)pm->en << 16;
	case ACPI_PM1_CNT:
		return pm->cnt; /* SLP_EN and GBL_RLS read as 0 */
	default:
		return acpi_pm_timer(pm, now_ns);
	}
}

u32 acpi_pm_read(struct acpi_pm *pm, unsigned off, unsigned size, u64 now_ns)
{
	u32 v = 0;

	for (unsigned i = 0; i < size; i++) {
		unsigned o = off + i;
		v |= (reg_bytes(pm, o, now_ns) >> (o % 4 * 8) & 0xff) << (i * 8);
	}
	return v;
}

static void write_sts(struct acpi_pm *pm, u16 val, u64 now_ns)
{
	if (val & STS_TMR)
		pm->tmr_clear_tick = ticks(pm, now_ns);
	pm->sts &= (u16)~val;
}

static void write_cnt(struct acpi_pm *pm, u16 val)
{
	pm->cnt = (u16)(CNT_SCI_EN | (val & CNT_KEPT));
	/* Only soft-off is offered (the DSDT has no \_S1-\_S4); other sleep types are ignored. */
	if ((val & CNT_SLP_EN) && (val & CNT_SLP_TYP) >> CNT_SLP_TYP_SHIFT == ACPI_SLP_TYP_S5)
		pm->soft_off = true;
}

/* Registers are written whole: a narrower access merges with the register's current bytes
 * (write-1-to-clear status bits merge as 0, so untouched bytes clear nothing). */
void acpi_pm_write(struct acpi_pm *pm, unsigned off, unsigned size, u32 val, u64 now_ns)
{
	u32 mask = size >= 4 ? ~0u : (1u << (size * 8)) - 1;
	unsigned shift = off % 4 * 8;
	u32 lanes = mask << shift, v = val << shift;

	switch (off & ~3u) {
	case ACPI_PM1_EVT:
		if (lanes & 0xffff)
			write_sts(pm, (u16)(v & lanes), now_ns);
		if (lanes >> 16)
			pm->en = (u16)(((pm->en & ~(lanes >> 16)) | (v >> 16 & lanes >> 16)) &
				       EN_BITS);
		break;
	case ACPI_PM1_CNT:
		if (lanes & 0xffff)
			write_cnt(pm, (u16)((pm->cnt & ~lanes) | (v & lanes)));
		break;
	default:
		break; /* the timer is read-only */
	}
}
