/* The CPUID a guest sees: the host's, minus what Umbra does not virtualize, plus Umbra's leaves. */
#ifndef VMM_CPUID_H
#define VMM_CPUID_H

#include "lib/types.h"

struct vcpu;

void cpuid_init(void);
void cpuid_guest(struct vcpu *v, u32 leaf, u32 subleaf, u32 out[4]);
/* Facts the rest of vmm/ derives from the policy. */
u64 cpuid_cr4_allowed(void);
bool cpuid_has_nx(void);
bool cpuid_has_1g(void); /* Page1GB, as the guest sees it */
unsigned cpuid_maxphyaddr(void);

#endif
