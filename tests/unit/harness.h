/* SPDX-License-Identifier: GPL-2.0-only */
/* Host unit-test harness: cmocka includes and a panic() that tests can catch. */
#ifndef TESTS_UNIT_HARNESS_H
#define TESTS_UNIT_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

extern jmp_buf *harness_panic_jmp;
extern char harness_panic_msg[256];
/* What kprintf printed since harness_log_reset (its tail cut at the buffer's size), for the
 * tests of code whose refusals are messages. */
extern char harness_log[4096];
void harness_log_reset(void);

/* Runs stmt, which must panic with a message containing substr. */
#define EXPECT_PANIC(stmt, substr) \
	do { \
		jmp_buf jb_; \
		harness_panic_jmp = &jb_; \
		if (!setjmp(jb_)) { \
			stmt; \
			harness_panic_jmp = NULL; \
			fail_msg("no panic from: %s", #stmt); \
		} \
		harness_panic_jmp = NULL; \
		if (!strstr(harness_panic_msg, substr)) \
			fail_msg("panic \"%s\" lacks \"%s\"", harness_panic_msg, substr); \
	} while (0)

/* Asserts an error string is set and contains substr. */
#define assert_error_has(err, substr) \
	do { \
		const char *e_ = (err); \
		if (!e_ || !strstr(e_, substr)) \
			fail_msg("error \"%s\" lacks \"%s\"", e_ ? e_ : "(none)", substr); \
	} while (0)

#endif
