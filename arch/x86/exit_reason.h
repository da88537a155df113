/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbra's exit reasons: what every backend decodes its exits into (vendor-neutral). */
#ifndef ARCH_X86_EXIT_REASON_H
#define ARCH_X86_EXIT_REASON_H

/* X(name), in the order the report prints them. vmm/stats.c maps each onto the guest ABI's
 * statistics slot of the same name (pv/abi.h), which also gives the short name printed. */
/* clang-format off */
#define EXIT_REASON_LIST(X) \
	X(PAGE_FAULT) X(CR_ACCESS) X(INVLPG) X(HYPERCALL) X(IO) X(MSR) X(CPUID) X(HLT) \
	X(EXCEPTION) X(INTR) X(NMI) X(IRQ_WINDOW) X(RDTSCP) X(SHUTDOWN) X(INVALID) X(OTHER) \
	X(NESTED_FAULT) X(PREEMPT) X(DR_ACCESS) X(INSN) X(EMULATE)
/* clang-format on */

#define EXIT_ENUM_(name) EXIT_##name,
enum exit_reason { EXIT_REASON_LIST(EXIT_ENUM_) EXIT_REASONS };
#undef EXIT_ENUM_

#endif
