/* SPDX-License-Identifier: GPL-2.0-only */
/* Flag checks against the host CPU: every ALU encoding, BTx, CMPXCHG, the string compares, SETcc/CMOVcc, BSF/BSR, shifts, MUL/IMUL/DIV/IDIV, POPCNT, on random and edge operands. */
#include <string.h>

#include "tests/emul/fake.h"

enum op {
	ADD,
	OR,
	ADC,
	SBB,
	AND,
	SUB,
	XOR,
	CMP,
	TEST,
	INC,
	DEC,
	NEG,
	NOT,
	BT,
	BTS,
	BTR,
	BTC,
	CMPXCHG,
	NR_OPS
};

static const char *const names[NR_OPS] = {
	"add", "or",  "adc", "sbb", "and", "sub", "xor", "cmp", "test",
	"inc", "dec", "neg", "not", "bt",  "bts", "btr", "btc", "cmpxchg",
};

/* The host runs the same operation on registers: pushf/popf around it carries the flags. */
#define HOST2(insn, sz) \
	__asm__ volatile("sub $128, %%rsp\n\tpush %[fl]\n\tpopf\n\t" insn " %" sz "[b], %" sz \
			 "[a]\n\t" \
			 "pushf\n\tpop %[fl]\n\tadd $128, %%rsp" \
			 : [a] "+r"(a), [fl] "+r"(fl) \
			 : [b] "r"(b) \
			 : "cc", "memory")
#define HOST1(insn, sz) \
	__asm__ volatile("sub $128, %%rsp\n\tpush %[fl]\n\tpopf\n\t" insn " %" sz "[a]\n\t" \
			 "pushf\n\tpop %[fl]\n\tadd $128, %%rsp" \
			 : [a] "+r"(a), [fl] "+r"(fl) \
			 : \
			 : "cc", "memory")
#define HOSTX(insn, sz) \
	__asm__ volatile("sub $128, %%rsp\n\tpush %[fl]\n\tpopf\n\t" insn " %" sz "[b], %" sz \
			 "[a]\n\t" \
			 "pushf\n\tpop %[fl]\n\tadd $128, %%rsp" \
			 : [a] "+r"(a), [fl] "+r"(fl), "+a"(acc) \
			 : [b] "r"(b) \
			 : "cc", "memory")
#define WIDTHS(M, insn) \
	switch (w) { \
	case 1: \
		M(insn "b", "b"); \
		break; \
	case 2: \
		M(insn "w", "w"); \
		break; \
	case 4: \
		M(insn "l", "k"); \
		break; \
	default: \
		M(insn "q", "q"); \
		break; \
	}
/* BTx has no byte form; the 8-bit slot is unused. */
#define WIDTHS_BT(insn) \
	switch (w) { \
	case 2: \
		HOST2(insn "w", "w"); \
		break; \
	case 4: \
		HOST2(insn "l", "k"); \
		break; \
	default: \
		HOST2(insn "q", "q"); \
		break; \
	}

static u64 host(enum op op, unsigned w, u64 a, u64 b, u64 *acc_io, u64 *flags)
{
	u64 fl = *flags, acc = *acc_io;

	switch (op) {
	case ADD:
		WIDTHS(HOST2, "add") break;
	case OR:
		WIDTHS(HOST2, "or") break;
	case ADC:
		WIDTHS(HOST2, "adc") break;
	case SBB:
		WIDTHS(HOST2, "sbb") break;
	case AND:
		WIDTHS(HOST2, "and") break;
	case SUB:
		WIDTHS(HOST2, "sub") break;
	case XOR:
		WIDTHS(HOST2, "xor") break;
	case CMP:
		WIDTHS(HOST2, "cmp") break;
	case TEST:
		WIDTHS(HOST2, "test") break;
	case INC:
		WIDTHS(HOST1, "inc") break;
	case DEC:
		WIDTHS(HOST1, "dec") break;
	case NEG:
		WIDTHS(HOST1, "neg") break;
	case NOT:
		WIDTHS(HOST1, "not") break;
	case BT:
		WIDTHS_BT("bt") break;
	case BTS:
		WIDTHS_BT("bts") break;
	case BTR:
		WIDTHS_BT("btr") break;
	case BTC:
		WIDTHS_BT("btc") break;
	default:
		WIDTHS(HOSTX, "cmpxchg") break;
	}
	*flags = fl;
	*acc_io = acc;
	return a;
}

