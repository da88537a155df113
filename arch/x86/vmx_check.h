/* SPDX-License-Identifier: GPL-2.0-only */
/* VM entry's checks (SDM vol. 3, 26.2 and 26.3.1) over a VMCS's fields, for audit=1. */
#ifndef ARCH_X86_VMX_CHECK_H
#define ARCH_X86_VMX_CHECK_H

#include "lib/types.h"

/* The control and state bits the checks read (vmx.c sets them). */
#define PIN_NMI BIT(3)
#define PIN_VIRTUAL_NMI BIT(5)
#define PROC_NMI_WINDOW BIT(22)
#define PROC_SECONDARY BIT(31)
#define PROC2_EPT BIT(1)
#define PROC2_UNRESTRICTED BIT(7)
#define ENTRY_LOAD_DEBUG BIT(2)
#define ENTRY_IA32E BIT(9)
#define ENTRY_LOAD_EFER BIT(15)
#define INTR_STI BIT(0)
#define INTR_MOV_SS BIT(1)
#define INTR_NMI BIT(3)
#define AR_UNUSABLE BIT(16)

/* Each rule VM entry enforces: X(NAME, what the state breaks), in the order checked. */
/* clang-format off */
#define VMX_CHECKS(X) \
	X(PIN_CTLS, "pin-based controls outside IA32_VMX_PINBASED_CTLS") \
	X(PROC_CTLS, "processor-based controls outside IA32_VMX_PROCBASED_CTLS") \
	X(PROC2_CTLS, "secondary controls outside IA32_VMX_PROCBASED_CTLS2") \
	X(EXIT_CTLS, "exit controls outside IA32_VMX_EXIT_CTLS") \
	X(ENTRY_CTLS, "entry controls outside IA32_VMX_ENTRY_CTLS") \
	X(VIRTUAL_NMI, "virtual NMIs without NMI exiting, or NMI-window exiting without them") \
	X(UNRESTRICTED_EPT, "unrestricted guest without EPT") \
	X(EVENT_TYPE, "entry interruption type reserved") \
	X(EVENT_VECTOR, "entry interruption vector wrong for its type") \
	X(EVENT_ERROR_BIT, "entry deliver-error-code bit wrong for the vector") \
	X(EVENT_RSVD, "entry interruption-information bits 30:12 set") \
	X(EVENT_ERROR_HIGH, "entry error code bits 31:16 set") \
	X(EVENT_LENGTH, "entry instruction length outside 1-15 for a software event") \
	X(CR0_FIXED, "CR0 outside IA32_VMX_CR0_FIXED0/1") \
	X(CR0_PG_PE, "CR0.PG set with CR0.PE clear") \
	X(CR4_FIXED, "CR4 outside IA32_VMX_CR4_FIXED0/1") \
	X(PCIDE_OUTSIDE_IA32E, "CR4.PCIDE set outside IA-32e mode") \
	X(IA32E_PAGING, "IA-32e mode guest without CR0.PG and CR4.PAE") \
	X(CR3_MBZ, "CR3 bits above the physical address width") \
	X(VM_FLAG_MODE, "RFLAGS.VM in IA-32e mode or with CR0.PE clear") \
	X(DR7_HIGH, "DR7 bits 63:32 set") \
	X(EFER_MBZ, "EFER reserved bit set") \
	X(LMA_MODE, "EFER.LMA differs from IA-32e mode guest") \
	X(LME_MODE, "EFER.LME differs from IA-32e mode guest under CR0.PG") \
	X(TR_TI, "TR selector TI set") \
	X(LDTR_TI, "usable LDTR selector TI set") \
	X(SS_RPL, "SS.RPL differs from CS.RPL") \
	X(BASE, "segment base not canonical or above 4 GiB") \
	X(VM86_SEG, "virtual-8086 segment not base sel*16, limit 0xffff, AR 0xf3") \
	X(CS_TYPE, "CS type not accessed code") \
	X(SS_TYPE, "usable SS type not read/write accessed data") \
	X(DATA_TYPE, "usable data segment not accessed, or execute-only code") \
	X(SEG_S, "CS or usable SS/DS/ES/FS/GS with S clear") \
	X(CS_DPL, "CS.DPL against SS.DPL") \
	X(SS_DPL, "SS.DPL differs from its RPL, or not 0 in real mode") \
	X(DATA_DPL, "usable data segment DPL below its RPL") \
	X(SEG_P, "CS or usable SS/DS/ES/FS/GS not present") \
	X(SEG_AR_RSVD, "segment access-rights reserved bits set") \
	X(CS_L_D, "IA-32e mode guest with CS.L and CS.D set") \
	X(SEG_G, "segment limit and granularity disagree") \
	X(TR_AR, "TR not a usable present busy TSS") \
	X(LDTR_AR, "usable LDTR not a present LDT") \
	X(DESC_TABLE, "GDTR or IDTR limit above 0xffff or base not canonical") \
	X(RIP, "RIP above 4 GiB outside 64-bit code, or not canonical") \
	X(RFLAGS_RSVD, "RFLAGS reserved bits set or bit 1 clear") \
	X(INTERRUPT_IF, "external interrupt injected with RFLAGS.IF clear") \
	X(ACTIVITY, "activity state above 3, or HLT with SS.DPL not 0") \
	X(INTR_RSVD, "interruptibility-state reserved bits set") \
	X(INTR_STI_MOV_SS, "blocking by STI and by MOV SS both set") \
	X(INTR_STI_IF, "blocking by STI with RFLAGS.IF clear") \
	X(INTR_EVENT, "external interrupt or NMI injected in a shadow, or NMI while NMIs are blocked") \
	X(PENDING_DBG_RSVD, "pending debug exceptions reserved bits set") \
	X(PENDING_DBG_BS, "pending BS disagrees with TF and BTF in a shadow or HLT") \
	X(LINK_POINTER, "VMCS link pointer not all ones") \
	X(PDPTE_MBZ, "PAE PDPTE reserved bit set")
