/* SPDX-License-Identifier: GPL-2.0-only */
/* Host stand-ins for what the kernel provides to lib/: panic, kprintf (also kept for tests to
 * read) and log_level. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/harness.h"
#include "lib/assert.h"
#include "lib/printf.h"

int log_level = LOG_INFO;
jmp_buf *harness_panic_jmp;
char harness_panic_msg[256];
char harness_log[4096];
static size_t harness_log_len;

void harness_log_reset(void)
{
	harness_log[0] = 0;
	harness_log_len = 0;
}

void panic(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(harness_panic_msg, sizeof(harness_panic_msg), fmt, ap);
	va_end(ap);
	if (harness_panic_jmp)
		longjmp(*harness_panic_jmp, 1);
	fprintf(stderr, "panic: %s\n", harness_panic_msg);
	abort();
}

void kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (harness_log_len < sizeof(harness_log) - 1) {
		va_start(ap, fmt);
		harness_log_len +=
			(size_t)fmt_vsnprintf(harness_log + harness_log_len,
					      sizeof(harness_log) - harness_log_len, fmt, ap);
		va_end(ap);
		if (harness_log_len > sizeof(harness_log) - 1)
			harness_log_len = sizeof(harness_log) - 1;
	}
}
