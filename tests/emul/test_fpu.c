/* SPDX-License-Identifier: GPL-2.0-only */
/* Emulator tests of the x87 and MMX memory forms, every form of arch/x86/fpu_forms.h in real, protected and long mode, against the host FPU running the same form on the same bytes. */
#include <string.h>

#include "arch/x86/fpu.h"
#include "tests/emul/fake.h"

#define D 0x2000u
#define FSW_ES 0x80

struct form_case {
	const char *name;
	unsigned form;
};

#define CASE(name, ...) { #name, X86_FPU_##name },
static const struct form_case forms[] = { X86_X87_FORMS(CASE) X86_MMX_FORMS(CASE) };
#undef CASE

static u8 start[512] __attribute__((aligned(16)));

/*
 * The machines this runs on lose the x87 last-instruction and operand pointers now and then:
 * FOP, FIP and FDP read 0 afterwards. Measured on the project's AMD EPYC machines (a guest kernel
 * reporting XSAVEERPTR): 199,999 of 200,000 FNSTENV right after a forced context switch read
 * FIP = FDP = 0 (0 of 200,000 without), and about 1 run of this binary in 100 on a loaded
 * machine failed that way with no switch of this thread counted (a hypervisor below preempting
 * the vCPU). A comparison that differs only there, one side's all zero, is counted instead of
 * failed; test_pointer_losses then fails any site where more than one window in 20 (at least
 * one) did: an emulator that drops the pointers drops them every time.
 */
struct losses {
	const char *site;
	unsigned windows, lost;
};
static struct losses loss_form = { .site = "test_form" }, loss_fault = { .site = "expect_fault" },
		     loss_env = { .site = "test_env_protected" }, loss_fx = { .site = "test_fxsr" },
		     loss_real = { .site = "test_env_real" };

/* FOP, FIP and FDP: bytes 6-23 of an FXSAVE image. */
static bool pointers_zero(const u8 *img)
{
	for (int i = 6; i < 24; i++)
		if (img[i])
			return false;
	return true;
}

/* The first n bytes of FXSAVE images a and b are the same, or differ only by such a loss. */
static bool same_state(struct losses *l, const u8 *a, const u8 *b, size_t n)
{
	l->windows++;
	if (!memcmp(a, b, n))
		return true;
	if (memcmp(a, b, 6) || memcmp(a + 24, b + 24, n - 24) ||
	    (!pointers_zero(a) && !pointers_zero(b)))
		return false;
	l->lost++;
	return true;
}

/* Word i (of size sz) of an environment image is zero. */
static bool env_word_zero(const u8 *img, unsigned i, unsigned sz)
{
	for (unsigned k = 0; k < sz; k++)
		if (img[i * sz + k])
			return false;
	return true;
}

/* Environment or save images a and b (word size sz: 2 or 4) are the same, or differ only in
 * their pointer words (3-6: the offsets, selectors and opcode) by such a loss, whose mark is
 * one side's instruction and operand offsets (words 3 and 5) both zero. */
static bool same_env(struct losses *l, const u8 *a, const u8 *b, size_t n, unsigned sz)
{
	l->windows++;
	if (!memcmp(a, b, n))
		return true;
	bool zero_a = env_word_zero(a, 3, sz) && env_word_zero(a, 5, sz);
	bool zero_b = env_word_zero(b, 3, sz) && env_word_zero(b, 5, sz);
	if (memcmp(a, b, 3 * sz) || memcmp(a + 7 * sz, b + 7 * sz, n - 7 * sz) ||
	    (!zero_a && !zero_b))
		return false;
	l->lost++;
	return true;
}

static void test_pointer_losses(void **state)
{
	struct losses *all[] = { &loss_form, &loss_fault, &loss_env, &loss_fx, &loss_real };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		const struct losses *l = all[i];
		unsigned allowed = l->windows / 20 > 1 ? l->windows / 20 : 1;
		if (l->lost)
			print_message("%s: the host lost the x87 pointers in %u of %u windows\n",
				      l->site, l->lost, l->windows);
		assert_true(l->windows > 0);
		if (l->lost > allowed)
			fail_msg("%s: pointers zero in %u of %u windows", l->site, l->lost,
				 l->windows);
	}
}

/* The state every case starts from: two values on the x87 stack, all exceptions masked. */
static void start_state(void)
{
	__asm__ volatile("fninit\n\tfld1\n\tfldpi" ::: "memory");
	fpu_save(start);
}

/* The form's bytes in mode: ModRM /sub (MMX: MM3) on [bx] or [rdi]/[edi]; REX.W where the
 * MMX form needs it (long mode only). */
static size_t encode(unsigned form, enum x86_mode mode, u8 *p, u16 *fop)
{
	const struct x86_fpu_form_desc *f = &x86_fpu_forms[form];
	size_t n = 0;

	if (form < X86_FPU_MMX_FIRST) {
		p[n++] = f->opcode;
		p[n++] = (u8)(f->sub << 3 | 7);
		*fop = (u16)((f->opcode & 7) << 8 | p[1]);
		return n;
	}
	if (f->sub == 1) {
		if (mode != X86_MODE_64)
			return 0;
		p[n++] = 0x48;
	}
	p[n++] = 0x0f;
	p[n++] = f->opcode;
	p[n++] = 3 << 3 | 7;
	*fop = 0;
	return n;
}

static int emulate(struct x86_emu_ctx *ctx, enum x86_mode mode, const u8 *code, size_t n, u64 addr,
		   struct x86_emu_result *res)
{
	struct x86_insn in;

