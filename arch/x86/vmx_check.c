/* SPDX-License-Identifier: GPL-2.0-only */
/* VM entry's checks (SDM vol. 3, 26.2.1 and 26.3.1), pure, for audit=1 and the host tests. */
#include "arch/x86/vmx_check.h"
#include "arch/x86/regs.h"

#define VMX_CHECK_NAME_(name, text) text,
const char *const vmx_check_names[VMX_CHECK_COUNT] = { VMX_CHECKS(VMX_CHECK_NAME_) };
#undef VMX_CHECK_NAME_

#define FAIL(rule) return vmx_check_names[VMX_CHECK_##rule]
#define ES 0
#define CS 1
#define SS 2
/* clang-format off */
#define AR_TYPE(ar) ((ar) & 0xf)
/* clang-format on */
#define AR_S BIT(4)
#define AR_DPL(ar) (((ar) >> 5) & 3)
#define AR_P BIT(7)
#define AR_L BIT(13)
#define AR_D BIT(14)
#define AR_G BIT(15)
#define AR_RSVD (0xf00ull | (~0ull << 17))
#define EVENT_VALID BIT(31)
#define EVENT_HAS_ERROR BIT(11)
/* Pending debug exceptions: B0-B3, enabled breakpoint (12), BS (14), RTM (16). */
#define PENDING_RSVD_BITS (0xff0ull | BIT(13) | BIT(15) | (~0ull << 17))
#define PENDING_BS BIT(14)
#define ACTIVITY_HLT 1

/* A control word within its capability MSR: every allowed-0 bit set, nothing past allowed-1. */
static bool ctl_ok(u32 ctl, u64 cap)
{
	return (ctl & (u32)cap) == (u32)cap && !(ctl & ~(u32)(cap >> 32));
}

static bool canonical(u64 a, unsigned bits)
{
	bits = bits >= 32 && bits <= 64 ? bits : 48;
	return (u64)((s64)(a << (64 - bits)) >> (64 - bits)) == a;
}

/* 26.2.1: the controls, and the event the entry injects. */
static const char *check_controls(const struct vmx_check_state *s, u32 proc2, bool ug)
{
	if (!ctl_ok(s->pin, s->pin_cap))
		FAIL(PIN_CTLS);
	if (!ctl_ok(s->proc, s->proc_cap))
		FAIL(PROC_CTLS);
	if ((s->proc & PROC_SECONDARY) && !ctl_ok(s->proc2, s->proc2_cap))
		FAIL(PROC2_CTLS);
	if (!ctl_ok(s->exit, s->exit_cap))
		FAIL(EXIT_CTLS);
	if (!ctl_ok(s->entry, s->entry_cap))
		FAIL(ENTRY_CTLS);
	if (((s->pin & PIN_VIRTUAL_NMI) && !(s->pin & PIN_NMI)) ||
	    ((s->proc & PROC_NMI_WINDOW) && !(s->pin & PIN_VIRTUAL_NMI)))
		FAIL(VIRTUAL_NMI);
	if (ug && !(proc2 & PROC2_EPT))
		FAIL(UNRESTRICTED_EPT);

	u32 e = s->event;
	if (!(e & EVENT_VALID))
		return NULL;
	unsigned type = (e >> 8) & 7, vector = e & 0xff;
	if (type == 1 || (type == 7 && !s->other_event_ok))
		FAIL(EVENT_TYPE);
	if ((type == 2 && vector != 2) || (type == 3 && vector > 31) || (type == 7 && vector))
		FAIL(EVENT_VECTOR);
	bool has_error = vector < 32 && (BIT(vector) & (BIT(8) | BIT(10) | BIT(11) | BIT(12) |
							BIT(13) | BIT(14) | BIT(17) | BIT(21)));
	bool want_error = type == 3 && has_error && (!ug || (s->cr0 & CR0_PE));
	if (!!(e & EVENT_HAS_ERROR) != want_error)
		FAIL(EVENT_ERROR_BIT);
	if (e & 0x7ffff000u)
		FAIL(EVENT_RSVD);
	if ((e & EVENT_HAS_ERROR) && (s->event_error >> 16))
		FAIL(EVENT_ERROR_HIGH);
	if ((type == 4 || type == 5 || type == 6) &&
	    (s->event_len > 15 || (!s->event_len && !s->zero_len_ok)))
		FAIL(EVENT_LENGTH);
	return NULL;
}

