/* Flag checks against the host CPU: every ALU, BTx and CMPXCHG form at every width, on random and edge operands. */
#include <string.h>

#include "tests/emul/fake.h"

enum op { ADD, OR, ADC, SBB, AND, SUB, XOR, CMP, TEST, INC, DEC, NEG, NOT, BT, BTS, BTR, BTC, CMPXCHG, NR_OPS };

static const char *const names[NR_OPS] = {
	"add", "or", "adc", "sbb", "and", "sub", "xor", "cmp", "test", "inc", "dec", "neg", "not",
	"bt", "bts", "btr", "btc", "cmpxchg",
};

/* The host runs the same operation on registers: pushf/popf around it carries the flags. */
#define HOST2(insn, sz) \
	__asm__ volatile("sub $128, %%rsp\n\tpush %[fl]\n\tpopf\n\t" insn " %" sz "[b], %" sz "[a]\n\t" \
			 "pushf\n\tpop %[fl]\n\tadd $128, %%rsp" \
			 : [a] "+r"(a), [fl] "+r"(fl) : [b] "r"(b) : "cc", "memory")
#define HOST1(insn, sz) \
	__asm__ volatile("sub $128, %%rsp\n\tpush %[fl]\n\tpopf\n\t" insn " %" sz "[a]\n\t" \
			 "pushf\n\tpop %[fl]\n\tadd $128, %%rsp" \
			 : [a] "+r"(a), [fl] "+r"(fl) : : "cc", "memory")
#define HOSTX(insn, sz) \
	__asm__ volatile("sub $128, %%rsp\n\tpush %[fl]\n\tpopf\n\t" insn " %" sz "[b], %" sz "[a]\n\t" \
			 "pushf\n\tpop %[fl]\n\tadd $128, %%rsp" \
			 : [a] "+r"(a), [fl] "+r"(fl), "+a"(acc) : [b] "r"(b) : "cc", "memory")
#define WIDTHS(M, insn) \
	switch (w) { \
	case 1: M(insn "b", "b"); break; \
	case 2: M(insn "w", "w"); break; \
	case 4: M(insn "l", "k"); break; \
	default: M(insn "q", "q"); break; \
	}
/* BTx has no byte form; the 8-bit slot is unused. */
#define WIDTHS_BT(insn) \
	switch (w) { \
	case 2: HOST2(insn "w", "w"); break; \
	case 4: HOST2(insn "l", "k"); break; \
	default: HOST2(insn "q", "q"); break; \
	}

static u64 host(enum op op, unsigned w, u64 a, u64 b, u64 *acc_io, u64 *flags)
{
	u64 fl = *flags, acc = *acc_io;

	switch (op) {
	case ADD: WIDTHS(HOST2, "add") break;
	case OR: WIDTHS(HOST2, "or") break;
	case ADC: WIDTHS(HOST2, "adc") break;
	case SBB: WIDTHS(HOST2, "sbb") break;
	case AND: WIDTHS(HOST2, "and") break;
	case SUB: WIDTHS(HOST2, "sub") break;
	case XOR: WIDTHS(HOST2, "xor") break;
	case CMP: WIDTHS(HOST2, "cmp") break;
	case TEST: WIDTHS(HOST2, "test") break;
	case INC: WIDTHS(HOST1, "inc") break;
	case DEC: WIDTHS(HOST1, "dec") break;
	case NEG: WIDTHS(HOST1, "neg") break;
	case NOT: WIDTHS(HOST1, "not") break;
	case BT: WIDTHS_BT("bt") break;
	case BTS: WIDTHS_BT("bts") break;
	case BTR: WIDTHS_BT("btr") break;
	case BTC: WIDTHS_BT("btc") break;
	default: WIDTHS(HOSTX, "cmpxchg") break;
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
	case ADD ... CMP: p[n++] = (u8)(op * 8 + (w > 1)); p[n++] = 0x37; break;
	case TEST: p[n++] = w > 1 ? 0x85 : 0x84; p[n++] = 0x37; break;
	case INC: case DEC: p[n++] = w > 1 ? 0xff : 0xfe; p[n++] = (u8)(grp[op] << 3 | 7); break;
	case NEG: case NOT: p[n++] = w > 1 ? 0xf7 : 0xf6; p[n++] = (u8)(grp[op] << 3 | 7); break;
	case BT ... BTC: p[n++] = 0x0f; p[n++] = bt[op]; p[n++] = 0x37; break;
	default: p[n++] = 0x0f; p[n++] = w > 1 ? 0xb1 : 0xb0; p[n++] = 0x37; break;
	}
	return n;
}


/* Edge values carry most flag bugs: 0, 1, -1, the sign bit and its neighbours, nibble edges. */
static u64 operand(unsigned w)
{
	static const u64 edge[] = { 0, 1, 2, 0xf, 0x10, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
				    0x7fffffff, 0x80000000, 0xffffffff, 0x7fffffffffffffff,
				    0x8000000000000000, ~0ull };
	u64 m = w == 8 ? ~0ull : BIT(w * 8) - 1;
	u64 r = fake_rand();

	if ((r & 3) == 0)
		return edge[(r >> 2) % ARRAY_SIZE(edge)] & m;
	if ((r & 3) == 1)
		return (edge[(r >> 2) % ARRAY_SIZE(edge)] + (r >> 40) % 3 - 1) & m;
	return fake_rand() & m;
}

static void check(enum op op, unsigned w)
{
	u64 m = w == 8 ? ~0ull : BIT(w * 8) - 1;
	u64 a = operand(w), b = operand(w), acc = fake_rand() % 4 ? operand(w) : a;
	u64 fl_in = (fake_rand() & RFLAGS_ARITH) | 2;
	u64 want_fl = fl_in, want_acc = acc, want, mask = RFLAGS_ARITH, got = 0;
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;
	struct x86_insn in;
	u8 code[8];
	int rc;

	if (op >= BT && op <= BTC)
		b &= w * 8 - 1; /* the register form wraps; the memory form would move */
	want = host(op, w, a, b, &want_acc, &want_fl) & m;
	if (op == OR || op == AND || op == XOR || op == TEST)
		mask &= ~RFLAGS_AF; /* undefined */
	if (op >= BT && op <= BTC)
		mask = RFLAGS_CF;   /* the others are undefined */

	fake_ctx(&ctx, X86_MODE_64);
	fake_code(code, encode(op, w, code));
	ctx.rflags = fl_in;
	ctx.gpr[X86_RDI] = 0x2000;
	ctx.gpr[X86_RSI] = b;
	ctx.gpr[X86_RAX] = acc;
	memset(fake.mem + 0x2000, 0, 8);
	memcpy(fake.mem + 0x2000, &a, w);
	rc = x86_emulate_at_rip(&ctx, &fake_ops, &in, &res);
	if (rc != X86_EMU_OK)
		fail_msg("%s%u: status %d", names[op], w, rc);
	memcpy(&got, fake.mem + 0x2000, w);
	if (got != want || (ctx.rflags & mask) != (want_fl & mask) ||
	    (op == CMPXCHG && (ctx.gpr[X86_RAX] & m) != (want_acc & m)))
		fail_msg("%s%u a=%#llx b=%#llx acc=%#llx fl=%#llx: got %#llx fl %#llx acc %#llx, host %#llx fl %#llx acc %#llx",
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_host),
	};

	return cmocka_run_group_tests_name("emul-flags", tests, NULL, NULL);
}
