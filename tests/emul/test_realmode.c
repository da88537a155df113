/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of arch/x86/realmode.c: IVT delivery, the instructions vm86 refuses, segment loads, the mode switches. */
#include <string.h>

#include "tests/emul/fake.h"
#include "arch/x86/realmode.h"

/* What the caller's side saw. */
static struct {
	unsigned cr, crs, ios, halts;
	u64 cr_val;
	u16 port;
	unsigned size;
	bool in;
	u32 out_val, in_val;
	int fail; /* the callbacks answer -1 (they raised a fault themselves) */
} sys;

static int s_write_cr(struct x86_emu_ctx *ctx, unsigned cr, u64 val)
{
	sys.crs++;
	sys.cr = cr;
	sys.cr_val = val;
	if (sys.fail)
		return -1;
	if (cr == 0)
		ctx->cr0 = val;
	return 0;
}

static int s_io(struct x86_emu_ctx *ctx, u16 port, unsigned size, bool in, u32 *val)
{
	(void)ctx;
	sys.ios++;
	sys.port = port;
	sys.size = size;
	sys.in = in;
	if (sys.fail)
		return -1;
	if (in)
		*val = sys.in_val;
	else
		sys.out_val = *val;
	return 0;
}

static int s_halt(struct x86_emu_ctx *ctx)
{
	(void)ctx;
	sys.halts++;
	return 0;
}

static u64 msr_value;
static u32 msr_index;
static int s_msr(struct x86_emu_ctx *ctx, u32 msr, bool write, u64 *val)
{
	(void)ctx;
	msr_index = msr;
	if (sys.fail)
		return -1;
	if (write)
		msr_value = *val;
	else
		*val = msr_value;
	return 0;
}

static const struct x86_sys_ops sys_ops = {
	.write_cr = s_write_cr, .io = s_io, .halt = s_halt, .msr = s_msr
};

/* Real mode: CS = DS = SS = 0, SP 0x8000, the IVT at 0 (its 256 entries), code at FAKE_CODE. */
static void setup(struct x86_emu_ctx *ctx, const void *code, size_t n)
{
	fake_reset();
	memset(&sys, 0, sizeof(sys));
	fake_ctx(ctx, X86_MODE_16);
	ctx->gpr[X86_RSP] = 0x8000;
	ctx->idtr = (struct x86_dtr){ .base = 0, .limit = 0x3ff };
	ctx->cr0 = CR0_ET;
	fake_code(code, n);
}

static int run(struct x86_emu_ctx *ctx, bool gp, struct x86_emu_result *res)
{
	struct x86_insn insn;
	return x86_emulate_sys(ctx, &fake_ops, &sys_ops, gp, &insn, res);
}

static u16 word_at(u32 lin)
{
	return (u16)(fake.mem[lin] | fake.mem[lin + 1] << 8);
}

static void put_word(u32 lin, u16 v)
{
	fake.mem[lin] = (u8)v;
	fake.mem[lin + 1] = (u8)(v >> 8);
}

/* INT n: FLAGS, CS, IP pushed, IF/TF cleared, CS:IP from the IVT (moved by IDTR). */
static void test_int_through_ivt(void **state)
{
	static const u8 code[] = { 0xcd, 0x40 };
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;

	(void)state;
	setup(&ctx, code, sizeof(code));
	ctx.idtr.base = 0x400;
	put_word(0x400 + 0x40 * 4, 0x0034);
	put_word(0x400 + 0x40 * 4 + 2, 0x0200);
	ctx.rflags = 2 | RFLAGS_IF | RFLAGS_TF | RFLAGS_CF;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(ctx.seg[X86_CS].sel, 0x200);
	assert_int_equal(ctx.seg[X86_CS].base, 0x2000);
	assert_int_equal(ctx.rip, 0x34);
	assert_int_equal(ctx.gpr[X86_RSP], 0x8000 - 6);
	assert_int_equal(word_at(0x7ffa), FAKE_CODE + 2); /* IP past the INT */
	assert_int_equal(word_at(0x7ffc), 0);		  /* CS */
	assert_int_equal(word_at(0x7ffe), 2 | RFLAGS_IF | RFLAGS_TF | RFLAGS_CF);
	assert_int_equal(ctx.rflags, 2 | RFLAGS_CF);
}

/* IRET pops them back, 16 bits each (32 with 66). */
static void test_iret(void **state)
{
	static const u8 code[] = { 0xcf };
	static const u8 code32[] = { 0x66, 0xcf };
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;

	(void)state;
	setup(&ctx, code, sizeof(code));
	ctx.gpr[X86_RSP] = 0x7ffa;
	put_word(0x7ffa, 0x1234);
	put_word(0x7ffc, 0x0300);
	put_word(0x7ffe, 0x0202 | 0x0001);
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(ctx.rip, 0x1234);
	assert_int_equal(ctx.seg[X86_CS].sel, 0x300);
	assert_int_equal(ctx.seg[X86_CS].base, 0x3000);
	assert_int_equal(ctx.rflags, 0x203);
	assert_int_equal(ctx.gpr[X86_RSP], 0x8000);

	setup(&ctx, code32, sizeof(code32));
	ctx.gpr[X86_RSP] = 0x7ff4;
	memset(fake.mem + 0x7ff4, 0, 12);
	put_word(0x7ff4, 0x10);
	put_word(0x7ff8, 0x20);
	put_word(0x7ffc, 0x0002);
	fake.mem[0x7ffe] = 0x24; /* ID and AC: a 32-bit IRET takes them */
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(ctx.rip, 0x10);
	assert_int_equal(ctx.seg[X86_CS].base, 0x200);
	assert_int_equal(ctx.rflags, 0x240002);
}

