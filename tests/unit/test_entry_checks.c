/* SPDX-License-Identifier: GPL-2.0-only */
/* The backends' own VM-entry checks (audit=1): valid states pass, each rule's one broken field is caught by name. */
#include <string.h>

#include "tests/unit/harness.h"
#include "arch/x86/regs.h"
#include "arch/x86/svm_check.h"
#include "arch/x86/vmx_check.h"

/* ---- SVM (APM vol. 2, 15.5.1) ---- */

/* A CPU like QEMU's -cpu max: SMEP, SMAP, PCID, OSXSAVE, FSGSBASE, UMIP; NX, FFXSR. */
static void svm_cpu(struct svm_check_state *s)
{
	svm_check_reserved(BIT(17) | BIT(26), BIT(0) | BIT(7) | BIT(20), BIT(2), 0,
			   BIT(20) | BIT(25), &s->cr4_mbz, &s->efer_mbz);
	s->maxphyaddr = 40;
}

/* A 64-bit guest as Umbra's shadow MMU runs it. */
static struct svm_check_state svm_long(void)
{
	struct svm_check_state s = {
		.efer = EFER_SCE | EFER_LME | EFER_LMA | EFER_NXE | EFER_SVME,
		.cr0 = CR0_PE | CR0_ET | CR0_NE | CR0_WP | CR0_PG,
		.cr3 = 0x1234000,
		.cr4 = CR4_PAE | CR4_PGE | CR4_OSFXSR | CR4_OSXMMEXCPT | CR4_SMEP,
		.dr6 = 0xffff0ff0,
		.dr7 = 0x400,
		.cs_attr = 0x29b /* L, P, code */,
		.misc2 = 0x7f,
		.asid = 1,
		.iopm_pa = 0x100000,
		.msrpm_pa = 0x103000,
	};
	svm_cpu(&s);
	return s;
}

/* A 32-bit PAE guest without nested paging: VMRUN loads its PDPTEs. */
static struct svm_check_state svm_pae(void)
{
	struct svm_check_state s = svm_long();
	s.efer = EFER_SVME;
	s.cs_attr = 0xc9b;
	s.pdpte[0] = 0x2000001;
	s.pdpte[3] = 0x3000001;
	s.pdpte[1] = 0xfffffffffffff1e6ull; /* not present: its other bits are free */
	return s;
}

typedef void (*svm_mutation)(struct svm_check_state *s);
static void m_svme(struct svm_check_state *s)
{
	s->efer &= ~EFER_SVME;
}
static void m_nw(struct svm_check_state *s)
{
	s->cr0 |= CR0_NW;
}
static void m_cr0_high(struct svm_check_state *s)
{
	s->cr0 |= BIT(32);
}
static void m_cr3(struct svm_check_state *s)
{
	s->cr3 |= BIT(40);
}
static void m_cr4(struct svm_check_state *s)
{
	s->cr4 |= CR4_VMXE;
}
static void m_cr4_feature(struct svm_check_state *s)
{
	s->cr4 |= CR4_LA57;
}
static void m_dr6(struct svm_check_state *s)
{
	s->dr6 |= BIT(32);
}
static void m_dr7(struct svm_check_state *s)
{
	s->dr7 |= BIT(63);
}
static void m_efer(struct svm_check_state *s)
{
	s->efer |= BIT(1);
}
static void m_efer_feature(struct svm_check_state *s)
{
	s->efer |= BIT(15); /* TCE */
}
static void m_no_pae(struct svm_check_state *s)
{
	s->cr4 &= ~CR4_PAE;
}
static void m_no_pe(struct svm_check_state *s)
{
	s->cr0 &= ~CR0_PE;
}
static void m_cs_ld(struct svm_check_state *s)
{
	s->cs_attr |= BIT(10);
}
static void m_vmrun(struct svm_check_state *s)
{
	s->misc2 &= ~1u;
}
static void m_asid(struct svm_check_state *s)
{
	s->asid = 0;
}
static void m_msrpm(struct svm_check_state *s)
{
	s->msrpm_pa = (1ull << 40) - 4096;
}
static void m_inj_type(struct svm_check_state *s)
{
	s->event_inj = BIT(31) | (5u << 8) | 32;
}
static void m_inj_nmi_exc(struct svm_check_state *s)
{
	s->event_inj = BIT(31) | (3u << 8) | 2;
}
static void m_inj_vec(struct svm_check_state *s)
{
	s->event_inj = BIT(31) | (3u << 8) | 32;
}

