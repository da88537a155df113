/* AMD SVM backend: detection and per-CPU enabling (EFER.SVME, host save area). */
#include "arch/x86/virt.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/percpu.h"
#include "lib/palloc.h"
#include "lib/printf.h"

#define CPUID_SVM_ECX (1u << 2)       /* 0x80000001 ECX */
#define SVM_FEAT_NP (1u << 0)         /* 0x8000000a EDX */
#define SVM_FEAT_NRIPS (1u << 3)
#define SVM_FEAT_CLEAN (1u << 5)
#define SVM_FEAT_FLUSH_ASID (1u << 6)
#define SVM_FEAT_DECODE (1u << 7)

struct svm_caps {
	u32 revision, nasid, features;
};
static struct svm_caps caps;

static bool svm_probe(const char **why)
{
	if (cpuid(0x80000000, 0).eax < 0x8000000a) {
		*why = "no CPUID leaf 0x8000000a";
		return false;
	}
	if (!(cpuid(0x80000001, 0).ecx & CPUID_SVM_ECX)) {
		*why = "CPUID reports no SVM";
		return false;
	}
	/* Bochs does not implement VM_CR: no MSR means no firmware lock. */
	u64 vm_cr = 0;
	if (rdmsr_safe(MSR_VM_CR, &vm_cr) && (vm_cr & VM_CR_SVMDIS)) {
		*why = "SVM disabled by firmware (VM_CR.SVMDIS)";
		return false;
	}
	struct cpuid_regs r = cpuid(0x8000000a, 0);
	caps = (struct svm_caps){ .revision = r.eax & 0xff, .nasid = r.ebx, .features = r.edx };
	return true;
}

static int svm_cpu_enable(struct percpu *pc)
{
	/* Each CPU checks for itself: a heterogeneous or half-disabled machine must not hang. */
	const char *why;
	if (!svm_probe(&why)) {
		pc->virt_error = why;
		return -1;
	}
	u64 hsave = palloc_alloc();
	if (!hsave) {
		pc->virt_error = "no memory for the host save area";
		return -1;
	}
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SVME);
	wrmsr(MSR_VM_HSAVE_PA, hsave);
	pc->virt = phys_to_virt(hsave);

	fmt_snprintf(pc->virt_info, sizeof(pc->virt_info),
		     "svm rev=%u asids=%u npt=%s nrip_save=%s decode_assists=%s clean_bits=%s "
		     "flush_by_asid=%s",
		     caps.revision, caps.nasid, caps.features & SVM_FEAT_NP ? "yes" : "no",
		     caps.features & SVM_FEAT_NRIPS ? "yes" : "no",
		     caps.features & SVM_FEAT_DECODE ? "yes" : "no",
		     caps.features & SVM_FEAT_CLEAN ? "yes" : "no",
		     caps.features & SVM_FEAT_FLUSH_ASID ? "yes" : "no");
	return 0;
}

const struct virt_backend svm_backend = {
	.name = "svm",
	.probe = svm_probe,
	.cpu_enable = svm_cpu_enable,
};