	fake_ctx(ctx, mode);
	fake_code(code, n);
	ctx->gpr[X86_RDI] = ctx->gpr[X86_RBX] = addr;
	fake.reads = fake.writes = fake.fpus = 0;
	return x86_emulate_at_rip(ctx, &fake_ops, &in, res);
}

/*
 * One form in one mode: the emulator (device bytes through the fake's read and write, the form
 * through the executor on this host's FPU) against the host running the form directly on the
 * same bytes with the same FPU state: the whole x87/MMX state after it (FXSAVE image, the
 * last-instruction pointers included, which must be the guest's), the memory, and one access
 * of the form's width at the operand, a read for a load and a write for a store.
 */
static void test_form(void **state)
{
	const struct form_case *c = *state;
	const struct x86_fpu_form_desc *f = &x86_fpu_forms[c->form];
	static const enum x86_mode modes[] = { X86_MODE_16, X86_MODE_32, X86_MODE_64 };
	u8 ref_img[512] __attribute__((aligned(16))), img[512] __attribute__((aligned(16)));
	u8 ref[32], code[8];
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;
	u32 env[7];
	u16 fop;

	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		size_t n = encode(c->form, modes[m], code, &fop);
		if (!n)
			continue;
		fake_reset();
		start_state();
		memcpy(ref, fake.mem + D - 8, sizeof(ref));
		struct x86_fpu_req req = { .form = (u16)c->form,
					   .reg = 3,
					   .buf = ref + 8,
					   .fip = FAKE_CODE,
					   .fdp = D,
					   .fop = fop };
		fpu_restore(start);
		assert_int_equal(x86_fpu_run(&req), X86_ACC_OK);
		fpu_save(ref_img);

		fpu_restore(start);
		int rc = emulate(&ctx, modes[m], code, n, D, &res);
		fpu_save(img);
		__asm__ volatile("fnstenv %0\n\tfninit" : "=m"(env) : : "memory");
		/* The guest's instruction and operand, not the executor's (FNSTENV shows them on
		 * both vendors; AMD's FXSAVE only with an exception pending). */
		bool sets = c->form < X86_FPU_MMX_FIRST && c->form != X86_FPU_FLDCW &&
			    c->form != X86_FPU_FNSTCW && c->form != X86_FPU_FNSTSW;
		bool lost = sets && env[3] == 0 && env[5] == 0 && (env[4] >> 16) == 0;
		if (sets && !lost && (env[3] != FAKE_CODE || env[5] != D || (env[4] >> 16) != fop))
			fail_msg("%s mode %d: FIP %#x FDP %#x FOP %#x", c->name, modes[m], env[3],
				 env[5], env[4] >> 16);
		if (rc != X86_EMU_OK)
			fail_msg("%s mode %d: status %d vector %u", c->name, modes[m], rc,
				 res.fault.vector);
		assert_int_equal(ctx.rip, FAKE_CODE + n);
		assert_int_equal(res.linear, D);
		assert_int_equal(res.width, f->width);
		assert_int_equal(fake.reads, f->store ? 0 : 1);
		assert_int_equal(fake.writes, f->store ? 1 : 0);
		/* The x87 and MMX state (and MXCSR): bytes 0-159 of the image. */
		if (lost)
			loss_form.lost++, loss_form.windows++;
		if (!same_state(&loss_form, img, ref_img, 160))
			fail_msg("%s mode %d: FPU state differs from the host's", c->name,
				 modes[m]);
		assert_memory_equal(fake.mem + D - 8, ref, sizeof(ref));
	}
}

/* Runs code in long mode on state s; the FPU state after it in out (then FNINIT). */
static int run_on(const u8 *s, const char *code, size_t n, u64 addr, u64 cr0, u8 *out,
		  struct x86_emu_result *res)
{
	struct x86_emu_ctx ctx;
	struct x86_insn in;
	int rc;

	fake_ctx(&ctx, X86_MODE_64);
	ctx.cr0 |= cr0;
	fake_code(code, n);
	ctx.gpr[X86_RDI] = addr;
	fake.reads = fake.writes = fake.fpus = 0;
	fpu_restore(s);
	rc = x86_emulate_at_rip(&ctx, &fake_ops, &in, res);
	fpu_save(out);
	__asm__ volatile("fninit" ::: "memory");
	if (rc != X86_EMU_FAULT)
		assert_int_equal(ctx.rip, rc == X86_EMU_OK ? FAKE_CODE + n : FAKE_CODE);
	return rc;
}

/* Expects a fault with the FPU state and memory untouched. */
static void expect_fault(const u8 *s, const char *code, size_t n, u64 addr, u64 cr0, u8 vector)
{
	u8 img[512] __attribute__((aligned(16))), mem[32];
	struct x86_emu_result res;

	memcpy(mem, fake.mem + D, sizeof(mem));
	assert_int_equal(run_on(s, code, n, addr, cr0, img, &res), X86_EMU_FAULT);
	assert_int_equal(res.fault.vector, vector);
	if (vector != VEC_PF) { /* the fake counts the access that faulted */
		assert_int_equal(fake.writes, 0);
		assert_int_equal(fake.reads, 0);
	}
	if (!same_state(&loss_fault, img, s, 160))
		fail_msg("vector %u: FPU state changed", vector);
	assert_memory_equal(fake.mem + D, mem, sizeof(mem));
}

/*
 * The CPU's faults, in its order: CR0.TS #NM for both, CR0.EM #NM for x87 and #UD for MMX; a
 * pending unmasked x87 exception #MF before the access (for MMX too) but not for the FN*
 * forms; #PF on a load or a store with the FPU state as before the instruction (FSTP did not
 * pop); an unmasked invalid operation suppresses FSTP's store, an unmasked precision exception
 * does not; and no fpu callback: not emulated.
 */