static const struct {
	svm_mutation mutate;
	enum svm_check_rule rule;
} svm_long_mutations[] = {
	{ m_svme, SVM_CHECK_SVME_CLEAR },      { m_nw, SVM_CHECK_CR0_CD_NW },
	{ m_cr0_high, SVM_CHECK_CR0_HIGH },    { m_cr3, SVM_CHECK_CR3_MBZ },
	{ m_cr4, SVM_CHECK_CR4_MBZ },	       { m_cr4_feature, SVM_CHECK_CR4_MBZ },
	{ m_dr6, SVM_CHECK_DR6_HIGH },	       { m_dr7, SVM_CHECK_DR7_HIGH },
	{ m_efer, SVM_CHECK_EFER_MBZ },	       { m_efer_feature, SVM_CHECK_EFER_MBZ },
	{ m_no_pae, SVM_CHECK_LONG_NO_PAE },   { m_no_pe, SVM_CHECK_LONG_NO_PE },
	{ m_cs_ld, SVM_CHECK_LONG_CS_L_D },    { m_vmrun, SVM_CHECK_VMRUN_INTERCEPT },
	{ m_asid, SVM_CHECK_ASID_ZERO },       { m_msrpm, SVM_CHECK_PERM_MAP },
	{ m_inj_type, SVM_CHECK_EVENT_TYPE },  { m_inj_nmi_exc, SVM_CHECK_EVENT_VECTOR },
	{ m_inj_vec, SVM_CHECK_EVENT_VECTOR },
};

static void m_pdpte_a(struct svm_check_state *s)
{
	s->pdpte[3] |= BIT(5); /* Accessed */
}
static void m_pdpte_nx(struct svm_check_state *s)
{
	s->pdpte[0] |= BIT(63);
}
static void m_pdpte_pa(struct svm_check_state *s)
{
	s->pdpte[0] |= BIT(45);
}

static const struct {
	svm_mutation mutate;
	enum svm_check_rule rule;
} svm_pae_mutations[] = {
	{ m_pdpte_a, SVM_CHECK_PDPTE_MBZ },
	{ m_pdpte_nx, SVM_CHECK_PDPTE_MBZ },
	{ m_pdpte_pa, SVM_CHECK_PDPTE_MBZ },
};

static void svm_expect(struct svm_check_state s, svm_mutation m, enum svm_check_rule rule)
{
	m(&s);
	const char *got = svm_check(&s);
	if (!got || strcmp(got, svm_check_names[rule]))
		fail_msg("rule %d: expected \"%s\", got \"%s\"", rule, svm_check_names[rule],
			 got ? got : "(passed)");
}