/* The same operation as guest code: op [rdi], esi (or the unary/group forms). */
static size_t encode(enum op op, unsigned w, u8 *p)
{
	static const u8 grp[] = { [INC] = 0, [DEC] = 1, [NEG] = 3, [NOT] = 2 };
	static const u8 bt[] = { [BT] = 0xa3, [BTS] = 0xab, [BTR] = 0xb3, [BTC] = 0xbb };
	size_t n = 0;

	if (w == 2)
		p[n++] = 0x66;
	if (w == 8 || w == 1)
		p[n++] = w == 8 ? 0x48 : 0x40; /* REX: SIL rather than DH */
	switch (op) {
	case ADD ... CMP:
		p[n++] = (u8)(op * 8 + (w > 1));
		p[n++] = 0x37;
		break;
	case TEST:
		p[n++] = w > 1 ? 0x85 : 0x84;
		p[n++] = 0x37;
		break;
	case INC:
	case DEC:
		p[n++] = w > 1 ? 0xff : 0xfe;
		p[n++] = (u8)(grp[op] << 3 | 7);
		break;
	case NEG:
	case NOT:
		p[n++] = w > 1 ? 0xf7 : 0xf6;
		p[n++] = (u8)(grp[op] << 3 | 7);
		break;
	case BT ... BTC:
		p[n++] = 0x0f;
		p[n++] = bt[op];
		p[n++] = 0x37;
		break;
	default:
		p[n++] = 0x0f;
		p[n++] = w > 1 ? 0xb1 : 0xb0;
		p[n++] = 0x37;
		break;
	}
	return n;
}

static u64 sext(u64 v, unsigned w)
{
	unsigned sh = 64 - 8 * w;

	return w >= 8 ? v : (u64)((s64)(v << sh) >> sh);
}

/* Edge values carry most flag bugs: 0, 1, -1, the sign bit and its neighbours, nibble edges. */
static u64 operand(unsigned w)
{
	static const u64 edge[] = { 0,
				    1,
				    2,
				    0xf,
				    0x10,
				    0x7f,
				    0x80,
				    0xff,
				    0x7fff,
				    0x8000,
				    0xffff,
				    0x7fffffff,
				    0x80000000,
				    0xffffffff,
				    0x7fffffffffffffff,
				    0x8000000000000000,
				    ~0ull };
	u64 m = w == 8 ? ~0ull : BIT(w * 8) - 1;
	u64 r = fake_rand();

	if ((r & 3) == 0)
		return edge[(r >> 2) % ARRAY_SIZE(edge)] & m;
	if ((r & 3) == 1)
		return (edge[(r >> 2) % ARRAY_SIZE(edge)] + (r >> 40) % 3 - 1) & m;
	return fake_rand() & m;
}

/* Runs code in 64-bit mode with RDI -> the w-byte memory operand (mem) at 0x2000 and the
 * given RAX, RCX, RDX and RSI. */
static int run_regs(struct x86_emu_ctx *ctx, const u8 *code, size_t n, u64 fl, const u64 regs[4],
		    u64 mem, unsigned w, struct x86_emu_result *res)
{
	struct x86_insn in;

	fake_ctx(ctx, X86_MODE_64);
	fake_code(code, n);
	ctx->rflags = fl;
	ctx->gpr[X86_RDI] = 0x2000;
	ctx->gpr[X86_RAX] = regs[0];
	ctx->gpr[X86_RCX] = regs[1];
	ctx->gpr[X86_RDX] = regs[2];
	ctx->gpr[X86_RSI] = regs[3];
	memset(fake.mem + 0x2000, 0, 8);
	memcpy(fake.mem + 0x2000, &mem, w);
	return x86_emulate_at_rip(ctx, &fake_ops, &in, res);
}

static int run_guest(struct x86_emu_ctx *ctx, const u8 *code, size_t n, u64 fl, u64 rsi, u64 rax,
		     u64 mem, unsigned w)
{
	struct x86_emu_result res;

	return run_regs(ctx, code, n, fl, (const u64[4]){ rax, 0, 0, rsi }, mem, w, &res);
}

static void check(enum op op, unsigned w)
{
	u64 m = w == 8 ? ~0ull : BIT(w * 8) - 1;
	u64 a = operand(w), b = operand(w), acc = fake_rand() % 4 ? operand(w) : a;
	u64 fl_in = (fake_rand() & RFLAGS_ARITH) | 2;
	u64 want_fl = fl_in, want_acc = acc, want, mask = RFLAGS_ARITH, got = 0;
	struct x86_emu_ctx ctx;
	u8 code[8];
	int rc;

	if (op >= BT && op <= BTC)
		b &= w * 8 - 1; /* the register form wraps; the memory form would move */
	want = host(op, w, a, b, &want_acc, &want_fl) & m;
	if (op == OR || op == AND || op == XOR || op == TEST)
		mask &= ~RFLAGS_AF; /* undefined */
	if (op >= BT && op <= BTC)
		mask = RFLAGS_CF; /* the others are undefined */

	rc = run_guest(&ctx, code, encode(op, w, code), fl_in, b, acc, a, w);
	if (rc != X86_EMU_OK)
		fail_msg("%s%u: status %d", names[op], w, rc);
	memcpy(&got, fake.mem + 0x2000, w);
	if (got != want || (ctx.rflags & mask) != (want_fl & mask) ||
	    (op == CMPXCHG && (ctx.gpr[X86_RAX] & m) != (want_acc & m)))
		fail_msg(
			"%s%u a=%#llx b=%#llx acc=%#llx fl=%#llx: got %#llx fl %#llx acc %#llx, host %#llx fl %#llx acc %#llx",
			names[op], w, (unsigned long long)a, (unsigned long long)b,
			(unsigned long long)acc, (unsigned long long)fl_in, (unsigned long long)got,
			(unsigned long long)ctx.rflags, (unsigned long long)ctx.gpr[X86_RAX],
			(unsigned long long)want, (unsigned long long)want_fl,
			(unsigned long long)want_acc);
}