/* 26.3.1.1: control registers, DR7, EFER. */
static const char *check_regs(const struct vmx_check_state *s, bool ug, bool ia32e,
			      unsigned pa_bits)
{
	u64 fixed0 = ug ? s->cr0_fixed0 & ~(u64)(CR0_PE | CR0_PG) : s->cr0_fixed0;
	if ((s->cr0 & fixed0) != fixed0 || (s->cr0 & ~s->cr0_fixed1))
		FAIL(CR0_FIXED);
	if ((s->cr0 & CR0_PG) && !(s->cr0 & CR0_PE))
		FAIL(CR0_PG_PE);
	if ((s->cr4 & s->cr4_fixed0) != s->cr4_fixed0 || (s->cr4 & ~s->cr4_fixed1))
		FAIL(CR4_FIXED);
	if (!ia32e && (s->cr4 & CR4_PCIDE))
		FAIL(PCIDE_OUTSIDE_IA32E);
	if (ia32e && (!(s->cr0 & CR0_PG) || !(s->cr4 & CR4_PAE)))
		FAIL(IA32E_PAGING);
	if (s->cr3 >> pa_bits)
		FAIL(CR3_MBZ);
	/* Before the segments, which RFLAGS.VM decides how to check (26.3.1.4). */
	if ((s->rflags & RFLAGS_VM) && (ia32e || !(s->cr0 & CR0_PE)))
		FAIL(VM_FLAG_MODE);
	if ((s->entry & ENTRY_LOAD_DEBUG) && (s->dr7 >> 32))
		FAIL(DR7_HIGH);
	if (s->entry & ENTRY_LOAD_EFER) {
		if (s->efer & ~(u64)(EFER_SCE | EFER_LME | EFER_LMA | EFER_NXE))
			FAIL(EFER_MBZ);
		if (!!(s->efer & EFER_LMA) != ia32e)
			FAIL(LMA_MODE);
		if ((s->cr0 & CR0_PG) && !!(s->efer & EFER_LME) != ia32e)
			FAIL(LME_MODE);
	}
	return NULL;
}

/* Limit against G (only for a usable segment, or CS and TR, which are always checked). */
static bool limit_g_ok(const struct vmx_check_seg *g)
{
	if ((g->limit & 0xfff) != 0xfff && (g->ar & AR_G))
		return false;
	return !((g->limit >> 20) && !(g->ar & AR_G));
}

/* 26.3.1.2: CS, SS, DS, ES, FS, GS outside virtual-8086 mode. */
static const char *check_pm_segs(const struct vmx_check_state *s, bool ug, bool ia32e)
{
	const struct vmx_check_seg *g = s->seg;
	u32 cs = g[CS].ar, ss = g[SS].ar;
	bool ss_usable = !(ss & AR_UNUSABLE);

	if (!ug && (g[SS].sel & 3) != (g[CS].sel & 3))
		FAIL(SS_RPL);
	unsigned ct = AR_TYPE(cs);
	if (!(ct == 9 || ct == 11 || ct == 13 || ct == 15 || (ug && ct == 3)))
		FAIL(CS_TYPE);
	if (ss_usable && AR_TYPE(ss) != 3 && AR_TYPE(ss) != 7)
		FAIL(SS_TYPE);
	for (int i = 0; i < 6; i++) {
		u32 ar = g[i].ar;
		if (i == CS || i == SS || (ar & AR_UNUSABLE))
			continue;
		if (!(ar & 1) || ((ar & 8) && !(ar & 2)))
			FAIL(DATA_TYPE);
	}
	for (int i = 0; i < 6; i++)
		if ((i == CS || !(g[i].ar & AR_UNUSABLE)) && !(g[i].ar & AR_S))
			FAIL(SEG_S);
	if (((ct == 9 || ct == 11) && AR_DPL(cs) != AR_DPL(ss)) ||
	    ((ct == 13 || ct == 15) && AR_DPL(cs) > AR_DPL(ss)) || (ct == 3 && AR_DPL(cs)))
		FAIL(CS_DPL);
	if ((!ug && AR_DPL(ss) != (g[SS].sel & 3u)) ||
	    ((ct == 3 || !(s->cr0 & CR0_PE)) && AR_DPL(ss)))
		FAIL(SS_DPL);
	for (int i = 0; i < 6; i++) {
		u32 ar = g[i].ar;
		if (!ug && i != CS && i != SS && !(ar & AR_UNUSABLE) && AR_TYPE(ar) < 12 &&
		    AR_DPL(ar) < (g[i].sel & 3u))
			FAIL(DATA_DPL);
	}
	for (int i = 0; i < 6; i++) {
		if (i != CS && (g[i].ar & AR_UNUSABLE))
			continue;
		if (!(g[i].ar & AR_P))
			FAIL(SEG_P);
		if (g[i].ar & AR_RSVD)
			FAIL(SEG_AR_RSVD);
	}
	if (ia32e && (cs & AR_L) && (cs & AR_D))
		FAIL(CS_L_D);
	for (int i = 0; i < 6; i++)
		if ((i == CS || !(g[i].ar & AR_UNUSABLE)) && !limit_g_ok(&g[i]))
			FAIL(SEG_G);
	return NULL;
}

