/* SPDX-License-Identifier: GPL-2.0-only */
/* VMX basic exit reasons and what Umbra does with each: vmx.c's dispatch and its table test. */
#ifndef ARCH_X86_VMX_EXITS_H
#define ARCH_X86_VMX_EXITS_H

#include "arch/x86/virt.h"
#include "arch/x86/exit_reason.h"

/*
 * Every basic exit reason of the SDM (vol. 3, appendix C), in order, none left out:
 * X(number, name, action, umbra reason, why). Actions (virt.h, enum vexit_action): MAP to the
 * reason (MAP_LEN: the VMCS gives the instruction's length), UD (the #UD a CPU without the
 * feature raises: CPUID announces no VMX, SMX, MONITOR...), DECODE (vmx.c reads the details
 * itself), REFUSE (only an exit Umbra never enables, or cannot complete, ends the guest, named
 * in the report). tests/unit/test_exit_tables.c checks that every number up to the last has
 * its row.
 */
#define VMX_EXIT_LIST(X) \
	X(0, EXCEPTION_NMI, DECODE, OTHER, "an exception Umbra intercepts, or an NMI") \
	X(1, EXT_INTR, DECODE, INTR, "a host interrupt") \
	X(2, TRIPLE_FAULT, MAP, SHUTDOWN, "the guest triple-faulted") \
	X(3, INIT, REFUSE, OTHER, "INIT signal: Umbra sends none to a CPU in VMX operation") \
	X(4, SIPI, REFUSE, OTHER, "SIPI: no vCPU waits for one (no wait-for-SIPI state)") \
	X(5, IO_SMI, REFUSE, OTHER, "I/O SMI: no dual-monitor treatment") \
	X(6, OTHER_SMI, REFUSE, OTHER, "SMI: no dual-monitor treatment") \
	X(7, INT_WINDOW, MAP, IRQ_WINDOW, "interrupt window: the next entry injects") \
	X(8, NMI_WINDOW, MAP, IRQ_WINDOW, "NMI window: the next entry injects the NMI") \
	X(9, TASK_SWITCH, REFUSE, OTHER, "hardware task switch: not emulated (it would load CR3)") \
	X(10, CPUID, MAP_LEN, CPUID, "the guest's CPUID policy") \
	X(11, GETSEC, UD, OTHER, "CPUID announces no SMX") \
	X(12, HLT, MAP_LEN, HLT, "the vCPU waits") \
	X(13, INVD, DECODE, INSN, "completed as WBINVD") \
	X(14, INVLPG, MAP_LEN, INVLPG, "the shadow MMU") \
	X(15, RDPMC, DECODE, INSN, "#GP: no counters announced") \
	X(16, RDTSC, REFUSE, OTHER, "RDTSC exiting is never enabled") \
	X(17, RSM, UD, OTHER, "RSM outside SMM") \
	X(18, VMCALL, MAP_LEN, HYPERCALL, "Umbra's hypercall") \
	X(19, VMCLEAR, UD, OTHER, "CPUID announces no VMX") \
	X(20, VMLAUNCH, UD, OTHER, "CPUID announces no VMX") \
	X(21, VMPTRLD, UD, OTHER, "CPUID announces no VMX") \
	X(22, VMPTRST, UD, OTHER, "CPUID announces no VMX") \
	X(23, VMREAD, UD, OTHER, "CPUID announces no VMX") \
	X(24, VMRESUME, UD, OTHER, "CPUID announces no VMX") \
	X(25, VMWRITE, UD, OTHER, "CPUID announces no VMX") \
	X(26, VMXOFF, UD, OTHER, "CPUID announces no VMX") \
	X(27, VMXON, UD, OTHER, "CPUID announces no VMX") \
	X(28, CR, DECODE, CR_ACCESS, "vmm/cr.c") \
	X(29, MOV_DR, MAP_LEN, DR_ACCESS, "the guest's debug registers") \
	X(30, IO, DECODE, IO, "the board's devices") \
	X(31, RDMSR, MAP_LEN, MSR, "vmm/msr.c") \
	X(32, WRMSR, DECODE, MSR, "vmm/msr.c") \
	X(33, BAD_GUEST_STATE, DECODE, INVALID, "entry failed: invalid guest state") \
	X(34, BAD_MSR_LOAD, DECODE, INVALID, "entry failed: MSR loading") \
	X(35, RESERVED_35, REFUSE, OTHER, "not an exit reason") \
	X(36, MWAIT, UD, OTHER, "CPUID announces no MONITOR/MWAIT") \
	X(37, MTF, DECODE, EXCEPTION, "monitor trap flag: the debugger's step") \
	X(38, RESERVED_38, REFUSE, OTHER, "not an exit reason") \
	X(39, MONITOR, UD, OTHER, "CPUID announces no MONITOR/MWAIT") \
	X(40, PAUSE, REFUSE, OTHER, "PAUSE exiting is never enabled") \
	X(41, ENTRY_MCE, DECODE, INVALID, "entry failed: machine check") \
	X(42, RESERVED_42, REFUSE, OTHER, "not an exit reason") \
	X(43, TPR_THRESHOLD, REFUSE, OTHER, "no TPR shadow: CR8 exits (vmm/cr.c)") \
	X(44, APIC_ACCESS, REFUSE, OTHER, "APIC accesses are never virtualized") \
	X(45, VIRT_EOI, REFUSE, OTHER, "no virtual-interrupt delivery") \
	X(46, GDTR_IDTR, REFUSE, OTHER, "descriptor-table exiting is never enabled") \
	X(47, LDTR_TR, REFUSE, OTHER, "descriptor-table exiting is never enabled") \
	X(48, EPT_VIOLATION, DECODE, NESTED_FAULT, "the nested table") \
	X(49, EPT_MISCONFIG, DECODE, OTHER, "an EPT entry Umbra wrote is malformed") \
	X(50, INVEPT, UD, OTHER, "CPUID announces no VMX") \
	X(51, RDTSCP, MAP_LEN, RDTSCP, "the guest's TSC and TSC_AUX") \
	X(52, PREEMPT, MAP, PREEMPT, "the slice ended") \
	X(53, INVVPID, UD, OTHER, "CPUID announces no VMX") \
	X(54, WBINVD, DECODE, INSN, "completed") \
	X(55, XSETBV, UD, OTHER, "reached only with CR4.OSXSAVE, which needs XSAVE announced") \
	X(56, APIC_WRITE, REFUSE, OTHER, "APIC registers are never virtualized") \
	X(57, RDRAND, REFUSE, OTHER, "RDRAND exiting is never enabled") \
	X(58, INVPCID, UD, OTHER, "INVPCID is never enabled") \
	X(59, VMFUNC, UD, OTHER, "no VM functions are enabled") \
	X(60, ENCLS, UD, OTHER, "CPUID announces no SGX") \
	X(61, RDSEED, REFUSE, OTHER, "RDSEED exiting is never enabled") \
	X(62, PML_FULL, REFUSE, OTHER, "page-modification logging is never enabled") \
	X(63, XSAVES, UD, OTHER, "XSAVES is never enabled") \
	X(64, XRSTORS, UD, OTHER, "XSAVES is never enabled") \
	X(65, PCONFIG, UD, OTHER, "CPUID announces no PCONFIG") \
	X(66, SPP, REFUSE, OTHER, "sub-page permissions are never enabled") \
	X(67, UMWAIT, UD, OTHER, "CPUID announces no WAITPKG") \
	X(68, TPAUSE, UD, OTHER, "CPUID announces no WAITPKG") \
	X(69, LOADIWKEY, UD, OTHER, "CPUID announces no Key Locker") \
	X(70, ENQCMD_PASID, REFUSE, OTHER, "PASID translation is never enabled") \
	X(71, ENQCMDS_PASID, REFUSE, OTHER, "PASID translation is never enabled") \
	X(72, BUS_LOCK, REFUSE, OTHER, "bus-lock detection is never enabled") \
	X(73, NOTIFY, REFUSE, OTHER, "the notify window is never enabled") \
	X(74, SEAMCALL, UD, OTHER, "no SEAM") \
	X(75, TDCALL, UD, OTHER, "no SEAM") \
	X(76, RDMSRLIST, UD, OTHER, "CPUID announces no MSRLIST") \
	X(77, WRMSRLIST, UD, OTHER, "CPUID announces no MSRLIST")

#define VMX_EXIT_ENUM_(n, name, action, reason, why) VX_##name = n,
enum { VMX_EXIT_LIST(VMX_EXIT_ENUM_) };
#undef VMX_EXIT_ENUM_
#define VMX_EXIT_COUNT_(n, name, action, reason, why) +1
enum { VX_REASONS = 0 VMX_EXIT_LIST(VMX_EXIT_COUNT_) };
#undef VMX_EXIT_COUNT_

/* One row of the list, as the dispatch and the test read it. */
struct vmx_exit_row {
	u8 action; /* enum vexit_action */
	u8 reason; /* enum exit_reason */
	const char *name, *why;
};
#define VMX_EXIT_ROW_(n, nm, act, rsn, w) \
	[n] = { .action = VEXIT_##act, .reason = EXIT_##rsn, .name = #nm, .why = w },
static const struct vmx_exit_row vmx_exit_rows[VX_REASONS] = { VMX_EXIT_LIST(VMX_EXIT_ROW_) };
#undef VMX_EXIT_ROW_

#endif