static void test_against_host(void **state)
{
	(void)state;
	fake_reset();
	for (int op = 0; op < NR_OPS; op++)
		for (unsigned w = 1; w <= 8; w *= 2) {
			if (w == 1 && op >= BT && op <= BTC)
				continue;
			for (int i = 0; i < 10000; i++)
				check(op, w);
		}
}

/*
 * The other encodings of the eight ALU operations (and TEST's immediate ones), which a kernel's
 * compiler emits on device registers as readily as "op r/m, r": "op r, r/m" with the register
 * as destination and memory as source, "op r/m, imm" (80/81, F6/F7 /0), "op r/m, imm8"
 * sign-extended (83), and "op acc, imm" (04/05 .. 3C/3D, A8/A9). Same host comparison.
 */
enum form { F_R_RM, F_RM_IMM, F_RM_IMM8, F_ACC_IMM, NR_FORMS };
static const char *const form_names[NR_FORMS] = { "r,r/m", "r/m,imm", "r/m,imm8", "acc,imm" };

static void check_form(enum op op, unsigned w, enum form f)
{
	u64 m = w == 8 ? ~0ull : BIT(w * 8) - 1;
	u64 a = operand(w), b = operand(w), mem = operand(w), acc = 0;
	u64 fl_in = (fake_rand() & RFLAGS_ARITH) | 2, want_fl = fl_in, want, mask = RFLAGS_ARITH;
	unsigned imm_len = w == 8 ? 4 : w;
	struct x86_emu_ctx ctx;
	u8 code[16];
	size_t n = 0;
	u64 got;
	int rc;

	if (f == F_RM_IMM8) {
		imm_len = 1;
		b = sext(b & 0xff, 1) & m;
	} else if (f != F_R_RM) {
		b = sext(b & x86_mask(imm_len), imm_len) & m; /* imm32 sign-extends to 64 bits */
	}
	if (f == F_R_RM)
		want = host(op, w, a, mem, &acc, &want_fl) & m; /* register op= memory */
	else
		want = host(op, w, f == F_ACC_IMM ? a : mem, b, &acc, &want_fl) & m;
	if (op == OR || op == AND || op == XOR || op == TEST)
		mask &= ~RFLAGS_AF;

	if (w == 2)
		code[n++] = 0x66;
	if (w == 8 || w == 1)
		code[n++] = w == 8 ? 0x48 : 0x40;
	switch (f) {
	case F_R_RM:
		code[n++] = (u8)(op * 8 + 2 + (w > 1));
		code[n++] = 0x37;
		break;
	case F_RM_IMM:
		code[n++] = op == TEST ? (w > 1 ? 0xf7 : 0xf6) : (w > 1 ? 0x81 : 0x80);
		code[n++] = (u8)((op == TEST ? 0 : op) << 3 | 7);
		break;
	case F_RM_IMM8:
		code[n++] = 0x83;
		code[n++] = (u8)(op << 3 | 7);
		break;
	default:
		code[n++] = op == TEST ? (w > 1 ? 0xa9 : 0xa8) : (u8)(op * 8 + 4 + (w > 1));
		break;
	}
	if (f != F_R_RM) {
		memcpy(code + n, &b, imm_len);
		n += imm_len;
	}

	rc = run_guest(&ctx, code, n, fl_in, a, a, mem, w);
	if (rc != X86_EMU_OK)
		fail_msg("%s%u %s: status %d", names[op], w, form_names[f], rc);
	got = 0;
	if (f == F_R_RM)
		got = ctx.gpr[X86_RSI] & m;
	else if (f == F_ACC_IMM)
		got = ctx.gpr[X86_RAX] & m;
	else
		memcpy(&got, fake.mem + 0x2000, w);
	if (op == CMP || op == TEST)
		want = f == F_R_RM || f == F_ACC_IMM ? a : mem; /* the destination stays */
	if (got != want || (ctx.rflags & mask) != (want_fl & mask))
		fail_msg(
			"%s%u %s a=%#llx mem=%#llx b=%#llx fl=%#llx: got %#llx fl %#llx, host %#llx fl %#llx",
			names[op], w, form_names[f], (unsigned long long)a, (unsigned long long)mem,
			(unsigned long long)b, (unsigned long long)fl_in, (unsigned long long)got,
			(unsigned long long)ctx.rflags, (unsigned long long)want,
			(unsigned long long)want_fl);
}