/* CLI, STI, PUSHF and POPF; POPF keeps VM and clears RF. */
static void test_flags(void **state)
{
	static const u8 code[] = { 0xfb, 0x9c, 0xfa, 0x9d };
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;

	(void)state;
	setup(&ctx, code, sizeof(code));
	ctx.rflags = 2 | RFLAGS_RF;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_true(ctx.rflags & RFLAGS_IF);
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(word_at(0x7ffe), 2 | RFLAGS_IF); /* never RF */
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_false(ctx.rflags & RFLAGS_IF);
	put_word(0x7ffe, 0x0ad7 | RFLAGS_IF); /* every flag POPF may set at CPL 0 */
	ctx.rflags |= RFLAGS_VM;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(ctx.rflags, 0x0ad7 | RFLAGS_IF | RFLAGS_VM);
	assert_int_equal(ctx.rip, FAKE_CODE + 4);
	assert_int_equal(ctx.gpr[X86_RSP], 0x8000);
}

/* LGDT/LIDT with a 16-bit operand size take a 24-bit base, with 66 all 32 bits; SGDT back. */
static void test_descriptor_tables(void **state)
{
	static const u8 code[] = { 0x0f, 0x01, 0x16, 0x00, 0x30,       /* lgdt [0x3000] */
				   0x66, 0x0f, 0x01, 0x1e, 0x00, 0x30, /* lidtl [0x3000] */
				   0x0f, 0x01, 0x06, 0x10, 0x30 };     /* sgdt [0x3010] */
	static const u8 desc[] = { 0x27, 0x00, 0x44, 0x33, 0x22, 0x11 };
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;

	(void)state;
	setup(&ctx, code, sizeof(code));
	memcpy(fake.mem + 0x3000, desc, sizeof(desc));
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(ctx.gdtr.base, 0x223344);
	assert_int_equal(ctx.gdtr.limit, 0x27);
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(ctx.idtr.base, 0x11223344);
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_memory_equal(fake.mem + 0x3010, "\x27\x00\x44\x33\x22\x00", 6);
	assert_int_equal(ctx.rip, FAKE_CODE + sizeof(code));
}

/* MOV to and from CR0, LMSW (cannot clear PE), SMSW, CLTS through the caller; a caller that
 * faulted leaves RIP on the instruction. */
static void test_control_registers(void **state)
{
	static const u8 code[] = { 0x0f, 0x20, 0xc0, /* mov eax, cr0 */
				   0x0f, 0x22, 0xc0, /* mov cr0, eax */
				   0x0f, 0x01, 0xf3, /* lmsw bx */
				   0x0f, 0x01, 0xe1, /* smsw cx */
				   0x0f, 0x06 };     /* clts */
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;

	(void)state;
	setup(&ctx, code, sizeof(code));
	ctx.cr0 = CR0_ET | CR0_TS;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(ctx.gpr[X86_RAX], CR0_ET | CR0_TS);
	ctx.gpr[X86_RAX] |= CR0_PE;
	sys.fail = 1;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_RETRY);
	assert_int_equal(ctx.rip, FAKE_CODE + 3);
	sys.fail = 0;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(sys.cr, 0);
	assert_int_equal(ctx.cr0, CR0_ET | CR0_TS | CR0_PE);
	ctx.gpr[X86_RBX] = 0x2; /* MP, and PE clear: PE stays */
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(ctx.cr0, CR0_ET | CR0_PE | CR0_MP);
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(ctx.gpr[X86_RCX] & 0xffff, CR0_ET | CR0_PE | CR0_MP);
	ctx.cr0 |= CR0_TS;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(ctx.cr0, CR0_ET | CR0_PE | CR0_MP);
	assert_int_equal(sys.crs, 4);
}

/* IN and OUT with immediate and DX ports, HLT past itself, a caller's fault leaves RIP. */
static void test_io_and_hlt(void **state)
{
	static const u8 code[] = { 0xe6, 0x80, 0xed, 0xec, 0xf4 };
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;

	(void)state;
	setup(&ctx, code, sizeof(code));
	ctx.gpr[X86_RAX] = 0x1234;
	ctx.gpr[X86_RDX] = 0x3f8;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_true(!sys.in && sys.port == 0x80 && sys.size == 1 && sys.out_val == 0x34);
	sys.in_val = 0xabcd;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_true(sys.in && sys.port == 0x3f8 && sys.size == 2);
	assert_int_equal(ctx.gpr[X86_RAX], 0xabcd);
	sys.fail = 1;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_RETRY);
	assert_int_equal(ctx.rip, FAKE_CODE + 3);
	sys.fail = 0;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(sys.halts, 1);
	assert_int_equal(ctx.rip, FAKE_CODE + 5);
}

