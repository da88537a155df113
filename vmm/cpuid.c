/* SPDX-License-Identifier: GPL-2.0-only */
/* CPUID policy: hide virtualization, hide what is not virtualized, report Umbra's signature. */
#include "vmm/cpuid.h"
#include "arch/x86/cpu.h"
#include "pv/abi.h"
#include "vmm/kvmclock.h"
#include "vmm/vm.h"

/* Leaf 1 ECX: VMX, SMX, PCID, XSAVE/OSXSAVE/AVX/F16C/FMA (no XCR0 switching), RDRAND kept,
 * MONITOR (no MWAIT model); and the features whose MSRs Umbra does not have: DTES64, DS-CPL,
 * EST, TM2, PDCM. x2APIC and the TSC-deadline timer are the APIC model's, announced always. */
#define L1_ECX_HIDE \
	(BIT(2) | BIT(3) | BIT(4) | BIT(5) | BIT(6) | BIT(7) | BIT(8) | BIT(12) | BIT(15) | \
	 BIT(17) | BIT(26) | BIT(27) | BIT(28) | BIT(29))
#define L1_ECX_MODELLED (BIT(21) | BIT(24))
/* Leaf 1 EDX: everything the host has but debug store, thermal control, TM and PBE (no MSRs). */
#define L1_EDX_HIDE (BIT(21) | BIT(22) | BIT(29) | BIT(31))
#define L1_EDX_APIC BIT(9)
/* Leaf 7 EBX: keep SMEP(7), ERMS(9), SMAP(20), CLFLUSHOPT(23); hide the rest. FSGSBASE is
 * hidden: the backends do not pass CR4.FSGSBASE to the real CR4, so RDFSBASE would #UD. */
#define L7_EBX_KEEP (BIT(7) | BIT(9) | BIT(20) | BIT(23))
/* Leaf 7 EBX: IA32_TSC_ADJUST (1) is modelled (vmm/msr.c). */
#define L7_EBX_MODELLED BIT(1)
/* 0x80000007 EDX: invariant TSC. The guest's TSC is the host's plus an offset, and Umbra keeps
 * all of its own time (and the guest's timers) on that TSC at one calibrated rate, so the
 * promise holds as far as Umbra's own clock does. With TSC_ADJUST it lets a kernel trust the
 * TSC without a watchdog, which under a hypervisor would compare it with lossy ticks. */
#define E7_EDX_INVARIANT_TSC BIT(8)
/* 0x80000001 ECX: LAHF(0), ABM(5), SSE4A(6), PREFETCHW(8); EDX: all but RDTSCP-less extras. */
#define E1_ECX_KEEP (BIT(0) | BIT(5) | BIT(6) | BIT(8))
#define E1_EDX_NX BIT(20)
#define E1_EDX_PAGE1GB BIT(26)

/* Leaf 0 EBX of GenuineIntel, AuthenticAMD and HygonGenuine (AMD's MSRs): leaf 0 is the
 * host's, so the vendor Umbra announces is the host's. */
#define VENDOR_INTEL_EBX 0x756e6547u
#define VENDOR_AMD_EBX 0x68747541u
#define VENDOR_HYGON_EBX 0x6f677948u
#define L1_ECX_MONITOR BIT(3)

struct cpuid_policy cpuid_host;

void cpuid_policy_init(struct cpuid_policy *p, cpuid_source_fn raw)
{
	struct cpuid_regs l0 = raw(0, 0);

	p->raw = raw;
	p->max_basic = l0.eax;
	p->vendor_intel = l0.ebx == VENDOR_INTEL_EBX;
	p->vendor_amd = l0.ebx == VENDOR_AMD_EBX || l0.ebx == VENDOR_HYGON_EBX;
	p->max_ext = raw(0x80000000, 0).eax;
	struct cpuid_regs r = raw(1, 0);
	p->l1_ecx = (r.ecx & ~(u32)L1_ECX_HIDE) | L1_ECX_MODELLED | (1u << 31);
	p->l1_edx = r.edx & ~(u32)L1_EDX_HIDE;
	p->l7_ebx = (p->max_basic >= 7 ? raw(7, 0).ebx & L7_EBX_KEEP : 0) | L7_EBX_MODELLED;
	p->e1_edx = p->max_ext >= 0x80000001 ? raw(0x80000001, 0).edx : 0;
	p->maxphyaddr = p->max_ext >= 0x80000008 ? raw(0x80000008, 0).eax & 0xff : 36;
}

bool cpuid_has_nx(const struct cpuid_policy *p)
{
	return p->e1_edx & E1_EDX_NX;
}
bool cpuid_has_1g(const struct cpuid_policy *p)
{
	return p->e1_edx & E1_EDX_PAGE1GB;
}
unsigned cpuid_maxphyaddr(const struct cpuid_policy *p)
{
	return p->maxphyaddr;
}
bool cpuid_vendor_intel(const struct cpuid_policy *p)
{
	return p->vendor_intel;
}
bool cpuid_vendor_amd(const struct cpuid_policy *p)
{
	return p->vendor_amd;
}