static void test_forms_against_host(void **state)
{
	(void)state;
	fake_reset();
	for (int op = ADD; op <= TEST; op++)
		for (unsigned w = 1; w <= 8; w *= 2)
			for (int f = 0; f < NR_FORMS; f++) {
				if (op == TEST && (f == F_R_RM || f == F_RM_IMM8))
					continue; /* 84/85 is symmetric; TEST has no imm8 form */
				if (f == F_RM_IMM8 && w == 1)
					continue; /* 82 is invalid in 64-bit mode */
				for (int i = 0; i < 2000; i++)
					check_form(op, w, f);
			}
}

/*
 * String compares: the host runs the same CMPS/SCAS, with the same prefix and direction, over
 * buffers that equal the guest's memory; RCX, RSI, RDI and the flags must agree. Elements come
 * from a small alphabet so that REPE and REPNE both end early as often as they run out.
 */
enum str_op { S_CMPS, S_SCAS };
enum { S_NONE, S_REPE, S_REPNE };
#define S_ELEMS 8
#define S_SRC 0x2000u
#define S_DST 0x3000u

#define STR_ASM(text) \
	__asm__ volatile("sub $128, %%rsp\n\tpush %[fl]\n\tpopf\n\t" text \
			 "\n\tpushf\n\tpop %[fl]\n\tcld\n\t" \
			 "add $128, %%rsp" \
			 : "+S"(si), "+D"(di), "+c"(cx), [fl] "+r"(fl) \
			 : "a"(ax) \
			 : "cc", "memory")
#define STR_W(text) \
	switch (w) { \
	case 1: \
		STR_ASM(text "b"); \
		break; \
	case 2: \
		STR_ASM(text "w"); \
		break; \
	case 4: \
		STR_ASM(text "l"); \
		break; \
	default: \
		STR_ASM(text "q"); \
		break; \
	}
#define STR_OP(pfx) \
	if (op == S_CMPS) \
		STR_W(pfx "cmps") \
	else \
		STR_W(pfx "scas")

struct str_state {
	u64 si, di, cx, fl;
};

static void host_str(enum str_op op, int rep, unsigned w, u64 ax, struct str_state *st)
{
	u64 si = st->si, di = st->di, cx = st->cx, fl = st->fl;

	switch (rep) {
	case S_NONE:
		STR_OP("") break;
	case S_REPE:
		STR_OP("repe ") break;
	default:
		STR_OP("repne ") break;
	}
	*st = (struct str_state){ si, di, cx, fl };
}

static void check_str(enum str_op op, int rep, unsigned w, bool df)
{
	static const char *const pfx[] = { "", "repe ", "repne " };
	static u8 src[S_ELEMS * 8], dst[S_ELEMS * 8];
	u64 start = df ? (S_ELEMS - 1) * w : 0, count = fake_rand() % (S_ELEMS + 1);
	u64 ax = 0, fl_in = (fake_rand() & RFLAGS_ARITH) | 2 | (df ? RFLAGS_DF : 0);
	struct str_state h = { (u64)(uintptr_t)src + start, (u64)(uintptr_t)dst + start, count,
			       fl_in };
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;
	struct x86_insn in;
	u8 code[4];
	size_t n = 0;
	int rc;

	for (unsigned i = 0; i < sizeof(src); i++) {
		src[i] = (u8)(0x80 + fake_rand() % 3);
		dst[i] = (u8)(0x80 + fake_rand() % 3);
	}
	memcpy(&ax, src, w);
	if (fake_rand() & 1)
		memcpy(dst + start, src + start, w); /* the first pair equal half the time */
	host_str(op, rep, w, ax, &h);

	if (rep)
		code[n++] = rep == S_REPE ? 0xf3 : 0xf2;
	if (w == 2)
		code[n++] = 0x66;
	if (w == 8)
		code[n++] = 0x48;
	code[n++] = (u8)((op == S_CMPS ? 0xa6 : 0xae) + (w > 1));
	fake_reset();
	fake_ctx(&ctx, X86_MODE_64);
	fake_code(code, n);
	memcpy(fake.mem + S_SRC, src, sizeof(src));
	memcpy(fake.mem + S_DST, dst, sizeof(dst));
	ctx.rflags = fl_in;
	ctx.gpr[X86_RAX] = ax;
	ctx.gpr[X86_RCX] = count;
	ctx.gpr[X86_RSI] = op == S_CMPS ? S_SRC + start : 0;
	ctx.gpr[X86_RDI] = S_DST + start; /* both walk ES:rDI over dst; SCAS compares it with rAX */
	rc = x86_emulate_at_rip(&ctx, &fake_ops, &in, &res);
	if (rc != X86_EMU_OK || res.rep_incomplete)
		fail_msg("%s%s%u: status %d incomplete %d", pfx[rep],
			 op == S_CMPS ? "cmps" : "scas", w, rc, res.rep_incomplete);
	if (ctx.gpr[X86_RCX] != h.cx ||
	    (op == S_CMPS && ctx.gpr[X86_RSI] - S_SRC != h.si - (u64)(uintptr_t)src) ||
	    ctx.gpr[X86_RDI] - S_DST != h.di - (u64)(uintptr_t)dst ||
	    (ctx.rflags & RFLAGS_ARITH) != (h.fl & RFLAGS_ARITH))
		fail_msg(
			"%s%s%u df=%d count=%llu: rcx %llu rdi %+lld fl %#llx, host rcx %llu rdi %+lld fl %#llx",
			pfx[rep], op == S_CMPS ? "cmps" : "scas", w, df, (unsigned long long)count,
			(unsigned long long)ctx.gpr[X86_RCX],
			(long long)(ctx.gpr[X86_RDI] - S_DST - start),
			(unsigned long long)ctx.rflags, (unsigned long long)h.cx,
			(long long)(h.di - (u64)(uintptr_t)dst - start), (unsigned long long)h.fl);
	if (rep == S_NONE && ctx.gpr[X86_RCX] != count)
		fail_msg("a string compare without REP changed RCX");
}

