/* SPDX-License-Identifier: GPL-2.0-only */
/* The time-stamp counter as Umbra's clock: frequency measured at boot, nanoseconds since boot. */
#ifndef ARCH_X86_TSC_H
#define ARCH_X86_TSC_H

#include "lib/types.h"

extern u64 tsc_hz;

void tsc_calibrate(void);
u64 tsc_to_ns(u64 ticks);
u64 ns_to_tsc(u64 ns);
/* Nanoseconds since tsc_calibrate ran. */
u64 monotonic_ns(void);
/* The earlier of two deadlines, where 0 means "none". */
static inline u64 deadline_min(u64 a, u64 b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}
/* The same clock at a given TSC, and the first TSC at or after a given instant. */
u64 tsc_to_monotonic_ns(u64 tsc);
u64 monotonic_ns_to_tsc(u64 ns);

#endif
