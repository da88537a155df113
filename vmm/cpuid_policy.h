/* SPDX-License-Identifier: GPL-2.0-only */
/* What a guest's CPUID announces, the policy struct vm embeds (vmm/cpuid.c computes with it). */
#ifndef VMM_CPUID_POLICY_H
#define VMM_CPUID_POLICY_H

#include "lib/types.h"
#include "arch/x86/cpu.h"

typedef struct cpuid_regs (*cpuid_source_fn)(u32 leaf, u32 subleaf);

/* What one guest's CPUID announces (each guest holds its own, vm->cpuid): the host's leaves
 * with what Umbra does not virtualize taken out and its models' features put in. */
struct cpuid_policy {
	cpuid_source_fn raw; /* the leaves passed through: the host's (or made-up ones) */
	bool vendor_intel, vendor_amd;
	u32 max_basic, max_ext;
	u32 l1_ecx, l1_edx, l7_ebx, e1_edx;
	unsigned maxphyaddr;
};

#endif
