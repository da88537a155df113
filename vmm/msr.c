/* SPDX-License-Identifier: GPL-2.0-only */
/* MSR policy: the MSRs the announced CPU has (by its CPUID), kept per vCPU; #GP for the rest. */
#include "vmm/msr.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "vmm/cpuid.h"
#include "vmm/kvmclock.h"
#include "vmm/pv_eoi.h"
#include "vmm/vcpu.h"
#include "vmm/cr.h"

#define MSR_TSC 0x10
#define MSR_TSC_ADJUST 0x3b
#define MSR_MTRRCAP 0xfe
#define MSR_MCG_CAP 0x179
#define MSR_MCG_STATUS 0x17a
#define MSR_MTRR_DEF_TYPE 0x2ff
#define MSR_AMD_PERF_FIRST 0xc0010000
#define MSR_AMD_PERF_LAST 0xc0010007
/* K8's interrupt-pending message register: Linux reads it unguarded on CPUs with AMD erratum
 * 400 (family 0xf and some 0x10); nothing here ever sets its bits. */
#define MSR_AMD_INT_PENDING 0xc0010055

#define MSR_TSC_DEADLINE 0x6e0
#define MSR_X2APIC_FIRST 0x800
#define MSR_X2APIC_LAST 0x8ff

enum msr_needs { NEEDS_CPUID, NEEDS_INTEL, NEEDS_AMD };
enum { EAX, EBX, ECX, EDX };

/*
 * Which MSRs exist: each range and the CPUID feature (as the guest's CPUID announces it) or the
 * vendor that brings it. An MSR outside this table, or whose feature is not announced, #GPs.
 */
static const struct msr_dep {
	u32 first, last;
	u8 needs;
	u32 leaf;
	u8 reg, bit;
} msr_deps[] = {
	{ MSR_TSC, MSR_TSC, NEEDS_CPUID, 1, EDX, 4 },
	{ MSR_APIC_BASE, MSR_APIC_BASE, NEEDS_CPUID, 0, 0, 0 }, /* stays while the APIC is off */
	{ MSR_TSC_ADJUST, MSR_TSC_ADJUST, NEEDS_CPUID, 7, EBX, 1 },
	{ MSR_MTRRCAP, MSR_MTRRCAP, NEEDS_CPUID, 1, EDX, 12 },
	{ MSR_MCG_CAP, MSR_MCG_STATUS, NEEDS_CPUID, 1, EDX, 14 },
	{ MSR_DEBUGCTL, MSR_DEBUGCTL, NEEDS_CPUID, 0, 0, 0 }, /* every x86-64 CPU has it */
	{ MSR_MISC_ENABLE, MSR_MISC_ENABLE, NEEDS_INTEL, 0, 0, 0 },
	{ MSR_PAT, MSR_PAT, NEEDS_CPUID, 1, EDX, 16 },
	{ MSR_MTRR_DEF_TYPE, MSR_MTRR_DEF_TYPE, NEEDS_CPUID, 1, EDX, 12 },
	{ MSR_TSC_DEADLINE, MSR_TSC_DEADLINE, NEEDS_CPUID, 1, ECX, 24 },
	{ MSR_X2APIC_FIRST, MSR_X2APIC_LAST, NEEDS_CPUID, 1, ECX, 21 },
	{ MSR_KVM_WALL_CLOCK_NEW, MSR_KVM_SYSTEM_TIME_NEW, NEEDS_CPUID, KVM_CPUID_FEATURES, EAX,
	  3 },
	{ MSR_KVM_PV_EOI_EN, MSR_KVM_PV_EOI_EN, NEEDS_CPUID, KVM_CPUID_FEATURES, EAX, 6 },
	{ MSR_EFER, MSR_EFER, NEEDS_CPUID, 0x80000001, EDX, 29 },
	{ MSR_TSC_AUX, MSR_TSC_AUX, NEEDS_CPUID, 0x80000001, EDX, 27 },
	/* K7 performance counters: AMD's CPUs have them whatever CPUID says. */
	{ MSR_AMD_PERF_FIRST, MSR_AMD_PERF_LAST, NEEDS_AMD, 0, 0, 0 },
	{ MSR_AMD_INT_PENDING, MSR_AMD_INT_PENDING, NEEDS_AMD, 0, 0, 0 },
};

