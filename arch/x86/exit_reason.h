/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbra's exit reasons: what every backend decodes its exits into (vendor-neutral). */
#ifndef ARCH_X86_EXIT_REASON_H
#define ARCH_X86_EXIT_REASON_H

/* X(name, the short name the report and the monitor print). vmm/stats.c maps each onto the
 * guest ABI's statistics slot of the same name (pv/abi.h), where the order is the guests'. */
#define EXIT_REASON_LIST(X) \
	X(PAGE_FAULT, pf) X(CR_ACCESS, cr) X(INVLPG, invlpg) X(HYPERCALL, hypercall) X(IO, io) \
	X(MSR, msr) X(CPUID, cpuid) X(HLT, hlt) X(EXCEPTION, exception) X(INTR, intr) X(NMI, nmi) \
	X(IRQ_WINDOW, irq_window) X(RDTSCP, rdtscp) X(SHUTDOWN, shutdown) X(INVALID, invalid) \
	X(OTHER, other) X(NESTED_FAULT, npf) X(PREEMPT, preempt) \
	X(DR_ACCESS, dr) X(INSN, insn) X(EMULATE, emulate)

#define EXIT_ENUM_(name, short_name) EXIT_##name,
enum exit_reason {
	EXIT_REASON_LIST(EXIT_ENUM_)
	EXIT_REASONS
};
#undef EXIT_ENUM_

#endif
