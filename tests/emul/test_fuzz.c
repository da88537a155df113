/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz: random and mutated instruction bytes in every mode through decode and emulate; nothing may crash. */
#include <string.h>

#include "tests/emul/fake.h"

#define ITERATIONS 1000000

static unsigned long stats[4]; /* emulate results by status, printed for a feel of coverage */

/* Bytes that steer random input towards the interesting paths: prefixes and emulated opcodes. */
static const u8 hot[] = {
	0x66, 0x67, 0xf0, 0xf2, 0xf3, 0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x40, 0x41,
	0x44, 0x48, 0x4f, 0x0f, 0x88, 0x89, 0x8a, 0x8b, 0xc6, 0xc7, 0xa0, 0xa1, 0xa2,
	0xa3, 0x86, 0x87, 0x01, 0x09, 0x11, 0x19, 0x21, 0x29, 0x31, 0x39, 0x80, 0x81,
	0x83, 0xfe, 0xff, 0xf6, 0xf7, 0xaa, 0xab, 0xa4, 0xa5, 0xac, 0xad, 0x63, 0xb0,
	0xb1, 0xc7, 0xab, 0xb3, 0xbb, 0xba, 0xa3, 0xb6, 0xb7, 0xbe, 0xbf, 0x20, 0x22,
	0x01, 0xc0, 0xc1, 0x04, 0x05, 0x24, 0x25, 0x44, 0x84, 0x0c, 0x3f,
};

/* Registers that mostly point into (or just outside) the fake memory. */
static u64 reg_value(void)
{
	switch (fake_rand() % 6) {
	case 0:
		return fake_rand();
	case 1:
		return fake_rand() % 16;
	case 2:
		return (u64) - (s64)(fake_rand() % 64);
	default:
		return fake_rand() % (FAKE_SIZE + 0x100);
	}
}

static void random_ctx(struct x86_emu_ctx *ctx)
{
	static const u8 modes[3] = { X86_MODE_16, X86_MODE_32, X86_MODE_64 };

	fake_ctx(ctx, modes[fake_rand() % 3]);
	for (int i = 0; i < X86_NR_GPRS; i++)
		ctx->gpr[i] = reg_value();
	ctx->rflags = 2 | (fake_rand() & (RFLAGS_ARITH | RFLAGS_DF));
	ctx->max_reps = fake_rand() % 8;
	ctx->cpl = fake_rand() % 4;
	if (fake_rand() % 4 == 0)
		ctx->seg[X86_DS + fake_rand() % 3].base =
			fake_rand() % FAKE_SIZE; /* not CS: the code stays put */
	if (fake_rand() % 8 == 0)
		ctx->seg[X86_DS].limit = fake_rand() % FAKE_SIZE;
	if (fake_rand() % 16 == 0)
		ctx->seg[X86_DS].attr |= X86_SEG_TYPE_EXPDOWN;
	if (fake_rand() % 16 == 0)
		ctx->rip = 0x1ff0 + fake_rand() % 16; /* instructions across a page */
}

static void random_bytes(u8 *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = fake_rand() % 2 ? hot[fake_rand() % sizeof(hot)] : (u8)fake_rand();
}

static void one(void)
{
	struct x86_emu_ctx ctx, copy;
	struct x86_emu_result res;
	struct x86_insn a, b;
	struct x86_fault f;
	u8 code[16];
	size_t n = 1 + fake_rand() % 16;
	int ra, rb, rc;

	random_ctx(&ctx);
	random_bytes(code, sizeof(code));
	memcpy(fake.mem + (ctx.rip & 0xffff), code, sizeof(code));

	ra = x86_decode_bytes(&ctx, code, n, &a, &f);
	assert_true(ra == X86_DEC_OK || ra == X86_DEC_UNHANDLED || ra == X86_DEC_FAULT);
	if (ra == X86_DEC_OK) {
		assert_true(a.len >= 1 && a.len <= X86_MAX_INSN_LEN && a.len <= n);
		assert_true(a.reg < 16 && a.rm < 16);
		assert_true(!a.has_mem || a.mem.seg < X86_NR_SREGS);
	}
	if (ra == X86_DEC_FAULT)
		assert_true(f.vector == VEC_GP || f.vector == VEC_UD);

	/* Through fetch(): the same answer whenever the buffer held the whole instruction. */
	rb = x86_decode(&ctx, &fake_ops, &b, &f);
	if (ra == X86_DEC_OK && (rb != X86_DEC_OK || b.len != a.len || b.mem.ea != a.mem.ea))
		fail_msg("fetch path: %d len %u/%u mode %u rip %#llx", rb, a.len, b.len, a.mode,
			 (unsigned long long)ctx.rip);
	if (rb != X86_DEC_OK)
		return;

	copy = ctx;
	fake.writes = fake.cmpxchgs = 0;
	rc = x86_emulate(&ctx, &fake_ops, &b, &res);
	assert_int_equal(rc, res.status);
	stats[rc & 3]++;
	switch (rc) {
	case X86_EMU_OK:
		if (!res.rep_incomplete)
			assert_true(ctx.rip == x86_next_rip(&copy, &b));
		else
			assert_true(ctx.rip == copy.rip && res.reps > 0);
		break;
	case X86_EMU_FAULT:
		assert_true(res.fault.vector == VEC_PF || res.fault.vector == VEC_GP ||
			    res.fault.vector == VEC_SS || res.fault.vector == VEC_UD ||
			    res.fault.vector == VEC_DE || res.fault.vector == VEC_NM ||
			    res.fault.vector == VEC_MF);
		assert_true(ctx.rip == copy.rip);
		break;
	default:
		assert_memory_equal(&ctx, &copy, sizeof(ctx));
		break;
	}
	/* Bounded work: one access per iteration, and the budget caps iterations. */
	assert_true(res.reps <= (copy.max_reps ? copy.max_reps : X86_EMU_DEFAULT_REPS));
	assert_true(fake.writes + fake.cmpxchgs <= res.reps + 1);
}

static void test_fuzz(void **state)
{
	(void)state;
	fake_reset();
	for (int i = 0; i < ITERATIONS; i++)
		one();
	print_message("fuzz: %d inputs; emulated ok %lu, unhandled %lu, fault %lu, retry %lu\n",
		      ITERATIONS, stats[0], stats[1], stats[2], stats[3]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuzz),
	};

	return cmocka_run_group_tests_name("emul-fuzz", tests, NULL, NULL);
}