static void svm_valid_states_pass(void **state)
{
	(void)state;
	struct svm_check_state s = svm_long();
	assert_null(svm_check(&s));
	s = svm_pae();
	assert_null(svm_check(&s));
	/* Valid events: an interrupt, NMI (type 2, vector ignored), #PF with its error code, INT n. */
	static const u64 events[] = { BIT(31) | 0x20, BIT(31) | (2u << 8) | 2,
				      BIT(31) | BIT(11) | (3u << 8) | 14 | (6ull << 32),
				      BIT(31) | (4u << 8) | 0x80,
				      (5u << 8) | 0x20 /* not valid */ };
	for (unsigned i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		s = svm_long();
		s.event_inj = events[i];
		assert_null(svm_check(&s));
	}
	/* CD with NW is legal; real mode as the shadow MMU does not run it, but VMRUN takes it. */
	s = svm_long();
	s.cr0 |= CR0_CD | CR0_NW;
	assert_null(svm_check(&s));
	s = svm_pae();
	s.cr0 &= ~(CR0_PG | CR0_PE);
	s.pdpte[0] |= BIT(5); /* no paging: the PDPTEs are not loaded */
	assert_null(svm_check(&s));
	/* Nested paging: CR3 is the guest's, its PDPTEs are read at use, not at VMRUN. */
	s = svm_pae();
	s.np = true;
	s.pdpte[0] |= BIT(5);
	assert_null(svm_check(&s));
	/* CS.D alone (32-bit code) in long mode's compatibility mode is legal. */
	s = svm_long();
	s.cs_attr = 0xc9b;
	assert_null(svm_check(&s));
}

static void svm_each_rule_caught(void **state)
{
	(void)state;
	bool covered[SVM_CHECK_COUNT] = { 0 };
	for (unsigned i = 0; i < sizeof(svm_long_mutations) / sizeof(svm_long_mutations[0]); i++) {
		svm_expect(svm_long(), svm_long_mutations[i].mutate, svm_long_mutations[i].rule);
		covered[svm_long_mutations[i].rule] = true;
	}
	for (unsigned i = 0; i < sizeof(svm_pae_mutations) / sizeof(svm_pae_mutations[0]); i++) {
		svm_expect(svm_pae(), svm_pae_mutations[i].mutate, svm_pae_mutations[i].rule);
		covered[svm_pae_mutations[i].rule] = true;
	}
	for (int r = 0; r < SVM_CHECK_COUNT; r++)
		if (!covered[r])
			fail_msg("rule \"%s\" has no mutation in the table", svm_check_names[r]);
}

/* ---- VMX (SDM vol. 3, 26.2.1 and 26.3.1) ---- */

enum { ES_, CS_, SS_, DS_, FS_, GS_ };
#define UNUSABLE ((struct vmx_check_seg){ .ar = AR_UNUSABLE })

/* Controls and capabilities like Bochs' Haswell: the default-1 bits in allowed-0. */
static void vmx_cpu(struct vmx_check_state *s)
{
	s->pin_cap = (0x7full << 32) | 0x16;
	s->proc_cap = (0xffffffffull << 32) | 0x0401e172;
	s->proc2_cap = (0xbfull << 32);
	s->exit_cap = (0xffffffffull << 32) | 0x36dff;
	s->entry_cap = (0xffffffffull << 32) | 0x11ff;
	s->cr0_fixed0 = CR0_PE | CR0_NE | CR0_PG;
	s->cr0_fixed1 = 0xffffffff;
	s->cr4_fixed0 = CR4_VMXE;
	s->cr4_fixed1 = 0x3767ff;
	s->maxphyaddr = 39;
	s->va_bits = 48;
	s->other_event_ok = true;
	s->pin = 0x16 | BIT(0) | PIN_NMI | PIN_VIRTUAL_NMI;
	s->proc = 0x0401e172 | BIT(7) | BIT(25) | BIT(28);
	s->exit = 0x36dff;
	s->entry = 0x11ff | ENTRY_LOAD_EFER;
	s->link = ~0ull;
	s->dr7 = 0x400;
	s->gdtr_limit = s->idtr_limit = 0xffff;
	s->seg[VMX_CHECK_LDTR] = UNUSABLE;
	s->seg[VMX_CHECK_TR] = (struct vmx_check_seg){ .ar = 0x8b, .limit = 0x67 };
}

