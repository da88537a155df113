/* SPDX-License-Identifier: GPL-2.0-only */
/* The Linux test helpers' system calls and output, without libc (static, 64-bit, freestanding). */
#ifndef TESTS_LINUX_SYS_H
#define TESTS_LINUX_SYS_H

#define SYS_READ 0
#define SYS_WRITE 1
#define SYS_OPEN 2
#define SYS_CLOSE 3
#define SYS_MMAP 9
#define SYS_MUNMAP 11
#define SYS_PREAD64 17
#define SYS_PWRITE64 18
#define SYS_PIPE 22
#define SYS_FORK 57
#define SYS_EXECVE 59
#define SYS_EXIT 60
#define SYS_WAIT4 61
#define SYS_CLOCK_GETTIME 228

typedef unsigned long ulong;
typedef unsigned int u32;
typedef unsigned long long u64;

static inline long sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}

static inline ulong slen(const char *s)
{
	ulong n = 0;
	while (s[n])
		n++;
	return n;
}

static inline void out(const char *s)
{
	sys6(SYS_WRITE, 1, (long)s, (long)slen(s), 0, 0, 0);
}

/* what, then v in hex, then a new line. */
static inline void out_hex(const char *what, u64 v)
{
	char b[40];
	int n = 0;
	out(what);
	for (int i = 60; i >= 0; i -= 4)
		b[n++] = "0123456789abcdef"[(v >> i) & 0xf];
	b[n++] = '\n';
	b[n] = 0;
	out(b);
}

/* The kernel starts a program with argc, then argv, on the stack: each helper defines
 * start_c(long *sp), which ends with SYS_EXIT. */
static void start_c(long *sp) __attribute__((used));
__asm__(".globl _start\n_start:\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n\tcall start_c\n\thlt\n");

#endif