/*
 * IA32_MISC_ENABLE as the announced CPU would read: fast strings on (REP MOVS/STOS are the
 * host's); no debug store (DS is hidden), so BTS and PEBS unavailable; leaf 0xA announces no
 * PMU, so performance monitoring unavailable; the MONITOR enable as leaf 1 announces MONITOR;
 * the CPUID limit and XD disable off, since leaf 0 and NX are announced as they are.
 */
u64 cpuid_misc_enable(const struct cpuid_policy *p)
{
	return MISC_ENABLE_FAST_STRINGS | MISC_ENABLE_BTS_UNAVAIL | MISC_ENABLE_PEBS_UNAVAIL |
	       ((p->l1_ecx & L1_ECX_MONITOR) ? MISC_ENABLE_MONITOR : 0);
}

/* The vCPU's IA32_MISC_ENABLE (AMD's guests never change theirs: the MSR #GPs there). */
static u64 misc_enable(const struct vcpu *v)
{
	return cpuid_misc_enable(&v->vm->cpuid) ^ v->misc_enable_flip;
}

bool cpuid_guest_nx(const struct vcpu *v)
{
	return cpuid_has_nx(&v->vm->cpuid) && !(misc_enable(v) & MISC_ENABLE_XD_DISABLE);
}

u64 cpuid_cr4_allowed(const struct cpuid_policy *p)
{
	u64 a = CR4_VME | CR4_PVI | CR4_TSD | CR4_DE | CR4_PSE | CR4_PAE | CR4_MCE | CR4_PGE |
		CR4_PCE | CR4_OSFXSR | CR4_OSXMMEXCPT;
	if (p->l7_ebx & BIT(7))
		a |= CR4_SMEP;
	if (p->l7_ebx & BIT(20))
		a |= CR4_SMAP;
	return a;
}

void cpuid_guest(struct vcpu *v, u32 leaf, u32 sub, u32 out[4])
{
	const struct cpuid_policy *p = &v->vm->cpuid;
	struct cpuid_regs r = { 0, 0, 0, 0 };
	bool ext = leaf >= 0x80000000u;

	if (leaf >= KVM_CPUID_BASE && leaf < KVM_CPUID_BASE + 0x100) {
		kvmclock_cpuid(leaf, out);
		return;
	}
	if (leaf >= UMBRA_CPUID_BASE && leaf < UMBRA_CPUID_BASE + 0x100) {
		if (leaf == UMBRA_CPUID_BASE)
			r = (struct cpuid_regs){ UMBRA_CPUID_FEATURES, UMBRA_SIGNATURE_EBX,
						 UMBRA_SIGNATURE_ECX, UMBRA_SIGNATURE_EDX };
		else if (leaf == UMBRA_CPUID_FEATURES)
			r = (struct cpuid_regs){ UMBRA_ABI_VERSION,
						 UMBRA_FEAT_VMCALL_ANY |
							 (v->vm->tdp_on ? UMBRA_FEAT_NESTED_PAGING
									: 0),
						 0, 0 };
	} else if ((!ext && leaf <= p->max_basic) || (ext && leaf <= p->max_ext)) {
		r = p->raw(leaf, sub);
	}

	/* Three IA32_MISC_ENABLE bits change CPUID as on Intel's CPUs: the limit caps leaf 0's
	 * maximum at 2 (the SDM's whole description: the leaves above still answer), the
	 * MONITOR FSM enable gates MONITOR, XD disable hides NX. */
	switch (leaf) {
	case 0:
		if ((misc_enable(v) & MISC_ENABLE_LIMIT_CPUID) && r.eax > 2)
			r.eax = 2;
		break;
	case 1:
		r.ecx = p->l1_ecx & ~(misc_enable(v) & MISC_ENABLE_MONITOR ? 0 : L1_ECX_MONITOR);
		/* APIC: as on the CPU, clear while IA32_APIC_BASE has the APIC globally disabled. */
		r.edx = p->l1_edx & ~(vlapic_hw_enabled(&v->vlapic) ? 0 : L1_EDX_APIC);
		r.ebx = (r.ebx & 0x00ffffff) | (v->id << 24);
		break;
	case 5:
	case 6:
	case 0xa:
	case 0xd:
	case 0xf:
	case 0x10:
	case 0x12:
	case 0x14:
		r = (struct cpuid_regs){ 0, 0, 0, 0 }; /* not virtualized */
		break;
	case 7:
		r = (struct cpuid_regs){ 0, sub == 0 ? p->l7_ebx : 0, 0, 0 };
		break;
	case 0x80000001:
		r.ecx &= E1_ECX_KEEP;
		r.edx = p->e1_edx & ~(cpuid_guest_nx(v) ? 0 : E1_EDX_NX);
		break;
	case 0x80000007: /* power management: none but the TSC's */
		r = (struct cpuid_regs){ 0, 0, 0, E7_EDX_INVARIANT_TSC };
		break;
	case 0x8000000a: /* SVM features: SVM is hidden */
		r = (struct cpuid_regs){ 0, 0, 0, 0 };
		break;
	default:
		break;
	}
	out[0] = r.eax;
	out[1] = r.ebx;
	out[2] = r.ecx;
	out[3] = r.edx;
}
