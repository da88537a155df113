/* SPDX-License-Identifier: GPL-2.0-only */
/* Host vectors for device interrupts: allocation and the per-CPU record of arrivals. */
#include "arch/x86/devirq.h"
#include "arch/x86/ioapic.h"
#include "arch/x86/lapic.h"
#include "arch/x86/percpu.h"

static u64 allocated;		    /* bit i: DEVIRQ_FIRST + i is some function's */
static u64 arrived[NR_CPUS];	    /* per CPU, set by the interrupt, taken by vmm/ */
static u32 level_gsi[DEVIRQ_COUNT]; /* a level input's GSI + 1, 0 for an MSI's vector */

u8 devirq_alloc(void)
{
	u64 old = __atomic_load_n(&allocated, __ATOMIC_RELAXED);
	for (;;) {
		if (old == ~0ull)
			return 0;
		unsigned i = (unsigned)__builtin_ctzll(~old);
		if (__atomic_compare_exchange_n(&allocated, &old, old | 1ull << i, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return (u8)(DEVIRQ_FIRST + i);
	}
}

void devirq_set_level(u8 vector, u32 gsi)
{
	__atomic_store_n(&level_gsi[vector - DEVIRQ_FIRST], gsi + 1, __ATOMIC_RELEASE);
}

void devirq_arrived(u8 vector)
{
	u32 gsi = __atomic_load_n(&level_gsi[vector - DEVIRQ_FIRST], __ATOMIC_ACQUIRE);
	if (gsi)
		host_ioapic_mask(gsi - 1, true);
	__atomic_or_fetch(&arrived[this_cpu_index()], 1ull << (vector - DEVIRQ_FIRST),
			  __ATOMIC_RELEASE);
	lapic_eoi();
}

u64 devirq_take(void)
{
	return __atomic_exchange_n(&arrived[this_cpu_index()], 0, __ATOMIC_ACQ_REL);
}

bool devirq_waiting(void)
{
	return __atomic_load_n(&arrived[this_cpu_index()], __ATOMIC_ACQUIRE) != 0;
}