/* REP OUTSB from DS:SI in batches (RIP stays until CX is done); INSW to ES:DI downwards; a
 * fault on the memory side keeps the finished iterations. */
static void test_string_io(void **state)
{
	static const u8 outs[] = { 0xf3, 0x6e }, ins[] = { 0x6d };
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;

	(void)state;
	setup(&ctx, outs, sizeof(outs));
	memcpy(fake.mem + 0x3000, "abc", 3);
	ctx.gpr[X86_RSI] = 0x3000;
	ctx.gpr[X86_RCX] = 3;
	ctx.gpr[X86_RDX] = 0x3f8;
	ctx.max_reps = 2;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(ctx.rip, FAKE_CODE);
	assert_true(sys.ios == 2 && ctx.gpr[X86_RCX] == 1 && ctx.gpr[X86_RSI] == 0x3002);
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_true(sys.ios == 3 && sys.out_val == 'c' && sys.port == 0x3f8 && !sys.in);
	assert_true(ctx.rip == FAKE_CODE + 2 && ctx.gpr[X86_RCX] == 0);

	setup(&ctx, ins, sizeof(ins));
	ctx.rflags |= RFLAGS_DF;
	ctx.gpr[X86_RDI] = 0x3010;
	sys.in_val = 0x4142;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(word_at(0x3010), 0x4142);
	assert_true(ctx.gpr[X86_RDI] == 0x300e && ctx.rip == FAKE_CODE + 1);
	ctx.rip = FAKE_CODE;
	ctx.gpr[X86_RDI] = FAKE_HOLE;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_FAULT);
	assert_true(res.fault.vector == VEC_PF && ctx.gpr[X86_RDI] == FAKE_HOLE);
}

/* RDMSR/WRMSR through the caller (real mode may run them; vm86 refuses), INVLPG with paging off. */
static void test_msr_and_invlpg(void **state)
{
	static const u8 code[] = { 0x0f, 0x30, 0x0f, 0x32, 0x0f, 0x01, 0x38 };
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;

	(void)state;
	setup(&ctx, code, sizeof(code));
	ctx.gpr[X86_RCX] = 0x277;
	ctx.gpr[X86_RDX] = 0x11;
	ctx.gpr[X86_RAX] = 0x22;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_true(msr_index == 0x277 && msr_value == 0x1100000022ull);
	ctx.gpr[X86_RAX] = ctx.gpr[X86_RDX] = 0;
	sys.fail = 1;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_RETRY);
	assert_int_equal(ctx.rip, FAKE_CODE + 2);
	sys.fail = 0;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_true(ctx.gpr[X86_RAX] == 0x22 && ctx.gpr[X86_RDX] == 0x11);
	assert_int_equal(run(&ctx, true, &res), X86_EMU_OK);
	assert_int_equal(ctx.rip, FAKE_CODE + sizeof(code));
}

/* vm86 runs everything but the privileged instructions: a #GP elsewhere is the guest's. Without
 * the #GP the instruction is emulated (x86_emulate's); one nobody knows changes nothing. */
static void test_genuine_gp_and_unknown(void **state)
{
	static const u8 mov[] = { 0x8b, 0x07 }, aam[] = { 0xd4, 0x0a };
	struct x86_emu_ctx ctx, before;
	struct x86_emu_result res;

	(void)state;
	setup(&ctx, mov, sizeof(mov));
	ctx.gpr[X86_RBX] = 0x3000;
	put_word(0x3000, 0xbeef);
	assert_int_equal(run(&ctx, true, &res), X86_EMU_FAULT);
	assert_true(res.fault.vector == VEC_GP && res.fault.error_code == 0);
	assert_int_equal(ctx.rip, FAKE_CODE);
	assert_int_equal(run(&ctx, false, &res), X86_EMU_OK);
	assert_int_equal(ctx.gpr[X86_RAX], 0xbeef);

	setup(&ctx, aam, sizeof(aam));
	before = ctx;
	assert_int_equal(run(&ctx, false, &res), X86_EMU_UNHANDLED);
	assert_memory_equal(&ctx, &before, sizeof(ctx));
}

/* Delivery that cannot be done changes nothing: past the IVT's limit #GP, a stack on a
 * missing page #PF. */
