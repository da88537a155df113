/* SPDX-License-Identifier: GPL-2.0-only */
/* VMRUN's consistency checks (APM vol. 2, 15.5.1 and 15.20), pure, for audit=1 and the host tests. */
#include "arch/x86/svm_check.h"
#include "arch/x86/regs.h"

#define SVM_CHECK_NAME_(name, text) text,
const char *const svm_check_names[SVM_CHECK_COUNT] = { SVM_CHECKS(SVM_CHECK_NAME_) };
#undef SVM_CHECK_NAME_

#define CR4_UMIP BIT(11)
#define CR4_FSGSBASE BIT(16)
#define CR4_PKE BIT(22)
#define CR4_CET BIT(23)
#define EFER_FFXSR BIT(14)
#define EFER_TCE BIT(15)
#define CS_L BIT(9)
#define CS_D BIT(10)
#define EVENT_VALID BIT(31)

void svm_check_reserved(u32 l1_ecx, u32 l7_ebx, u32 l7_ecx, u32 e1_ecx, u32 e1_edx, u64 *cr4_mbz,
			u64 *efer_mbz)
{
	/* VME to OSXMMEXCPT are on every long-mode CPU; the rest only where CPUID has them. */
	u64 cr4 = 0x7ff;
	cr4 |= l7_ecx & BIT(2) ? CR4_UMIP : 0;
	cr4 |= l7_ecx & BIT(16) ? CR4_LA57 : 0;
	cr4 |= l7_ebx & BIT(0) ? CR4_FSGSBASE : 0;
	cr4 |= l1_ecx & BIT(17) ? CR4_PCIDE : 0;
	cr4 |= l1_ecx & BIT(26) ? CR4_OSXSAVE : 0;
	cr4 |= l7_ebx & BIT(7) ? CR4_SMEP : 0;
	cr4 |= l7_ebx & BIT(20) ? CR4_SMAP : 0;
	cr4 |= l7_ecx & BIT(3) ? CR4_PKE : 0;
	cr4 |= l7_ecx & BIT(7) ? CR4_CET : 0;
	*cr4_mbz = ~cr4;

	u64 efer = EFER_SCE | EFER_LME | EFER_LMA | EFER_SVME;
	efer |= e1_edx & BIT(20) ? EFER_NXE : 0;
	efer |= e1_edx & BIT(25) ? EFER_FFXSR : 0;
	efer |= e1_ecx & BIT(17) ? EFER_TCE : 0;
	*efer_mbz = ~efer;
}

/* EVENTINJ (15.20): types 1 and 5-7 are reserved; an exception is a vector 0-31 but NMI. */
static const char *check_event(u64 e)
{
	if (!(e & EVENT_VALID))
		return NULL;
	unsigned type = (e >> 8) & 7, vector = e & 0xff;
	if (type != 0 && type != 2 && type != 3 && type != 4)
		return svm_check_names[SVM_CHECK_EVENT_TYPE];
	if (type == 3 && (vector == 2 || vector > 31))
		return svm_check_names[SVM_CHECK_EVENT_VECTOR];
	return NULL;
}

const char *svm_check(const struct svm_check_state *s)
{
	const char *const *n = svm_check_names;
	unsigned width = s->maxphyaddr && s->maxphyaddr <= 52 ? s->maxphyaddr : 52;
	u64 above_pa = ~0ull << width;
	bool paging_long = (s->efer & EFER_LME) && (s->cr0 & CR0_PG);

	if (!(s->efer & EFER_SVME))
		return n[SVM_CHECK_SVME_CLEAR];
	if (!(s->cr0 & CR0_CD) && (s->cr0 & CR0_NW))
		return n[SVM_CHECK_CR0_CD_NW];
	if (s->cr0 >> 32)
		return n[SVM_CHECK_CR0_HIGH];
	/* As KVM reads "any MBZ bit of CR3": only long mode's 64-bit CR3 has them. */
	if (paging_long && (s->cr3 & above_pa))
		return n[SVM_CHECK_CR3_MBZ];
	if (s->cr4 & s->cr4_mbz)
		return n[SVM_CHECK_CR4_MBZ];
	if (s->dr6 >> 32)
		return n[SVM_CHECK_DR6_HIGH];
	if (s->dr7 >> 32)
		return n[SVM_CHECK_DR7_HIGH];
	if (s->efer & s->efer_mbz)
		return n[SVM_CHECK_EFER_MBZ];
	if (paging_long && !(s->cr4 & CR4_PAE))
		return n[SVM_CHECK_LONG_NO_PAE];
	if (paging_long && !(s->cr0 & CR0_PE))
		return n[SVM_CHECK_LONG_NO_PE];
	if (paging_long && (s->cr4 & CR4_PAE) && (s->cs_attr & CS_L) && (s->cs_attr & CS_D))
		return n[SVM_CHECK_LONG_CS_L_D];
	if (!(s->misc2 & BIT(0)))
		return n[SVM_CHECK_VMRUN_INTERCEPT];
	if (!s->asid)
		return n[SVM_CHECK_ASID_ZERO];
	/* The I/O map is 12 KiB, the MSR map 8 KiB: their last byte must be addressable. */
	if (((s->iopm_pa + 3 * 4096 - 1) & above_pa) || ((s->msrpm_pa + 2 * 4096 - 1) & above_pa))
		return n[SVM_CHECK_PERM_MAP];
	const char *e = check_event(s->event_inj);
	if (e)
		return e;
	/* Legacy PAE paging without nested paging: VMRUN loads the PDPTEs at CR3 as a MOV CR3
	 * would, and a reserved bit in a present one fails it (KVM's nested VMRUN does so). */
	if (!s->np && (s->cr0 & CR0_PG) && (s->cr4 & CR4_PAE) && !(s->efer & EFER_LME)) {
		for (int i = 0; i < 4; i++)
			if ((s->pdpte[i] & 1) && (s->pdpte[i] & (PDPTE_PAE_RSVD | above_pa)))
				return n[SVM_CHECK_PDPTE_MBZ];
	}
	return NULL;
}
