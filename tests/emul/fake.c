/* SPDX-License-Identifier: GPL-2.0-only */
/* Fake guest for the emulator tests: memory with a hole and a read-only page, logging callbacks, a PRNG. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/fpu.h"
#include "tests/emul/fake.h"

struct fake fake;
u8 fake_pattern(u64 addr)
{
	return (u8)(addr * 37 + (addr >> 8) * 11 + 5);
}

void fake_reset(void)
{
	memset(&fake, 0, sizeof(fake));
	for (u32 i = 0; i < FAKE_SIZE; i++)
		fake.mem[i] = fake_pattern(i);
	for (u32 r = 0; r < 16; r++)
		for (u32 i = 0; i < 16; i++)
			fake.xmm[r][i] = (u8)(0x80 + r * 16 + i);
}

void fake_code(const void *bytes, size_t n)
{
	memcpy(fake.mem + FAKE_CODE, bytes, n);
}

void fake_ctx(struct x86_emu_ctx *ctx, enum x86_mode mode)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->rip = FAKE_CODE;
	ctx->rflags = 2;
	for (int s = 0; s < X86_NR_SREGS; s++) {
		ctx->seg[s].limit = mode == X86_MODE_16 ? 0xffff : 0xffffffff;
		ctx->seg[s].attr =
			X86_SEG_P | X86_SEG_S | 0x3 | (mode == X86_MODE_32 ? X86_SEG_DB : 0);
	}
	ctx->seg[X86_CS].attr = X86_SEG_P | X86_SEG_S | 0xb;
	if (mode == X86_MODE_16)
		return;
	ctx->cr0 = CR0_PE | BIT(31);
	if (mode == X86_MODE_32) {
		ctx->seg[X86_CS].attr |= X86_SEG_DB;
		return;
	}
	ctx->cr4 = BIT(5);
	ctx->efer = BIT(8) | EFER_LMA | EFER_NXE;
	ctx->seg[X86_CS].attr |= X86_SEG_L;
}

/* Checks an access against the fake address space; fills the fault the way a walker would. */
static int check(u64 lin, unsigned len, bool write, struct x86_fault *f)
{
	if (lin >= FAKE_SIZE || len > FAKE_SIZE - lin) {
		f->addr = lin >= FAKE_SIZE ? lin : FAKE_SIZE;
		return X86_ACC_FAULT;
	}
	for (u64 a = lin; a < lin + len; a = (a | 0xfff) + 1) {
		u64 page = a & ~0xfffull;

		if (page == FAKE_HOLE || (write && page == FAKE_RO)) {
			f->addr = a;
			f->error_code |= page == FAKE_RO ? X86_PF_P : 0;
			return X86_ACC_FAULT;
		}
	}
	return X86_ACC_OK;
}

/* One plain access: bounds, the fake's faults, then the copy in the right direction. */
static int copy(u64 lin, void *buf, unsigned len, bool write, struct x86_fault *f)
{
	assert_true(len >= 1 && len <= X86_FXSAVE_SIZE); /* FXSAVE's image the widest */
	if (check(lin, len, write, f))
		return X86_ACC_FAULT;
	if (write)
		memcpy(fake.mem + lin, buf, len);
	else
		memcpy(buf, fake.mem + lin, len);
	return X86_ACC_OK;
}

static int f_fetch(const struct x86_emu_ctx *ctx, u64 lin, void *buf, unsigned len,
		   struct x86_fault *f)
{
	(void)ctx;
	fake.fetches++;
	/* Fetches must never cross a page: the decoder stops at the page end. */
	assert_true(len <= 15 && (lin & 0xfff) + len <= 0x1000);
	return copy(lin, buf, len, false, f);
}

static int f_read(const struct x86_emu_ctx *ctx, u64 lin, void *buf, unsigned len,
		  struct x86_fault *f)
{
	(void)ctx;
	fake.reads++;
	return fake.unhandled_reads ? X86_ACC_UNHANDLED : copy(lin, buf, len, false, f);
}

static int f_write(const struct x86_emu_ctx *ctx, u64 lin, const void *buf, unsigned len,
		   struct x86_fault *f)
{
	(void)ctx;
	fake.writes++;
	fake.last_lin = lin;
	fake.last_len = len;
	return copy(lin, (void *)buf, len, true, f);
}

static int f_cmpxchg(const struct x86_emu_ctx *ctx, u64 lin, void *expected, const void *desired,
		     unsigned len, struct x86_fault *f)
{
	(void)ctx;
	fake.cmpxchgs++;
	fake.last_lin = lin;
	fake.last_len = len;
	assert_true(len >= 1 && len <= 16);
	if (check(lin, len, true, f))
		return X86_ACC_FAULT;
	if (fake.race > 0) {
		fake.race--;
		fake.mem[lin] ^= 0x40;
	}
	if (memcmp(fake.mem + lin, expected, len) == 0)
		memcpy(fake.mem + lin, desired, len);
	else
		memcpy(expected, fake.mem + lin, len);
	return X86_ACC_OK;
}

static int f_xmm(const struct x86_emu_ctx *ctx, unsigned reg, void *buf, bool write)
{
	(void)ctx;
	assert_true(reg < 16);
	if (write)
		memcpy(fake.xmm[reg], buf, 16);
	else
		memcpy(buf, fake.xmm[reg], 16);
	return X86_ACC_OK;
}

/* The host's own FPU is the guest's: the executor runs the real instruction on it. */
static int f_fpu(const struct x86_emu_ctx *ctx, const struct x86_fpu_req *req)
{
	(void)ctx;
	int rc;

	fake.fpus++;
	if (fake.fpu_in)
		fpu_restore(fake.fpu_in);
	rc = x86_fpu_run(req);
	if (fake.fpu_out)
		fpu_save(fake.fpu_out);
	return rc;
}

const struct x86_emu_ops fake_ops = {
	.fetch = f_fetch,
	.read = f_read,
	.write = f_write,
	.cmpxchg = f_cmpxchg,
	.xmm = f_xmm,
	.fpu = f_fpu,
};

u64 fake_rand(void)
{
	static u64 state = 0x9e3779b97f4a7c15ull;

	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

int fake_run_table(const char *group, const void *rows, size_t n, size_t size,
		   CMUnitTestFunction fn, const struct CMUnitTest *fixed, size_t nfixed)
{
	struct CMUnitTest *tests = calloc(n + nfixed, sizeof(*tests));
	int rc;

	assert_non_null(tests);
	for (size_t i = 0; i < n; i++) {
		void *row = (char *)rows + i * size;

		tests[i] = (struct CMUnitTest){ .name = *(const char **)row,
						.test_func = fn,
						.initial_state = row };
	}
	memcpy(tests + n, fixed, nfixed * sizeof(*tests));
	rc = _cmocka_run_group_tests(group, tests, n + nfixed, NULL, NULL);
	free(tests);
	return rc;
}
