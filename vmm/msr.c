/* MSR policy: EFER through the MMU context, a few harmless ones kept per vCPU, #GP for the rest. */
#include "vmm/msr.h"
#include "arch/x86/cpu.h"
#include "vmm/vcpu.h"

#define MSR_TSC 0x10
#define MSR_MTRRCAP 0xfe
#define MSR_MISC_ENABLE 0x1a0
#define MSR_MTRR_DEF_TYPE 0x2ff
#define MSR_AMD_PERF_FIRST 0xc0010000
#define MSR_AMD_PERF_LAST 0xc0010007

bool msr_read(struct vcpu *v, u32 msr, u64 *val)
{
	switch (msr) {
	case MSR_EFER:
		*val = v->regs.efer;
		return true;
	case MSR_TSC:
		*val = rdtsc();
		return true;
	case MSR_APIC_BASE:
		*val = 0xfee00000ull | BIT(11) | (v->id == 0 ? BIT(8) : 0);
		return true;
	case MSR_PAT:
		*val = 0x0007040600070406ull;
		return true;
	case MSR_MTRRCAP:
	case MSR_MTRR_DEF_TYPE:
	case MSR_MISC_ENABLE:
		*val = 0;
		return true;
	default:
		if (msr >= MSR_AMD_PERF_FIRST && msr <= MSR_AMD_PERF_LAST) {
			*val = 0;
			return true;
		}
		return false;
	}
}

bool msr_write(struct vcpu *v, u32 msr, u64 val)
{
	switch (msr) {
	case MSR_EFER:
		return vcpu_set_efer(v, val);
	case MSR_PAT:
	case MSR_MTRR_DEF_TYPE:
		return true; /* the shadow maps everything write-back; kept simple on purpose */
	default:
		return msr >= MSR_AMD_PERF_FIRST && msr <= MSR_AMD_PERF_LAST;
	}
}
