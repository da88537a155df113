/* SPDX-License-Identifier: GPL-2.0-only */
/* The CPUID a guest sees: the host's, minus what Umbra does not virtualize, plus Umbra's leaves. */
#ifndef VMM_CPUID_H
#define VMM_CPUID_H

#include "lib/types.h"
#include "arch/x86/cpu.h"

struct vcpu;

void cpuid_init(void);
/* The same policy over another CPU's raw leaves (host tests of the policy). */
typedef struct cpuid_regs (*cpuid_source_fn)(u32 leaf, u32 subleaf);
void cpuid_init_from(cpuid_source_fn source);
void cpuid_guest(struct vcpu *v, u32 leaf, u32 subleaf, u32 out[4]);
/* Facts the rest of vmm/ derives from the policy. */
u64 cpuid_cr4_allowed(void);
bool cpuid_has_nx(void);
/* NX as this vCPU sees it: the host's, unless its IA32_MISC_ENABLE has XD disable set. */
bool cpuid_guest_nx(const struct vcpu *v);
bool cpuid_has_1g(void); /* Page1GB, as the guest sees it */
unsigned cpuid_maxphyaddr(void);
/* The announced vendor: Intel's, or AMD's (or Hygon's); each brings its own MSRs. */
bool cpuid_vendor_intel(void);
bool cpuid_vendor_amd(void);
/* IA32_MISC_ENABLE (Intel's CPUs only) as the announced CPU reads it. */
u64 cpuid_misc_enable(void);

#endif
