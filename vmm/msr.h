/* SPDX-License-Identifier: GPL-2.0-only */
/* The MSRs a guest may read and write; every other one raises #GP. */
#ifndef VMM_MSR_H
#define VMM_MSR_H

#include "lib/types.h"

struct vcpu;

/* RDMSR/WRMSR on behalf of the guest: true on success, false when the guest gets #GP. */
bool msr_read(struct vcpu *v, u32 msr, u64 *val);
bool msr_write(struct vcpu *v, u32 msr, u64 val);
/* The instant (Umbra's clock, ns) an IA32_TSC_DEADLINE of deadline fires, when the guest's TSC
 * reads guest_tsc at now_ns: now_ns itself for a deadline at or below it. */
u64 msr_tsc_deadline_ns(u64 deadline, u64 guest_tsc, u64 now_ns);

#endif