static void test_delivery_faults(void **state)
{
	static const u8 code[] = { 0xcd, 0x40 };
	struct x86_emu_ctx ctx, before;
	struct x86_emu_result res;
	struct x86_fault f;

	(void)state;
	setup(&ctx, code, sizeof(code));
	ctx.idtr.limit = 0x40 * 4 + 2;
	before = ctx;
	assert_int_equal(run(&ctx, true, &res), X86_EMU_FAULT);
	assert_int_equal(res.fault.vector, VEC_GP);
	assert_memory_equal(&ctx, &before, sizeof(ctx));

	setup(&ctx, code, sizeof(code));
	ctx.gpr[X86_RSP] = FAKE_HOLE + 0x10;
	before = ctx;
	assert_int_equal(x86_realmode_deliver(&ctx, &fake_ops, 8, 0x55, &f), X86_EMU_FAULT);
	assert_int_equal(f.vector, VEC_PF);
	assert_memory_equal(&ctx, &before, sizeof(ctx));
}

/* Segment loads in real mode: base = selector * 16, limit and attributes kept (a protected
 * mode 4 GiB limit survives: unreal mode); far JMP, CALL, RETF; PUSH/POP sreg. */
static void test_real_segments(void **state)
{
	static const u8 code[] = { 0x8e, 0xd8,			 /* mov ds, ax */
				   0x9a, 0x10, 0x00, 0x00, 0x02, /* call 0x200:0x10 */
				   0x1e, 0x07 };		 /* push ds; pop es */
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;

	(void)state;
	setup(&ctx, code, sizeof(code));
	ctx.seg[X86_DS].limit = 0xffffffff;
	ctx.gpr[X86_RAX] = 0x1234;
	assert_int_equal(run(&ctx, false, &res), X86_EMU_OK);
	assert_true(ctx.seg[X86_DS].sel == 0x1234 && ctx.seg[X86_DS].base == 0x12340 &&
		    ctx.seg[X86_DS].limit == 0xffffffff);
	assert_int_equal(run(&ctx, false, &res), X86_EMU_OK);
	assert_true(ctx.seg[X86_CS].sel == 0x200 && ctx.seg[X86_CS].base == 0x2000 &&
		    ctx.rip == 0x10);
	assert_int_equal(word_at(0x7ffc), FAKE_CODE + 7);
	assert_int_equal(word_at(0x7ffe), 0);
	fake.mem[0x2010] = 0xcb; /* retf */
	assert_int_equal(run(&ctx, false, &res), X86_EMU_OK);
	assert_true(ctx.seg[X86_CS].base == 0 && ctx.rip == FAKE_CODE + 7);
	assert_int_equal(ctx.gpr[X86_RSP], 0x8000);
	assert_int_equal(run(&ctx, false, &res), X86_EMU_OK);
	assert_int_equal(run(&ctx, false, &res), X86_EMU_OK);
	assert_true(ctx.seg[X86_ES].sel == 0x1234 && ctx.seg[X86_ES].base == 0x12340);
}

#define GDT 0x3000u
static void put_desc(unsigned sel, u64 d)
{
	memcpy(fake.mem + GDT + (sel & ~7u), &d, 8);
}

