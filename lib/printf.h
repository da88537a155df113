/* SPDX-License-Identifier: GPL-2.0-only */
/* Formatted output: a freestanding vsnprintf engine and the kernel log (kprintf) built on it. */
#ifndef LIB_PRINTF_H
#define LIB_PRINTF_H

#include <stdarg.h>
#include "lib/types.h"

/* Supports %d %i %u %x %X %p %s %c %% with flags '-', '0', '#', width (or *), .precision
 * for %s, and l/ll/z/h/hh. Returns the length the full output has (like snprintf). */
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* Streams each output character to out(c, arg); returns the number of characters produced. */
int fmt_vcbprintf(void (*out)(char c, void *arg), void *arg, const char *fmt, va_list ap);

/*
 * For parsers that report into a result struct with `const char *error` and
 * `char errbuf[]`: formats the message there and evaluates to code.
 */
#define FMT_ERROR(res, code, ...) \
	(fmt_snprintf((res)->errbuf, sizeof((res)->errbuf), __VA_ARGS__), \
	 (res)->error = (res)->errbuf, (code))

/* Log levels for kprintf filtering (Umbra's log= option). */
enum log_level { LOG_QUIET = 0, LOG_INFO = 1, LOG_DEBUG = 2 };
extern int log_level;

/* Implemented by the kernel (serial console) and by host test harnesses (stdout). */
void kprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);
#define kdebug(...) \
	do { \
		if (log_level >= LOG_DEBUG) \
			kprintf(__VA_ARGS__); \
	} while (0)
#define kinfo(...) \
	do { \
		if (log_level >= LOG_INFO) \
			kprintf(__VA_ARGS__); \
	} while (0)

#endif