static bool msr_exists(struct vcpu *v, u32 msr)
{
	for (unsigned i = 0; i < ARRAY_SIZE(msr_deps); i++) {
		const struct msr_dep *d = &msr_deps[i];
		u32 r[4];

		if (msr < d->first || msr > d->last)
			continue;
		if (d->needs != NEEDS_CPUID)
			return d->needs == NEEDS_INTEL ? cpuid_vendor_intel(&v->vm->cpuid)
						       : cpuid_vendor_amd(&v->vm->cpuid);
		if (d->leaf == 0)
			return true;
		cpuid_guest(v, d->leaf, 0, r);
		return (r[d->reg] >> d->bit) & 1;
	}
	return false;
}

/* IA32_MISC_ENABLE's bits a guest may change on the announced Intel CPU, as the hardware and
 * KVM accept them: fast strings, automatic thermal control, Enhanced SpeedStep, the MONITOR
 * FSM, the CPUID limit, xTPR messages, and XD disable where NX exists to disable. None changes
 * what Umbra runs (the host's fast strings stay on, nothing here throttles or sends xTPR
 * messages); the CPUID limit, MONITOR and XD disable change the guest's CPUID
 * (vmm/cpuid.c) and XD disable its EFER.NXE, as on the CPU. */
static u64 misc_enable_writable(const struct vcpu *v)
{
	return MISC_ENABLE_FAST_STRINGS | MISC_ENABLE_TCC | MISC_ENABLE_EIST | MISC_ENABLE_MONITOR |
	       MISC_ENABLE_LIMIT_CPUID | MISC_ENABLE_XTPR_DISABLE |
	       (cpuid_has_nx(&v->vm->cpuid) ? MISC_ENABLE_XD_DISABLE : 0);
}

/* A memory type: UC, WC, WT, WP, WB, and UC- (the PAT's only). */
static bool mem_type_valid(u8 t, bool pat)
{
	return t != 2 && t != 3 && t < (pat ? 8 : 7);
}

/* PAT: eight memory types. */
static bool pat_valid(u64 val)
{
	for (int i = 0; i < 8; i++)
		if (!mem_type_valid((u8)(val >> (i * 8)), true))
			return false;
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

/* Compared in the guest's own TSC, as the CPU compares it: a deadline at or below the TSC is
 * due now. Converting the deadline to a host TSC first (minus the offset) wraps when the
 * guest's TSC is near 2^64 and made a deadline just below it fire that far in the future.
 * A deadline more than 2^60 ns (36 years) away is kept there: ns cannot overflow. */
u64 msr_tsc_deadline_ns(u64 deadline, u64 guest_tsc, u64 now_ns)
{
	u64 far = ns_to_tsc(1ull << 60);

	if (deadline <= guest_tsc)
		return now_ns;
	u64 ticks = deadline - guest_tsc;
	return now_ns + tsc_to_ns(ticks < far ? ticks : far) + 1; /* never early */
}

bool msr_read(struct vcpu *v, u32 msr, u64 *val)
{
	if (!msr_exists(v, msr))
		return false;
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
	case MSR_MISC_ENABLE:
		*val = cpuid_misc_enable(&v->vm->cpuid) ^ v->misc_enable_flip;
		return true;
	case MSR_DEBUGCTL:
		*val = v->hw.debugctl;
		return true;
	case MSR_MTRRCAP: /* no variable ranges, no fixed ranges, no WC */
	case MSR_MCG_CAP: /* CPUID says MCA: no banks, no MCG_CTL */
	case MSR_MCG_STATUS:
	case MSR_AMD_INT_PENDING:
		*val = 0;
		return true;
	case MSR_KVM_WALL_CLOCK_NEW:
	case MSR_KVM_SYSTEM_TIME_NEW:
		return kvmclock_msr_read(v, msr, val);
	case MSR_KVM_PV_EOI_EN:
		*val = pv_eoi_msr_read(v);
		return true;
	default:
		if (msr >= MSR_X2APIC_FIRST && msr <= MSR_X2APIC_LAST)
			return vlapic_msr_read(&v->vlapic, msr, val, monotonic_ns());
		/* AMD's counters read 0 and count nothing. No MTRR range exists: MTRRcap
		 * announces no variable and no fixed ones. */
		*val = 0;
		return msr >= MSR_AMD_PERF_FIRST && msr <= MSR_AMD_PERF_LAST;
	}
}

