/* SPDX-License-Identifier: GPL-2.0-only */
/* The Linux test's result writer: `result VALUE` sends VALUE to Umbra's result port from user mode. */
#include "pv/abi.h"
#include "tests/linux/sys.h"

#define SYS_IOPERM 173

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
			return UMBRA_RESULT_FAIL; /* a garbled argument must not read as a pass */
		v = v * base + d;
	}
	return v;
}

static void start_c(long *sp)
{
	const char *arg = sp[0] > 1 ? (const char *)sp[2] : "0x11";
	unsigned char v = (unsigned char)parse(arg);

	if (sys6(SYS_IOPERM, UMBRA_RESULT_PORT, 1, 1, 0, 0, 0) < 0)
		sys6(SYS_EXIT, 2, 0, 0, 0, 0, 0);
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"((unsigned short)UMBRA_RESULT_PORT));
	sys6(SYS_EXIT, 0, 0, 0, 0, 0, 0);
}