/* In protected mode the GDT decides, and refuses as the CPU does. */
static void test_protected_segments(void **state)
{
	static const u8 code[] = { 0x8e, 0xd8 }; /* mov ds, ax */
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;
	static const struct {
		u16 sel;
		u64 desc;
		int rc;
		u8 vector;
		u16 error;
	} cases[] = {
		{ 0x10, 0x00cf92000000ffff, X86_EMU_OK, 0, 0 },		   /* flat data */
		{ 0x13, 0x00cf92000000ffff, X86_EMU_FAULT, VEC_GP, 0x10 }, /* RPL above DPL */
		{ 0x3b, 0x00cff2000000ffff, X86_EMU_OK, 0, 0 },		   /* RPL 3, DPL 3 */
		{ 0x43, 0x00cf9e000000ffff, X86_EMU_OK, 0, 0 }, /* conforming code: any RPL */
		{ 0x18, 0x00cf12000000ffff, X86_EMU_FAULT, VEC_NP, 0x18 }, /* not present */
		{ 0x20, 0x00cf9a000000ffff, X86_EMU_OK, 0, 0 },		   /* readable code */
		{ 0x28, 0x00cf98000000ffff, X86_EMU_FAULT, VEC_GP, 0x28 }, /* execute-only code */
		{ 0x30, 0x0000890000000067, X86_EMU_FAULT, VEC_GP, 0x30 }, /* a TSS */
		{ 0x48, 0, X86_EMU_FAULT, VEC_GP, 0x48 },		   /* past the limit */
		{ 0x0c, 0, X86_EMU_FAULT, VEC_GP, 0x0c }, /* the LDT, none loaded */
		{ 0x00, 0, X86_EMU_OK, 0, 0 },		  /* null: unusable */
	};

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		setup(&ctx, code, sizeof(code));
		ctx.cr0 |= CR0_PE;
		ctx.gdtr = (struct x86_dtr){ .base = GDT, .limit = 0x47 };
		put_desc(cases[i].sel, cases[i].desc);
		ctx.gpr[X86_RAX] = cases[i].sel;
		int rc = run(&ctx, false, &res);
		assert_int_equal(rc, cases[i].rc);
		if (rc == X86_EMU_FAULT) {
			assert_int_equal(res.fault.vector, cases[i].vector);
			assert_int_equal(res.fault.error_code, cases[i].error);
			assert_int_equal(ctx.rip, FAKE_CODE);
		}
		if (rc == X86_EMU_OK && cases[i].sel) {
			assert_int_equal(ctx.seg[X86_DS].limit, 0xffffffff);
			assert_true(ctx.seg[X86_DS].attr & X86_SEG_DB);
			/* the accessed bit, in the descriptor too */
			assert_true(fake.mem[GDT + (cases[i].sel & ~7u) + 5] & 1);
		}
		if (rc == X86_EMU_OK && !cases[i].sel)
			assert_false(ctx.seg[X86_DS].attr & X86_SEG_P);
	}
	/* CPL above DPL: #GP, whatever the RPL. */
	setup(&ctx, code, sizeof(code));
	ctx.cr0 |= CR0_PE;
	ctx.cpl = 3;
	ctx.gdtr = (struct x86_dtr){ .base = GDT, .limit = 0x47 };
	put_desc(0x10, 0x00cf92000000ffff);
	ctx.gpr[X86_RAX] = 0x10;
	assert_int_equal(run(&ctx, false, &res), X86_EMU_FAULT);
	assert_int_equal(res.fault.vector, VEC_GP);
	assert_int_equal(res.fault.error_code, 0x10);
	/* SS may not be null, nor read-only. */
	static const u8 ss[] = { 0x8e, 0xd0 };
	setup(&ctx, ss, sizeof(ss));
	ctx.cr0 |= CR0_PE;
	ctx.gdtr = (struct x86_dtr){ .base = GDT, .limit = 0x47 };
	put_desc(0x10, 0x00cf90000000ffff);
	ctx.gpr[X86_RAX] = 0;
	assert_int_equal(run(&ctx, false, &res), X86_EMU_FAULT);
	ctx.gpr[X86_RAX] = 0x10;
	assert_int_equal(run(&ctx, false, &res), X86_EMU_FAULT);
	assert_int_equal(res.fault.error_code, 0x10);
	assert_false(res.mov_ss);
	/* A writable one loads, and starts MOV SS's shadow (vmm/realmode.c emulates the next
	 * instruction too); so does POP SS; MOV DS does not. */
	put_desc(0x10, 0x00cf92000000ffff);
	assert_int_equal(run(&ctx, false, &res), X86_EMU_OK);
	assert_true(res.mov_ss);
	static const u8 pop_ss[] = { 0x17 }, ds[] = { 0x8e, 0xd8 };
	setup(&ctx, pop_ss, sizeof(pop_ss));
	put_desc(0x10, 0x00cf92000000ffff);
	memcpy(fake.mem + ctx.seg[X86_SS].base + (u16)ctx.gpr[X86_RSP], "\x10\x00", 2);
	ctx.cr0 |= CR0_PE;
	ctx.gdtr = (struct x86_dtr){ .base = GDT, .limit = 0x47 };
	assert_int_equal(run(&ctx, false, &res), X86_EMU_OK);
	assert_int_equal(ctx.seg[X86_SS].sel, 0x10);
	assert_true(res.mov_ss);
	setup(&ctx, ds, sizeof(ds));
	put_desc(0x10, 0x00cf92000000ffff);
	ctx.cr0 |= CR0_PE;
	ctx.gdtr = (struct x86_dtr){ .base = GDT, .limit = 0x47 };
	ctx.gpr[X86_RAX] = 0x10;
	assert_int_equal(run(&ctx, false, &res), X86_EMU_OK);
	assert_false(res.mov_ss);
}

/*
 * The switch up, one instruction at a time as Umbra runs it when the CPU cannot (CS still has
 * real mode's base after PE is set): LGDT, MOV EAX,CR0 / OR / MOV CR0,EAX, a far JMP into a
 * 32-bit segment, then MOV to DS; and down again: PE clear, a far JMP to real mode.
 */