static void test_faults(void **state)
{
	u8 pending[512] __attribute__((aligned(16))), img[512] __attribute__((aligned(16)));
	u16 cw_ze = 0x37b, cw_ie = 0x37e, cw_pe = 0x35f, sw;
	struct x86_emu_result res;

	(void)state;
	fake_reset();
	start_state();
	expect_fault(start, "\xd9\x07", 2, D, CR0_TS, VEC_NM); /* flds */
	expect_fault(start, "\xd9\x07", 2, D, CR0_EM, VEC_NM);
	expect_fault(start, "\x0f\x6f\x1f", 3, D, CR0_TS, VEC_NM); /* movq mm3 */
	expect_fault(start, "\x0f\x6f\x1f", 3, D, CR0_EM, VEC_UD);
	expect_fault(start, "\xdd\x1f", 2, FAKE_HOLE, 0, VEC_PF); /* fstpl: no pop */
	expect_fault(start, "\xdb\x2f", 2, FAKE_HOLE, 0, VEC_PF); /* fldt */

	/* 1/0 with ZE unmasked: pending, ES set, nothing raised until a waiting form. */
	__asm__ volatile("fninit\n\tfldcw %0\n\tfldz\n\tfld1\n\tfdiv %%st(1), %%st\n\t"
			 "fxsave64 %1\n\tfninit"
			 :
			 : "m"(cw_ze), "m"(pending)
			 : "memory");
	assert_true(pending[2] & 0x04);
	assert_true(pending[2] & FSW_ES);
	expect_fault(pending, "\xd9\x07", 2, D, 0, VEC_MF);	/* flds */
	expect_fault(pending, "\xdd\x17", 2, D, 0, VEC_MF);	/* fstl */
	expect_fault(pending, "\xd9\x2f", 2, D, 0, VEC_MF);	/* fldcw */
	expect_fault(pending, "\x0f\x7f\x1f", 3, D, 0, VEC_MF); /* movq (rdi),mm3 */
	/* FNSTSW and FNSTCW do not wait. */
	assert_int_equal(run_on(pending, "\xdd\x3f", 2, D, 0, img, &res), X86_EMU_OK);
	memcpy(&sw, fake.mem + D, 2);
	assert_int_equal(sw, pending[2] | pending[3] << 8);
	assert_int_equal(run_on(pending, "\xd9\x3f", 2, D, 0, img, &res), X86_EMU_OK);
	assert_int_equal(fake.mem[D], (u8)cw_ze);

	/* FSTP of an empty register with IE unmasked: no store, and the fault is now pending. */
	fake_reset();
	__asm__ volatile("fninit\n\tfldcw %0\n\tfxsave64 %1\n\tfninit"
			 :
			 : "m"(cw_ie), "m"(pending)
			 : "memory");
	assert_int_equal(run_on(pending, "\xdd\x1f", 2, D, 0, img, &res), X86_EMU_OK);
	assert_int_equal(fake.writes, 0);
	assert_int_equal(fake.mem[D], fake_pattern(D));
	assert_true(img[2] & FSW_ES);
	/* FST of pi to 32 bits with PE unmasked: stored, then pending. */
	__asm__ volatile("fninit\n\tfldcw %0\n\tfldpi\n\tfxsave64 %1\n\tfninit"
			 :
			 : "m"(cw_pe), "m"(pending)
			 : "memory");
	assert_int_equal(run_on(pending, "\xd9\x17", 2, D, 0, img, &res), X86_EMU_OK);
	assert_int_equal(fake.writes, 1);
	assert_memory_equal(fake.mem + D, "\xdb\x0f\x49\x40", 4);
	assert_true(img[2] & FSW_ES);

	/* Without the callback the forms are not emulated. */
	static const struct x86_emu_ops no_fpu = { .read = NULL };
	struct x86_emu_ctx ctx;
	struct x86_insn in;
	fake_ctx(&ctx, X86_MODE_64);
	fake_code("\xd9\x07", 2);
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &res.fault), X86_DEC_OK);
	assert_int_equal(x86_emulate(&ctx, &no_fpu, &in, &res), X86_EMU_UNHANDLED);
	/* A register form of D8-DF touches no memory: not this emulator's. */
	fake_code("\xd9\xc0", 2);
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &res.fault), X86_DEC_OK);
	assert_int_equal(x86_emulate(&ctx, &fake_ops, &in, &res), X86_EMU_UNHANDLED);
}

/* Known values through the device: 1.5f in as FLD m32, out as FSTP m64 and FISTP m16 (2). */
static void test_values(void **state)
{
	u8 img[512] __attribute__((aligned(16)));
	struct x86_emu_result res;

	(void)state;
	fake_reset();
	__asm__ volatile("fninit\n\tfxsave64 %0\n\tfninit" : : "m"(img) : "memory");
	memcpy(fake.mem + D, "\x00\x00\xc0\x3f", 4);
	assert_int_equal(run_on(img, "\xd9\x07", 2, D, 0, img, &res), X86_EMU_OK);
	assert_int_equal(run_on(img, "\xdd\x1f", 2, D + 8, 0, img, &res), X86_EMU_OK);
	assert_memory_equal(fake.mem + D + 8, "\x00\x00\x00\x00\x00\x00\xf8\x3f", 8);
	memcpy(fake.mem + D, "\x00\x00\xc0\x3f", 4);
	assert_int_equal(run_on(img, "\xd9\x07", 2, D, 0, img, &res), X86_EMU_OK);
	assert_int_equal(run_on(img, "\xdf\x1f", 2, D + 16, 0, img, &res), X86_EMU_OK);
	assert_memory_equal(fake.mem + D + 16, "\x02\x00", 2);
	/* MOVD in, MOVQ out: the upper half zeroed. */
	memcpy(fake.mem + D, "\x11\x22\x33\x44", 4);
	assert_int_equal(run_on(img, "\x0f\x6e\x1f", 3, D, 0, img, &res), X86_EMU_OK);
	assert_int_equal(run_on(img, "\x0f\x7f\x1f", 3, D + 8, 0, img, &res), X86_EMU_OK);
	assert_memory_equal(fake.mem + D + 8, "\x11\x22\x33\x44\x00\x00\x00\x00", 8);
}

