/* MSR policy: the architectural MSRs a kernel may touch, kept per vCPU; #GP for the rest. */
#include "vmm/msr.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "vmm/kvmclock.h"
#include "vmm/vcpu.h"

#define MSR_TSC 0x10
#define MSR_TSC_ADJUST 0x3b
#define MSR_MTRRCAP 0xfe
#define MSR_MCG_CAP 0x179
#define MSR_MCG_STATUS 0x17a
#define MSR_MISC_ENABLE 0x1a0
#define MSR_MTRR_VAR_FIRST 0x200
#define MSR_MTRR_VAR_LAST 0x20f
#define MSR_MTRR_FIX_64K 0x250
#define MSR_MTRR_FIX_16K_FIRST 0x258
#define MSR_MTRR_FIX_16K_LAST 0x259
#define MSR_MTRR_FIX_4K_FIRST 0x268
#define MSR_MTRR_FIX_4K_LAST 0x26f
#define MSR_MTRR_DEF_TYPE 0x2ff
#define MSR_AMD_PERF_FIRST 0xc0010000
#define MSR_AMD_PERF_LAST 0xc0010007
/* K8's interrupt-pending message register: Linux reads it unguarded on CPUs with AMD erratum
 * 400 (family 0xf and some 0x10); nothing here ever sets its bits. */
#define MSR_AMD_INT_PENDING 0xc0010055

#define MSR_TSC_DEADLINE 0x6e0
#define MSR_X2APIC_FIRST 0x800
#define MSR_X2APIC_LAST 0x8ff

static bool is_mtrr(u32 msr)
{
	return (msr >= MSR_MTRR_VAR_FIRST && msr <= MSR_MTRR_VAR_LAST) || msr == MSR_MTRR_FIX_64K ||
	       (msr >= MSR_MTRR_FIX_16K_FIRST && msr <= MSR_MTRR_FIX_16K_LAST) ||
	       (msr >= MSR_MTRR_FIX_4K_FIRST && msr <= MSR_MTRR_FIX_4K_LAST);
}

/* PAT: eight memory types, each one of UC, WC, WT, WP, WB, UC-. */
static bool pat_valid(u64 val)
{
	for (int i = 0; i < 8; i++) {
		u8 t = (u8)(val >> (i * 8));
		if (t == 2 || t == 3 || t > 7)
			return false;
	}
	return true;
}

/* The SDM's pairing: a write to the TSC moves TSC_ADJUST by the same amount, and a write to
 * TSC_ADJUST moves the TSC, so a kernel can detect (and undo) anyone's TSC writes. */
static void adjust_tsc(struct vcpu *v, u64 delta)
{
	v->tsc_adjust += delta;
	v->tsc_offset += delta;
	virt->set_tsc_offset(&v->hw, v->tsc_offset);
}

bool msr_read(struct vcpu *v, u32 msr, u64 *val)
{
	switch (msr) {
	case MSR_EFER:
		*val = v->hw.regs.efer;
		return true;
	case MSR_TSC:
		*val = rdtsc() + v->tsc_offset;
		return true;
	case MSR_TSC_ADJUST:
		*val = v->tsc_adjust;
		return true;
	case MSR_APIC_BASE:
		*val = v->vlapic.base_msr;
		return true;
	case MSR_TSC_DEADLINE:
		*val = v->vlapic.tsc_deadline;
		return true;
	case MSR_PAT:
		*val = v->hw.pat;
		return true;
	case MSR_TSC_AUX:
		*val = v->hw.tsc_aux;
		return true;
	case MSR_MTRR_DEF_TYPE:
		*val = v->mtrr_def_type;
		return true;
	case MSR_MTRRCAP:   /* no variable ranges, no fixed ranges, no WC */
	case MSR_MISC_ENABLE:
	case MSR_MCG_CAP:   /* CPUID says MCA: no banks, no MCG_CTL */
	case MSR_MCG_STATUS:
	case MSR_AMD_INT_PENDING:
		*val = 0;
		return true;
	case MSR_KVM_WALL_CLOCK_NEW:
	case MSR_KVM_SYSTEM_TIME_NEW:
		return kvmclock_msr_read(v, msr, val);
	default:
		if (msr >= MSR_X2APIC_FIRST && msr <= MSR_X2APIC_LAST)
			return vlapic_msr_read(&v->vlapic, msr, val, monotonic_ns());
		if (is_mtrr(msr) || (msr >= MSR_AMD_PERF_FIRST && msr <= MSR_AMD_PERF_LAST)) {
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
	case MSR_TSC:
		/* The guest's TSC becomes val now and keeps counting from there. */
		adjust_tsc(v, val - (rdtsc() + v->tsc_offset));
		return true;
	case MSR_TSC_ADJUST:
		adjust_tsc(v, val - v->tsc_adjust);
		return true;
	case MSR_AMD_INT_PENDING:
		return true;
	case MSR_PAT:
		if (!pat_valid(val))
			return false;
		v->hw.pat = val; /* the shadow maps guest memory write-back whatever the guest asks */
		return true;
	case MSR_TSC_AUX:
		if (val >> 32)
			return false;
		v->hw.tsc_aux = val;
		return true;
	case MSR_APIC_BASE:
		return vlapic_set_base(&v->vlapic, val);
	case MSR_TSC_DEADLINE: {
		/* The guest's TSC runs tsc_offset ahead of the host's: the deadline on our clock. */
		u64 ns = val ? tsc_to_monotonic_ns(val - v->tsc_offset) : 0;
		vlapic_set_tsc_deadline(&v->vlapic, val, val && !ns ? 1 : ns);
		return true;
	}
	case MSR_MTRR_DEF_TYPE:
		if (val & ~0xcffull)
			return false;
		v->mtrr_def_type = val;
		return true;
	case MSR_MISC_ENABLE:
		return true;
	case MSR_MCG_STATUS:
		return val == 0; /* no machine check is ever in progress */
	case MSR_KVM_WALL_CLOCK_NEW:
	case MSR_KVM_SYSTEM_TIME_NEW:
		return kvmclock_msr_write(v, msr, val);
	default:
		if (msr >= MSR_X2APIC_FIRST && msr <= MSR_X2APIC_LAST)
			return vlapic_msr_write(&v->vlapic, msr, val, monotonic_ns());
		/* MTRR ranges do not exist (MTRRcap says so); AMD counters are inert. */
		return msr >= MSR_AMD_PERF_FIRST && msr <= MSR_AMD_PERF_LAST;
	}
}