/* 26.3.1.2: selectors, bases, the six in virtual-8086 mode or else, TR, LDTR, GDTR, IDTR. */
static const char *check_segs(const struct vmx_check_state *s, bool ug, bool ia32e)
{
	const struct vmx_check_seg *g = s->seg, *tr = &g[VMX_CHECK_TR], *ldtr = &g[VMX_CHECK_LDTR];
	bool v86 = s->rflags & RFLAGS_VM, ldtr_usable = !(ldtr->ar & AR_UNUSABLE);

	if (tr->sel & 4)
		FAIL(TR_TI);
	if (ldtr_usable && (ldtr->sel & 4))
		FAIL(LDTR_TI);
	if (!canonical(g[4].base, s->va_bits) || !canonical(g[5].base, s->va_bits) ||
	    !canonical(tr->base, s->va_bits) ||
	    (ldtr_usable && !canonical(ldtr->base, s->va_bits)) || (g[CS].base >> 32))
		FAIL(BASE);
	for (int i = ES; i <= 3; i++)
		if (i != CS && !(g[i].ar & AR_UNUSABLE) && (g[i].base >> 32))
			FAIL(BASE);
	if (v86) {
		for (int i = 0; i < 6; i++)
			if (g[i].base != (u64)g[i].sel << 4 || g[i].limit != 0xffff ||
			    g[i].ar != 0xf3)
				FAIL(VM86_SEG);
	} else {
		const char *r = check_pm_segs(s, ug, ia32e);
		if (r)
			return r;
	}
	unsigned tt = AR_TYPE(tr->ar);
	if ((tt != 11 && (ia32e || tt != 3)) || (tr->ar & (AR_S | AR_UNUSABLE | AR_RSVD)) ||
	    !(tr->ar & AR_P) || !limit_g_ok(tr))
		FAIL(TR_AR);
	if (ldtr_usable && (AR_TYPE(ldtr->ar) != 2 || (ldtr->ar & (AR_S | AR_RSVD)) ||
			    !(ldtr->ar & AR_P) || !limit_g_ok(ldtr)))
		FAIL(LDTR_AR);
	if ((s->gdtr_limit >> 16) || (s->idtr_limit >> 16) ||
	    !canonical(s->gdtr_base, s->va_bits) || !canonical(s->idtr_base, s->va_bits))
		FAIL(DESC_TABLE);
	return NULL;
}

/* 26.3.1.4-26.3.1.6: RIP, RFLAGS, the non-register state, the PDPTEs. */
static const char *check_rest(const struct vmx_check_state *s, bool ia32e, unsigned pa_bits)
{
	bool long_cs = ia32e && (s->seg[CS].ar & AR_L);
	unsigned type = (s->event >> 8) & 7;
	bool inject = s->event & EVENT_VALID;

	if ((!long_cs && (s->rip >> 32)) || (long_cs && !canonical(s->rip, s->va_bits)))
		FAIL(RIP);
	if ((s->rflags & ~0x3f7fd7ull) || !(s->rflags & 2))
		FAIL(RFLAGS_RSVD);
	if (inject && type == 0 && !(s->rflags & RFLAGS_IF))
		FAIL(INTERRUPT_IF);
	if (s->activity > 3 || (s->activity == ACTIVITY_HLT && AR_DPL(s->seg[SS].ar)))
		FAIL(ACTIVITY);
	u32 is = s->intr_state;
	if (is & ~0x1fu)
		FAIL(INTR_RSVD);
	if ((is & INTR_STI) && (is & INTR_MOV_SS))
		FAIL(INTR_STI_MOV_SS);
	if ((is & INTR_STI) && !(s->rflags & RFLAGS_IF))
		FAIL(INTR_STI_IF);
	if (inject && ((type == 0 && (is & (INTR_STI | INTR_MOV_SS))) ||
		       (type == 2 &&
			((is & INTR_MOV_SS) || ((s->pin & PIN_VIRTUAL_NMI) && (is & INTR_NMI))))))
		FAIL(INTR_EVENT);
	if (s->pending_dbg & PENDING_RSVD_BITS)
		FAIL(PENDING_DBG_RSVD);
	if ((is & (INTR_STI | INTR_MOV_SS)) || s->activity == ACTIVITY_HLT) {
		bool step = (s->rflags & RFLAGS_TF) && !(s->debugctl & DEBUGCTL_BTF);
		if (!!(s->pending_dbg & PENDING_BS) != step)
			FAIL(PENDING_DBG_BS);
	}
	if (s->link != ~0ull)
		FAIL(LINK_POINTER);
	/* PAE paging: the PDPTEs (EPT: the VMCS's fields; else read at CR3) must be clean. */
	if ((s->cr0 & CR0_PG) && (s->cr4 & CR4_PAE) && !ia32e) {
		for (int i = 0; i < 4; i++)
			if ((s->pdpte[i] & 1) &&
			    (s->pdpte[i] & (PDPTE_PAE_RSVD | (~0ull << pa_bits))))
				FAIL(PDPTE_MBZ);
	}
	return NULL;
}

const char *vmx_check(const struct vmx_check_state *s)
{
	u32 proc2 = s->proc & PROC_SECONDARY ? s->proc2 : 0;
	bool ug = proc2 & PROC2_UNRESTRICTED, ia32e = s->entry & ENTRY_IA32E;
	unsigned pa_bits = s->maxphyaddr && s->maxphyaddr <= 52 ? s->maxphyaddr : 52;
	const char *r = check_controls(s, proc2, ug);

	if (!r)
		r = check_regs(s, ug, ia32e, pa_bits);
	if (!r)
		r = check_segs(s, ug, ia32e);
	if (!r)
		r = check_rest(s, ia32e, pa_bits);
	return r;
}