/* ---- FLDENV, FNSTENV, FRSTOR, FNSAVE ---- */

/* The environment forms on [rdi] ([bx] in 16-bit code), with a 66 prefix when o16 differs from
 * the mode's default. */
static size_t env_code(unsigned form, bool prefix, u8 *p)
{
	const struct x86_fpu_env_desc *f = &x86_fpu_env_forms[form - X86_FPU_ENV_FIRST];
	size_t n = 0;

	if (prefix)
		p[n++] = 0x66;
	p[n++] = f->opcode;
	p[n++] = (u8)(f->sub << 3 | 7);
	return n;
}

/* The host running an environment form natively on buf, with 66 (the 16-bit layout) or not. */
static void env_native(unsigned form, bool o16, void *buf)
{
	switch (form * 2 + o16) {
#define NATIVE(name, op, sub, regs, st, wait, insn) \
	case X86_FPU_##name * 2: \
		__asm__ volatile(insn " (%0)" : : "r"(buf) : "memory"); \
		break; \
	case X86_FPU_##name * 2 + 1: \
		__asm__ volatile(".byte 0x66\n\t" insn " (%0)" : : "r"(buf) : "memory"); \
		break;
		X86_X87_ENV_FORMS(NATIVE)
#undef NATIVE
	}
}

/*
 * start_state with its pointers set: FIP, FOP, FDP. FXRSTOR restores them on Intel but on AMD
 * only with an exception pending, so the state to start from is st and then this FLDENV.
 */
static u32 ptr_env[7];

static void pointer_state(u32 fip, u16 fop, u32 fdp)
{
	start_state();
	fpu_restore(start);
	__asm__ volatile("fnstenv %0\n\tfninit" : "=m"(ptr_env) : : "memory");
	ptr_env[0] = 0x37f; /* FNSTENV masked what start_state had: the same */
	ptr_env[3] = fip;
	ptr_env[4] = (ptr_env[4] & 0xffff) | (u32)fop << 16;
	ptr_env[5] = fdp;
}

/* st, and the pointers if it is start. */
static void restore_with_pointers(const u8 *st)
{
	fpu_restore(st);
	if (st == start)
		__asm__ volatile("fldenv %0" : : "m"(ptr_env) : "memory");
}

static int env_emulate(unsigned form, enum x86_mode mode, bool prefix, const u8 *st, u8 *img,
		       struct x86_emu_result *res)
{
	struct x86_emu_ctx ctx;
	u8 code[4];
	size_t n = env_code(form, prefix, code);

	restore_with_pointers(st);
	int rc = emulate(&ctx, mode, code, n, D, res);
	fpu_save(img);
	__asm__ volatile("fninit" ::: "memory");
	if (rc == X86_EMU_OK)
		assert_int_equal(ctx.rip, FAKE_CODE + n);
	return rc;
}

/*
 * Protected and long mode, 32 and 16-bit layouts: the emulator against the host running the
 * same form natively (its 64-bit mode writes the protected-mode layouts): the bytes stored, the
 * FPU state after (FNSTENV masks every exception, FNSAVE initializes the FPU, FLDENV/FRSTOR
 * load what the bytes say), one access of the layout's size.
 */
static void test_env_protected(void **state)
{
	static const enum x86_mode modes[] = { X86_MODE_32, X86_MODE_64 };
	const u8 *st = start;
	u8 other[512] __attribute__((aligned(16)));
	u8 ref_img[512] __attribute__((aligned(16))), img[512] __attribute__((aligned(16)));
	u8 ref[X86_FPU_ENV_IMAGE + 8], bytes[X86_FPU_ENV_IMAGE];
	struct x86_emu_result res;

	(void)state;
	pointer_state(0x12345678, 0x1ab, 0x9abcdef0);
	/* Another state for the loads: pi and 1 swapped, other pointers, a control word of its own. */
	__asm__ volatile("fninit\n\tfldpi\n\tfld1\n\tfxsave64 %0\n\tfninit"
			 :
			 : "m"(other)
			 : "memory");
	other[0] = 0x7e; /* FCW: IM unmasked */
	for (unsigned form = X86_FPU_ENV_FIRST; form < X86_FPU_ENV_END; form++) {
		const struct x86_fpu_env_desc *f = &x86_fpu_env_forms[form - X86_FPU_ENV_FIRST];
		for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
			for (int o16 = 0; o16 < 2; o16++) {
				unsigned len = x86_fpu_env_len(o16, f->regs);
				fake_reset();
				if (!f->store) {
					/* The image to load: the other state stored natively. */
					unsigned save = f->regs ? X86_FPU_FNSAVE : X86_FPU_FNSTENV;
					fpu_restore(other);
					env_native(save, o16, bytes);
					memcpy(fake.mem + D, bytes, len);
				}
				memcpy(ref, fake.mem + D, sizeof(ref));
				restore_with_pointers(st);
				env_native(form, o16, ref);
				fpu_save(ref_img);
				__asm__ volatile("fninit" ::: "memory");
				int rc = env_emulate(form, modes[m], o16, st, img, &res);
				if (rc != X86_EMU_OK)
					fail_msg("form %u mode %d o16 %d: status %d", form,
						 modes[m], o16, rc);
				assert_int_equal(res.width, len);
				assert_int_equal(fake.reads, f->store ? 0 : 1);
				assert_int_equal(fake.writes, f->store ? 1 : 0);
				unsigned before = loss_env.lost;
				if (!same_state(&loss_env, img, ref_img, 160))
					fail_msg(
						"form %u mode %d o16 %d: FPU state differs from the host's",
						form, modes[m], o16);
				/* The image in memory holds the pointers too, in the form's layout. */
				if (loss_env.lost == before &&
				    !same_env(&loss_env, fake.mem + D, ref, sizeof(ref),
					      o16 ? 2 : 4))
					fail_msg(
						"form %u mode %d o16 %d: memory differs from the host's",
						form, modes[m], o16);
			}
		}
	}
}

