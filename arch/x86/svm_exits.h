/* SPDX-License-Identifier: GPL-2.0-only */
/* SVM exit codes and what Umbra does with each: svm.c's dispatch and its table test. */
#ifndef ARCH_X86_SVM_EXITS_H
#define ARCH_X86_SVM_EXITS_H

#include "arch/x86/virt.h"
#include "arch/x86/exit_reason.h"

/*
 * Every exit code of the APM (vol. 2, appendix C), in order, as ranges with no gap:
 * X(first, last, name, action, umbra reason, why); actions as in vmx_exits.h (virt.h, enum
 * vexit_action). Codes past the last row of a block (0xa6, 0x403) and the VMRUN failures
 * (-1..-4) are rows too; tests/unit/test_exit_tables.c checks the ranges tile each block.
 */
/* clang-format off */
#define SVM_EXIT_LIST(X) \
	X(0x00, 0x0f, CR_READ, DECODE, CR_ACCESS, "vmm/cr.c (CR0, CR3, CR4, CR8 are intercepted)") \
	X(0x10, 0x1f, CR_WRITE, DECODE, CR_ACCESS, "vmm/cr.c") \
	X(0x20, 0x3f, DR, MAP, DR_ACCESS, "the guest's debug registers") \
	X(0x40, 0x5f, EXCEPTION, DECODE, EXCEPTION, "an exception Umbra intercepts") \
	X(0x60, 0x60, INTR, MAP, INTR, "a host interrupt") \
	X(0x61, 0x61, NMI, MAP, NMI, "a host NMI") \
	X(0x62, 0x62, SMI, REFUSE, OTHER, "SMI is never intercepted") \
	X(0x63, 0x63, INIT, REFUSE, OTHER, "INIT is never intercepted") \
	X(0x64, 0x64, VINTR, MAP, IRQ_WINDOW, "interrupt window: the next entry injects") \
	X(0x65, 0x65, CR0_SEL_WRITE, REFUSE, OTHER, "every CR0 write is intercepted instead") \
	X(0x66, 0x6d, DESC_TABLE, REFUSE, OTHER, "descriptor-table accesses are never intercepted") \
	X(0x6e, 0x6e, RDTSC, REFUSE, OTHER, "RDTSC is never intercepted") \
	X(0x6f, 0x6f, RDPMC, DECODE, INSN, "#GP: no counters announced") \
	X(0x70, 0x71, PUSHF_POPF, REFUSE, OTHER, "PUSHF and POPF are never intercepted") \
	X(0x72, 0x72, CPUID, MAP, CPUID, "the guest's CPUID policy") \
	X(0x73, 0x73, RSM, UD, OTHER, "RSM outside SMM") \
	X(0x74, 0x74, IRET, MAP, IRQ_WINDOW, "an NMI handler's IRET: NMIs unblocked once it has run") \
	X(0x75, 0x75, SWINT, DECODE, EXCEPTION, "INT n, for the debugger (TCG reports INT3 so)") \
	X(0x76, 0x76, INVD, DECODE, INSN, "completed as WBINVD") \
	X(0x77, 0x77, PAUSE, REFUSE, OTHER, "PAUSE is never intercepted") \
	X(0x78, 0x78, HLT, MAP, HLT, "the vCPU waits") \
	X(0x79, 0x79, INVLPG, MAP, INVLPG, "the shadow MMU") \
	X(0x7a, 0x7a, INVLPGA, UD, OTHER, "CPUID announces no SVM") \
	X(0x7b, 0x7b, IOIO, DECODE, IO, "the board's devices") \
	X(0x7c, 0x7c, MSR, DECODE, MSR, "vmm/msr.c") \
	X(0x7d, 0x7d, TASK_SWITCH, REFUSE, OTHER, "hardware task switch: not emulated (it would load CR3)") \
	X(0x7e, 0x7e, FERR_FREEZE, REFUSE, OTHER, "FERR freeze is never intercepted") \
	X(0x7f, 0x7f, SHUTDOWN, MAP, SHUTDOWN, "the guest triple-faulted") \
	X(0x80, 0x80, VMRUN, UD, OTHER, "CPUID announces no SVM") \
	X(0x81, 0x81, VMMCALL, MAP, HYPERCALL, "Umbra's hypercall") \
	X(0x82, 0x86, SVM_INSN, UD, OTHER, "VMLOAD, VMSAVE, STGI, CLGI, SKINIT: no SVM announced") \
	X(0x87, 0x87, RDTSCP, MAP, RDTSCP, "the guest's TSC and TSC_AUX") \
	X(0x88, 0x88, ICEBP, REFUSE, OTHER, "INT1 is never intercepted") \
	X(0x89, 0x89, WBINVD, DECODE, INSN, "completed") \
	X(0x8a, 0x8c, MONITOR_MWAIT, UD, OTHER, "CPUID announces no MONITOR/MWAIT") \
	X(0x8d, 0x8d, XSETBV, UD, OTHER, "reached only with CR4.OSXSAVE, which needs XSAVE announced") \
	X(0x8e, 0x8e, RDPRU, UD, OTHER, "CPUID announces no RDPRU") \
	X(0x8f, 0x9f, WRITE_TRAP, REFUSE, OTHER, "EFER/CR write traps: SEV-ES only") \
	X(0xa0, 0xa1, INVLPGB, UD, OTHER, "CPUID announces no INVLPGB") \
	X(0xa2, 0xa2, INVPCID, UD, OTHER, "CPUID announces no INVPCID") \
	X(0xa3, 0xa3, MCOMMIT, UD, OTHER, "CPUID announces no MCOMMIT") \
	X(0xa4, 0xa4, TLBSYNC, UD, OTHER, "CPUID announces no INVLPGB") \
	X(0xa5, 0xa6, BUSLOCK_IDLE_HLT, REFUSE, OTHER, "bus-lock and idle-HLT are never intercepted") \
	X(0x400, 0x400, NPF, DECODE, NESTED_FAULT, "the nested table") \
	X(0x401, 0x402, AVIC, REFUSE, OTHER, "no AVIC") \
	X(0x403, 0x403, VMGEXIT, REFUSE, OTHER, "SEV-ES only") \
	X(0xfffffffc, 0xfffffffc, INVALID_PMC, MAP, INVALID, "VMRUN refused the VMCB") \
	X(0xfffffffd, 0xfffffffd, IDLE_REQUIRED, MAP, INVALID, "VMRUN refused the VMCB") \
	X(0xfffffffe, 0xfffffffe, BUSY, MAP, INVALID, "VMRUN refused the VMCB") \
	X(0xffffffff, 0xffffffff, INVALID, MAP, INVALID, "VMRUN refused the VMCB")
