/* SPDX-License-Identifier: GPL-2.0-only */
/* The KVM paravirtual clock (pvclock), offered so that unmodified Linux reads the TSC's rate. */
#ifndef VMM_KVMCLOCK_H
#define VMM_KVMCLOCK_H

#include "lib/types.h"

struct vcpu;

/* KVM's CPUID leaves, where Linux scans for them (Umbra's own are at 0x40000000). */
#define KVM_CPUID_BASE 0x40000100u
#define KVM_CPUID_FEATURES 0x40000101u
#define MSR_KVM_WALL_CLOCK_NEW 0x4b564d00u
#define MSR_KVM_SYSTEM_TIME_NEW 0x4b564d01u

/* The KVM leaves: signature "KVMKVMKVM", features CLOCKSOURCE2, CLOCKSOURCE_STABLE and PV_EOI
 * (vmm/pv_eoi.c). */
void kvmclock_cpuid(u32 leaf, u32 out[4]);
/* The two clock MSRs: reads give what was written; writes publish the structures in guest
 * memory. A GPA outside the guest's RAM, or one the structure would cross a page from, is
 * remembered but nothing is written (as KVM does: the guest just sees no clock). */
bool kvmclock_msr_read(struct vcpu *v, u32 msr, u64 *val);
bool kvmclock_msr_write(struct vcpu *v, u32 msr, u64 val);
/* ns = ((tsc_delta << shift, or >> -shift) * mul) >> 32 for a TSC of tsc_hz (pvclock's scale). */
void kvmclock_scale(u64 tsc_hz, u32 *mul, s8 *shift);

#endif