static u32 word(unsigned i, unsigned size)
{
	u32 v = 0;

	memcpy(&v, fake.mem + D + i * size, size);
	return v;
}

/*
 * Real mode, which the host cannot run: the layouts the SDM draws (vol. 1, figures 8-10 and
 * 8-12), checked word by word for known pointers (FIP 0xabc12345, FOP 0x1ab, FDP 0x56789abc:
 * the 16-bit layout keeps 20 bits of each), then loaded back by FLDENV and FRSTOR.
 */
static void test_env_real(void **state)
{
	u8 img[512] __attribute__((aligned(16))), none[512] __attribute__((aligned(16)));
	const u8 *st = start;
	struct x86_emu_result res;
	u32 env[7];

	(void)state;
	pointer_state(0xabc12345, 0x1ab, 0x56789abc);
	__asm__ volatile("fninit\n\tfxsave64 %0" : : "m"(none) : "memory");
	for (int o16 = 0; o16 < 2; o16++) {
		unsigned size = o16 ? 2 : 4;
		fake_reset();
		assert_int_equal(env_emulate(X86_FPU_FNSTENV, X86_MODE_16, !o16, st, img, &res),
				 X86_EMU_OK);
		assert_int_equal(res.width, o16 ? 14 : 28);
		assert_int_equal(word(0, size) & 0xffff, st[0] | st[1] << 8); /* FCW */
		bool gone = word(3, size) == 0 && word(4, size) == 0 && word(5, size) == 0 &&
			    word(6, size) == 0;
		loss_real.windows++;
		if (gone) {
			loss_real.lost++;
		} else {
			assert_int_equal(word(3, size), 0x2345);
			assert_int_equal(word(4, size), o16 ? 0x11ab : 0x0abc11ab);
			assert_int_equal(word(5, size), 0x9abc);
			assert_int_equal(word(6, size), o16 ? 0x8000 : 0x05678000);
		}
		assert_int_equal(fake.mem[D + (o16 ? 14 : 28)], fake_pattern(D + (o16 ? 14 : 28)));
		/* FNSTENV masked every exception, as the CPU does. */
		assert_int_equal(img[0] & 0x3f, 0x3f);

		/* Back in: the pointers as the layout kept them. */
		fpu_restore(none);
		struct x86_emu_ctx ctx;
		u8 code[4];
		size_t n = env_code(X86_FPU_FLDENV, !o16, code);
		assert_int_equal(emulate(&ctx, X86_MODE_16, code, n, D, &res), X86_EMU_OK);
		__asm__ volatile("fnstenv %0\n\tfninit" : "=m"(env) : : "memory");
		gone = env[3] == 0 && env[5] == 0 && (env[4] >> 16) == 0;
		loss_real.windows++;
		if (gone) {
			loss_real.lost++;
		} else {
			assert_int_equal(env[3], o16 ? 0x12345 : 0xabc12345);
			assert_int_equal(env[4] >> 16, 0x1ab);
			assert_int_equal(env[5], o16 ? 0x89abc : 0x56789abc);
		}
		assert_int_equal(res.width, o16 ? 14 : 28);
		assert_int_equal(fake.reads, 1);

		/* FNSAVE: 94 or 108 bytes, then an initialized FPU; FRSTOR brings the registers,
		 * control, status and tag words back. */
		fake_reset();
		assert_int_equal(env_emulate(X86_FPU_FNSAVE, X86_MODE_16, !o16, st, img, &res),
				 X86_EMU_OK);
		assert_int_equal(res.width, o16 ? 94 : 108);
		assert_int_equal(fake.writes, 1);
		assert_int_equal(img[0] | img[1] << 8, 0x37f);
		assert_int_equal(img[4], 0); /* every register empty */
		loss_real.windows++;
		if (word(3, size) == 0)
			loss_real.lost++;
		else
			assert_int_equal(word(3, size), 0x2345);
		assert_int_equal(env_emulate(X86_FPU_FRSTOR, X86_MODE_16, !o16, none, img, &res),
				 X86_EMU_OK);
		assert_memory_equal(img, st, 6);
		assert_memory_equal(img + 32, st + 32, 128);
	}
}

/*
 * Faults: #NM under CR0.TS; #MF with an unmasked exception pending for FLDENV and FRSTOR, which
 * wait, not for FNSTENV and FNSAVE, which store it; #PF with the FPU state untouched (FNSAVE
 * has not initialized it, FNSTENV has not masked anything) and nothing written, also for an
 * image whose last bytes fall in the hole.
 */
