/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared setup for the MMU test programs: a standard guest memory layout and check helpers. */
#ifndef TESTS_MMU_COMMON_H
#define TESTS_MMU_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>
#include "tests/mmu/guest.h"

/* Slot 0: gfn 0..0x3ff (4 MiB); hole; slot 1: gfn 0x600..0x67f; a slot at 1 GiB for 1 GiB pages. */
static inline void std_slots(struct harness *h)
{
	h_add_slot(h, 0, 0x400);
	h_add_slot(h, 0x600, 0x80);
	h_add_slot(h, 0x40000, 0x40);
}

#define CHECK_ACCESS(h, v, a) \
	do { \
		char msg_[512]; \
		if (!h_check_access((h), (v), (a), msg_, sizeof(msg_))) \
			fail_msg("%s", msg_); \
	} while (0)

#define CHECK_AUDIT(h) assert_int_equal(h_audit((h), true), 0)

#endif
