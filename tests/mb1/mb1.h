/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared helpers of the multiboot v1 differential kernels: guarded MSR/CR access, boot data. */
#ifndef MB1_H
#define MB1_H

#include "tests/guests/lib/guest.h"

/* The multiboot v1 information block (only the fields the kernels read). */
struct mb1_info {
	uint32_t flags, mem_lower, mem_upper, boot_device, cmdline, mods_count, mods_addr;
	uint32_t syms[4], mmap_length, mmap_addr;
};
struct mb1_mod {
	uint32_t start, end, string, reserved;
};
/* Where the loader put it; read it before page_alloc(), which may reuse that memory. */
const struct mb1_info *mb1_info(void);

/* The command line without its first word (QEMU: the file name; Umbra: the guest's name). */
const char *mb1_args(void);
int mb1_streq(const char *a, const char *b); /* the library has no string functions */
/* The value of KEY=... among the arguments, parsed as a number; def if absent. */
ulong mb1_arg_num(const char *key, ulong def);

/* Inline asm prefix: the library's trap handler resumes at local label 1 after a fault. */
#ifdef __x86_64__
#define SET_RECOVER "movq $1f, fault_recover(%%rip)\n\t"
#else
#define SET_RECOVER "movl $1f, fault_recover\n\t"
#endif

/* Guarded accesses: 0 if they went through, else the vector they raised. */
int rdmsr_safe(uint32_t msr, uint64_t *val);
int wrmsr_safe(uint32_t msr, uint64_t val);
int write_cr0_safe(ulong val);
int write_cr4_safe(ulong val);

/* One result line that is the same on every correct platform: "what: ok" or a failed check. */
void expect_fault(const char *what, int vector, int want);
/* The CPU underneath (native, or below Umbra: CPUID's brand string passes through) is QEMU's
 * TCG, which leaves out many of the #GP checks hardware makes. */
int on_tcg(void);
/* Natively on TCG: where a case that would hang or crash TCG is not tried. */
static inline int tcg_native(void)
{
	return on_tcg() && !on_umbra;
}
/* A #GP hardware raises and TCG does not: on TCG either outcome is accepted where TCG decides
 * (natively; under Umbra too if cpu_checks, for MSRs the VMCB/VMCS holds and the guest writes
 * directly), elsewhere only the #GP. */
void expect_gp_hw(const char *what, int vector, int cpu_checks);

#endif
