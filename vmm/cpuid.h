/* SPDX-License-Identifier: GPL-2.0-only */
/* The CPUID a guest sees: the host's, minus what Umbra does not virtualize, plus Umbra's leaves. */
#ifndef VMM_CPUID_H
#define VMM_CPUID_H

#include "lib/types.h"
#include "vmm/cpuid_policy.h"

struct vcpu;

/* The policy over a CPU's raw leaves: the host's (cpuid), or a made-up CPU's in the host tests. */
void cpuid_policy_init(struct cpuid_policy *p, cpuid_source_fn source);
/* The boot CPU's, which every guest starts from (built once, by guests_create). */
extern struct cpuid_policy cpuid_host;

void cpuid_guest(struct vcpu *v, u32 leaf, u32 subleaf, u32 out[4]);
/* Facts the rest of vmm/ derives from a policy. */
u64 cpuid_cr4_allowed(const struct cpuid_policy *p);
bool cpuid_has_nx(const struct cpuid_policy *p);
/* NX as this vCPU sees it: its guest's, unless its IA32_MISC_ENABLE has XD disable set. */
bool cpuid_guest_nx(const struct vcpu *v);
bool cpuid_has_1g(const struct cpuid_policy *p); /* Page1GB, as the guest sees it */
unsigned cpuid_maxphyaddr(const struct cpuid_policy *p);
/* The announced vendor: Intel's, or AMD's (or Hygon's); each brings its own MSRs. */
bool cpuid_vendor_intel(const struct cpuid_policy *p);
bool cpuid_vendor_amd(const struct cpuid_policy *p);
/* IA32_MISC_ENABLE (Intel's CPUs only) as the announced CPU reads it. */
u64 cpuid_misc_enable(const struct cpuid_policy *p);

#endif