static void test_mode_switches(void **state)
{
	static const u8 up[] = {
		0x66, 0x0f, 0x01, 0x16, 0x00, 0x30,		/* lgdtl [0x3000] */
		0x0f, 0x20, 0xc0,				/* mov eax, cr0 */
		0x0c, 0x01,					/* or al, 1 */
		0x0f, 0x22, 0xc0,				/* mov cr0, eax */
		0x66, 0xea, 0x00, 0x20, 0x00, 0x00, 0x08, 0x00, /* jmp 0x08:0x2000 (32-bit) */
	};
	static const u8 at_2000[] = {
		0x66, 0xb8, 0x10, 0x00,	      /* mov ax, 0x10 */
		0x8e, 0xd8,		      /* mov ds, eax */
		0x0f, 0x20, 0xc0,	      /* mov eax, cr0 */
		0x24, 0xfe,		      /* and al, 0xfe */
		0x0f, 0x22, 0xc0,	      /* mov cr0, eax */
		0xea, 0x00, 0x05, 0x70, 0x00, /* jmp 0x0070:0x0500 (16-bit: PE is clear) */
	};
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;

	(void)state;
	setup(&ctx, up, sizeof(up));
	memcpy(fake.mem + 0x2000, at_2000, sizeof(at_2000));
	put_word(0x3000, 0x17);
	put_word(0x3002, 0x3008);
	put_word(0x3004, 0);
	memcpy(fake.mem + 0x3008, "\0\0\0\0\0\0\0\0", 8);
	u64 code32 = 0x00cf9a000000ffff, data32 = 0x00cf92000000ffff;
	memcpy(fake.mem + 0x3010, &code32, 8);
	memcpy(fake.mem + 0x3018, &data32, 8);
	for (int i = 0; i < 5; i++)
		assert_int_equal(run(&ctx, false, &res), X86_EMU_OK);
	assert_true(ctx.cr0 & CR0_PE);
	assert_int_equal(ctx.seg[X86_CS].sel, 0x08);
	assert_int_equal(ctx.seg[X86_CS].limit, 0xffffffff);
	assert_int_equal(x86_ctx_mode(&ctx), X86_MODE_32);
	assert_int_equal(ctx.rip, 0x2000);
	for (int i = 0; i < 6; i++)
		assert_int_equal(run(&ctx, false, &res), X86_EMU_OK);
	assert_false(ctx.cr0 & CR0_PE);
	assert_true(ctx.seg[X86_DS].sel == 0x10 && ctx.seg[X86_DS].base == 0);
	assert_int_equal(x86_ctx_mode(&ctx), X86_MODE_16);
	assert_true(ctx.seg[X86_CS].sel == 0x70 && ctx.seg[X86_CS].base == 0x700);
	assert_int_equal(ctx.rip, 0x500);
	assert_int_equal(sys.crs, 2);
}

/*
 * The instruction set a real-mode kernel runs between its mode switch and its segment reloads
 * (on VMX without unrestricted guest every one of them is emulated): the flag instructions and
 * the string instructions with and without REP, in both directions. Each row runs twice: in
 * real mode (bases = selector * 16) and in the window after clearing CR0.PE with DS and ES
 * still holding protected mode's hidden base 0x9000 (selector 0x20), where the base, not the
 * selector, must address memory.
 */
struct rm_row {
	const char *name;
	const char *code;
	u8 n;
	u16 ax, cx, si, di, fl; /* in; fl: FLAGS bits set on entry (besides bit 1) */
	const char *mem;	/* at DS:0x300 */
	u8 mem_n;
	u16 ax_out, cx_out, si_out, di_out, fl_mask, fl_out, sp_out;
	u16 pushed;  /* the word at SS:sp_out when sp_out < 0x8000 */
	u16 out_off; /* bytes that must be at DS:out_off afterwards */
	const char *out;
	u8 out_n;
};

#define RM_CODE(s) .code = s, .n = sizeof(s) - 1
#define RM_MEM(s) .mem = s, .mem_n = sizeof(s) - 1
#define RM_OUT(o, s) .out_off = (o), .out = s, .out_n = sizeof(s) - 1
#define ARITH 0x8d5

