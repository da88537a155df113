/* SPDX-License-Identifier: GPL-2.0-only */
/* The backends' exit lists cover every VMX exit reason and SVM exit code, each with a deliberate action; virt.h's event rules: RF for injected faults, the single step owed, DR6. */
#include <string.h>

#include "tests/unit/harness.h"
#include "arch/x86/svm_exits.h"
#include "arch/x86/svm_db.h"
#include "arch/x86/vmx_exits.h"

/* The references, from the manuals (SDM vol. 3 appendix C, APM vol. 2 appendix C, 2024), kept
 * here and not taken from the headers, so a row dropped at the end of a list is noticed too. */
#define SDM_LAST_BASIC_REASON 77
static const struct {
	u64 first, last;
} apm_blocks[] = {
	{ 0x00, 0xa6 },
	{ 0x400, 0x403 },
	{ 0xfffffffc, 0xffffffff },
};

static void check_row(u8 action, u8 reason, const char *name, const char *why, u64 code)
{
	if (!name || !why || !*why)
		fail_msg("code 0x%llx: no row, or a row without a reason why",
			 (unsigned long long)code);
	switch (action) {
	case VEXIT_MAP:
	case VEXIT_MAP_LEN:
		/* A mapped exit must reach a handler of vmm/exit.c, never its refusal. */
		if (reason == EXIT_OTHER || reason >= EXIT_REASONS)
			fail_msg("code 0x%llx (%s): mapped to no handler", (unsigned long long)code,
				 name);
		break;
	case VEXIT_UD:
	case VEXIT_REFUSE:
		break;
	case VEXIT_DECODE:
		if (reason >= EXIT_REASONS)
			fail_msg("code 0x%llx (%s): bad reason", (unsigned long long)code, name);
		break;
	default:
		fail_msg("code 0x%llx (%s): no action", (unsigned long long)code, name);
	}
}

static void vmx_every_reason(void **state)
{
	(void)state;
	assert_int_equal(VX_REASONS, SDM_LAST_BASIC_REASON + 1);
	for (u32 n = 0; n < VX_REASONS; n++) {
		const struct vmx_exit_row *r = &vmx_exit_rows[n];
		check_row(r->action, r->reason, r->name, r->why, n);
	}
	/* What a guest can cause: its VMX instructions #UD, its hypercall is one. */
	assert_int_equal(vmx_exit_rows[VX_VMXON].action, VEXIT_UD);
	assert_int_equal(vmx_exit_rows[VX_VMCALL].reason, EXIT_HYPERCALL);
	assert_int_equal(vmx_exit_rows[VX_CPUID].action, VEXIT_MAP_LEN);
}

static void svm_every_code(void **state)
{
	(void)state;
	/* Rows in order, none overlapping, each inside a block. */
	for (unsigned i = 0; i < SVM_EXIT_ROWS; i++) {
		const struct svm_exit_row *r = &svm_exit_rows[i];
		assert_true(r->first <= r->last);
		if (i)
			assert_true(svm_exit_rows[i - 1].last < r->first);
		bool inside = false;
		for (unsigned b = 0; b < ARRAY_SIZE(apm_blocks); b++)
			inside |= r->first >= apm_blocks[b].first && r->last <= apm_blocks[b].last;
		if (!inside)
			fail_msg("row %s lies outside the APM's codes", r->name);
	}
	/* Every code of every block has its row, and the dispatch finds it. */
	for (unsigned b = 0; b < ARRAY_SIZE(apm_blocks); b++) {
		for (u64 c = apm_blocks[b].first; c <= apm_blocks[b].last; c++) {
			const struct svm_exit_row *r = svm_exit_row((u32)c);
			if (!r)
				fail_msg("SVM exit code 0x%llx has no row", (unsigned long long)c);
			assert_true(c >= r->first && c <= r->last);
			check_row(r->action, r->reason, r->name, r->why, c);
		}
	}
	/* Codes in no block have none: the dispatch refuses them with a report. */
	assert_null(svm_exit_row(0xa7));
	assert_null(svm_exit_row(0x3ff));
	assert_null(svm_exit_row(0x404));
	assert_null(svm_exit_row(0xfffffffb));
	assert_int_equal(svm_exit_row(0x80)->action, VEXIT_UD);	      /* VMRUN */
	assert_int_equal(svm_exit_row(0x81)->reason, EXIT_HYPERCALL); /* VMMCALL */
	assert_int_equal(svm_exit_row(0xffffffff)->reason, EXIT_INVALID);
}