static void test_strings_against_host(void **state)
{
	(void)state;
	fake_reset();
	for (int op = S_CMPS; op <= S_SCAS; op++)
		for (int rep = S_NONE; rep <= S_REPNE; rep++)
			for (unsigned w = 1; w <= 8; w *= 2)
				for (int i = 0; i < 400; i++)
					check_str(op, rep, w, i & 1);
}

/* The host's SETcc for condition cc under the arithmetic flags fl. */
#define HOST_SET(cc) \
	__asm__ volatile("sub $128, %%rsp\n\tpush %[fl]\n\tpopf\n\tset" cc \
			 " %[r]\n\tadd $128, %%rsp" \
			 : [r] "=q"(r) \
			 : [fl] "r"(fl) \
			 : "cc", "memory")
static u8 host_condition(unsigned cc, u64 fl)
{
	u8 r = 0;

	switch (cc) {
	case 0x0:
		HOST_SET("o");
		break;
	case 0x1:
		HOST_SET("no");
		break;
	case 0x2:
		HOST_SET("b");
		break;
	case 0x3:
		HOST_SET("ae");
		break;
	case 0x4:
		HOST_SET("e");
		break;
	case 0x5:
		HOST_SET("ne");
		break;
	case 0x6:
		HOST_SET("be");
		break;
	case 0x7:
		HOST_SET("a");
		break;
	case 0x8:
		HOST_SET("s");
		break;
	case 0x9:
		HOST_SET("ns");
		break;
	case 0xa:
		HOST_SET("p");
		break;
	case 0xb:
		HOST_SET("np");
		break;
	case 0xc:
		HOST_SET("l");
		break;
	case 0xd:
		HOST_SET("ge");
		break;
	case 0xe:
		HOST_SET("le");
		break;
	default:
		HOST_SET("g");
		break;
	}
	return r;
}

/*
 * SETcc (0F 9x /0 to memory) and CMOVcc (0F 4x, from memory) under every combination of the
 * six arithmetic flags, against the host's SETcc: the byte stored, and the register moved or
 * kept (a 32-bit destination zero-extended either way).
 */
static void test_conditions_against_host(void **state)
{
	static const u64 bits[6] = { RFLAGS_CF, RFLAGS_PF, RFLAGS_AF,
				     RFLAGS_ZF, RFLAGS_SF, RFLAGS_OF };
	struct x86_emu_ctx ctx;

	(void)state;
	fake_reset();
	for (unsigned cc = 0; cc < 16; cc++)
		for (unsigned combo = 0; combo < 64; combo++) {
			u64 fl = 2;
			for (int b = 0; b < 6; b++)
				fl |= (combo >> b) & 1 ? bits[b] : 0;
			u8 want = host_condition(cc, fl);
			u8 set[3] = { 0x0f, (u8)(0x90 + cc), 0x07 },
			   mov[3] = { 0x0f, (u8)(0x40 + cc), 0x07 };

			if (x86_condition(fl, cc) != want)
				fail_msg("x86_condition(%#llx, %u) != host %u",
					 (unsigned long long)fl, cc, want);
			if (run_guest(&ctx, set, 3, fl, 0, 0, 0xaaaa, 2) != X86_EMU_OK ||
			    fake.mem[0x2000] != want || fake.mem[0x2001] != 0xaa ||
			    ctx.rflags != fl)
				fail_msg("set%x fl %#llx: stored %u", cc, (unsigned long long)fl,
					 fake.mem[0x2000]);
			if (run_guest(&ctx, mov, 3, fl, 0, 0xffffffff00000005ull, 0x12345678, 4) !=
				    X86_EMU_OK ||
			    ctx.gpr[X86_RAX] != (want ? 0x12345678u : 5u) || ctx.rflags != fl)
				fail_msg("cmov%x fl %#llx: rax %#llx", cc, (unsigned long long)fl,
					 (unsigned long long)ctx.gpr[X86_RAX]);
		}
}

/* BSF/BSR from memory at 16, 32 and 64 bits against the host: the index, ZF, and the
 * destination kept for a zero source. */
