/* SPDX-License-Identifier: GPL-2.0-only */
/* Inline wrappers for the privileged x86 instructions Umbra's host side uses. */
#ifndef ARCH_X86_CPU_H
#define ARCH_X86_CPU_H

#include "lib/types.h"
#include "arch/x86/regs.h"

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ volatile("wrmsr" ::"c"(msr), "a"((u32)v), "d"((u32)(v >> 32)) : "memory");
}

/* An instruction that may fault records (its address, where to resume) in the exception
 * table; the trap handler resumes there instead of dumping (see traps.c). */
#define EXTABLE_ENTRY(insn, fixup) \
	".pushsection .ex_table, \"a\"\n\t.balign 8\n\t.quad " #insn ", " #fixup \
	"\n\t.popsection\n\t"

/* rdmsr that reports a #GP (an MSR this CPU or emulator does not implement) as false. */
static inline bool rdmsr_safe(u32 msr, u64 *v)
{
	u32 lo = 0, hi = 0;
	bool ok = true;
	__asm__ volatile("1: rdmsr\n\t"
			 "2:\n\t"
			 ".pushsection .text.fixup, \"ax\"\n\t"
			 "3: movb $0, %2\n\t"
			 "jmp 2b\n\t"
			 ".popsection\n\t" EXTABLE_ENTRY(1b, 3b)
			 : "=a"(lo), "=d"(hi), "+qm"(ok)
			 : "c"(msr));
	*v = ((u64)hi << 32) | lo;
	return ok;
}

/* wrmsr that reports a #GP as false. */
static inline bool wrmsr_safe(u32 msr, u64 v)
{
	bool ok = true;
	__asm__ volatile("1: wrmsr\n\t"
			 "2:\n\t"
			 ".pushsection .text.fixup, \"ax\"\n\t"
			 "3: movb $0, %0\n\t"
			 "jmp 2b\n\t"
			 ".popsection\n\t" EXTABLE_ENTRY(1b, 3b)
			 : "+qm"(ok)
			 : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32))
			 : "memory");
	return ok;
}

struct cpuid_regs {
	u32 eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(u32 leaf, u32 subleaf)
{
	struct cpuid_regs r;
	__asm__ volatile("cpuid"
			 : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
			 : "a"(leaf), "c"(subleaf));
	return r;
}

#define DEFINE_CR(n) \
	static inline u64 read_cr##n(void) \
	{ \
		u64 v; \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v)); \
		return v; \
	} \
	static inline void write_cr##n(u64 v) \
	{ \
		__asm__ volatile("mov %0, %%cr" #n ::"r"(v) : "memory"); \
	}
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

#define DEFINE_DR(n) \
	static inline u64 read_dr##n(void) \
	{ \
		u64 v; \
		__asm__ volatile("mov %%db" #n ", %0" : "=r"(v)); \
		return v; \
	} \
	static inline void write_dr##n(u64 v) \
	{ \
		__asm__ volatile("mov %0, %%db" #n ::"r"(v)); \
	}
DEFINE_DR(0)
DEFINE_DR(1)
DEFINE_DR(2)
DEFINE_DR(3)
DEFINE_DR(6)
#undef DEFINE_DR

static inline void outb(u16 port, u8 v)
{
	__asm__ volatile("outb %0, %1" ::"a"(v), "Nd"(port));
}
static inline void outw(u16 port, u16 v)
{
	__asm__ volatile("outw %0, %1" ::"a"(v), "Nd"(port));
}
static inline void outl(u16 port, u32 v)
{
	__asm__ volatile("outl %0, %1" ::"a"(v), "Nd"(port));
}
static inline u8 inb(u16 port)
{
	u8 v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline u16 inw(u16 port)
{
	u16 v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline u32 inl(u16 port)
{
	u32 v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u64 rdtsc(void)
{
	u32 lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

static inline u64 read_rflags(void)
{
	u64 f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

static inline void cli(void)
{
	__asm__ volatile("cli" ::: "memory");
}
static inline void sti(void)
{
	__asm__ volatile("sti" ::: "memory");
}
static inline void hlt(void)
{
	__asm__ volatile("hlt" ::: "memory");
}
static inline void invlpg(u64 va)
{
	__asm__ volatile("invlpg (%0)" ::"r"(va) : "memory");
}

static inline NORETURN void halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

#endif