/* A 64-bit guest under shadow paging. */
static struct vmx_check_state vmx_long(void)
{
	struct vmx_check_state s = { 0 };
	vmx_cpu(&s);
	s.entry |= ENTRY_IA32E;
	s.cr0 = CR0_PE | CR0_ET | CR0_NE | CR0_WP | CR0_PG;
	s.cr3 = 0x1234000;
	s.cr4 = CR4_PAE | CR4_VMXE | CR4_OSFXSR;
	s.efer = EFER_SCE | EFER_LME | EFER_LMA | EFER_NXE;
	s.rflags = 0x202;
	s.rip = 0xffffffff80001000ull;
	s.seg[CS_] = (struct vmx_check_seg){ .sel = 8, .ar = 0xa09b, .limit = 0xffffffff };
	s.seg[SS_] = (struct vmx_check_seg){ .sel = 0x10, .ar = 0xc093, .limit = 0xffffffff };
	s.seg[DS_] = s.seg[ES_] = s.seg[SS_];
	s.seg[FS_] = s.seg[GS_] = UNUSABLE;
	s.seg[FS_].base = 0xffff800000001000ull;
	return s;
}

/* A 32-bit PAE guest with interrupts off: entry reads its shadow root's PDPTEs. */
static struct vmx_check_state vmx_pae(void)
{
	struct vmx_check_state s = vmx_long();
	s.entry &= ~(u32)ENTRY_IA32E;
	s.efer = 0;
	s.rflags = 2;
	s.rip = 0x100010;
	s.seg[CS_].ar = 0xc09b;
	s.pdpte[0] = 0x2000001;
	s.pdpte[2] = 0xfffffffffffff1e6ull; /* not present: its other bits are free */
	return s;
}

/* Real mode without unrestricted guest: virtual-8086 mode under PE and PG. */
static struct vmx_check_state vmx_vm86(void)
{
	struct vmx_check_state s = vmx_pae();
	s.cr4 = CR4_VMXE;
	s.rflags = RFLAGS_VM | RFLAGS_IF | 2;
	s.rip = 0x7c00;
	for (int i = 0; i < 6; i++)
		s.seg[i] = (struct vmx_check_seg){ .sel = (u16)(0x1000 + i),
						   .base = (0x1000 + i) << 4,
						   .limit = 0xffff,
						   .ar = 0xf3 };
	return s;
}

/* Real mode on EPT with unrestricted guest: PE and PG clear, CS type 3. */
static struct vmx_check_state vmx_ug(void)
{
	struct vmx_check_state s = vmx_pae();
	s.proc |= PROC_SECONDARY;
	s.proc2 = PROC2_EPT | PROC2_UNRESTRICTED;
	s.cr0 = CR0_NE | CR0_ET;
	s.cr4 = CR4_VMXE;
	for (int i = 0; i < 6; i++)
		s.seg[i] = (struct vmx_check_seg){
			.sel = 0xf000, .base = 0xf0000, .limit = 0xffff, .ar = 0x93
		};
	return s;
}

static struct vmx_check_state vmx_long_irq(void)
{
	struct vmx_check_state s = vmx_long();
	s.event = BIT(31) | 0x30;
	return s;
}

static struct vmx_check_state vmx_long_nmi(void)
{
	struct vmx_check_state s = vmx_long();
	s.event = BIT(31) | (2u << 8) | 2;
	return s;
}

static struct vmx_check_state vmx_long_hlt(void)
{
	struct vmx_check_state s = vmx_long();
	s.activity = 1;
	return s;
}

typedef struct vmx_check_state (*vmx_base)(void);
typedef void (*vmx_mutation)(struct vmx_check_state *s);
#define VMUT(name, ...) \
	static void name(struct vmx_check_state *s) \
	{ \
		__VA_ARGS__; \
	}