/* clang-format on */

#define VMX_CHECK_ENUM_(name, text) VMX_CHECK_##name,
enum vmx_check_rule { VMX_CHECKS(VMX_CHECK_ENUM_) VMX_CHECK_COUNT };
#undef VMX_CHECK_ENUM_

extern const char *const vmx_check_names[VMX_CHECK_COUNT];

/* A guest segment as the VMCS holds it (access rights in VMX's format, unusable in bit 16). */
struct vmx_check_seg {
	u16 sel;
	u32 limit, ar;
	u64 base;
};
enum { VMX_CHECK_LDTR = 6, VMX_CHECK_TR, VMX_CHECK_SEGS }; /* after ES CS SS DS FS GS */

/* What VM entry checks, copied out of a VMCS, with what this CPU allows. */
struct vmx_check_state {
	u32 pin, proc, proc2, exit, entry;
	/* The capability MSRs (the TRUE ones where offered): allowed-0 low, allowed-1 high. */
	u64 pin_cap, proc_cap, proc2_cap, exit_cap, entry_cap;
	u64 cr0_fixed0, cr0_fixed1, cr4_fixed0, cr4_fixed1;
	u8 maxphyaddr, va_bits;
	bool zero_len_ok;    /* IA32_VMX_MISC bit 30: software events of length 0 */
	bool other_event_ok; /* the monitor trap flag: interruption type 7 */
	u64 cr0, cr3, cr4, dr7, debugctl, efer, rip, rflags;
	struct vmx_check_seg seg[VMX_CHECK_SEGS];
	u64 gdtr_base, idtr_base;
	u32 gdtr_limit, idtr_limit;
	u32 activity, intr_state;
	u64 pending_dbg, link;
	u64 pdpte[4]; /* EPT: the VMCS's fields; else the four entries at CR3 */
	u32 event, event_error, event_len;
};

/* The name of the first rule s breaks (vmx_check_names), or NULL where VM entry must take it. */
const char *vmx_check(const struct vmx_check_state *s);

#endif