bool msr_write(struct vcpu *v, u32 msr, u64 val)
{
	if (!msr_exists(v, msr))
		return false;
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
		v->hw.pat =
			val; /* the shadow maps guest memory write-back whatever the guest asks */
		return true;
	case MSR_TSC_AUX:
		if (val >> 32)
			return false;
		v->hw.tsc_aux = val;
		return true;
	case MSR_APIC_BASE:
		return vlapic_set_base(&v->vlapic, val, cpuid_maxphyaddr(&v->vm->cpuid));
	case MSR_TSC_DEADLINE: {
		u64 host = rdtsc();
		u64 ns = val ? msr_tsc_deadline_ns(val, host + v->tsc_offset,
						   tsc_to_monotonic_ns(host))
			     : 0;
		vlapic_set_tsc_deadline(&v->vlapic, val, val && !ns ? 1 : ns);
		return true;
	}
	case MSR_MTRR_DEF_TYPE:
		/* The default type must be one an MTRR may hold (the SDM's #GP, as in KVM). */
		if ((val & ~0xcffull) || !mem_type_valid((u8)val, false))
			return false;
		v->mtrr_def_type = val;
		return true;
	case MSR_MISC_ENABLE: {
		/* Reserved bits #GP and read-only ones are ignored, as on the CPU; the writable
		 * ones are kept and read back. An EFER.NXE already set stays when XD disable is
		 * set (the SDM defines no fault for it): only a later NXE write #GPs. */
		u64 base = cpuid_misc_enable(&v->vm->cpuid), now = base ^ v->misc_enable_flip;
		u64 rw = misc_enable_writable(v);
		if ((val ^ now) & ~(rw | MISC_ENABLE_READ_ONLY))
			return false;
		v->misc_enable_flip = ((val & rw) | (now & ~rw)) ^ base;
		return true;
	}
	case MSR_DEBUGCTL:
		/* LBR and BTF; the rest needs what CPUID and MISC_ENABLE deny (debug store, a
		 * PMU) or is reserved. The backends run the guest with it. */
		if (val & ~(DEBUGCTL_LBR | DEBUGCTL_BTF))
			return false;
		v->hw.debugctl = val;
		return true;
	case MSR_MCG_STATUS:
		return val == 0; /* no machine check is ever in progress */
	case MSR_KVM_WALL_CLOCK_NEW:
	case MSR_KVM_SYSTEM_TIME_NEW:
		return kvmclock_msr_write(v, msr, val);
	case MSR_KVM_PV_EOI_EN:
		return pv_eoi_msr_write(v, val);
	default:
		if (msr >= MSR_X2APIC_FIRST && msr <= MSR_X2APIC_LAST)
			return vlapic_msr_write(&v->vlapic, msr, val, monotonic_ns());
		/* MTRR ranges do not exist (MTRRcap says so); AMD counters are inert. */
		return msr >= MSR_AMD_PERF_FIRST && msr <= MSR_AMD_PERF_LAST;
	}
}