VMUT(v_pin0, s->pin &= ~(u32)BIT(1))
VMUT(v_pin1, s->pin |= BIT(7))
VMUT(v_proc, s->proc &= ~(u32)BIT(1))
VMUT(v_proc2, s->proc2 |= BIT(20))
VMUT(v_exit, s->exit &= ~(u32)BIT(0))
VMUT(v_entry, s->entry &= ~(u32)BIT(0))
VMUT(v_vnmi, s->pin &= ~(u32)PIN_NMI)
VMUT(v_nmiwin, s->pin &= ~(u32)PIN_VIRTUAL_NMI; s->proc |= PROC_NMI_WINDOW)
VMUT(v_ug, s->proc2 &= ~(u32)PROC2_EPT)
VMUT(v_ev_type, s->event = BIT(31) | (1u << 8) | 0x20)
VMUT(v_ev_nmi_vec, s->event = BIT(31) | (2u << 8) | 3)
VMUT(v_ev_exc_vec, s->event = BIT(31) | (3u << 8) | 32)
VMUT(v_ev_no_err, s->event = BIT(31) | (3u << 8) | 14)
VMUT(v_ev_err, s->event = BIT(31) | BIT(11) | (3u << 8) | 6)
VMUT(v_ev_rsvd, s->event = BIT(31) | BIT(12) | 0x20)
VMUT(v_ev_err_high, s->event = BIT(31) | BIT(11) | (3u << 8) | 13; s->event_error = 0x10000)
VMUT(v_ev_len0, s->event = BIT(31) | (4u << 8) | 0x80)
VMUT(v_ev_len16, s->event = BIT(31) | (4u << 8) | 0x80; s->event_len = 16)
VMUT(v_cr0_ne, s->cr0 &= ~CR0_NE)
VMUT(v_cr0_high, s->cr0 |= BIT(32))
VMUT(v_cr0_pg, s->cr0 |= CR0_PG)
VMUT(v_cr4, s->cr4 &= ~CR4_VMXE)
VMUT(v_pcide, s->cr4 |= CR4_PCIDE)
VMUT(v_no_pae, s->cr4 &= ~CR4_PAE)
VMUT(v_cr3, s->cr3 |= BIT(45))
VMUT(v_dr7, s->dr7 |= BIT(32))
VMUT(v_efer, s->efer |= BIT(1))
VMUT(v_lma, s->efer &= ~EFER_LMA)
VMUT(v_lme, s->efer &= ~EFER_LME)
VMUT(v_tr_ti, s->seg[VMX_CHECK_TR].sel |= 4)
VMUT(v_ldtr_ti, s->seg[VMX_CHECK_LDTR] = (struct vmx_check_seg){ .sel = 0x1c, .ar = 0x82 })
VMUT(v_ss_rpl, s->seg[SS_].sel |= 3)
VMUT(v_fs_base, s->seg[FS_].base = 0x0000800000000000ull)
VMUT(v_cs_base, s->seg[CS_].base = BIT(32))
VMUT(v_ds_base, s->seg[DS_].base = BIT(32))
VMUT(v_vm86_base, s->seg[DS_].base += 1)
VMUT(v_vm86_ar, s->seg[CS_].ar = 0xfb)
VMUT(v_cs_type, s->seg[CS_].ar = (s->seg[CS_].ar & ~0xfu) | 3)
VMUT(v_ss_type, s->seg[SS_].ar = (s->seg[SS_].ar & ~0xfu) | 0xb)
VMUT(v_ds_unaccessed, s->seg[DS_].ar &= ~1u)
VMUT(v_ds_execonly, s->seg[DS_].ar = (s->seg[DS_].ar & ~0xfu) | 9)
VMUT(v_ds_s, s->seg[DS_].ar &= ~0x10u)
VMUT(v_cs_dpl, s->seg[CS_].ar |= 3 << 5)
VMUT(v_ss_dpl, s->seg[SS_].ar |= 3 << 5)
VMUT(v_ds_dpl, s->seg[DS_].sel |= 3)
VMUT(v_ds_p, s->seg[DS_].ar &= ~0x80u)
VMUT(v_ds_rsvd, s->seg[DS_].ar |= BIT(8))
VMUT(v_cs_ld, s->seg[CS_].ar |= BIT(14))
VMUT(v_ds_g, s->seg[DS_].limit = 0xfffff000)
VMUT(v_ds_nog, s->seg[DS_].ar &= ~(u32)BIT(15))
VMUT(v_tr_type, s->seg[VMX_CHECK_TR].ar = 0x89)
VMUT(v_tr_unusable, s->seg[VMX_CHECK_TR].ar |= AR_UNUSABLE)
VMUT(v_ldtr_type, s->seg[VMX_CHECK_LDTR] = (struct vmx_check_seg){ .sel = 0x18, .ar = 0x83 })
VMUT(v_gdtr, s->gdtr_limit = 0x10000)
VMUT(v_idtr, s->idtr_base = 0x0000800000000000ull)
VMUT(v_rip32, s->rip = BIT(32))
VMUT(v_rip64, s->rip = 0x0000800000000000ull)
VMUT(v_rflags1, s->rflags &= ~2ull)
VMUT(v_rflags15, s->rflags |= BIT(15))
VMUT(v_rflags_vm, s->rflags |= RFLAGS_VM)
VMUT(v_if, s->rflags &= ~RFLAGS_IF)
VMUT(v_activity, s->activity = 4)
VMUT(v_intr_rsvd, s->intr_state = BIT(5))
VMUT(v_sti_movss, s->intr_state = INTR_STI | INTR_MOV_SS)
VMUT(v_sti, s->intr_state = INTR_STI)
VMUT(v_movss, s->intr_state = INTR_MOV_SS)
VMUT(v_nmi_blocked, s->intr_state = INTR_NMI)
VMUT(v_pending_rsvd, s->pending_dbg = BIT(4))
VMUT(v_pending_bs, s->pending_dbg = BIT(14))
VMUT(v_link, s->link = 0)
VMUT(v_pdpte_a, s->pdpte[0] |= BIT(5))
VMUT(v_pdpte_pa, s->pdpte[0] |= BIT(40))