static void test_bit_scans_against_host(void **state)
{
	struct x86_emu_ctx ctx;

	(void)state;
	fake_reset();
	for (unsigned w = 2; w <= 8; w *= 2)
		for (int rev = 0; rev < 2; rev++)
			for (int i = 0; i < 5000; i++) {
				u64 v = i % 7 ? operand(w) : 0, dst = fake_rand(), fl = 2, a = dst;
				u64 m = w == 8 ? ~0ull : BIT(w * 8) - 1;
				u8 code[4], n = 0;

				if (w == 2)
					code[n++] = 0x66;
				if (w == 8)
					code[n++] = 0x48;
				code[n++] = 0x0f;
				code[n++] = rev ? 0xbd : 0xbc;
				/* n is 2-3 here; the ModRM below makes the form "op (rdi), rax". */
				u8 full[5];
				memcpy(full, code, n);
				full[n] = 0x07;
				__asm__ volatile(
					"sub $128, %%rsp\n\tpush %[fl]\n\tpopf\n\t"
					"test %[r], %[r]\n\t" /* a known ZF before the scan */
					"pushf\n\tpop %[fl]\n\tadd $128, %%rsp"
					: [fl] "+r"(fl)
					: [r] "r"(v)
					: "cc", "memory");
				u64 fl_in = fl, host_fl = fl;
				if (rev)
					__asm__ volatile(
						"push %[fl]\n\tpopf\n\tbsr %[v], %[a]\n\tpushf\n\tpop %[fl]"
						: [a] "+r"(a), [fl] "+r"(host_fl)
						: [v] "r"(v)
						: "cc");
				else
					__asm__ volatile(
						"push %[fl]\n\tpopf\n\tbsf %[v], %[a]\n\tpushf\n\tpop %[fl]"
						: [a] "+r"(a), [fl] "+r"(host_fl)
						: [v] "r"(v)
						: "cc");
				if (w == 2 && v)
					a = (dst & ~0xffffull) | (a & 0xffff);
				else if (w == 4 && v)
					a &= 0xffffffff;
				if (run_guest(&ctx, full, n + 1u, fl_in, 0, dst, v & m, w) !=
					    X86_EMU_OK ||
				    ctx.gpr[X86_RAX] != (v ? a : dst) ||
				    (ctx.rflags & RFLAGS_ZF) != (host_fl & RFLAGS_ZF))
					fail_msg(
						"%s%u of %#llx: rax %#llx fl %#llx, host %#llx fl %#llx",
						rev ? "bsr" : "bsf", w, (unsigned long long)v,
						(unsigned long long)ctx.gpr[X86_RAX],
						(unsigned long long)ctx.rflags,
						(unsigned long long)a, (unsigned long long)host_fl);
			}
}

/* The host's shift or rotate of a (w bytes) by cl, with its flags. */
#define HOST_SH(insn, sz) \
	__asm__ volatile("push %[fl]\n\tpopf\n\t" insn " %%cl, %" sz "[a]\n\tpushf\n\tpop %[fl]" \
			 : [a] "+r"(a), [fl] "+r"(fl) \
			 : "c"(cnt) \
			 : "cc")
#define SH_CASE(n, insn) \
	case n: \
		WIDTHS(HOST_SH, insn) break;

static u64 host_shift(unsigned sub, unsigned w, u64 a, u64 cnt, u64 *flags)
{
	u64 fl = *flags;

	/* clang-format off */
	switch (sub) {
	SH_CASE(0, "rol") SH_CASE(1, "ror") SH_CASE(2, "rcl") SH_CASE(3, "rcr")
	SH_CASE(4, "shl") SH_CASE(5, "shr") SH_CASE(7, "sar")
	default: WIDTHS(HOST_SH, "sal") break;
	}
	/* clang-format on */
	*flags = fl;
	return a;
}

/*
 * Every shift and rotate (C0/C1 imm8, D0/D1 by 1, D2/D3 by CL) on memory at each width, against
 * the host. Compared: the result, CF, and for shifts SF ZF PF; OF for a count of 1 only and AF
 * never (both undefined otherwise, and the two vendors differ there).
 */
