/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared helpers of the multiboot v1 differential kernels (linked into each of them). */
#include "tests/mb1/mb1.h"

extern ulong boot_magic, boot_info;

const struct mb1_info *mb1_info(void)
{
	if ((uint32_t)boot_magic != 0x2badb002u)
		fail("not booted by multiboot v1 (magic %lx)", boot_magic);
	return (const struct mb1_info *)boot_info;
}

const char *mb1_args(void)
{
	const char *s = boot_cmdline;
	while (*s && *s != ' ')
		s++;
	while (*s == ' ')
		s++;
	return s;
}

int mb1_streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

ulong mb1_arg_num(const char *key, ulong def)
{
	for (const char *s = mb1_args(); *s;) {
		const char *k = key;
		while (*k && *s == *k)
			s++, k++;
		if (!*k && *s == '=') {
			ulong v = 0, base = 10;
			s++;
			if (s[0] == '0' && s[1] == 'x')
				base = 16, s += 2;
			for (;; s++) {
				unsigned d = *s >= '0' && *s <= '9'   ? (unsigned)(*s - '0')
					     : *s >= 'a' && *s <= 'f' ? (unsigned)(*s - 'a' + 10)
								      : 99;
				if (d >= base)
					return v;
				v = v * base + d;
			}
		}
		while (*s && *s != ' ')
			s++;
		while (*s == ' ')
			s++;
	}
	return def;
}

/* The vector of the fault taken since fault_count was n, or 0. */
static int fault_since(ulong n)
{
	fault_recover = 0;
	return fault_count != n ? (int)last_fault.vector : 0;
}

int rdmsr_safe(uint32_t msr, uint64_t *val)
{
	ulong n = fault_count;
	uint32_t lo = 0, hi = 0;
	asm volatile(SET_RECOVER "rdmsr\n1:" : "+a"(lo), "+d"(hi) : "c"(msr) : "memory");
	*val = ((uint64_t)hi << 32) | lo;
	return fault_since(n);
}

int wrmsr_safe(uint32_t msr, uint64_t val)
{
	ulong n = fault_count;
	asm volatile(SET_RECOVER "wrmsr\n1:"
		     :
		     : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
		     : "memory");
	return fault_since(n);
}

int write_cr0_safe(ulong val)
{
	ulong n = fault_count;
	asm volatile(SET_RECOVER "mov %0, %%cr0\n1:" : : "r"(val) : "memory");
	return fault_since(n);
}

int write_cr4_safe(ulong val)
{
	ulong n = fault_count;
	asm volatile(SET_RECOVER "mov %0, %%cr4\n1:" : : "r"(val) : "memory");
	return fault_since(n);
}

void expect_fault(const char *what, int vector, int want)
{
	if (vector == want)
		kprintf("%s: ok\n", what);
	else
		check_failed("%s: vector %d, expected %d", what, vector, want);
}

int on_tcg(void)
{
	static int known, tcg;
	if (!known && cpuid(0x80000000u, 0).a >= 0x80000002u) {
		struct cpuid b = cpuid(0x80000002u, 0);
		tcg = b.a == 0x554d4551u; /* "QEMU" */
	}
	known = 1;
	return tcg;
}

void expect_gp_hw(const char *what, int vector, int cpu_checks)
{
	if (vector == 0 && on_tcg() && (!on_umbra || cpu_checks))
		vector = 13; /* TCG let it through: its deviation, not the kernel's or Umbra's */
	expect_fault(what, vector, 13);
}
