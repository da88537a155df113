/* SPDX-License-Identifier: GPL-2.0-only */
/* The Linux test's result writer: `result VALUE` sends VALUE to Umbra's result port from user mode. */
#include "pv/abi.h"

#define SYS_EXIT 60
#define SYS_IOPERM 173

static long syscall3(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

static unsigned long parse(const char *s)
{
	unsigned long v = 0, base = 10;

	if (s[0] == '0' && s[1] == 'x') {
		base = 16;
		s += 2;
	}
	for (; *s; s++) {
		unsigned d = *s >= 'a' ? (unsigned)(*s - 'a' + 10) : (unsigned)(*s - '0');
		if (d >= base)
			return UMBRA_RESULT_FAIL;   /* a garbled argument must not read as a pass */
		v = v * base + d;
	}
	return v;
}

/* No libc: the kernel's initial stack holds argc, then argv. */
__attribute__((used)) static void start_c(long *sp)
{
	const char *arg = sp[0] > 1 ? (const char *)sp[2] : "0x11";
	unsigned char v = (unsigned char)parse(arg);

	if (syscall3(SYS_IOPERM, UMBRA_RESULT_PORT, 1, 1) < 0)
		syscall3(SYS_EXIT, 2, 0, 0);
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"((unsigned short)UMBRA_RESULT_PORT));
	syscall3(SYS_EXIT, 0, 0, 0);
}

__asm__(".globl _start\n_start:\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n\tcall start_c\n\thlt\n");
