/* Assertions and panic: fatal internal errors (never used for guest-caused conditions). */
#ifndef LIB_ASSERT_H
#define LIB_ASSERT_H

#include "lib/types.h"

/* Implemented by the kernel (dump and fail the run) and by host harnesses (abort). */
NORETURN void panic(const char *fmt, ...) PRINTF_LIKE(1, 2);

#define ASSERT(cond) \
	do { \
		if (unlikely(!(cond))) \
			panic("assertion failed: %s at %s:%d", #cond, __FILE__, __LINE__); \
	} while (0)

#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)

#endif
