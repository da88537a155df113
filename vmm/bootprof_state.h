/* SPDX-License-Identifier: GPL-2.0-only */
/* A vCPU's boot profile, which struct vcpu embeds: its phase, hot exit sites and counts by phase. */
#ifndef VMM_BOOTPROF_STATE_H
#define VMM_BOOTPROF_STATE_H

#include "lib/types.h"
#include "arch/x86/exit_reason.h"

/* Phases, each ending at its milestone: "low" until the kernel first runs in the upper half of
 * the address space (a bzImage's setup and decompressor, PVH's 32-bit entry), "early" until it
 * first runs with interrupts on (start_kernel's set-up and calibrations), "init" until the first
 * user-mode instruction (drivers, initcalls, unpacking the initramfs: the first process). */
enum boot_phase { BOOT_LOW, BOOT_EARLY, BOOT_INIT, BOOT_USER, BOOT_PHASES = BOOT_USER };

/* The most frequent exit sites of the current phase (an I/O port, a control register, an MSR),
 * counted approximately: when the table is full, the least counted entry gives way. */
#define BOOTPROF_SITES 16
struct bootprof_site {
	u64 key; /* reason << 48 | port, CR (+ write << 8) or MSR */
	u64 count;
};

struct bootprof {
	enum boot_phase phase; /* the phase the guest is in */
	struct bootprof_site sites[BOOTPROF_SITES];
	u32 last_site; /* where the last count went: storms repeat one site */
	struct bootprof_site hot[BOOT_PHASES][3]; /* each past phase's three most frequent */
	u64 start_tsc;				  /* its first exit */
	u64 end_tsc[BOOT_PHASES];		  /* when each phase ended */
	u64 exits[BOOT_PHASES][EXIT_REASONS];	  /* the exit counters then */
};

#endif