static void test_shifts_against_host(void **state)
{
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;

	(void)state;
	fake_reset();
	for (unsigned w = 1; w <= 8; w *= 2)
		for (unsigned sub = 0; sub < 8; sub++)
			for (int i = 0; i < 3000; i++) {
				u64 m = w == 8 ? ~0ull : BIT(w * 8) - 1, a = operand(w);
				u64 cnt = i % 3 == 0 ? 1 : fake_rand() % 70,
				    fl = (fake_rand() & RFLAGS_ARITH) | 2;
				u64 want_fl = fl, want, got = 0, mask = RFLAGS_CF | RFLAGS_OF;
				unsigned form = (unsigned)(fake_rand() % 3);
				u8 code[6], n = 0;

				if (form == 1)
					cnt = 1;
				if (w == 2)
					code[n++] = 0x66;
				if (w == 8)
					code[n++] = 0x48;
				code[n++] = (u8)((form == 0   ? 0xc0
						  : form == 1 ? 0xd0
							      : 0xd2) +
						 (w > 1));
				code[n++] = (u8)(sub << 3 | 7);
				if (form == 0)
					code[n++] = (u8)cnt;
				want = host_shift(sub, w, a, cnt, &want_fl) & m;
				if (sub >= 4)
					mask |= RFLAGS_SF | RFLAGS_ZF | RFLAGS_PF;
				if ((cnt & (w == 8 ? 63 : 31)) != 1)
					mask &= ~RFLAGS_OF;
				if (run_regs(&ctx, code, n, fl, (const u64[4]){ 0, cnt, 0, 0 }, a,
					     w, &res) != X86_EMU_OK)
					fail_msg("shift /%u w%u: status", sub, w);
				memcpy(&got, fake.mem + 0x2000, w);
				if (got != want || (ctx.rflags & mask) != (want_fl & mask))
					fail_msg(
						"shift /%u w%u form %u of %#llx by %llu fl %#llx: got %#llx fl %#llx, host %#llx fl %#llx",
						sub, w, form, (unsigned long long)a,
						(unsigned long long)cnt, (unsigned long long)fl,
						(unsigned long long)got,
						(unsigned long long)ctx.rflags,
						(unsigned long long)want,
						(unsigned long long)want_fl);
			}
}

/* The host's MUL/IMUL/DIV/IDIV of rDX:rAX by b: only called where it cannot raise #DE. */
#define HOST_MD(insn, sz) \
	__asm__ volatile("push %[fl]\n\tpopf\n\t" insn " %" sz "[b]\n\tpushf\n\tpop %[fl]" \
			 : "+a"(ax), "+d"(dx), [fl] "+r"(fl) \
			 : [b] "r"(b) \
			 : "cc")

static void host_muldiv(unsigned sub, unsigned w, u64 b, u64 *rax, u64 *rdx, u64 *flags)
{
	u64 ax = *rax, dx = *rdx, fl = *flags;

	switch (sub) {
	case 4:
		WIDTHS(HOST_MD, "mul") break;
	case 5:
		WIDTHS(HOST_MD, "imul") break;
	case 6:
		WIDTHS(HOST_MD, "div") break;
	default:
		WIDTHS(HOST_MD, "idiv") break;
	}
	*rax = ax;
	*rdx = dx;
	*flags = fl;
}

/* Whether DIV/IDIV of the dividend in rDX:rAX (AX for bytes) by b overflows or divides by 0:
 * decided with 128-bit arithmetic, independently of the emulator's own. */
static bool host_would_de(unsigned sub, unsigned w, u64 ax, u64 dx, u64 b)
{
	unsigned bits = w * 8;
	u64 m = w == 8 ? ~0ull : BIT(bits) - 1;
	__int128 n, d, q;

	if (!(b & m))
		return true;
	if (w == 1)
		n = (__int128)(ax & 0xffff);
	else
		n = (__int128)(((unsigned __int128)(dx & m) << bits) | (ax & m));
	if (sub == 6)
		return (unsigned __int128)n / (unsigned __int128)(b & m) > m;
	n = (__int128)((unsigned __int128)n << (128 - 2 * bits)) >>
	    (128 - 2 * bits); /* sign-extend */
	d = (__int128)(s64)sext(b, w);
	if (w == 8 && n == -((__int128)1 << 126) * 2 && d == -1)
		return true;
	q = n / d;
	return q > (__int128)(m >> 1) || q < -(__int128)(m >> 1) - 1;
}

/*
 * F6/F7 /4-/7 with a memory operand at each width against the host: rAX and rDX (AX for
 * bytes), CF and OF of MUL and IMUL, and #DE exactly where the host would raise it (decided
 * with 128-bit arithmetic; the host then does not run it). The other flags are undefined.
 */