static void test_env_faults(void **state)
{
	u8 pending[512] __attribute__((aligned(16))), img[512] __attribute__((aligned(16)));
	u16 cw_ze = 0x37b;
	struct x86_emu_result res;

	(void)state;
	fake_reset();
	start_state();
	expect_fault(start, "\xd9\x27", 2, D, CR0_TS, VEC_NM); /* fldenv */
	expect_fault(start, "\xd9\x37", 2, D, CR0_TS, VEC_NM); /* fnstenv */
	expect_fault(start, "\xdd\x27", 2, D, CR0_EM, VEC_NM); /* frstor */
	expect_fault(start, "\xdd\x37", 2, D, CR0_TS, VEC_NM); /* fnsave */
	expect_fault(start, "\xdd\x37", 2, FAKE_HOLE, 0, VEC_PF);
	expect_fault(start, "\xdd\x37", 2, FAKE_HOLE - 100, 0, VEC_PF); /* 8 bytes in */
	expect_fault(start, "\xd9\x37", 2, FAKE_HOLE - 20, 0, VEC_PF);
	expect_fault(start, "\xdd\x27", 2, FAKE_HOLE - 4, 0, VEC_PF);
	expect_fault(start, "\xd9\x27", 2, FAKE_HOLE, 0, VEC_PF);

	__asm__ volatile("fninit\n\tfldcw %0\n\tfldz\n\tfld1\n\tfdiv %%st(1), %%st\n\t"
			 "fxsave64 %1\n\tfninit"
			 :
			 : "m"(cw_ze), "m"(pending)
			 : "memory");
	expect_fault(pending, "\xd9\x27", 2, D, 0, VEC_MF);
	expect_fault(pending, "\xdd\x27", 2, D, 0, VEC_MF);
	assert_int_equal(run_on(pending, "\xd9\x37", 2, D, 0, img, &res), X86_EMU_OK);
	assert_true(fake.mem[D + 4] & FSW_ES);
	assert_int_equal(run_on(pending, "\xdd\x37", 2, D, 0, img, &res), X86_EMU_OK);
	assert_true(fake.mem[D + 4] & FSW_ES);
	assert_false(img[2] & FSW_ES); /* initialized */
}

/* ---- FXSAVE, FXRSTOR ---- */

/* The host running FXSAVE (w64: FXSAVE64) on state st, with nothing of its own in between. */
static void fx_native_save(const u8 *st, bool w64, u8 *buf)
{
	if (w64)
		__asm__ volatile("fxrstor64 (%0)\n\tfxsave64 (%1)"
				 :
				 : "r"(st), "r"(buf)
				 : "memory");
	else
		__asm__ volatile("fxrstor64 (%0)\n\tfxsave (%1)" : : "r"(st), "r"(buf) : "memory");
}

/* And FXRSTOR from buf on st, the state after it in out. */
static void fx_native_restore(const u8 *st, bool w64, const u8 *buf, u8 *out)
{
	if (w64)
		__asm__ volatile("fxrstor64 (%0)\n\tfxrstor64 (%1)\n\tfxsave64 (%2)"
				 :
				 : "r"(st), "r"(buf), "r"(out)
				 : "memory");
	else
		__asm__ volatile("fxrstor64 (%0)\n\tfxrstor (%1)\n\tfxsave64 (%2)"
				 :
				 : "r"(st), "r"(buf), "r"(out)
				 : "memory");
}

/*
 * A state with every part set: 1/0 with ZE unmasked pending (AMD's FXSAVE and FXRSTOR take the
 * pointers only then), FIP and FDP above 4 GiB (only the REX.W forms store and load those
 * bits), MXCSR with RC down, XMM0-15 numbered; then as the CPU keeps it.
 */
static void fx_state(u8 *st, u8 seed)
{
	u16 cw_ze = 0x37b;
	u64 fip = 0x12345678u | (u64)seed << 32, fdp = 0x9abcdef0u | (u64)seed << 36;

	__asm__ volatile("fninit\n\tfldcw %1\n\tfldpi\n\tfldz\n\tfld1\n\tfdiv %%st(1), %%st\n\t"
			 "fxsave64 (%0)\n\tfninit"
			 :
			 : "r"(st), "m"(cw_ze)
			 : "memory");
	memcpy(st + 8, &fip, 8);
	memcpy(st + 16, &fdp, 8);
	st[X86_FXSAVE_MXCSR + 1] = 0x5f; /* 0x5f80: round down */
	for (unsigned i = 0; i < 256; i++)
		st[X86_FXSAVE_XMM + i] = (u8)(seed + i);
	__asm__ volatile("fxrstor64 (%0)\n\tfxsave64 (%0)\n\tfninit" : : "r"(st) : "memory");
	assert_true(st[2] & FSW_ES);
}

/* 0F AE /sub on [rdi] ([bx] in 16-bit code; REX.W when w64) at addr, in mode with cr0 and
 * cr4 added, on state st (through the fake's fpu_in); the state after the last request in out. */