static const struct {
	vmx_base base;
	vmx_mutation mutate;
	enum vmx_check_rule rule;
} vmx_mutations[] = {
	{ vmx_long, v_pin0, VMX_CHECK_PIN_CTLS },
	{ vmx_long, v_pin1, VMX_CHECK_PIN_CTLS },
	{ vmx_long, v_proc, VMX_CHECK_PROC_CTLS },
	{ vmx_ug, v_proc2, VMX_CHECK_PROC2_CTLS },
	{ vmx_long, v_exit, VMX_CHECK_EXIT_CTLS },
	{ vmx_long, v_entry, VMX_CHECK_ENTRY_CTLS },
	{ vmx_long, v_vnmi, VMX_CHECK_VIRTUAL_NMI },
	{ vmx_long, v_nmiwin, VMX_CHECK_VIRTUAL_NMI },
	{ vmx_ug, v_ug, VMX_CHECK_UNRESTRICTED_EPT },
	{ vmx_long, v_ev_type, VMX_CHECK_EVENT_TYPE },
	{ vmx_long, v_ev_nmi_vec, VMX_CHECK_EVENT_VECTOR },
	{ vmx_long, v_ev_exc_vec, VMX_CHECK_EVENT_VECTOR },
	{ vmx_long, v_ev_no_err, VMX_CHECK_EVENT_ERROR_BIT },
	{ vmx_long, v_ev_err, VMX_CHECK_EVENT_ERROR_BIT },
	{ vmx_long, v_ev_rsvd, VMX_CHECK_EVENT_RSVD },
	{ vmx_long, v_ev_err_high, VMX_CHECK_EVENT_ERROR_HIGH },
	{ vmx_long, v_ev_len0, VMX_CHECK_EVENT_LENGTH },
	{ vmx_long, v_ev_len16, VMX_CHECK_EVENT_LENGTH },
	{ vmx_long, v_cr0_ne, VMX_CHECK_CR0_FIXED },
	{ vmx_long, v_cr0_high, VMX_CHECK_CR0_FIXED },
	{ vmx_ug, v_cr0_pg, VMX_CHECK_CR0_PG_PE },
	{ vmx_long, v_cr4, VMX_CHECK_CR4_FIXED },
	{ vmx_pae, v_pcide, VMX_CHECK_PCIDE_OUTSIDE_IA32E },
	{ vmx_long, v_no_pae, VMX_CHECK_IA32E_PAGING },
	{ vmx_long, v_cr3, VMX_CHECK_CR3_MBZ },
	{ vmx_long, v_dr7, VMX_CHECK_DR7_HIGH },
	{ vmx_long, v_efer, VMX_CHECK_EFER_MBZ },
	{ vmx_long, v_lma, VMX_CHECK_LMA_MODE },
	{ vmx_long, v_lme, VMX_CHECK_LME_MODE },
	{ vmx_long, v_tr_ti, VMX_CHECK_TR_TI },
	{ vmx_long, v_ldtr_ti, VMX_CHECK_LDTR_TI },
	{ vmx_long, v_ss_rpl, VMX_CHECK_SS_RPL },
	{ vmx_long, v_fs_base, VMX_CHECK_BASE },
	{ vmx_long, v_cs_base, VMX_CHECK_BASE },
	{ vmx_pae, v_ds_base, VMX_CHECK_BASE },
	{ vmx_vm86, v_vm86_base, VMX_CHECK_VM86_SEG },
	{ vmx_vm86, v_vm86_ar, VMX_CHECK_VM86_SEG },
	{ vmx_long, v_cs_type, VMX_CHECK_CS_TYPE },
	{ vmx_long, v_ss_type, VMX_CHECK_SS_TYPE },
	{ vmx_long, v_ds_unaccessed, VMX_CHECK_DATA_TYPE },
	{ vmx_long, v_ds_execonly, VMX_CHECK_DATA_TYPE },
	{ vmx_long, v_ds_s, VMX_CHECK_SEG_S },
	{ vmx_long, v_cs_dpl, VMX_CHECK_CS_DPL },
	{ vmx_ug, v_ss_dpl, VMX_CHECK_SS_DPL },
	{ vmx_long, v_ds_dpl, VMX_CHECK_DATA_DPL },
	{ vmx_long, v_ds_p, VMX_CHECK_SEG_P },
	{ vmx_long, v_ds_rsvd, VMX_CHECK_SEG_AR_RSVD },
	{ vmx_long, v_cs_ld, VMX_CHECK_CS_L_D },
	{ vmx_long, v_ds_g, VMX_CHECK_SEG_G },
	{ vmx_long, v_ds_nog, VMX_CHECK_SEG_G },
	{ vmx_long, v_tr_type, VMX_CHECK_TR_AR },
	{ vmx_long, v_tr_unusable, VMX_CHECK_TR_AR },
	{ vmx_long, v_ldtr_type, VMX_CHECK_LDTR_AR },
	{ vmx_long, v_gdtr, VMX_CHECK_DESC_TABLE },
	{ vmx_long, v_idtr, VMX_CHECK_DESC_TABLE },
	{ vmx_pae, v_rip32, VMX_CHECK_RIP },
	{ vmx_long, v_rip64, VMX_CHECK_RIP },
	{ vmx_long, v_rflags1, VMX_CHECK_RFLAGS_RSVD },
	{ vmx_long, v_rflags15, VMX_CHECK_RFLAGS_RSVD },
	{ vmx_long, v_rflags_vm, VMX_CHECK_VM_FLAG_MODE },
	{ vmx_long_irq, v_if, VMX_CHECK_INTERRUPT_IF },
	{ vmx_long, v_activity, VMX_CHECK_ACTIVITY },
	{ vmx_long, v_intr_rsvd, VMX_CHECK_INTR_RSVD },
	{ vmx_long, v_sti_movss, VMX_CHECK_INTR_STI_MOV_SS },
	{ vmx_pae, v_sti, VMX_CHECK_INTR_STI_IF },
	{ vmx_long_irq, v_movss, VMX_CHECK_INTR_EVENT },
	{ vmx_long_irq, v_sti, VMX_CHECK_INTR_EVENT },
	{ vmx_long_nmi, v_movss, VMX_CHECK_INTR_EVENT },
	{ vmx_long_nmi, v_nmi_blocked, VMX_CHECK_INTR_EVENT },
	{ vmx_long, v_pending_rsvd, VMX_CHECK_PENDING_DBG_RSVD },
	{ vmx_long_hlt, v_pending_bs, VMX_CHECK_PENDING_DBG_BS },
	{ vmx_long, v_link, VMX_CHECK_LINK_POINTER },
	{ vmx_pae, v_pdpte_a, VMX_CHECK_PDPTE_MBZ },
	{ vmx_pae, v_pdpte_pa, VMX_CHECK_PDPTE_MBZ },
};

