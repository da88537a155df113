/* Intel VMX backend: detection and per-CPU VMXON (feature control, fixed bits, VMXON region). */
#include "arch/x86/virt.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/percpu.h"
#include "lib/palloc.h"
#include "lib/printf.h"

#define CPUID_VMX_ECX (1u << 5)
#define FC_LOCK (1ull << 0)
#define FC_VMX_OUTSIDE_SMX (1ull << 2)
#define PROC_SECONDARY (1ull << 31)
#define PROC2_EPT (1ull << 1)
#define PROC2_VPID (1ull << 5)
#define PROC2_UNRESTRICTED (1ull << 7)

static bool vmx_probe(const char **why)
{
	if (!(cpuid(1, 0).ecx & CPUID_VMX_ECX)) {
		*why = "CPUID reports no VMX";
		return false;
	}
	u64 fc = rdmsr(MSR_FEATURE_CONTROL);
	if ((fc & FC_LOCK) && !(fc & FC_VMX_OUTSIDE_SMX)) {
		*why = "VMX disabled and locked by firmware (IA32_FEATURE_CONTROL)";
		return false;
	}
	return true;
}

static void describe(struct percpu *pc, u32 revision)
{
	/* Allowed-1 settings are the high halves of the capability MSRs. */
	u64 proc2 = 0;
	if ((rdmsr(MSR_VMX_PROCBASED_CTLS) >> 32) & PROC_SECONDARY)
		proc2 = rdmsr(MSR_VMX_PROCBASED_CTLS2) >> 32;
	u64 misc = rdmsr(MSR_VMX_MISC);

	fmt_snprintf(pc->virt_info, sizeof(pc->virt_info),
		     "vmx rev=0x%x ept=%s vpid=%s unrestricted_guest=%s cr3_targets=%u "
		     "preemption_timer=%s",
		     revision, proc2 & PROC2_EPT ? "yes" : "no", proc2 & PROC2_VPID ? "yes" : "no",
		     proc2 & PROC2_UNRESTRICTED ? "yes" : "no", (unsigned)((misc >> 16) & 0x1ff),
		     (rdmsr(MSR_VMX_PINBASED_CTLS) >> 32) & (1ull << 6) ? "yes" : "no");
}

static int vmx_cpu_enable(struct percpu *pc)
{
	const char *why;
	if (!vmx_probe(&why)) {
		pc->virt_error = why;
		return -1;
	}
	u64 fc = rdmsr(MSR_FEATURE_CONTROL);
	if (!(fc & FC_LOCK))
		wrmsr(MSR_FEATURE_CONTROL, fc | FC_LOCK | FC_VMX_OUTSIDE_SMX);

	/* CR0/CR4 must satisfy the fixed-0 (must be 1) and fixed-1 (may be 1) masks in VMX. */
	u64 cr0 = (read_cr0() | rdmsr(MSR_VMX_CR0_FIXED0)) & rdmsr(MSR_VMX_CR0_FIXED1);
	u64 cr4 = (read_cr4() | CR4_VMXE | rdmsr(MSR_VMX_CR4_FIXED0)) & rdmsr(MSR_VMX_CR4_FIXED1);
	write_cr0(cr0);
	write_cr4(cr4);

	u64 region = palloc_alloc();
	if (!region) {
		pc->virt_error = "no memory for the VMXON region";
		return -1;
	}
	u32 revision = (u32)rdmsr(MSR_VMX_BASIC) & 0x7fffffff;
	*(volatile u32 *)phys_to_virt(region) = revision;

	u8 fail;
	__asm__ volatile("vmxon %1; setna %0" : "=qm"(fail) : "m"(region) : "cc", "memory");
	if (fail) {
		pc->virt_error = "VMXON failed";
		return -1;
	}
	pc->virt = phys_to_virt(region);
	describe(pc, revision);
	return 0;
}

const struct virt_backend vmx_backend = {
	.name = "vmx",
	.probe = vmx_probe,
	.cpu_enable = vmx_cpu_enable,
};
