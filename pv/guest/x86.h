/* SPDX-License-Identifier: GPL-2.0-only */
/* The x86 instructions guest code uses, inline: one copy for the test guests and pv_ops. */
#ifndef PV_GUEST_X86_H
#define PV_GUEST_X86_H

#include <stdint.h>

/* Register width: 32 or 64 bits, as the guest is built. */
#define X86_REG unsigned long

static inline X86_REG read_cr0(void)
{
	X86_REG v;
	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}
static inline X86_REG read_cr2(void)
{
	X86_REG v;
	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}
static inline X86_REG read_cr3(void)
{
	X86_REG v;
	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}
static inline X86_REG read_cr4(void)
{
	X86_REG v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}
static inline void write_cr0(X86_REG v)
{
	__asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}
static inline void write_cr3(X86_REG v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}
static inline void write_cr4(X86_REG v)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}
static inline void invlpg(X86_REG va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}
static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr"
			 :
			 : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
			 : "memory");
}

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}
static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}
static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void irq_on(void)
{
	__asm__ volatile("sti" : : : "memory");
}
static inline void irq_off(void)
{
	__asm__ volatile("cli" : : : "memory");
}
/* Waits for an interrupt: sti's shadow covers hlt, so one arriving in between still wakes it.
 * Returns with IF=1. */
static inline void irq_wait(void)
{
	__asm__ volatile("sti; hlt" : : : "memory");
}
static inline X86_REG read_flags(void)
{
	X86_REG f;
	__asm__ volatile("pushf; pop %0" : "=r"(f));
	return f;
}

static inline uint64_t read_tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
/* CPUID leaf, subleaf: r = EAX, EBX, ECX, EDX. */
static inline void cpuid_regs(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}

#undef X86_REG
#endif
