/* SPDX-License-Identifier: GPL-2.0-only */
/* VMRUN's consistency checks (APM vol. 2, 15.5.1) over a VMCB's fields, for audit=1. */
#ifndef ARCH_X86_SVM_CHECK_H
#define ARCH_X86_SVM_CHECK_H

#include "lib/types.h"

/* Each rule a strict VMRUN enforces: X(NAME, what the state breaks), in the order checked. */
#define SVM_CHECKS(X) \
	X(SVME_CLEAR, "EFER.SVME clear") \
	X(CR0_CD_NW, "CR0.NW set with CR0.CD clear") \
	X(CR0_HIGH, "CR0 bits 63:32 set") \
	X(CR3_MBZ, "CR3 reserved bit set in long mode") \
	X(CR4_MBZ, "CR4 reserved bit set") \
	X(DR6_HIGH, "DR6 bits 63:32 set") \
	X(DR7_HIGH, "DR7 bits 63:32 set") \
	X(EFER_MBZ, "EFER reserved bit set") \
	X(LONG_NO_PAE, "EFER.LME and CR0.PG with CR4.PAE clear") \
	X(LONG_NO_PE, "EFER.LME and CR0.PG with CR0.PE clear") \
	X(LONG_CS_L_D, "long mode with CS.L and CS.D both set") \
	X(VMRUN_INTERCEPT, "VMRUN intercept clear") \
	X(ASID_ZERO, "ASID 0") \
	X(PERM_MAP, "IOPM or MSRPM past the physical address width") \
	X(EVENT_TYPE, "EVENTINJ type reserved") \
	X(EVENT_VECTOR, "EVENTINJ exception vector 2 or above 31") \
	X(PDPTE_MBZ, "PAE PDPTE reserved bit set")

#define SVM_CHECK_ENUM_(name, text) SVM_CHECK_##name,
enum svm_check_rule { SVM_CHECKS(SVM_CHECK_ENUM_) SVM_CHECK_COUNT };
#undef SVM_CHECK_ENUM_

extern const char *const svm_check_names[SVM_CHECK_COUNT];

/* What VMRUN checks, copied out of a VMCB, with what this CPU reserves. */
struct svm_check_state {
	u64 efer, cr0, cr3, cr4, dr6, dr7;
	u16 cs_attr; /* VMCB format: L in bit 9, D/B in bit 10 */
	u32 misc2;   /* the second intercept word: VMRUN is bit 0 */
	u32 asid;
	u64 event_inj;
	u64 iopm_pa, msrpm_pa;
	bool np;	       /* nested paging: CR3 is the guest's, VMRUN loads no PDPTEs */
	u64 pdpte[4];	       /* without nested paging, the four entries at CR3 */
	u64 cr4_mbz, efer_mbz; /* this CPU's reserved bits (svm_check_reserved) */
	u8 maxphyaddr;
};

/* The CR4 and EFER bits this CPU reserves, from CPUID 1 ECX, 7.0 EBX/ECX, 0x80000001 ECX/EDX. */
void svm_check_reserved(u32 l1_ecx, u32 l7_ebx, u32 l7_ecx, u32 e1_ecx, u32 e1_edx, u64 *cr4_mbz,
			u64 *efer_mbz);

/* The name of the first rule s breaks (svm_check_names), or NULL where VMRUN must take it. */
const char *svm_check(const struct svm_check_state *s);

#endif