static void test_muldiv_against_host(void **state)
{
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;

	(void)state;
	fake_reset();
	for (unsigned w = 1; w <= 8; w *= 2)
		for (unsigned sub = 4; sub < 8; sub++)
			for (int i = 0; i < 5000; i++) {
				u64 ax = fake_rand(), dx = i % 2 ? fake_rand() % 4 : fake_rand();
				u64 b = operand(w), fl = 2, rax = ax, rdx = dx, want_fl = fl;
				u64 mask = sub < 6 ? RFLAGS_CF | RFLAGS_OF : 0;
				u8 code[4], n = 0;

				if (i % 5 ==
				    0) /* small quotients: the no-#DE path gets exercised too */
					dx = rdx = sub == 7 && (s64)sext(ax, w) < 0 ? ~0ull : 0;
				if (w == 2)
					code[n++] = 0x66;
				if (w == 8)
					code[n++] = 0x48;
				code[n++] = w > 1 ? 0xf7 : 0xf6;
				code[n++] = (u8)(sub << 3 | 7);
				int rc = run_regs(&ctx, code, n, fl, (const u64[4]){ ax, 0, dx, 0 },
						  b, w, &res);
				if (sub >= 6 && host_would_de(sub, w, ax, dx, b)) {
					if (rc != X86_EMU_FAULT || res.fault.vector != VEC_DE ||
					    ctx.gpr[X86_RAX] != ax || ctx.gpr[X86_RDX] != dx)
						fail_msg(
							"/%u w%u %#llx:%#llx / %#llx: no #DE (rc %d)",
							sub, w, (unsigned long long)dx,
							(unsigned long long)ax,
							(unsigned long long)b, rc);
					continue;
				}
				host_muldiv(sub, w, b, &rax, &rdx, &want_fl);
				if (rc != X86_EMU_OK || ctx.gpr[X86_RAX] != rax ||
				    ctx.gpr[X86_RDX] != rdx ||
				    (ctx.rflags & mask) != (want_fl & mask))
					fail_msg(
						"/%u w%u %#llx:%#llx by %#llx: rc %d got %#llx:%#llx fl %#llx, host %#llx:%#llx fl %#llx",
						sub, w, (unsigned long long)dx,
						(unsigned long long)ax, (unsigned long long)b, rc,
						(unsigned long long)ctx.gpr[X86_RDX],
						(unsigned long long)ctx.gpr[X86_RAX],
						(unsigned long long)ctx.rflags,
						(unsigned long long)rdx, (unsigned long long)rax,
						(unsigned long long)want_fl);
			}
}

/* The host's r, r/m form (a = a op b) at 16, 32 or 64 bits, with its flags. */
#define HOST_RM(insn, sz) \
	__asm__ volatile("push %[fl]\n\tpopf\n\t" insn " %" sz "[b], %" sz \
			 "[a]\n\tpushf\n\tpop %[fl]" \
			 : [a] "+r"(a), [fl] "+r"(fl) \
			 : [b] "r"(b) \
			 : "cc")
#define WIDTHS_RM(insn) \
	switch (w) { \
	case 2: \
		HOST_RM(insn "w", "w"); \
		break; \
	case 4: \
		HOST_RM(insn "l", "k"); \
		break; \
	default: \
		HOST_RM(insn "q", "q"); \
		break; \
	}

static u64 host_rm(bool popcnt, unsigned w, u64 a, u64 b, u64 *flags)
{
	u64 fl = *flags;

	if (popcnt)
		WIDTHS_RM("popcnt")
	else
		WIDTHS_RM("imul")
	*flags = fl;
	return a;
}

/*
 * IMUL r, r/m (0F AF; CF and OF) and POPCNT r, r/m (F3 0F B8; every arithmetic flag) with a
 * memory source at 16, 32 and 64 bits against the host.
 */
static void test_rm_forms_against_host(void **state)
{
	struct x86_emu_ctx ctx;

	(void)state;
	fake_reset();
	for (int popcnt = 0; popcnt < 2; popcnt++)
		for (unsigned w = 2; w <= 8; w *= 2)
			for (int i = 0; i < 5000; i++) {
				u64 a = operand(w), b = i % 9 ? operand(w) : 0;
				u64 fl = (fake_rand() & RFLAGS_ARITH) | 2, want_fl = fl, want;
				u64 m = w == 8 ? ~0ull : BIT(w * 8) - 1;
				u64 mask = popcnt ? RFLAGS_ARITH : RFLAGS_CF | RFLAGS_OF;
				u8 code[8], n = 0;

				if (w == 2)
					code[n++] = 0x66;
				if (popcnt)
					code[n++] = 0xf3;
				if (w == 8)
					code[n++] = 0x48;
				code[n++] = 0x0f;
				code[n++] = popcnt ? 0xb8 : 0xaf;
				code[n++] = 0x07; /* op (rdi), rax */
				want = host_rm(popcnt, w, a, b, &want_fl);
				want = w == 2 ? (a & ~m) | (want & m) : want & m;
				if (run_guest(&ctx, code, n, fl, 0, a, b, w) != X86_EMU_OK ||
				    ctx.gpr[X86_RAX] != want ||
				    (ctx.rflags & mask) != (want_fl & mask))
					fail_msg(
						"%s%u %#llx, %#llx: %#llx fl %#llx, host %#llx fl %#llx",
						popcnt ? "popcnt" : "imul", w,
						(unsigned long long)a, (unsigned long long)b,
						(unsigned long long)ctx.gpr[X86_RAX],
						(unsigned long long)ctx.rflags,
						(unsigned long long)want,
						(unsigned long long)want_fl);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_host),
		cmocka_unit_test(test_forms_against_host),
		cmocka_unit_test(test_strings_against_host),
		cmocka_unit_test(test_conditions_against_host),
		cmocka_unit_test(test_bit_scans_against_host),
		cmocka_unit_test(test_shifts_against_host),
		cmocka_unit_test(test_muldiv_against_host),
		cmocka_unit_test(test_rm_forms_against_host),
	};

	return cmocka_run_group_tests_name("emul-flags", tests, NULL, NULL);
}