static int fx_emulate(unsigned sub, bool w64, enum x86_mode mode, u64 cr0, u64 cr4, u64 addr,
		      const u8 *st, u8 *out, struct x86_emu_result *res)
{
	struct x86_emu_ctx ctx;
	struct x86_insn in;
	u8 code[4];
	size_t n = 0;
	int rc;

	if (w64)
		code[n++] = 0x48;
	code[n++] = 0x0f;
	code[n++] = 0xae;
	code[n++] = (u8)(sub << 3 | 7);
	fake_ctx(&ctx, mode);
	ctx.cr0 |= cr0;
	ctx.cr4 |= cr4;
	fake_code(code, n);
	ctx.gpr[X86_RDI] = ctx.gpr[X86_RBX] = addr;
	fake.reads = fake.writes = fake.fpus = 0;
	fake.fpu_in = st;
	fake.fpu_out = out;
	memcpy(out, st, X86_FXSAVE_SIZE);
	rc = x86_emulate_at_rip(&ctx, &fake_ops, &in, res);
	fake.fpu_in = fake.fpu_out = NULL;
	__asm__ volatile("fninit" ::: "memory");
	assert_int_equal(ctx.rip, rc == X86_EMU_OK ? FAKE_CODE + n : FAKE_CODE);
	return rc;
}

/*
 * FXSAVE and FXRSTOR in every mode against the host's own: the bytes stored (byte for byte
 * with the host's FXSAVE or FXSAVE64 of the same state, in one write of the part the mode has:
 * 416 bytes in 64-bit mode, 288 elsewhere with CR4.OSFXSR, 160 without; nothing after it), and
 * the state FXRSTOR leaves (the host's FXRSTOR of the same bytes, except for the XMM registers
 * the mode's part lacks, which keep their values).
 */
static void test_fxsr(void **state)
{
	static const struct {
		enum x86_mode mode;
		bool w64, osfxsr;
		unsigned len;
	} cases[] = {
		{ X86_MODE_16, false, true, 288 },  { X86_MODE_32, false, true, 288 },
		{ X86_MODE_32, false, false, 160 }, { X86_MODE_64, false, true, 416 },
		{ X86_MODE_64, true, true, 416 },
	};
	u8 st[512] __attribute__((aligned(16))), other[512] __attribute__((aligned(16)));
	u8 ref[512] __attribute__((aligned(16))), out[512] __attribute__((aligned(16)));
	u8 want[512] __attribute__((aligned(16)));
	struct x86_emu_result res;

	(void)state;
	fx_state(st, 1);
	fx_state(other, 0x40);
	other[0] = 0x7a; /* FCW: IM unmasked too (ZE stays so: its exception pending) */
	other[X86_FXSAVE_MXCSR + 1] = 0x3f;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned len = cases[i].len;
		bool w64 = cases[i].w64;
		u64 cr4 = cases[i].osfxsr ? CR4_OSFXSR : 0;

		fake_reset();
		memcpy(ref, fake.mem + D, sizeof(ref));
		fx_native_save(st, w64, ref);
		memcpy(ref + len, fake.mem + D + len, sizeof(ref) - len);
		assert_int_equal(fx_emulate(0, w64, cases[i].mode, 0, cr4, D, st, out, &res),
				 X86_EMU_OK);
		assert_int_equal(res.width, len);
		assert_int_equal(fake.writes, 1);
		assert_int_equal(fake.reads, 0);
		if (!same_state(&loss_fx, fake.mem + D, ref, sizeof(ref)))
			fail_msg("fxsave case %zu: memory differs from the host's", i);
		if (!same_state(&loss_fx, out, st, X86_FXSAVE_XMM + 256))
			fail_msg("fxsave case %zu: the state changed", i);

		/* FXRSTOR of the other state's image, as the host's FXSAVE wrote it. */
		fake_reset();
		fx_native_save(other, w64, fake.mem + D);
		fake.mem[D + 12] = 0x23; /* FCS, or FIP bits 39:32 with REX.W: the layouts differ */
		fx_native_restore(st, w64, fake.mem + D, want);
		memcpy(want + X86_FXSAVE_XMM + 16 * ((len - X86_FXSAVE_XMM) / 16),
		       st + X86_FXSAVE_XMM + 16 * ((len - X86_FXSAVE_XMM) / 16),
		       X86_FXSAVE_SIZE - len);
		assert_int_equal(fx_emulate(1, w64, cases[i].mode, 0, cr4, D, st, out, &res),
				 X86_EMU_OK);
		assert_int_equal(res.width, len);
		assert_int_equal(fake.reads, 1);
		assert_int_equal(fake.writes, 0);
		if (!same_state(&loss_fx, out, want, X86_FXSAVE_XMM + 256))
			fail_msg("fxrstor case %zu: the state differs from the host's", i);
		assert_int_equal(out[0], 0x7a);
		assert_int_equal(out[X86_FXSAVE_MXCSR + 1], 0x3f);
	}
}

/*
 * Faults, each with the state and memory untouched: #NM under CR0.TS or CR0.EM, #GP(0) for an
 * operand off a 16-byte boundary (also through SS, which is #GP not #SS) and for an area past
 * the segment limit beyond the bytes moved, #PF with nothing
 * written for an image that runs into the hole, #GP(0) for FXRSTOR of an MXCSR with a bit
 * outside the CPU's MXCSR_MASK (bit 16, above any mask; bit 6, DAZ, where the mask lacks it);
 * XSAVE, XRSTOR and XSAVEOPT the #UD of a clear CR4.OSXSAVE, and not emulated with it set.
 */