static void vmx_valid_states_pass(void **state)
{
	(void)state;
	static const vmx_base bases[] = { vmx_long,	vmx_pae,      vmx_vm86,	   vmx_ug,
					  vmx_long_irq, vmx_long_nmi, vmx_long_hlt };
	for (unsigned i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		struct vmx_check_state s = bases[i]();
		const char *got = vmx_check(&s);
		if (got)
			fail_msg("valid base %u refused: %s", i, got);
	}
	/* #PF with its error code, INT n with its length, MTF's other event, #GP in real mode
	 * under unrestricted guest (no error code there). */
	struct vmx_check_state s = vmx_long();
	s.event = BIT(31) | BIT(11) | (3u << 8) | 14;
	s.event_error = 6;
	assert_null(vmx_check(&s));
	s.event = BIT(31) | (4u << 8) | 0x80;
	s.event_len = 2;
	assert_null(vmx_check(&s));
	s.event = BIT(31) | (7u << 8);
	assert_null(vmx_check(&s));
	s = vmx_ug();
	s.event = BIT(31) | (3u << 8) | 13;
	assert_null(vmx_check(&s));
	/* A TF step owed in a MOV SS shadow is pending BS; under BTF it is not. */
	s = vmx_long();
	s.rflags |= RFLAGS_TF;
	s.intr_state = INTR_MOV_SS;
	s.pending_dbg = BIT(14);
	assert_null(vmx_check(&s));
	s.debugctl = BIT(1);
	s.pending_dbg = 0;
	assert_null(vmx_check(&s));
	/* Without the EFER control EFER is not the entry's to check. */
	s = vmx_long();
	s.entry &= ~(u32)ENTRY_LOAD_EFER;
	s.efer = 0;
	assert_null(vmx_check(&s));
	/* PDPTEs only matter under PAE paging outside IA-32e mode. */
	s = vmx_long();
	s.pdpte[0] = 0x21;
	assert_null(vmx_check(&s));
}

static void vmx_each_rule_caught(void **state)
{
	(void)state;
	bool covered[VMX_CHECK_COUNT] = { 0 };
	for (unsigned i = 0; i < sizeof(vmx_mutations) / sizeof(vmx_mutations[0]); i++) {
		struct vmx_check_state s = vmx_mutations[i].base();
		enum vmx_check_rule rule = vmx_mutations[i].rule;
		vmx_mutations[i].mutate(&s);
		const char *got = vmx_check(&s);
		if (!got || strcmp(got, vmx_check_names[rule]))
			fail_msg("mutation %u: expected \"%s\", got \"%s\"", i,
				 vmx_check_names[rule], got ? got : "(passed)");
		covered[rule] = true;
	}
	for (int r = 0; r < VMX_CHECK_COUNT; r++)
		if (!covered[r])
			fail_msg("rule \"%s\" has no mutation in the table", vmx_check_names[r]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(svm_valid_states_pass),
		cmocka_unit_test(svm_each_rule_caught),
		cmocka_unit_test(vmx_valid_states_pass),
		cmocka_unit_test(vmx_each_rule_caught),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