/* clang-format on */

/* The blocks of codes the list must tile without a gap (the test's reference). */
#define SVM_EXIT_BLOCKS \
	{ \
		{ 0x00, 0xa6 }, { 0x400, 0x403 }, \
		{ \
			0xfffffffc, 0xffffffff \
		} \
	}

/* One row of the list, as the dispatch and the test read it. */
struct svm_exit_row {
	u32 first, last;
	u8 action; /* enum vexit_action */
	u8 reason; /* enum exit_reason */
	const char *name, *why;
};
#define SVM_EXIT_ROW_(f, l, nm, act, rsn, w) \
	{ .first = f, \
	  .last = l, \
	  .action = VEXIT_##act, \
	  .reason = EXIT_##rsn, \
	  .name = #nm, \
	  .why = w },
static const struct svm_exit_row svm_exit_rows[] = { SVM_EXIT_LIST(SVM_EXIT_ROW_) };
#undef SVM_EXIT_ROW_

#define SVM_EXIT_INDEX_(f, l, nm, act, rsn, w) SVM_ROW_##nm,
enum { SVM_EXIT_LIST(SVM_EXIT_INDEX_) SVM_EXIT_ROWS };
#undef SVM_EXIT_INDEX_

/* The row of code, or NULL for a code no row names (a switch: the compiler's jump table). */
static inline const struct svm_exit_row *svm_exit_row(u32 code)
{
#define SVM_EXIT_CASE_(f, l, nm, act, rsn, w) \
	case f ... l: \
		return &svm_exit_rows[SVM_ROW_##nm];
	switch (code) {
		SVM_EXIT_LIST(SVM_EXIT_CASE_)
	default:
		return 0;
	}
#undef SVM_EXIT_CASE_
}

#endif