static void test_fxsr_faults(void **state)
{
	u8 st[512] __attribute__((aligned(16))), out[512] __attribute__((aligned(16)));
	u8 mem[512];
	u32 mask, bad;
	struct x86_emu_result res;
	static const struct {
		unsigned sub;
		u64 cr0, addr;
		u8 vector;
	} faults[] = {
		{ 0, CR0_TS, D, VEC_NM },
		{ 1, CR0_TS, D, VEC_NM },
		{ 0, CR0_EM, D, VEC_NM },
		{ 1, CR0_EM, D, VEC_NM },
		{ 0, 0, D + 8, VEC_GP },
		{ 1, 0, D + 1, VEC_GP },
		{ 0, 0, FAKE_HOLE - 256, VEC_PF },
		{ 1, 0, FAKE_HOLE - 16, VEC_PF },
		{ 0, 0, FAKE_HOLE, VEC_PF },
		{ 4, 0, D, VEC_UD },
		{ 5, 0, D, VEC_UD },
		{ 6, 0, D, VEC_UD },
	};

	(void)state;
	fx_state(st, 3);
	for (size_t i = 0; i < ARRAY_SIZE(faults); i++) {
		fake_reset();
		memcpy(mem, fake.mem + D, sizeof(mem));
		int rc = fx_emulate(faults[i].sub, true, X86_MODE_64, faults[i].cr0, CR4_OSFXSR,
				    faults[i].addr, st, out, &res);
		if (rc != X86_EMU_FAULT || res.fault.vector != faults[i].vector)
			fail_msg("case %zu: status %d vector %u", i, rc, res.fault.vector);
		if (faults[i].vector == VEC_GP)
			assert_true(res.fault.has_error && res.fault.error_code == 0);
		if (faults[i].vector != VEC_PF)
			assert_int_equal(fake.reads + fake.writes, 0);
		assert_memory_equal(fake.mem + D, mem, sizeof(mem));
		for (unsigned a = FAKE_HOLE - 256; a < FAKE_HOLE; a++) /* nothing before the hole */
			assert_int_equal(fake.mem[a], fake_pattern(a));
		if (!same_state(&loss_fx, out, st, X86_FXSAVE_XMM + 256))
			fail_msg("case %zu: the state changed", i);
	}

	/* The misaligned operand through SS: #GP all the same. */
	{
		struct x86_emu_ctx ctx;
		struct x86_insn in;
		fake_reset();
		fake_ctx(&ctx, X86_MODE_32);
		fake_code("\x0f\xae\x44\x24\x08", 5); /* fxsave 8(%esp) */
		ctx.gpr[X86_RSP] = D;
		assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_FAULT);
		assert_int_equal(res.fault.vector, VEC_GP);
		assert_int_equal(fake.writes, 0);
	}

	/* A DS limit that holds the 288 bytes moved but not the 512 of the area: #GP(0). */
	{
		struct x86_emu_ctx ctx;
		struct x86_insn in;
		fake_reset();
		fake_ctx(&ctx, X86_MODE_32);
		ctx.cr4 |= CR4_OSFXSR;
		ctx.seg[X86_DS].limit = D + 300;
		fake_code("\x0f\xae\x07", 3); /* fxsave (%edi) */
		ctx.gpr[X86_RDI] = D;
		assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_FAULT);
		assert_int_equal(res.fault.vector, VEC_GP);
		assert_int_equal(fake.writes, 0);
		ctx.seg[X86_DS].limit = D + 511;
		assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_OK);
		assert_int_equal(fake.writes, 1);
	}

	/* MXCSR outside the mask, in the image FXRSTOR reads. */
	memcpy(&mask, st + X86_FXSAVE_MXCSR_MASK, 4);
	if (!mask)
		mask = X86_MXCSR_MASK_DEFAULT;
	for (int k = 0; k < 2; k++) {
		if (k == 1 && (mask & BIT(6)))
			break; /* this CPU takes DAZ */
		bad = 0x1f80u | (k ? BIT(6) : BIT(16));
		fake_reset();
		memcpy(fake.mem + D, st, X86_FXSAVE_SIZE);
		memcpy(fake.mem + D + X86_FXSAVE_MXCSR, &bad, 4);
		assert_int_equal(fx_emulate(1, true, X86_MODE_64, 0, CR4_OSFXSR, D, st, out, &res),
				 X86_EMU_FAULT);
		assert_int_equal(res.fault.vector, VEC_GP);
		assert_true(res.fault.has_error && res.fault.error_code == 0);
		if (!same_state(&loss_fx, out, st, X86_FXSAVE_XMM + 256))
			fail_msg("mxcsr %x: the state changed", bad);
	}
	/* Every bit the mask allows loads. */
	fake_reset();
	memcpy(fake.mem + D, st, X86_FXSAVE_SIZE);
	bad = mask & 0xffe0u; /* no exception flags, every control bit */
	memcpy(fake.mem + D + X86_FXSAVE_MXCSR, &bad, 4);
	assert_int_equal(fx_emulate(1, true, X86_MODE_64, 0, CR4_OSFXSR, D, st, out, &res),
			 X86_EMU_OK);
	assert_memory_equal(out + X86_FXSAVE_MXCSR, &bad, 4);

	/* With CR4.OSXSAVE set (no guest of Umbra's has it), XSAVE is not emulated. */
	assert_int_equal(
		fx_emulate(4, false, X86_MODE_64, 0, CR4_OSFXSR | CR4_OSXSAVE, D, st, out, &res),
		X86_EMU_UNHANDLED);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_env_protected),
		cmocka_unit_test(test_env_real),
		cmocka_unit_test(test_env_faults),
		cmocka_unit_test(test_fxsr),
		cmocka_unit_test(test_fxsr_faults),
		cmocka_unit_test(test_pointer_losses), /* last: the tallies of all the others */
	};

	return fake_run_table("emul-fpu", forms, ARRAY_SIZE(forms), sizeof(forms[0]), test_form,
			      fixed, ARRAY_SIZE(fixed));
}