/* clang-format off */
static const struct rm_row rm_rows[] = {
	{ "cld", RM_CODE("\xfc"), .fl = 0x401, .fl_mask = 0x401, .fl_out = 0x001 },
	{ "std", RM_CODE("\xfd"), .fl_mask = 0x400, .fl_out = 0x400 },
	{ "cli", RM_CODE("\xfa"), .fl = 0x200, .fl_mask = 0x200, .fl_out = 0 },
	{ "sti", RM_CODE("\xfb"), .fl_mask = 0x200, .fl_out = 0x200 },
	{ "clc", RM_CODE("\xf8"), .fl = 0x41, .fl_mask = 0x41, .fl_out = 0x40 },
	{ "stc", RM_CODE("\xf9"), .fl_mask = 0x1, .fl_out = 0x1 },
	{ "cmc", RM_CODE("\xf5"), .fl = 0x1, .fl_mask = 0x1, .fl_out = 0 },
	{ "lahf", RM_CODE("\x9f"), .ax = 0x1234, .fl = 0xc5, .ax_out = 0xc734 },
	{ "sahf", RM_CODE("\x9e"), .ax = 0x4100, .fl = 0x895, .ax_out = 0x4100, .fl_mask = ARITH, .fl_out = 0x841 },
	{ "pushf", RM_CODE("\x9c"), .fl = 0x401, .sp_out = 0x7ffe, .pushed = 0x403 },
	{ "popf", RM_CODE("\x9d"), .fl = 0x0, .sp_out = 0x8002 },
	{ "push ax", RM_CODE("\x50"), .ax = 0x1234, .ax_out = 0x1234, .sp_out = 0x7ffe, .pushed = 0x1234 },
	{ "push 0xff80 (imm8)", RM_CODE("\x6a\x80"), .sp_out = 0x7ffe, .pushed = 0xff80 },
	{ "push 0x4321 (imm16)", RM_CODE("\x68\x21\x43"), .sp_out = 0x7ffe, .pushed = 0x4321 },
	{ "pop cx", RM_CODE("\x59"), .cx_out = 0x0cd5, .sp_out = 0x8002 },
	{ "rep stosw", RM_CODE("\xf3\xab"), .ax = 0xbeef, .cx = 3, .di = 0x300, RM_MEM("\0\0\0\0\0\0\x11"), .ax_out = 0xbeef, .di_out = 0x306, RM_OUT(0x300, "\xef\xbe\xef\xbe\xef\xbe\x11") },
	{ "rep movsb", RM_CODE("\xf3\xa4"), .cx = 4, .si = 0x300, .di = 0x310, RM_MEM("abcd"), .si_out = 0x304, .di_out = 0x314, RM_OUT(0x310, "abcd") },
	{ "std; rep movsb down", RM_CODE("\xf3\xa4"), .cx = 4, .si = 0x303, .di = 0x313, .fl = 0x400, RM_MEM("abcd"), .si_out = 0x2ff, .di_out = 0x30f, RM_OUT(0x310, "abcd") },
	{ "rep movsw", RM_CODE("\xf3\xa5"), .cx = 2, .si = 0x300, .di = 0x320, RM_MEM("wxyz"), .si_out = 0x304, .di_out = 0x324, RM_OUT(0x320, "wxyz") },
	{ "lodsb", RM_CODE("\xac"), .ax = 0x1200, .si = 0x301, RM_MEM("pq"), .ax_out = 0x1271, .si_out = 0x302 },
	{ "lodsw down", RM_CODE("\xad"), .si = 0x300, .fl = 0x400, RM_MEM("pq"), .ax_out = 0x7170, .si_out = 0x2fe },
	{ "stosb", RM_CODE("\xaa"), .ax = 0x5a, .di = 0x300, RM_MEM("\0"), .ax_out = 0x5a, .di_out = 0x301, RM_OUT(0x300, "Z") },
	{ "repe cmpsb equal", RM_CODE("\xf3\xa6"), .cx = 2, .si = 0x300, .di = 0x302, RM_MEM("abab"), .si_out = 0x302, .di_out = 0x304, .fl_mask = ARITH, .fl_out = 0x44 },
	{ "repe cmpsb differ", RM_CODE("\xf3\xa6"), .cx = 3, .si = 0x300, .di = 0x303, RM_MEM("abcabd"), .cx_out = 0, .si_out = 0x303, .di_out = 0x306, .fl_mask = ARITH, .fl_out = 0x95 },
	{ "repe cmpsb stops", RM_CODE("\xf3\xa6"), .cx = 3, .si = 0x300, .di = 0x303, RM_MEM("abcxbc"), .cx_out = 2, .si_out = 0x301, .di_out = 0x304, .fl_mask = ARITH, .fl_out = 0x91 },
	{ "repne scasb", RM_CODE("\xf2\xae"), .ax = 'c', .cx = 5, .di = 0x300, RM_MEM("abcde"), .ax_out = 'c', .cx_out = 2, .di_out = 0x303, .fl_mask = ARITH, .fl_out = 0x44 },
	{ "scasw", RM_CODE("\xaf"), .ax = 0x0102, .di = 0x300, RM_MEM("\x02\x01"), .ax_out = 0x0102, .di_out = 0x302, .fl_mask = ARITH, .fl_out = 0x44 },
	{ "rep stosb, cx 0", RM_CODE("\xf3\xaa"), .ax = 0x77, .di = 0x300, .fl = 0x1, RM_MEM("\x11"), .ax_out = 0x77, .di_out = 0x300, .fl_mask = ARITH, .fl_out = 0x1 },
	{ "addr32 rep movsb", RM_CODE("\x67\xf3\xa4"), .cx = 2, .si = 0x300, .di = 0x330, RM_MEM("mn"), .si_out = 0x302, .di_out = 0x332, RM_OUT(0x330, "mn") },
};
/* clang-format on */

