/* SPDX-License-Identifier: GPL-2.0-only */
/* Fake guest for the emulator tests: 64 KiB of linear memory, a hole page, callbacks that log writes. */
#ifndef TESTS_EMUL_FAKE_H
#define TESTS_EMUL_FAKE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arch/x86/emulate.h"

#define FAKE_SIZE 0x10000u
#define FAKE_CODE 0x1000u /* RIP of every table case */
#define FAKE_HOLE 0xe000u /* a page that is not present: #PF */
#define FAKE_RO 0xb000u	  /* a page that faults on writes (protection #PF) */

struct fake {
	u8 mem[FAKE_SIZE];
	unsigned writes, cmpxchgs, reads, fetches, fpus; /* callback calls */
	u64 last_lin;
	unsigned last_len;
	int race;	     /* cmpxchg: change memory under the guest this many times */
	int unhandled_reads; /* read(): answer X86_ACC_UNHANDLED */
	u8 xmm[16][16];	     /* the XMM registers ops->xmm reaches */
	/* fpu(): the state loaded before each request and the one saved after it, when set.
	 * The host's own code between a test and the callback may use the XMM registers. */
	const u8 *fpu_in;
	u8 *fpu_out;
};

extern struct fake fake;
extern const struct x86_emu_ops fake_ops;

/* Fills memory with a fixed pattern and clears the counters. */
void fake_reset(void);
/* Flat segments in the given mode, RIP = FAKE_CODE, RFLAGS = 2, registers zero. */
void fake_ctx(struct x86_emu_ctx *ctx, enum x86_mode mode);
/* Places code at FAKE_CODE. */
void fake_code(const void *bytes, size_t n);
u8 fake_pattern(u64 addr);
/* xorshift64: the same sequence on every run, so failures reproduce. */
u64 fake_rand(void);

/*
 * Runs one cmocka test per table row (each row's first member is its name), then `fixed`:
 * the suite's count then says how many encodings ran.
 */
int fake_run_table(const char *group, const void *rows, size_t n, size_t size,
		   CMUnitTestFunction fn, const struct CMUnitTest *fixed, size_t nfixed);

#endif
