/* SPDX-License-Identifier: GPL-2.0-only */
/* What an SVM #DB intercept owes DR6 where the platform left DR6 as the guest had it. */
#ifndef ARCH_X86_SVM_DB_H
#define ARCH_X86_SVM_DB_H

#include "lib/types.h"
#include "arch/x86/regs.h"

/* The guest's state at a #DB intercept: DR6 now and at VMRUN, DR7, RFLAGS, RIP, the
 * interrupt shadow (VMCB bit 0) and DR0-DR3. */
struct svm_db_state {
	u64 dr6, dr6_at_entry, dr7, rflags, rip;
	bool shadow;
	u64 dr[4];
};

/* The DR6 bits a #DB intercept owes, or 0 where the CPU set them itself. Hardware sets DR6
 * before the intercept; QEMU's TCG and Bochs only when they deliver the #DB. A bit DR6 gained
 * since VMRUN is the CPU's only if this #DB could have set it (BS under TF, BD under GD, Bn
 * for an enabled breakpoint): otherwise the guest's own MOV DR6 (no exit once its debug
 * registers are live) put it there, and the cause is derived, most specific first:
 * instruction breakpoints at RIP; a fault in an STI/MOV SS shadow with GD, the general-detect
 * #DB at the MOV DR with the single step MOV SS holds under TF (both in one
 * #DB, as the SDM has it: the shadow holds the step, it is not lost); a single step (TF); enabled data breakpoints (the
 * one that hit cannot be told apart from the others); general detect; else a single step by
 * an instruction that cleared TF itself (POPF, IRET). */
static inline u64 svm_db_cause(const struct svm_db_state *s)
{
	u64 insn_bp = 0, data_bp = 0;

	for (int i = 0; i < 4; i++) {
		if (!(s->dr7 & (3ull << (2 * i))))
			continue;
		u64 rw = (s->dr7 >> (16 + 4 * i)) & 3;
		if (!rw)
			insn_bp |= s->dr[i] == s->rip ? BIT(i) : 0;
		else if (rw != 2) /* not an I/O breakpoint */
			data_bp |= BIT(i);
	}
	u64 could = insn_bp | data_bp | (s->rflags & RFLAGS_TF ? DR6_BS : 0) |
		    (s->dr7 & DR7_GD ? DR6_BD : 0);
	if (s->dr6 & ~s->dr6_at_entry & could)
		return 0;
	if (insn_bp)
		return insn_bp;
	if (s->shadow && (s->dr7 & DR7_GD))
		return DR6_BD | (s->rflags & RFLAGS_TF ? DR6_BS : 0);
	if (s->rflags & RFLAGS_TF)
		return DR6_BS;
	if (data_bp)
		return data_bp;
	return s->dr7 & DR7_GD ? DR6_BD : DR6_BS;
}

#endif
