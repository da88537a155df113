/* SPDX-License-Identifier: GPL-2.0-only */
/* TSC calibration against the PIT, and conversions in 128-bit arithmetic (no overflow). */
#include "arch/x86/tsc.h"
#include "arch/x86/cpu.h"
#include "arch/x86/delay.h"

u64 tsc_hz = 1000000000ull;
static u64 tsc_boot;

void tsc_calibrate(void)
{
	u64 t0 = rdtsc();
	udelay(20000);
	u64 t1 = rdtsc();
	if (t1 > t0)
		tsc_hz = (t1 - t0) * 50;
	tsc_boot = rdtsc();
}

u64 tsc_to_ns(u64 ticks)
{
	return (u64)((unsigned __int128)ticks * 1000000000u / tsc_hz);
}

u64 ns_to_tsc(u64 ns)
{
	return (u64)((unsigned __int128)ns * tsc_hz / 1000000000u);
}

u64 tsc_to_monotonic_ns(u64 tsc)
{
	return tsc > tsc_boot ? tsc_to_ns(tsc - tsc_boot) : 0;
}

u64 monotonic_ns_to_tsc(u64 ns)
{
	/* Rounded up: a timer armed for this TSC never fires before the instant ns. */
	return tsc_boot + (u64)(((unsigned __int128)ns * tsc_hz + 999999999u) / 1000000000u);
}

u64 monotonic_ns(void)
{
	return tsc_to_ns(rdtsc() - tsc_boot);
}
