/* SPDX-License-Identifier: GPL-2.0-only */
/* Assertions and panic: fatal internal errors (never used for guest-caused conditions). */
#ifndef LIB_ASSERT_H
#define LIB_ASSERT_H

#include <stdarg.h>
#include "lib/types.h"

/* lib/panic.c in Umbra, which calls the handler the layer that reports registered (vmm/: dump,
 * backtrace, summary, end of the run); host harnesses implement it themselves (abort). lib/,
 * arch/ and mmu/ thus stop the run without calling up into vmm/. */
NORETURN void panic(const char *fmt, ...) PRINTF_LIKE(1, 2);
typedef NORETURN void (*panic_handler_fn)(const char *fmt, va_list ap);
void panic_set_handler(panic_handler_fn fn);

#define ASSERT(cond) \
	do { \
		if (unlikely(!(cond))) \
			panic("assertion failed: %s at %s:%d", #cond, __FILE__, __LINE__); \
	} while (0)

#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)

#endif