static void rm_check(const struct rm_row *r, bool window)
{
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;
	u32 ds = window ? 0x9000 : 0x2000; /* real mode: DS = ES = 0x200 */

	setup(&ctx, r->code, r->n);
	for (int s = X86_ES; s < X86_NR_SREGS; s++)
		if (s != X86_CS && s != X86_SS) {
			ctx.seg[s].base = ds;
			ctx.seg[s].sel = window ? 0x20 : (u16)(ds >> 4);
		}
	ctx.gpr[X86_RAX] = r->ax;
	ctx.gpr[X86_RCX] = r->cx;
	ctx.gpr[X86_RSI] = r->si;
	ctx.gpr[X86_RDI] = r->di;
	ctx.rflags = 2 | r->fl;
	if (r->mem_n)
		memcpy(fake.mem + ds + 0x300, r->mem, r->mem_n);
	put_word(0x8000, 0x0cd5); /* what POPF and POP take */
	u64 fl_want = r->fl_mask ? ((2 | r->fl) & ~(u64)r->fl_mask) | r->fl_out : 2 | r->fl;
	if (r->code[0] == '\x9d')
		fl_want = 0x0cd7;
	int rc = run(&ctx, false, &res);
	if (rc != X86_EMU_OK || ctx.rip != FAKE_CODE + r->n || (u16)ctx.gpr[X86_RAX] != r->ax_out ||
	    (u16)ctx.gpr[X86_RCX] != r->cx_out || (u16)ctx.gpr[X86_RSI] != r->si_out ||
	    (u16)ctx.gpr[X86_RDI] != r->di_out || ctx.rflags != fl_want ||
	    (u16)ctx.gpr[X86_RSP] != (r->sp_out ? r->sp_out : 0x8000) ||
	    (r->out_n && memcmp(fake.mem + ds + r->out_off, r->out, r->out_n)))
		fail_msg("%s (%s): status %d ip %#llx ax %#llx cx %#llx si %#llx di %#llx fl %#llx "
			 "(want %#llx) sp %#llx",
			 r->name, window ? "after the switch" : "real mode", rc,
			 (unsigned long long)ctx.rip, (unsigned long long)ctx.gpr[X86_RAX],
			 (unsigned long long)ctx.gpr[X86_RCX], (unsigned long long)ctx.gpr[X86_RSI],
			 (unsigned long long)ctx.gpr[X86_RDI], (unsigned long long)ctx.rflags,
			 (unsigned long long)fl_want, (unsigned long long)ctx.gpr[X86_RSP]);
	if (r->sp_out && r->sp_out < 0x8000 && word_at(r->sp_out) != r->pushed)
		fail_msg("%s: pushed %#x", r->name, word_at(r->sp_out));
}

static void test_string_and_flag_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rm_rows); i++) {
		rm_check(&rm_rows[i], false);
		rm_check(&rm_rows[i], true);
	}
}

/* Hostile input: random bytes at CS:IP in real mode and in protected mode with real mode's
 * segments, random registers, tables and segment bases. Nothing may crash (ASan, UBSan), an
 * UNHANDLED or faulting instruction changes no register, and the results are the four. */
static void test_fuzz(void **state)
{
	struct x86_emu_ctx ctx, before;
	struct x86_emu_result res;
	unsigned counts[4] = { 0 };

	(void)state;
	for (unsigned n = 0; n < 200000; n++) {
		u8 code[15];
		for (unsigned i = 0; i < sizeof(code); i++)
			code[i] = (u8)fake_rand();
		if (n % 4 == 0)
			code[0] = 0x0f; /* the two-byte map is where the system instructions are */
		if (n % 4096 == 0)
			fake_reset(); /* what the instructions wrote, now and then */
		memset(&sys, 0, sizeof(sys));
		fake_ctx(&ctx, X86_MODE_16);
		ctx.cr0 = CR0_ET;
		fake_code(code, sizeof(code));
		for (int r = 0; r < 8; r++)
			ctx.gpr[r] = fake_rand() & (n & 8 ? 0xffffffffull : 0xffff);
		for (int sg = 0; sg < X86_NR_SREGS; sg++) {
			ctx.seg[sg].sel = (u16)fake_rand();
			ctx.seg[sg].base = sg == X86_CS ? 0 : fake_rand() & 0xfff0;
		}
		ctx.rflags = 2 | (fake_rand() & 0x4cd5);
		ctx.gdtr =
			(struct x86_dtr){ .base = fake_rand() & 0xfff8, .limit = (u16)fake_rand() };
		ctx.idtr =
			(struct x86_dtr){ .base = fake_rand() & 0xfffc, .limit = (u16)fake_rand() };
		if (n & 1)
			ctx.cr0 |= CR0_PE;
		sys.fail = (n % 7) == 0;
		before = ctx;
		int rc = run(&ctx, n & 2, &res);
		assert_true(rc >= X86_EMU_OK && rc <= X86_EMU_RETRY);
		counts[rc]++;
		if (rc == X86_EMU_UNHANDLED || rc == X86_EMU_FAULT || rc == X86_EMU_RETRY)
			assert_int_equal(ctx.rip, before.rip);
		if (rc == X86_EMU_UNHANDLED)
			assert_memory_equal(&ctx, &before, sizeof(ctx));
	}
	/* The fuzz reaches every outcome. */
	for (int i = 0; i < 4; i++)
		assert_true(counts[i] > 0);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int_through_ivt),
		cmocka_unit_test(test_iret),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_descriptor_tables),
		cmocka_unit_test(test_control_registers),
		cmocka_unit_test(test_io_and_hlt),
		cmocka_unit_test(test_string_io),
		cmocka_unit_test(test_msr_and_invlpg),
		cmocka_unit_test(test_genuine_gp_and_unknown),
		cmocka_unit_test(test_delivery_faults),
		cmocka_unit_test(test_real_segments),
		cmocka_unit_test(test_protected_segments),
		cmocka_unit_test(test_mode_switches),
		cmocka_unit_test(test_string_and_flag_table),
		cmocka_unit_test(test_fuzz),
	};

	return cmocka_run_group_tests_name("emul-realmode", tests, NULL, NULL);
}