/* RF is set for an entry that delivers a fault, never for traps, aborts or interrupts. */
static void entry_rflags_rf(void **state)
{
	(void)state;
	const u64 flags = 0x202;
	for (u8 vec = 0; vec < 32; vec++) {
		struct vevent e = { .valid = true, .type = VEVENT_EXCEPTION, .vector = vec };
		bool fault = vec == VEC_DE || vec == VEC_BR || vec == VEC_UD || vec == VEC_NM ||
			     (vec >= VEC_TS && vec <= VEC_PF) || vec == VEC_MF || vec == VEC_AC ||
			     vec == VEC_XM || vec == VEC_VE || vec == VEC_CP || vec == VEC_VC ||
			     vec == VEC_SX;
		assert_int_equal(virt_entry_rflags(&e, flags), fault ? flags | RFLAGS_RF : flags);
		e.valid = false;
		assert_int_equal(virt_entry_rflags(&e, flags), flags);
	}
	for (u8 t = VEVENT_EXT_INTR; t <= VEVENT_SOFT_EXC; t++) {
		if (t == VEVENT_EXCEPTION)
			continue;
		struct vevent e = { .valid = true, .type = t, .vector = VEC_GP };
		assert_int_equal(virt_entry_rflags(&e, flags), flags);
	}
}

/* The single-step and DR6 rules every instruction Umbra completes goes through. */
static void step_and_dr6(void **state)
{
	(void)state;
	assert_true(virt_step_owed(RFLAGS_TF | 0x2, 0));
	assert_false(virt_step_owed(0x2, 0));
	assert_true(virt_step_owed(RFLAGS_TF, DEBUGCTL_LBR));
	assert_false(virt_step_owed(RFLAGS_TF, DEBUGCTL_BTF)); /* no branch completes in Umbra */
	/* BS accumulates; a breakpoint hit replaces the B0-B3 of an earlier one. */
	assert_int_equal(virt_dr6_on_db(0xffff0ff0, DR6_BS), 0xffff4ff0);
	assert_int_equal(virt_dr6_on_db(0xffff0ff1, DR6_BS), 0xffff4ff1);
	assert_int_equal(virt_dr6_on_db(0xffff4ff1, 1u << 2), 0xffff4ff4);
	assert_int_equal(virt_dr6_on_db(0xffff0ff0, DR6_BD), 0xffff2ff0);
}

/* SVM's DR6 derivation where the platform leaves DR6 to Umbra (Bochs, TCG). The MOV SS + GD
 * + TF case of check-mb1's exceptions kernels, which TCG cannot run (no general detect): */
static void svm_dr6_cause(void **state)
{
	(void)state;
	/* The MOV DR after MOV SS faults on GD with the held step: one #DB with BD and BS. */
	struct svm_db_state s = { .dr6 = 0xffff0ff0,
				  .dr6_at_entry = 0xffff0ff0,
				  .dr7 = 0x2400,
				  .rflags = RFLAGS_TF | 2,
				  .shadow = true };
	assert_int_equal(svm_db_cause(&s), DR6_BD | DR6_BS);
	/* Then the MOV DR6 (GD now clear) writes B0 and the step after it traps: B0 is the
	 * guest's (no breakpoint is enabled), so BS is still owed. */
	s = (struct svm_db_state){
		.dr6 = 0xffff0ff1, .dr6_at_entry = 0xffff6ff0, .dr7 = 0x400, .rflags = RFLAGS_TF | 2
	};
	assert_int_equal(svm_db_cause(&s), DR6_BS);
	/* Out of a shadow GD and TF on the same instruction: the step trap of the one before. */
	s = (struct svm_db_state){ .dr6 = 0xffff0ff0,
				   .dr6_at_entry = 0xffff0ff0,
				   .dr7 = 0x2400,
				   .rflags = RFLAGS_TF | 2 };
	assert_int_equal(svm_db_cause(&s), DR6_BS);
	s.rflags = 2;
	assert_int_equal(svm_db_cause(&s), DR6_BD);
	/* Hardware set BS itself: nothing owed. */
	s = (struct svm_db_state){
		.dr6 = 0xffff4ff0, .dr6_at_entry = 0xffff0ff0, .dr7 = 0x400, .rflags = RFLAGS_TF | 2
	};
	assert_int_equal(svm_db_cause(&s), 0);
	/* An instruction breakpoint at RIP (DR1, execute); the CPU's B1 is taken as set. */
	s = (struct svm_db_state){ .dr6 = 0xffff0ff0,
				   .dr6_at_entry = 0xffff0ff0,
				   .dr7 = 0x408,
				   .rflags = 2,
				   .rip = 0x1000,
				   .dr = { 0, 0x1000 } };
	assert_int_equal(svm_db_cause(&s), BIT(1));
	s.dr6 = 0xffff0ff2;
	assert_int_equal(svm_db_cause(&s), 0);
	/* A data breakpoint (DR2, write) cannot be told from another enabled one. */
	s = (struct svm_db_state){ .dr6 = 0xffff0ff0,
				   .dr6_at_entry = 0xffff0ff0,
				   .dr7 = 0x410 | (1ull << 24),
				   .rflags = 2 };
	assert_int_equal(svm_db_cause(&s), BIT(2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vmx_every_reason), cmocka_unit_test(svm_every_code),
		cmocka_unit_test(entry_rflags_rf),  cmocka_unit_test(svm_dr6_cause),
		cmocka_unit_test(step_and_dr6),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
