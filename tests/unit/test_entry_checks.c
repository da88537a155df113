/* The backends' own VM-entry checks (audit=1): valid states pass, each rule's one broken field is caught by name. */
#include <string.h>

#include "tests/unit/harness.h"
#include "arch/x86/regs.h"
#include "arch/x86/svm_check.h"

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
		.cr0 = CR0_PE | CR0_ET | CR0_NE | CR0_WP | CR0_PG, .cr3 = 0x1234000,
		.cr4 = CR4_PAE | CR4_PGE | CR4_OSFXSR | CR4_OSXMMEXCPT | CR4_SMEP,
		.dr6 = 0xffff0ff0, .dr7 = 0x400, .cs_attr = 0x29b /* L, P, code */,
		.misc2 = 0x7f, .asid = 1, .iopm_pa = 0x100000, .msrpm_pa = 0x103000,
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
static void m_svme(struct svm_check_state *s) { s->efer &= ~EFER_SVME; }
static void m_nw(struct svm_check_state *s) { s->cr0 |= CR0_NW; }
static void m_cr0_high(struct svm_check_state *s) { s->cr0 |= BIT(32); }
static void m_cr3(struct svm_check_state *s) { s->cr3 |= BIT(40); }
static void m_cr4(struct svm_check_state *s) { s->cr4 |= CR4_VMXE; }
static void m_cr4_feature(struct svm_check_state *s) { s->cr4 |= CR4_LA57; }
static void m_dr6(struct svm_check_state *s) { s->dr6 |= BIT(32); }
static void m_dr7(struct svm_check_state *s) { s->dr7 |= BIT(63); }
static void m_efer(struct svm_check_state *s) { s->efer |= BIT(1); }
static void m_efer_feature(struct svm_check_state *s) { s->efer |= BIT(15); /* TCE */ }
static void m_no_pae(struct svm_check_state *s) { s->cr4 &= ~CR4_PAE; }
static void m_no_pe(struct svm_check_state *s) { s->cr0 &= ~CR0_PE; }
static void m_cs_ld(struct svm_check_state *s) { s->cs_attr |= BIT(10); }
static void m_vmrun(struct svm_check_state *s) { s->misc2 &= ~1u; }
static void m_asid(struct svm_check_state *s) { s->asid = 0; }
static void m_msrpm(struct svm_check_state *s) { s->msrpm_pa = (1ull << 40) - 4096; }
static void m_inj_type(struct svm_check_state *s) { s->event_inj = BIT(31) | (5u << 8) | 32; }
static void m_inj_nmi_exc(struct svm_check_state *s) { s->event_inj = BIT(31) | (3u << 8) | 2; }
static void m_inj_vec(struct svm_check_state *s) { s->event_inj = BIT(31) | (3u << 8) | 32; }

static const struct {
	svm_mutation mutate;
	enum svm_check_rule rule;
} svm_long_mutations[] = {
	{ m_svme, SVM_CHECK_SVME_CLEAR },	{ m_nw, SVM_CHECK_CR0_CD_NW },
	{ m_cr0_high, SVM_CHECK_CR0_HIGH },	{ m_cr3, SVM_CHECK_CR3_MBZ },
	{ m_cr4, SVM_CHECK_CR4_MBZ },		{ m_cr4_feature, SVM_CHECK_CR4_MBZ },
	{ m_dr6, SVM_CHECK_DR6_HIGH },		{ m_dr7, SVM_CHECK_DR7_HIGH },
	{ m_efer, SVM_CHECK_EFER_MBZ },		{ m_efer_feature, SVM_CHECK_EFER_MBZ },
	{ m_no_pae, SVM_CHECK_LONG_NO_PAE },	{ m_no_pe, SVM_CHECK_LONG_NO_PE },
	{ m_cs_ld, SVM_CHECK_LONG_CS_L_D },	{ m_vmrun, SVM_CHECK_VMRUN_INTERCEPT },
	{ m_asid, SVM_CHECK_ASID_ZERO },	{ m_msrpm, SVM_CHECK_PERM_MAP },
	{ m_inj_type, SVM_CHECK_EVENT_TYPE },	{ m_inj_nmi_exc, SVM_CHECK_EVENT_VECTOR },
	{ m_inj_vec, SVM_CHECK_EVENT_VECTOR },
};

static void m_pdpte_a(struct svm_check_state *s) { s->pdpte[3] |= BIT(5); /* Accessed */ }
static void m_pdpte_nx(struct svm_check_state *s) { s->pdpte[0] |= BIT(63); }
static void m_pdpte_pa(struct svm_check_state *s) { s->pdpte[0] |= BIT(45); }

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
				      BIT(31) | (4u << 8) | 0x80, (5u << 8) | 0x20 /* not valid */ };
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(svm_valid_states_pass),
		cmocka_unit_test(svm_each_rule_caught),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
