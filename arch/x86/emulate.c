/* SPDX-License-Identifier: GPL-2.0-only */
/* x86 instruction emulator: MOV, ALU, XCHG, CMPXCHG, BTx and string forms on guest memory, with exact flags. */
#include "arch/x86/emulate.h"
#include "arch/x86/segment.h"
#include "lib/string.h"

/*
 * The emulator works on a copy of the guest state and commits it only when the instruction
 * completes (or, for string instructions, after each finished iteration), so a fault or an
 * unhandled case leaves the guest exactly as it was.
 */
struct emu {
	const struct x86_emu_ctx *orig; /* handed to the callbacks */
	struct x86_emu_ctx w;
	const struct x86_emu_ops *ops;
	const struct x86_insn *in;
	struct x86_emu_result *res;
};

enum { OPND_REG, OPND_MEM, OPND_IMM };

struct opnd {
	u8 type;
	u8 width;
	u8 reg;
	u8 seg;
	u64 ea;
	u64 val;
};

static u64 sext(u64 v, unsigned w)
{
	unsigned s = 64 - 8 * w;

	return w >= 8 ? v : (u64)((s64)(v << s) >> s);
}

static bool msb(u64 v, unsigned w)
{
	return (v >> (w * 8 - 1)) & 1;
}

static bool rex(const struct emu *e)
{
	return e->in->rex != 0;
}

u64 x86_get_reg(const struct x86_emu_ctx *ctx, unsigned reg, unsigned width, bool rex)
{
	reg &= 15;
	if (width == 1 && !rex && reg >= 4 && reg < 8)
		return (ctx->gpr[reg - 4] >> 8) & 0xff;
	return ctx->gpr[reg] & x86_mask(width);
}

void x86_set_reg(struct x86_emu_ctx *ctx, unsigned reg, unsigned width, bool rex, u64 val)
{
	u64 *r;

	reg &= 15;
	r = &ctx->gpr[reg];
	if (width == 1 && !rex && reg >= 4 && reg < 8) {
		r = &ctx->gpr[reg - 4];
		*r = (*r & ~0xff00ull) | ((val & 0xff) << 8);
	} else if (width < 4) {
		*r = (*r & ~x86_mask(width)) | (val & x86_mask(width));
	} else {
		/* 32-bit writes zero-extend. */
		*r = val & x86_mask(width);
	}
}

/* ---- memory ---- */

static int seg_fault(struct emu *e, u8 seg)
{
	struct x86_fault *f = &e->res->fault;

	f->vector = seg == X86_SS ? VEC_SS : VEC_GP;
	f->has_error = true;
	f->error_code = 0;
	f->addr = 0;
	return X86_EMU_FAULT;
}

static bool in_limit(const struct x86_seg *s, u64 ea, unsigned len)
{
	u64 last = ea + len - 1;

	if ((s->attr & (X86_SEG_S | X86_SEG_TYPE_CODE | X86_SEG_TYPE_EXPDOWN)) ==
	    (X86_SEG_S | X86_SEG_TYPE_EXPDOWN))
		return ea > s->limit &&
		       last <= ((s->attr & X86_SEG_DB) ? 0xffffffffull : 0xffffull);
	return last <= s->limit;
}

/* FS, GS and the LDT and TR registers into the working copy, where the caller left them out. */
static void want_segments(struct emu *e)
{
	if (!e->w.segs_partial)
		return;
	x86_segments_wanted(e->orig, e->ops);
	e->w.seg[X86_FS] = e->orig->seg[X86_FS];
	e->w.seg[X86_GS] = e->orig->seg[X86_GS];
	e->w.ldt = e->orig->ldt;
	e->w.ldtr = e->orig->ldtr;
	e->w.tr = e->orig->tr;
	e->w.segs_partial = e->orig->segs_partial;
}

static int linearize(struct emu *e, u8 seg, u64 ea, unsigned len, u64 *lin)
{
	if (seg >= X86_FS)
		want_segments(e);
	const struct x86_seg *s = &e->w.seg[seg];

	if (e->in->mode == X86_MODE_64) {
		*lin = ea + (seg >= X86_FS ? s->base : 0);
		if (!x86_canonical(&e->w, *lin) || !x86_canonical(&e->w, *lin + len - 1))
			return seg_fault(e, seg);
		return X86_EMU_OK;
	}
	if (!in_limit(s, ea, len))
		return seg_fault(e, seg);
	*lin = (s->base + ea) & 0xffffffffull;
	return X86_EMU_OK;
}

enum access { ACC_READ, ACC_WRITE, ACC_CMPXCHG };

/* Every guest memory access: segmentation, the default #PF, then the caller's callback. */
static int access(struct emu *e, enum access kind, u8 seg, u64 ea, void *buf, const void *desired,
		  unsigned len)
{
	struct x86_emu_result *res = e->res;
	struct x86_fault *f = &res->fault;
	u64 lin;
	int rc = linearize(e, seg, ea, len, &lin);

	if (rc != X86_EMU_OK)
		return rc;
	if (!res->width) {
		res->linear = lin;
		res->width = len;
	}
	f->vector = VEC_PF;
	f->has_error = true;
	f->error_code = (kind != ACC_READ ? X86_PF_W : 0) | (e->w.cpl == 3 ? X86_PF_U : 0);
	f->addr = lin;
	switch (kind) {
	case ACC_READ:
		rc = e->ops->read ? e->ops->read(e->orig, lin, buf, len, f) : X86_ACC_UNHANDLED;
		break;
	case ACC_WRITE:
		rc = e->ops->write ? e->ops->write(e->orig, lin, buf, len, f) : X86_ACC_UNHANDLED;
		break;
	default:
		rc = e->ops->cmpxchg ? e->ops->cmpxchg(e->orig, lin, buf, desired, len, f)
				     : X86_ACC_UNHANDLED;
		break;
	}
	if (rc == X86_ACC_OK) {
		res->wrote |= kind != ACC_READ;
		return X86_EMU_OK;
	}
	return rc == X86_ACC_FAULT ? X86_EMU_FAULT : X86_EMU_UNHANDLED;
}

/* Compare-exchange of up to 16 bytes; *swapped says whether memory took `desired`. */
static int cmpxchg(struct emu *e, u8 seg, u64 ea, void *expected, const void *desired, unsigned len,
		   bool *swapped)
{
	u8 before[16];
	int rc;

	memcpy(before, expected, len);
	rc = access(e, ACC_CMPXCHG, seg, ea, expected, desired, len);
	*swapped = memcmp(before, expected, len) == 0;
	return rc;
}

/* ---- operands ---- */

static struct opnd reg_op(u8 reg, unsigned w)
{
	return (struct opnd){ .type = OPND_REG, .width = (u8)w, .reg = reg };
}

static struct opnd rm_op(const struct emu *e, unsigned w)
{
	const struct x86_insn *in = e->in;

	if (!in->has_mem)
		return reg_op(in->rm, w);
	return (struct opnd){
		.type = OPND_MEM, .width = (u8)w, .seg = in->mem.seg, .ea = in->mem.ea
	};
}

static struct opnd const_op(u64 v, unsigned w)
{
	return (struct opnd){ .type = OPND_IMM, .width = (u8)w, .val = v & x86_mask(w) };
}

static struct opnd imm_op(const struct emu *e, unsigned w)
{
	return const_op((u64)e->in->imm, w);
}

static int load(struct emu *e, const struct opnd *o, u64 *v)
{
	*v = 0;
	switch (o->type) {
	case OPND_REG:
		*v = x86_get_reg(&e->w, o->reg, o->width, rex(e));
		return X86_EMU_OK;
	case OPND_IMM:
		*v = o->val;
		return X86_EMU_OK;
	}
	return access(e, ACC_READ, o->seg, o->ea, v, NULL, o->width);
}

static int store(struct emu *e, const struct opnd *o, u64 v)
{
	if (o->type == OPND_REG) {
		x86_set_reg(&e->w, o->reg, o->width, rex(e), v);
		return X86_EMU_OK;
	}
	return access(e, ACC_WRITE, o->seg, o->ea, &v, NULL, o->width);
}

/* Writes back a read-modify-write; LOCKed (or implicitly locked) ones must not lose a race. */
static int update(struct emu *e, const struct opnd *o, u64 old, u64 new, bool atomic)
{
	bool swapped;
	int rc;

	if (o->type != OPND_MEM || !atomic)
		return store(e, o, new);
	rc = cmpxchg(e, o->seg, o->ea, &old, &new, o->width, &swapped);
	if (rc == X86_EMU_OK && !swapped)
		return X86_EMU_RETRY;
	return rc;
}

/* ---- arithmetic ---- */

enum alu_op {
	ALU_ADD,
	ALU_OR,
	ALU_ADC,
	ALU_SBB,
	ALU_AND,
	ALU_SUB,
	ALU_XOR,
	ALU_CMP, /* the ModRM /n order */
	ALU_TEST,
	ALU_INC,
	ALU_DEC,
	ALU_NEG,
	ALU_NOT,
};

enum { CLS_ADD, CLS_SUB, CLS_AND, CLS_OR, CLS_XOR, CLS_NOT };

static const struct alu_desc {
	u8 cls;
	bool carry_in;
	bool writes;
	bool keep_cf;
} alu_tab[] = {
	[ALU_ADD] = { CLS_ADD, false, true, false },
	[ALU_OR] = { CLS_OR, false, true, false },
	[ALU_ADC] = { CLS_ADD, true, true, false },
	[ALU_SBB] = { CLS_SUB, true, true, false },
	[ALU_AND] = { CLS_AND, false, true, false },
	[ALU_SUB] = { CLS_SUB, false, true, false },
	[ALU_XOR] = { CLS_XOR, false, true, false },
	[ALU_CMP] = { CLS_SUB, false, false, false },
	[ALU_TEST] = { CLS_AND, false, false, false },
	[ALU_INC] = { CLS_ADD, false, true, true },
	[ALU_DEC] = { CLS_SUB, false, true, true },
	[ALU_NEG] = { CLS_SUB, false, true, false }, /* as 0 - b */
	[ALU_NOT] = { CLS_NOT, false, true, false },
};

static bool parity_even(u64 v)
{
	v &= 0xff;
	v ^= v >> 4;
	v ^= v >> 2;
	v ^= v >> 1;
	return !(v & 1);
}

/* Computes a op b at width w and the flags the CPU would leave in *fl. */
static u64 alu(enum alu_op op, u64 a, u64 b, unsigned w, u64 *fl)
{
	const struct alu_desc *d = &alu_tab[op];
	u64 m = x86_mask(w), cin = d->carry_in && (*fl & RFLAGS_CF), r, f = 0, c;

	a &= m;
	b &= m;
	switch (d->cls) {
	case CLS_ADD:
		r = (a + b + cin) & m;
		c = (a & b) | ((a ^ b) & ~r);
		f |= msb(c, w) ? RFLAGS_CF : 0;
		f |= msb((a ^ r) & (b ^ r), w) ? RFLAGS_OF : 0;
		f |= (a ^ b ^ r) & RFLAGS_AF;
		break;
	case CLS_SUB:
		r = (a - b - cin) & m;
		c = (~a & b) | (~(a ^ b) & r);
		f |= msb(c, w) ? RFLAGS_CF : 0;
		f |= msb((a ^ b) & (a ^ r), w) ? RFLAGS_OF : 0;
		f |= (a ^ b ^ r) & RFLAGS_AF;
		break;
	case CLS_AND:
		r = a & b;
		break;
	case CLS_OR:
		r = a | b;
		break;
	case CLS_XOR:
		r = a ^ b;
		break;
	default:
		return ~a & m; /* NOT leaves the flags alone */
	}
	f |= r == 0 ? RFLAGS_ZF : 0;
	f |= msb(r, w) ? RFLAGS_SF : 0;
	f |= parity_even(r) ? RFLAGS_PF : 0;
	if (d->keep_cf)
		f = (f & ~RFLAGS_CF) | (*fl & RFLAGS_CF);
	*fl = (*fl & ~RFLAGS_ARITH) | f;
	return r;
}

static int load_pair(struct emu *e, const struct opnd *x, u64 *a, const struct opnd *y, u64 *b)
{
	int rc = load(e, x, a);

	return rc == X86_EMU_OK ? load(e, y, b) : rc;
}

/* dst = dst op src, with the flags; the one path for every ALU form, register or memory. */
static int do_alu(struct emu *e, enum alu_op op, const struct opnd *dst, const struct opnd *src,
		  u64 *old)
{
	u64 a, b, r, fl = e->w.rflags;
	int rc = load_pair(e, dst, &a, src, &b);

	if (rc != X86_EMU_OK)
		return rc;
	*old = a;
	if (op == ALU_NEG) {
		b = a;
		a = 0;
	}
	r = alu(op, a, b, dst->width, &fl);
	if (alu_tab[op].writes) {
		rc = update(e, dst, *old, r, e->in->lock);
		if (rc != X86_EMU_OK)
			return rc;
	}
	e->w.rflags = fl;
	return X86_EMU_OK;
}

static int alu_op(struct emu *e, enum alu_op op, const struct opnd *dst, const struct opnd *src)
{
	u64 old;

	return do_alu(e, op, dst, src, &old);
}

/* ---- instruction families ---- */

static unsigned opw(const struct emu *e)
{
	return (e->in->opcode & 1) ? e->in->opsize : 1;
}

/* 00-3D: the ALU op is opcode bits 5:3, the operand form bits 2:0. */
static int alu_family(struct emu *e)
{
	u8 op = e->in->opcode;
	unsigned w = opw(e);
	struct opnd rm = rm_op(e, w), reg = reg_op(e->in->reg, w);
	struct opnd acc = reg_op(X86_RAX, w), imm = imm_op(e, w);

	switch (op & 7) {
	case 0:
	case 1:
		return alu_op(e, op >> 3, &rm, &reg);
	case 2:
	case 3:
		return alu_op(e, op >> 3, &reg, &rm);
	default:
		return alu_op(e, op >> 3, &acc, &imm);
	}
}

/* ---- the stack: PUSH r/m (FF /6) and POP r/m (8F /0), e.g. on a device register ---- */

static unsigned stack_width(const struct emu *e)
{
	if (e->in->mode == X86_MODE_64)
		return e->in->opsize_prefix ? 2 : 8; /* 32-bit pushes do not exist in long mode */
	return e->in->opsize;
}

static u64 stack_mask(const struct emu *e)
{
	if (e->in->mode == X86_MODE_64)
		return ~0ull;
	return (e->w.seg[X86_SS].attr & X86_SEG_DB) ? 0xffffffffull : 0xffffull;
}

static void set_rsp(struct emu *e, u64 rsp)
{
	u64 m = stack_mask(e);
	e->w.gpr[X86_RSP] = (e->w.gpr[X86_RSP] & ~m) | (rsp & m);
}

static int push_rm(struct emu *e)
{
	unsigned w = stack_width(e);
	struct opnd src = rm_op(e, w);
	u64 v, rsp = (e->w.gpr[X86_RSP] - w) & stack_mask(e);
	int rc = load(e, &src, &v);

	if (rc == X86_EMU_OK)
		rc = access(e, ACC_WRITE, X86_SS, rsp, &v, NULL, w);
	if (rc == X86_EMU_OK)
		set_rsp(e, rsp);
	return rc;
}

static int pop_rm(struct emu *e)
{
	const struct x86_insn *in = e->in;
	unsigned w = stack_width(e);
	struct opnd dst = rm_op(e, w);
	u64 v, rsp = e->w.gpr[X86_RSP] & stack_mask(e);
	int rc;

	if (in->sub != 0)
		return X86_EMU_UNHANDLED;
	rc = access(e, ACC_READ, X86_SS, rsp, &v, NULL, w);
	if (rc != X86_EMU_OK)
		return rc;
	/* An RSP-based destination is addressed with RSP after the pop. */
	if (dst.type == OPND_MEM && in->mem.base == X86_RSP)
		dst.ea = (dst.ea + w) & x86_mask(in->addrsize);
	rc = store(e, &dst, v);
	if (rc == X86_EMU_OK)
		set_rsp(e, rsp + w);
	return rc;
}

/* 50-57 PUSH r, 58-5F POP r, 68/6A PUSH imm: real-mode code between a mode switch and its
 * segment reloads runs them through this emulator. */
static int push_pop_short(struct emu *e)
{
	const struct x86_insn *in = e->in;
	unsigned w = stack_width(e), reg = (in->opcode & 7) | ((in->rex & 1) << 3);
	u64 v, rsp = e->w.gpr[X86_RSP] & stack_mask(e);
	int rc;

	if (in->opcode >= 0x58 && in->opcode <= 0x5f) {
		rc = access(e, ACC_READ, X86_SS, rsp, &v, NULL, w);
		if (rc != X86_EMU_OK)
			return rc;
		set_rsp(e, rsp + w);
		x86_set_reg(&e->w, reg, w, true, v); /* POP rSP: the popped value wins */
		return X86_EMU_OK;
	}
	v = in->opcode >= 0x68 ? (u64)in->imm & x86_mask(w) : x86_get_reg(&e->w, reg, w, true);
	rsp = (rsp - w) & stack_mask(e);
	rc = access(e, ACC_WRITE, X86_SS, rsp, &v, NULL, w);
	if (rc == X86_EMU_OK)
		set_rsp(e, rsp);
	return rc;
}

static int emu_raise(struct emu *e, u8 vector)
{
	bool err = vector == VEC_GP || vector == VEC_SS;

	e->res->fault = (struct x86_fault){ .vector = vector, .has_error = err };
	return X86_EMU_FAULT;
}

/* ---- shifts, rotates, multiplication and division ---- */

enum { SH_ROL, SH_ROR, SH_RCL, SH_RCR, SH_SHL, SH_SHR, SH_SAL, SH_SAR }; /* the ModRM /n order */

/*
 * C0/C1 (imm8), D0/D1 (1), D2/D3 (CL). The count is masked to 5 bits (6 with a 64-bit
 * operand); a masked count of 0 changes nothing, flags included, and leaves memory unwritten.
 * OF is the count-1 formula whatever the count (undefined beyond 1); SHL/SHR/SAR set SF, ZF
 * and PF from the result and leave AF alone (undefined); rotates touch only CF and OF.
 */
static int shift_group(struct emu *e)
{
	const struct x86_insn *in = e->in;
	unsigned w = opw(e), bits = w * 8, n;
	struct opnd o = rm_op(e, w);
	u64 m = x86_mask(w), v, r, fl = e->w.rflags, cf = fl & RFLAGS_CF ? 1 : 0, of;
	u64 count = in->opcode <= 0xc1 ? (u64)in->imm : in->opcode <= 0xd1 ? 1 : e->w.gpr[X86_RCX];
	int rc;

	count &= w == 8 ? 63 : 31;
	rc = load(e, &o, &v);
	if (rc != X86_EMU_OK || !count)
		return rc;
	switch (in->sub) {
	case SH_ROL:
		n = (unsigned)(count % bits);
		r = n ? ((v << n) | (v >> (bits - n))) & m : v;
		cf = r & 1;
		of = msb(r, w) ^ cf;
		break;
	case SH_ROR:
		n = (unsigned)(count % bits);
		r = n ? ((v >> n) | (v << (bits - n))) & m : v;
		cf = msb(r, w);
		of = msb(r, w) ^ msb(r << 1, w);
		break;
	case SH_RCL:
	case SH_RCR:
		/* Through CF: a rotation of bits + 1, one bit at a time (at most 64 steps). */
		n = (unsigned)(count % (bits + 1));
		r = v;
		for (unsigned i = 0; i < n; i++) {
			u64 out = in->sub == SH_RCL ? msb(r, w) : r & 1;
			r = in->sub == SH_RCL ? ((r << 1) | cf) & m : (r >> 1) | (cf << (bits - 1));
			cf = out;
		}
		of = in->sub == SH_RCL ? msb(r, w) ^ cf : msb(r, w) ^ msb(r << 1, w);
		break;
	default:
		if (in->sub == SH_SHR) {
			r = count >= bits ? 0 : v >> count;
			cf = count > bits ? 0 : (v >> (count - 1)) & 1;
			of = msb(v, w);
		} else if (in->sub == SH_SAR) {
			u64 s = sext(v, w);
			r = (u64)((s64)s >> (count >= bits ? bits - 1 : count)) & m;
			cf = count > bits ? msb(v, w) : (u64)((s64)s >> (count - 1)) & 1;
			of = 0;
		} else { /* SHL and its alias /6 */
			r = count >= bits ? 0 : (v << count) & m;
			cf = count > bits ? 0 : (v >> (bits - count)) & 1;
			of = msb(r, w) ^ cf;
		}
		fl &= ~(RFLAGS_SF | RFLAGS_ZF | RFLAGS_PF);
		fl |= (r == 0 ? RFLAGS_ZF : 0) | (msb(r, w) ? RFLAGS_SF : 0) |
		      (parity_even(r) ? RFLAGS_PF : 0);
		break;
	}
	fl = (fl & ~(RFLAGS_CF | RFLAGS_OF)) | (cf ? RFLAGS_CF : 0) | (of ? RFLAGS_OF : 0);
	rc = update(e, &o, v, r, false);
	if (rc == X86_EMU_OK)
		e->w.rflags = fl;
	return rc;
}

/* 128-bit hi:lo divided by d (not 0) by shift and subtract: no compiler helper, no #DE here. */
static void divide128(u64 hi, u64 lo, u64 d, u64 *q_hi, u64 *q_lo, u64 *rem)
{
	u64 qh = hi / d, r = hi % d, ql = 0;

	for (int i = 63; i >= 0; i--) {
		bool carry = r >> 63;
		r = (r << 1) | ((lo >> i) & 1);
		if (carry || r >= d) {
			r -= d;
			ql |= BIT(i);
		}
	}
	*q_hi = qh;
	*q_lo = ql;
	*rem = r;
}

static void multiply128(u64 a, u64 b, u64 *hi, u64 *lo)
{
	u64 a0 = (u32)a, a1 = a >> 32, b0 = (u32)b, b1 = b >> 32;
	u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	u64 mid = (p00 >> 32) + (u32)p01 + (u32)p10;

	*lo = (mid << 32) | (u32)p00;
	*hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* The signed product's 128 bits, from the unsigned one. */
static void imultiply128(u64 a, u64 b, u64 *hi, u64 *lo)
{
	multiply128(a, b, hi, lo);
	if ((s64)a < 0)
		*hi -= b;
	if ((s64)b < 0)
		*hi -= a;
}

/* The product of a and b (w bytes each) as 2w bytes in *hi:*lo, each w bytes wide. */
static void product(u64 a, u64 b, unsigned w, bool sign, u64 *hi, u64 *lo)
{
	u64 m = x86_mask(w), p;

	if (w == 8) {
		if (sign)
			imultiply128(a, b, hi, lo);
		else
			multiply128(a, b, hi, lo);
		return;
	}
	p = sign ? (u64)((s64)sext(a, w) * (s64)sext(b, w)) : (a & m) * (b & m);
	*lo = p & m;
	*hi = (p >> (w * 8)) & m;
}

/* CF and OF: the product did not fit its low half (signed: is not the low half sign-extended). */
static u64 mul_flags(u64 fl, u64 hi, u64 lo, unsigned w, bool sign)
{
	bool lost = sign ? hi != (msb(lo, w) ? x86_mask(w) : 0) : hi != 0;

	fl &= ~(RFLAGS_CF | RFLAGS_OF);
	return fl | (lost ? RFLAGS_CF | RFLAGS_OF : 0);
}

/* rDX:rAX (AX for bytes) divided by d: #DE for 0 or a quotient that does not fit. */
static int divide(struct emu *e, u64 d, unsigned w, bool sign)
{
	u64 m = x86_mask(w), lo = x86_get_reg(&e->w, X86_RAX, w, true), hi, q_hi, q, r;
	bool neg_n, neg_d;

	if (w == 1) {
		hi = x86_get_reg(&e->w, X86_RAX, 2, true) >> 8;
		lo &= 0xff;
	} else {
		hi = x86_get_reg(&e->w, X86_RDX, w, true);
	}
	d &= m;
	if (!d)
		return emu_raise(e, VEC_DE);
	neg_n = sign && msb(hi, w);
	neg_d = sign && msb(d, w);
	if (neg_n) { /* the 2w-byte dividend's magnitude */
		lo = (~lo + 1) & m;
		hi = (~hi + (lo == 0)) & m;
	}
	if (neg_d)
		d = (~d + 1) & m;
	if (w == 8) {
		divide128(hi, lo, d, &q_hi, &q, &r);
	} else {
		u64 n = (hi << (w * 8)) | lo;
		q = n / d;
		r = n % d;
		q_hi = q >> (w * 8);
		q &= m;
	}
	/* Unsigned: the quotient fits w bytes. Signed: its magnitude fits the sign's range. */
	if (q_hi || (sign && (neg_n != neg_d ? q > BIT(w * 8 - 1) : q >= BIT(w * 8 - 1))))
		return emu_raise(e, VEC_DE);
	if (neg_n != neg_d)
		q = (~q + 1) & m;
	if (neg_n)
		r = (~r + 1) & m;
	if (w == 1) {
		x86_set_reg(&e->w, X86_RAX, 2, true, (r << 8) | q);
	} else {
		x86_set_reg(&e->w, X86_RAX, w, true, q);
		x86_set_reg(&e->w, X86_RDX, w, true, r);
	}
	return X86_EMU_OK;
}

/* F6/F7 /4-/7: MUL, IMUL, DIV, IDIV of rAX (rDX:rAX) by r/m. MUL and IMUL set CF and OF and
 * leave the flags the manuals call undefined alone, as DIV and IDIV leave all of them. */
static int mul_div(struct emu *e)
{
	const struct x86_insn *in = e->in;
	unsigned w = opw(e);
	struct opnd src = rm_op(e, w);
	bool sign = in->sub & 1;
	u64 v, hi, lo;
	int rc = load(e, &src, &v);

	if (rc != X86_EMU_OK)
		return rc;
	if (in->sub >= 6)
		return divide(e, v, w, sign);
	product(x86_get_reg(&e->w, X86_RAX, w, true), v, w, sign, &hi, &lo);
	if (w == 1) {
		x86_set_reg(&e->w, X86_RAX, 2, true, (hi << 8) | lo);
	} else {
		x86_set_reg(&e->w, X86_RAX, w, true, lo);
		x86_set_reg(&e->w, X86_RDX, w, true, hi);
	}
	e->w.rflags = mul_flags(e->w.rflags, hi, lo, w, sign);
	return X86_EMU_OK;
}

/* 0F AF (IMUL r, r/m), 69 and 6B (IMUL r, r/m, imm): the low half to the register. */
static int imul_reg(struct emu *e)
{
	const struct x86_insn *in = e->in;
	unsigned w = in->opsize;
	struct opnd src = rm_op(e, w), dst = reg_op(in->reg, w);
	u64 a, b, hi, lo;
	int rc = load(e, &src, &b);

	if (rc != X86_EMU_OK)
		return rc;
	a = in->map == 1 ? x86_get_reg(&e->w, in->reg, w, true) : (u64)in->imm & x86_mask(w);
	product(a, b, w, true, &hi, &lo);
	store(e, &dst, lo);
	e->w.rflags = mul_flags(e->w.rflags, hi, lo, w, true);
	return X86_EMU_OK;
}

/* 80-83 (ALU r/m, imm), F6/F7 (TEST/NOT/NEG), FE/FF (INC/DEC), 84/85 and A8/A9 (TEST). */
static int alu_group(struct emu *e)
{
	static const u8 grp3[4] = { ALU_TEST, ALU_TEST, ALU_NOT, ALU_NEG };
	const struct x86_insn *in = e->in;
	unsigned w = opw(e);
	struct opnd rm = rm_op(e, w), imm = imm_op(e, w), one = const_op(1, w);
	struct opnd reg = reg_op(in->reg, w), acc = reg_op(X86_RAX, w);

	switch (in->opcode) {
	case 0x80 ... 0x83:
		return alu_op(e, in->sub, &rm, &imm);
	case 0x84:
	case 0x85:
		return alu_op(e, ALU_TEST, &rm, &reg);
	case 0xa8:
	case 0xa9:
		return alu_op(e, ALU_TEST, &acc, &imm);
	case 0xf6:
	case 0xf7:
		if (in->sub >= 4)
			return mul_div(e);
		return alu_op(e, grp3[in->sub], &rm, &imm);
	default: /* FE/FF */
		if (in->opcode == 0xff && in->sub == 6)
			return push_rm(e);
		if (in->sub >= 2)
			return X86_EMU_UNHANDLED;
		return alu_op(e, in->sub ? ALU_DEC : ALU_INC, &rm, &one);
	}
}

/* 40-4F outside 64-bit mode. */
static int inc_dec_reg(struct emu *e)
{
	u8 op = e->in->opcode;
	struct opnd r = reg_op(op & 7, e->in->opsize);
	struct opnd one = const_op(1, e->in->opsize);

	return alu_op(e, op & 8 ? ALU_DEC : ALU_INC, &r, &one);
}

static int move(struct emu *e, const struct opnd *dst, const struct opnd *src, bool sign)
{
	u64 v;
	int rc = load(e, src, &v);

	if (rc != X86_EMU_OK)
		return rc;
	if (sign)
		v = sext(v, src->width);
	return store(e, dst, v);
}

/* 88-8B, A0-A3 (the decoder turns moffs into the memory operand), C6/C7 /0, 0F C3 (MOVNTI). */
static int mov(struct emu *e)
{
	const struct x86_insn *in = e->in;
	unsigned w = opw(e);
	struct opnd rm = rm_op(e, w), reg = reg_op(in->reg, w), acc = reg_op(X86_RAX, w);
	struct opnd imm = imm_op(e, w);

	/* The non-temporal hint means nothing to an emulated store. */
	if (in->map == 1)
		return in->has_mem ? move(e, &rm, &reg, false) : X86_EMU_UNHANDLED;
	switch (in->opcode) {
	case 0x88:
	case 0x89:
		return move(e, &rm, &reg, false);
	case 0x8a:
	case 0x8b:
		return move(e, &reg, &rm, false);
	case 0xa0:
	case 0xa1:
		return move(e, &acc, &rm, false);
	case 0xa2:
	case 0xa3:
		return move(e, &rm, &acc, false);
	default:
		if (in->sub != 0)
			return X86_EMU_UNHANDLED;
		return move(e, &rm, &imm, false);
	}
}

/* 0F B6/B7/BE/BF and 63 (MOVSXD, 64-bit mode only). */
static int movx(struct emu *e)
{
	const struct x86_insn *in = e->in;
	unsigned sw;
	bool sign;

	if (in->map == 0) {
		if (in->mode != X86_MODE_64)
			return X86_EMU_UNHANDLED; /* ARPL */
		sw = in->opsize < 4 ? in->opsize : 4;
		sign = true;
	} else {
		sw = (in->opcode & 1) ? 2 : 1;
		sign = in->opcode >= 0xbe;
	}
	struct opnd src = rm_op(e, sw), dst = reg_op(in->reg, in->opsize);

	return move(e, &dst, &src, sign);
}

/* 86/87: with memory the exchange is locked whatever the prefixes say. */
static int xchg(struct emu *e)
{
	unsigned w = opw(e);
	struct opnd rm = rm_op(e, w), reg = reg_op(e->in->reg, w);
	u64 a, b;
	int rc = load_pair(e, &rm, &a, &reg, &b);

	if (rc == X86_EMU_OK)
		rc = update(e, &rm, a, b, true);
	if (rc != X86_EMU_OK)
		return rc;
	return store(e, &reg, a);
}

/* 0F C0/C1: an ADD that also hands back the old destination. */
static int xadd(struct emu *e)
{
	unsigned w = opw(e);
	struct opnd rm = rm_op(e, w), reg = reg_op(e->in->reg, w);
	u64 old;
	int rc = do_alu(e, ALU_ADD, &rm, &reg, &old);

	return rc == X86_EMU_OK ? store(e, &reg, old) : rc;
}

/* 0F B0/B1: memory goes through one cmpxchg call, which also tells us the current value. */
static int cmpxchg_insn(struct emu *e)
{
	unsigned w = opw(e);
	struct opnd rm = rm_op(e, w), reg = reg_op(e->in->reg, w), acc = reg_op(X86_RAX, w);
	u64 expect, src, cur, fl = e->w.rflags;
	bool swapped;
	int rc = load_pair(e, &acc, &expect, &reg, &src);

	if (rc != X86_EMU_OK)
		return rc;
	if (rm.type == OPND_MEM) {
		cur = expect;
		rc = cmpxchg(e, rm.seg, rm.ea, &cur, &src, w, &swapped);
		if (rc != X86_EMU_OK)
			return rc;
	} else {
		cur = x86_get_reg(&e->w, rm.reg, w, rex(e));
		swapped = cur == expect;
		if (swapped)
			store(e, &rm, src);
	}
	alu(ALU_CMP, expect, cur, w, &fl);
	e->w.rflags = fl;
	if (!swapped)
		store(e, &acc, cur);
	return X86_EMU_OK;
}

/* 0F C7 /1: CMPXCHG8B, or CMPXCHG16B with REX.W (which needs a 16-byte aligned operand). */
static int cmpxchg_double(struct emu *e)
{
	const struct x86_insn *in = e->in;
	unsigned half = in->opsize == 8 ? 8 : 4;
	u64 expect[2], desired[2];
	bool swapped;
	int rc;

	if (in->sub != 1)
		return X86_EMU_UNHANDLED;
	if (!in->has_mem) {
		e->res->fault = (struct x86_fault){ .vector = VEC_UD };
		return X86_EMU_FAULT;
	}
	if (half == 8 && (in->mem.linear & 15))
		return seg_fault(e, X86_DS);
	expect[0] = x86_get_reg(&e->w, X86_RAX, half, true);
	expect[1] = x86_get_reg(&e->w, X86_RDX, half, true);
	desired[0] = x86_get_reg(&e->w, X86_RBX, half, true);
	desired[1] = x86_get_reg(&e->w, X86_RCX, half, true);
	if (half == 4) {
		/* Pack the 32-bit halves next to each other, as they lie in memory. */
		expect[0] |= expect[1] << 32;
		desired[0] |= desired[1] << 32;
	}
	rc = cmpxchg(e, in->mem.seg, in->mem.ea, expect, desired, 2 * half, &swapped);
	if (rc != X86_EMU_OK)
		return rc;
	e->w.rflags = (e->w.rflags & ~RFLAGS_ZF) | (swapped ? RFLAGS_ZF : 0);
	if (!swapped) {
		if (half == 4)
			expect[1] = expect[0] >> 32;
		x86_set_reg(&e->w, X86_RAX, half, true, expect[0]);
		x86_set_reg(&e->w, X86_RDX, half, true, expect[1]);
	}
	return X86_EMU_OK;
}

enum { BT_TEST, BT_SET, BT_RESET, BT_COMPLEMENT };

/* 0F A3/AB/B3/BB (bit offset in a register: may reach outside the operand) and 0F BA /4-/7. */
static int bit_test(struct emu *e)
{
	static const u8 reg_forms[4] = { BT_TEST, BT_SET, BT_RESET,
					 BT_COMPLEMENT }; /* A3 AB B3 BB */
	const struct x86_insn *in = e->in;
	unsigned w = in->opsize, bits = w * 8, action;
	struct opnd o = rm_op(e, w);
	u64 off, v, nv, bit;
	int rc;

	if (in->opcode == 0xba) {
		if (in->sub < 4)
			return X86_EMU_UNHANDLED;
		action = in->sub - 4;
		off = (u64)in->imm & (bits - 1);
	} else {
		action = reg_forms[(in->opcode >> 3) & 3];
		off = sext(x86_get_reg(&e->w, in->reg, w, rex(e)), w);
		if (o.type == OPND_MEM) {
			/* Arithmetic shift: negative offsets address below the operand. */
			s64 words = (s64)off >> (w == 2 ? 4 : w == 4 ? 5 : 6);

			o.ea = (o.ea + (u64)words * w) & x86_mask(in->addrsize);
		}
		off &= bits - 1;
	}
	rc = load(e, &o, &v);
	if (rc != X86_EMU_OK)
		return rc;
	bit = BIT(off);
	switch (action) {
	case BT_SET:
		nv = v | bit;
		break;
	case BT_RESET:
		nv = v & ~bit;
		break;
	case BT_COMPLEMENT:
		nv = v ^ bit;
		break;
	default:
		nv = v;
		break;
	}
	if (action != BT_TEST) {
		rc = update(e, &o, v, nv, in->lock);
		if (rc != X86_EMU_OK)
			return rc;
	}
	e->w.rflags = (e->w.rflags & ~RFLAGS_CF) | ((v & bit) ? RFLAGS_CF : 0);
	return X86_EMU_OK;
}

bool x86_condition(u64 fl, unsigned cc)
{
	static const u64 single[] = { RFLAGS_OF, RFLAGS_CF, RFLAGS_ZF, 0, RFLAGS_SF, RFLAGS_PF };
	bool sf = fl & RFLAGS_SF, of = fl & RFLAGS_OF, r;

	switch ((cc >> 1) & 7) {
	case 3:
		r = fl & (RFLAGS_CF | RFLAGS_ZF);
		break;
	case 6:
		r = sf != of;
		break;
	case 7:
		r = (fl & RFLAGS_ZF) || sf != of;
		break;
	default:
		r = fl & single[(cc >> 1) & 7];
		break;
	}
	return (cc & 1) ? !r : r;
}

/* 0F 40-4F: the source is read whatever the condition, and a 32-bit destination is
 * zero-extended even when nothing moves, as on the CPU. */
static int cmov(struct emu *e)
{
	const struct x86_insn *in = e->in;
	struct opnd src = rm_op(e, in->opsize), dst = reg_op(in->reg, in->opsize);
	u64 v, cur = x86_get_reg(&e->w, in->reg, in->opsize, true);
	int rc = load(e, &src, &v);

	if (rc != X86_EMU_OK)
		return rc;
	return store(e, &dst, x86_condition(e->w.rflags, in->opcode & 0xf) ? v : cur);
}

/* 0F 90-9F: one byte, 1 or 0. */
static int setcc(struct emu *e)
{
	struct opnd dst = rm_op(e, 1);

	return store(e, &dst, x86_condition(e->w.rflags, e->in->opcode & 0xf));
}

/*
 * 0F BC/BD: BSF and BSR leave the destination and every flag but ZF as they were when the
 * source is 0 (what both vendors do; the manuals call them undefined). With F3 they are TZCNT
 * and LZCNT (CF: source 0, ZF: result 0), the forms every CPU with BMI1/LZCNT runs.
 */
static int bit_scan(struct emu *e)
{
	const struct x86_insn *in = e->in;
	unsigned w = in->opsize, bits = w * 8;
	struct opnd src = rm_op(e, w), dst = reg_op(in->reg, w);
	bool reverse = in->opcode & 1, count = in->rep == 0xf3;
	u64 v, r, fl = e->w.rflags;
	int rc = load(e, &src, &v);

	if (rc != X86_EMU_OK)
		return rc;
	if (count) {
		r = !v	      ? bits
		    : reverse ? (u64)(__builtin_clzll(v) - (64 - (int)bits))
			      : (u64)__builtin_ctzll(v);
		fl &= ~(RFLAGS_CF | RFLAGS_ZF);
		fl |= (!v ? RFLAGS_CF : 0) | (!r ? RFLAGS_ZF : 0);
	} else {
		fl &= ~RFLAGS_ZF;
		if (!v) {
			e->w.rflags = fl | RFLAGS_ZF;
			return X86_EMU_OK;
		}
		r = reverse ? (u64)(63 - __builtin_clzll(v)) : (u64)__builtin_ctzll(v);
	}
	rc = store(e, &dst, r);
	if (rc == X86_EMU_OK)
		e->w.rflags = fl;
	return rc;
}

/* F3 0F B8: POPCNT (ZF for a zero source, the other arithmetic flags cleared). Without F3
 * the opcode is JMPE, which no 64-bit CPU runs. */
static int popcnt(struct emu *e)
{
	const struct x86_insn *in = e->in;
	struct opnd src = rm_op(e, in->opsize), dst = reg_op(in->reg, in->opsize);
	u64 v;
	int rc;

	if (in->rep != 0xf3)
		return X86_EMU_UNHANDLED;
	rc = load(e, &src, &v);
	if (rc != X86_EMU_OK)
		return rc;
	store(e, &dst, (u64)__builtin_popcountll(v));
	e->w.rflags = (e->w.rflags & ~RFLAGS_ARITH) | (v ? 0 : RFLAGS_ZF);
	return X86_EMU_OK;
}

/* 0F 00 /0 /1 (SLDT, STR) and 0F 01 /0 /1 /4 (SGDT, SIDT, SMSW): the stores of system
 * registers any CPL may run (no UMIP here). A register destination takes the operand size. */
static int system_store(struct emu *e)
{
	const struct x86_insn *in = e->in;
	unsigned sub = in->sub, w = in->has_mem ? 2 : in->opsize;
	struct opnd dst = rm_op(e, w);

	if (in->map == 1 && in->opcode == 0x00) {
		if (sub > 1)
			return X86_EMU_UNHANDLED;
		/* Protected mode only: real and virtual-8086 mode raise #UD. */
		if (!(e->w.cr0 & CR0_PE) || (e->w.rflags & RFLAGS_VM))
			return emu_raise(e, VEC_UD);
		want_segments(e);
		return store(e, &dst, sub ? e->w.tr : e->w.ldtr);
	}
	if (sub == 4)
		return store(e, &dst, e->w.cr0 & x86_mask(w));
	if (sub > 1 || !in->has_mem)
		return X86_EMU_UNHANDLED; /* LGDT/LIDT/LMSW/INVLPG, or VMCALL and its kin */
	/* Limit, then the base: 8 bytes in 64-bit mode, else 4 (24 bits with a 16-bit operand
	 * size, as realmode.c stores it). */
	const struct x86_dtr *t = sub ? &e->w.idtr : &e->w.gdtr;
	unsigned bw = in->mode == X86_MODE_64 ? 8 : 4;
	u64 base = t->base & (in->mode == X86_MODE_64 ? ~0ull
			      : in->opsize == 2	      ? 0xffffff
						      : 0xffffffff);
	u8 buf[10];

	buf[0] = (u8)t->limit;
	buf[1] = (u8)(t->limit >> 8);
	memcpy(buf + 2, &base, bw);
	return access(e, ACC_WRITE, in->mem.seg, in->mem.ea, buf, NULL, 2 + bw);
}

/* 8C: MOV r/m, Sreg (16 bits to memory, the operand size to a register, zero-extended). */
static int mov_from_sreg(struct emu *e)
{
	const struct x86_insn *in = e->in;
	struct opnd dst = rm_op(e, e->in->has_mem ? 2 : in->opsize);

	if (in->sub >= X86_NR_SREGS)
		return emu_raise(e, VEC_UD);
	if (in->sub >= X86_FS)
		want_segments(e);
	return store(e, &dst, e->w.seg[in->sub].sel);
}

/* sel into sreg through the CPU's checks (arch/x86/segment.c). */
static int load_sreg(struct emu *e, unsigned sreg, u16 sel)
{
	struct x86_seg seg;

	/* The LDT may hold the descriptor, and the caller writes every register back after a
	 * load (virt->write_segments): none may be missing. */
	want_segments(e);
	int rc = x86_load_segment(&e->w, e->ops, sreg, sel, &seg, &e->res->fault);

	if (rc != X86_EMU_OK)
		return rc;
	e->w.seg[sreg] = seg;
	e->res->seg_loaded = true;
	/* MOV SS and POP SS hold interrupts and debug traps until the next instruction is done
	 * (so that a stack switch's second half, the load of rSP, runs first): the caller gives
	 * the CPU that shadow. LSS needs none and does not ask. */
	e->res->mov_ss = sreg == X86_SS && e->in->opcode != 0xb2;
	return X86_EMU_OK;
}

/* 8E: MOV Sreg, r/m16 through the segment-load checks and their faults. MOV to CS is #UD. */
static int mov_to_sreg(struct emu *e)
{
	const struct x86_insn *in = e->in;
	struct opnd src = rm_op(e, 2);
	u64 sel;
	int rc;

	if (in->sub >= X86_NR_SREGS || in->sub == X86_CS)
		return emu_raise(e, VEC_UD);
	rc = load(e, &src, &sel);
	return rc == X86_EMU_OK ? load_sreg(e, in->sub, (u16)sel) : rc;
}

/* 07 17 1F POP ES/SS/DS (outside 64-bit mode: the decoder's #UD there), 0F A1/A9 POP FS/GS:
 * the low 16 bits of a stack-width pop; rSP moves by the stack size before the load. */
static int pop_sreg(struct emu *e, unsigned sreg)
{
	unsigned w = stack_width(e);
	u64 v = 0, rsp = e->w.gpr[X86_RSP] & stack_mask(e);
	int rc = access(e, ACC_READ, X86_SS, rsp, &v, NULL, w);

	if (rc != X86_EMU_OK)
		return rc;
	set_rsp(e, rsp + w);
	return load_sreg(e, sreg, (u16)v);
}

/* C4/C5 LES/LDS (outside 64-bit mode; with a register operand they are VEX), 0F B2/B4/B5
 * LSS/LFS/LGS: offset (operand size) then selector from memory; the register only once the
 * segment loaded. */
static int load_far_pointer(struct emu *e, unsigned sreg)
{
	const struct x86_insn *in = e->in;
	unsigned w = in->opsize;
	u64 off = 0, sel = 0;
	int rc;

	if (!in->has_mem)
		return in->map == 0 ? X86_EMU_UNHANDLED : emu_raise(e, VEC_UD);
	rc = access(e, ACC_READ, in->mem.seg, in->mem.ea, &off, NULL, w);
	if (rc == X86_EMU_OK)
		rc = access(e, ACC_READ, in->mem.seg, (in->mem.ea + w) & x86_mask(in->addrsize),
			    &sel, NULL, 2);
	if (rc == X86_EMU_OK)
		rc = load_sreg(e, sreg, (u16)sel);
	if (rc == X86_EMU_OK)
		x86_set_reg(&e->w, in->reg, w, true, off);
	return rc;
}

/* F5 F8 F9 FC FD (CMC CLC STC CLD STD), 9E 9F (SAHF LAHF): what real-mode code runs between
 * its string instructions. */
static int flag_insn(struct emu *e)
{
	const u64 sahf = RFLAGS_SF | RFLAGS_ZF | RFLAGS_AF | RFLAGS_PF | RFLAGS_CF;
	u64 *fl = &e->w.rflags;

	switch (e->in->opcode) {
	case 0xf5:
		*fl ^= RFLAGS_CF;
		break;
	case 0xf8:
		*fl &= ~RFLAGS_CF;
		break;
	case 0xf9:
		*fl |= RFLAGS_CF;
		break;
	case 0xfc:
		*fl &= ~RFLAGS_DF;
		break;
	case 0xfd:
		*fl |= RFLAGS_DF;
		break;
	case 0x9e:
		*fl = (*fl & ~sahf) | (x86_get_reg(&e->w, X86_RSP, 1, false) & sahf);
		break;
	default: /* 9F: AH <- SF ZF 0 AF 0 PF 1 CF */
		x86_set_reg(&e->w, X86_RSP, 1, false, (*fl & sahf) | 2);
		break;
	}
	return X86_EMU_OK;
}

/*
 * The SSE moves between an XMM register and memory (a driver's 16-byte copy to a device's
 * queue, say), by mandatory prefix (none, 66, F3, F2; F2/F3 win over 66):
 *   10/11 MOVUPS MOVUPD MOVSS MOVSD   28/29 MOVAPS MOVAPD   2B MOVNTPS MOVNTPD (stores)
 *   6F/7F MOVDQA (66) MOVDQU (F3)      E7 MOVNTDQ (66, store)
 *   6E/7E MOVD/MOVQ (66: to and from XMM; F3 7E: MOVQ load)   D6 MOVQ store (66)
 * width: bytes moved; a load zeroes the rest of the register except for MOVSS/MOVSD between
 * registers, which are not memory forms here. Aligned forms #GP on a misaligned operand. The
 * MMX forms of the same opcodes (no prefix) are fpu_move's.
 */
struct sse_form {
	u8 opcode, prefix; /* prefix: 0, 0x66, 0xf3, 0xf2 */
	u8 width;	   /* 0: the operand size (MOVD/MOVQ) */
	bool store, aligned;
};

static const struct sse_form sse_forms[] = {
	{ 0x10, 0, 16, false, false },	  { 0x11, 0, 16, true, false },
	{ 0x10, 0x66, 16, false, false }, { 0x11, 0x66, 16, true, false },
	{ 0x10, 0xf3, 4, false, false },  { 0x11, 0xf3, 4, true, false },
	{ 0x10, 0xf2, 8, false, false },  { 0x11, 0xf2, 8, true, false },
	{ 0x28, 0, 16, false, true },	  { 0x29, 0, 16, true, true },
	{ 0x28, 0x66, 16, false, true },  { 0x29, 0x66, 16, true, true },
	{ 0x2b, 0, 16, true, true },	  { 0x2b, 0x66, 16, true, true },
	{ 0x6f, 0x66, 16, false, true },  { 0x7f, 0x66, 16, true, true },
	{ 0x6f, 0xf3, 16, false, false }, { 0x7f, 0xf3, 16, true, false },
	{ 0xe7, 0x66, 16, true, true },	  { 0x6e, 0x66, 0, false, false },
	{ 0x7e, 0x66, 0, true, false },	  { 0x7e, 0xf3, 8, false, false },
	{ 0xd6, 0x66, 8, true, false },
};

static int sse_move(struct emu *e)
{
	const struct x86_insn *in = e->in;
	u8 prefix = in->rep ? in->rep : in->opsize_prefix ? 0x66 : 0;
	const struct sse_form *f = NULL;
	u8 xmm[16];
	unsigned w;
	int rc;

	for (unsigned i = 0; i < sizeof(sse_forms) / sizeof(sse_forms[0]); i++)
		if (sse_forms[i].opcode == in->opcode && sse_forms[i].prefix == prefix)
			f = &sse_forms[i];
	if (!f || !in->has_mem || !e->ops->xmm)
		return X86_EMU_UNHANDLED;
	if ((e->w.cr0 & CR0_EM) || !(e->w.cr4 & CR4_OSFXSR))
		return emu_raise(e, VEC_UD);
	if (e->w.cr0 & CR0_TS)
		return emu_raise(e, VEC_NM);
	w = f->width ? f->width : (in->rex & 8) ? 8 : 4;
	if (f->aligned && (in->mem.linear & 15))
		return seg_fault(e, in->mem.seg);
	if (e->ops->xmm(e->orig, in->reg, xmm, false) != X86_ACC_OK)
		return X86_EMU_UNHANDLED;
	if (f->store)
		return access(e, ACC_WRITE, in->mem.seg, in->mem.ea, xmm, NULL, w);
	memset(xmm, 0, sizeof(xmm));
	rc = access(e, ACC_READ, in->mem.seg, in->mem.ea, xmm, NULL, w);
	if (rc != X86_EMU_OK)
		return rc;
	return e->ops->xmm(e->orig, in->reg, xmm, true) == X86_ACC_OK ? X86_EMU_OK
								      : X86_EMU_UNHANDLED;
}

/* ---- x87 and MMX: the real instruction on the live FPU state, against a buffer ---- */

#define FSW_ES BIT(7)
#define FPU_UNMASKABLE_STORE 0x1f /* IE DE ZE OE UE: unmasked, they suppress a store; PE not */

/* The x87 or MMX form of insn in arch/x86/fpu_forms.h, or -1. MMX forms take no 66/F2/F3
 * (those are the SSE moves) and ignore REX.R. */
static int fpu_lookup(const struct x86_insn *in)
{
	unsigned first = X86_FPU_MMX_FIRST, end = X86_FPU_NR_FORMS;

	if (!in->has_mem)
		return -1;
	if (in->map == 0 && (in->opcode & 0xf8) == 0xd8)
		first = 0, end = X86_FPU_MMX_FIRST;
	else if (in->map != 1 || in->opsize_prefix || in->rep)
		return -1;
	for (unsigned i = first; i < end; i++) {
		const struct x86_fpu_form_desc *f = &x86_fpu_forms[i];
		if (f->opcode != in->opcode)
			continue;
		if (end == X86_FPU_MMX_FIRST ? f->sub == in->sub
					     : f->sub == 2 || f->sub == !!(in->rex & 8))
			return (int)i;
	}
	return -1;
}

/* The x87 environment form of insn (D9/DD with a memory operand), or -1. */
static int fpu_env_lookup(const struct x86_insn *in)
{
	for (unsigned i = X86_FPU_ENV_FIRST; i < X86_FPU_ENV_END && in->has_mem; i++)
		if (x86_fpu_env_forms[i - X86_FPU_ENV_FIRST].opcode == in->opcode &&
		    x86_fpu_env_forms[i - X86_FPU_ENV_FIRST].sub == in->sub)
			return (int)i;
	return -1;
}

static int fpu_call(struct emu *e, struct x86_fpu_req *req, unsigned form, void *buf)
{
	req->form = (u16)form;
	req->buf = buf;
	return e->ops->fpu(e->orig, req) == X86_ACC_OK ? X86_EMU_OK : emu_raise(e, VEC_UD);
}

/* The CPU's checks before an x87 or MMX form, in its order: #UD (MMX under CR0.EM), #NM (CR0.EM
 * or TS), #MF for an unmasked x87 exception still pending (the waiting forms; whatever CR0.NE
 * says, as a VMX guest sees it natively: VMX keeps NE set, and the FERR#/IRQ13 route is not
 * modelled). */
static int fpu_ready(struct emu *e, struct x86_fpu_req *req, bool mmx, bool waits)
{
	u16 sw = 0;
	int rc;

	if (mmx && (e->w.cr0 & CR0_EM))
		return emu_raise(e, VEC_UD);
	if (e->w.cr0 & (CR0_EM | CR0_TS))
		return emu_raise(e, VEC_NM);
	if (!waits)
		return X86_EMU_OK;
	rc = fpu_call(e, req, X86_FPU_FNSTSW, &sw);
	if (rc == X86_EMU_OK && (sw & FSW_ES))
		return emu_raise(e, VEC_MF);
	return rc;
}

/*
 * FLDENV, FNSTENV, FRSTOR, FNSAVE: the guest's image (arch/x86/fpu_forms.h: 14 to 108 bytes by
 * mode and operand size, one access) converted from or to the 32-bit protected-mode one the
 * executor runs them on. FNSTENV leaves every exception masked and FNSAVE an initialized FPU,
 * as the CPU does; a fault on the write puts the state back as it was before the instruction.
 */
static int fpu_env(struct emu *e, unsigned form)
{
	const struct x86_insn *in = e->in;
	const struct x86_fpu_env_desc *f = &x86_fpu_env_forms[form - X86_FPU_ENV_FIRST];
	bool real = !(e->w.cr0 & CR0_PE) || (e->w.rflags & RFLAGS_VM), o16 = in->opsize == 2;
	unsigned len = x86_fpu_env_len(o16, f->regs);
	u8 image[X86_FPU_ENV_IMAGE] = { 0 }, guest[X86_FPU_ENV_IMAGE] = { 0 };
	u8 saved[512] __attribute__((aligned(16)));
	struct x86_fpu_req req = { 0 };
	int rc;

	if (!e->ops->fpu)
		return X86_EMU_UNHANDLED;
	rc = fpu_ready(e, &req, false, f->waits);
	if (rc != X86_EMU_OK)
		return rc;
	if (!f->store) {
		rc = access(e, ACC_READ, in->mem.seg, in->mem.ea, guest, NULL, len);
		if (rc != X86_EMU_OK)
			return rc;
		x86_fpu_env_from_guest(guest, image, real, o16, f->regs);
		return fpu_call(e, &req, form, image);
	}
	rc = fpu_call(e, &req, X86_FPU_SAVE, saved);
	if (rc != X86_EMU_OK)
		return rc;
	rc = fpu_call(e, &req, form, image);
	if (rc == X86_EMU_OK) {
		x86_fpu_env_to_guest(image, guest, real, o16, f->regs);
		rc = access(e, ACC_WRITE, in->mem.seg, in->mem.ea, guest, NULL, len);
	}
	if (rc != X86_EMU_OK)
		fpu_call(e, &req, X86_FPU_RESTORE, saved);
	return rc;
}

/*
 * An x87 or MMX form with its memory operand on device memory (or a shadowed page table):
 * fpu_ready's checks, then the memory access. A load reads the device and then runs the
 * instruction on the bytes read; a store runs it into a buffer and writes the device, unless
 * an unmasked exception other than precision suppressed the store (as the CPU does), and a
 * fault on that write puts the FPU state back as it was before the instruction.
 */
static int fpu_move(struct emu *e, unsigned form)
{
	const struct x86_insn *in = e->in;
	const struct x86_fpu_form_desc *f = &x86_fpu_forms[form];
	u8 buf[16] = { 0 }, image[512] __attribute__((aligned(16)));
	u16 sw = 0, cw = 0;
	struct x86_fpu_req req = { .reg = in->sub,
				   .fip = e->w.rip,
				   .fdp = in->mem.ea,
				   .fop = (u16)(((in->opcode & 7) << 8) | in->modrm) };
	int rc;

	if (!e->ops->fpu)
		return X86_EMU_UNHANDLED;
	rc = fpu_ready(e, &req, form >= X86_FPU_MMX_FIRST, f->waits);
	if (rc != X86_EMU_OK)
		return rc;
	if (!f->store) {
		rc = access(e, ACC_READ, in->mem.seg, in->mem.ea, buf, NULL, f->width);
		return rc == X86_EMU_OK ? fpu_call(e, &req, form, buf) : rc;
	}
	rc = fpu_call(e, &req, X86_FPU_SAVE, image);
	if (rc == X86_EMU_OK)
		rc = fpu_call(e, &req, form, buf);
	if (rc == X86_EMU_OK && f->waits) {
		rc = fpu_call(e, &req, X86_FPU_FNSTSW, &sw);
		if (rc == X86_EMU_OK)
			rc = fpu_call(e, &req, X86_FPU_FNSTCW, &cw);
		if (rc == X86_EMU_OK && (sw & ~cw & FPU_UNMASKABLE_STORE))
			return X86_EMU_OK;
	}
	if (rc == X86_EMU_OK)
		rc = access(e, ACC_WRITE, in->mem.seg, in->mem.ea, buf, NULL, f->width);
	if (rc != X86_EMU_OK)
		fpu_call(e, &req, X86_FPU_RESTORE, image);
	return rc;
}

/*
 * FXSAVE/FXRSTOR (0F AE /0 /1; REX.W in 64-bit mode: the 64-bit FIP and FDP): the real
 * instruction on the live state against a buffer, the guest's bytes in one access. They are
 * the x87 and MXCSR part (160 bytes), then XMM0-15 in 64-bit mode and XMM0-7 elsewhere, only
 * with CR4.OSFXSR (without it the CPU may skip the XMM registers; MXCSR goes either way), never
 * the reserved and software bytes after them. FXRSTOR starts from the current image, so what
 * the guest's part lacks (XMM8-15 outside 64-bit mode) stays as it was, and refuses an MXCSR
 * with bits outside the CPU's MXCSR_MASK (#GP(0)) before the instruction could fault in
 * Umbra. The segment limit covers all 512 bytes, as the CPU checks them. FXSAVE changes no state, so a faulting write has nothing to undo. #UD for a CPU
 * without FXSR cannot happen: long mode has it and the CPUID policy keeps it.
 */
static int fxsr(struct emu *e)
{
	const struct x86_insn *in = e->in;
	bool w64 = in->mode == X86_MODE_64 && (in->rex & 8);
	unsigned xmm = in->mode == X86_MODE_64 ? 16 : (e->w.cr4 & CR4_OSFXSR) ? 8 : 0;
	unsigned len = X86_FXSAVE_XMM + 16 * xmm;
	u8 image[X86_FXSAVE_SIZE] __attribute__((aligned(16)));
	struct x86_fpu_req req = { 0 };
	u32 mxcsr, mask;
	u64 lin;
	int rc;

	if (!e->ops->fpu || in->rep)
		return X86_EMU_UNHANDLED;
	if (e->w.cr0 & (CR0_EM | CR0_TS))
		return emu_raise(e, VEC_NM);
	if (in->mem.linear & 15)
		return emu_raise(e, VEC_GP); /* whatever the segment */
	rc = linearize(e, in->mem.seg, in->mem.ea, X86_FXSAVE_SIZE, &lin); /* the whole area */
	if (rc != X86_EMU_OK)
		return rc;
	rc = fpu_call(e, &req, w64 ? X86_FPU_FXSAVE64 : X86_FPU_FXSAVE, image);
	if (rc != X86_EMU_OK)
		return rc;
	if (in->sub == 0)
		return access(e, ACC_WRITE, in->mem.seg, in->mem.ea, image, NULL, len);
	memcpy(&mask, image + X86_FXSAVE_MXCSR_MASK, 4);
	rc = access(e, ACC_READ, in->mem.seg, in->mem.ea, image, NULL, len);
	if (rc != X86_EMU_OK)
		return rc;
	memcpy(&mxcsr, image + X86_FXSAVE_MXCSR, 4);
	if (mxcsr & ~(mask ? mask : X86_MXCSR_MASK_DEFAULT))
		return emu_raise(e, VEC_GP);
	return fpu_call(e, &req, w64 ? X86_FPU_FXRSTOR64 : X86_FPU_FXRSTOR, image);
}

/* Group 15 with a memory operand: FXSAVE/FXRSTOR; XSAVE, XRSTOR and XSAVEOPT (/4 /5 /6, no
 * prefix) raise the #UD a clear CR4.OSXSAVE gives, which is every guest's (no XSAVE in the
 * CPUID policy). The rest (CLFLUSH, the fences' memory-less forms...) is not emulated. */
static int group15(struct emu *e)
{
	const struct x86_insn *in = e->in;

	if (!in->has_mem)
		return X86_EMU_UNHANDLED;
	if (in->sub <= 1)
		return fxsr(e);
	if (in->sub >= 4 && in->sub <= 6 && !in->rep && !in->opsize_prefix &&
	    !(e->w.cr4 & CR4_OSXSAVE))
		return emu_raise(e, VEC_UD);
	return X86_EMU_UNHANDLED;
}

static void commit(struct emu *e, struct x86_emu_ctx *ctx)
{
	memcpy(ctx->gpr, e->w.gpr, sizeof(ctx->gpr));
	ctx->rflags = e->w.rflags;
	if (e->res->seg_loaded)
		memcpy(ctx->seg, e->w.seg, sizeof(ctx->seg));
}

/* The string instruction an opcode names; the low bit only picks the byte form. */
enum { STR_MOVS = 0xa4, STR_CMPS = 0xa6, STR_STOS = 0xaa, STR_LODS = 0xac, STR_SCAS = 0xae };

/*
 * One iteration of MOVS, CMPS, STOS, LODS or SCAS. CMPS compares [rSI] with ES:[rDI] and SCAS
 * rAX with ES:[rDI], both as CMP (first minus second) and with its flags.
 */
static int string_step(struct emu *e, unsigned w, unsigned asz)
{
	const struct x86_insn *in = e->in;
	u8 kind = in->opcode & 0xfe;
	bool uses_si = kind == STR_MOVS || kind == STR_CMPS || kind == STR_LODS;
	u8 src_seg = in->seg_override == X86_REG_NONE ? X86_DS : in->seg_override;
	u64 si = e->w.gpr[X86_RSI] & x86_mask(asz), di = e->w.gpr[X86_RDI] & x86_mask(asz);
	u64 step = (e->w.rflags & RFLAGS_DF) ? (u64) - (s64)w : w, v = 0, d = 0;
	u64 fl = e->w.rflags;
	int rc = X86_EMU_OK;

	if (uses_si)
		rc = access(e, ACC_READ, src_seg, si, &v, NULL, w);
	else
		v = x86_get_reg(&e->w, X86_RAX, w, true);
	if (rc != X86_EMU_OK)
		return rc;
	/* ES:rDI is never overridden: overrides apply to the source only. */
	switch (kind) {
	case STR_MOVS:
	case STR_STOS:
		rc = access(e, ACC_WRITE, X86_ES, di, &v, NULL, w);
		break;
	case STR_CMPS:
	case STR_SCAS:
		rc = access(e, ACC_READ, X86_ES, di, &d, NULL, w);
		if (rc == X86_EMU_OK) {
			alu(ALU_CMP, v, d, w, &fl);
			e->w.rflags = fl;
		}
		break;
	default: /* LODS */
		x86_set_reg(&e->w, X86_RAX, w, true, v);
		break;
	}
	if (rc != X86_EMU_OK)
		return rc;
	if (kind != STR_LODS)
		x86_set_reg(&e->w, X86_RDI, asz, true, di + step);
	if (uses_si)
		x86_set_reg(&e->w, X86_RSI, asz, true, si + step);
	return X86_EMU_OK;
}

/*
 * REP runs at most max_reps iterations per call; when some remain, RIP stays so that the guest
 * re-executes the instruction, exactly as the CPU does when it takes an interrupt mid-string.
 * MOVS/STOS/LODS treat F2 like F3. CMPS and SCAS also stop after an iteration whose ZF ends
 * the repeat: REPE (F3) while equal, REPNE (F2) while different. RCX = 0 runs nothing and
 * leaves the flags alone.
 */
static int string(struct emu *e, struct x86_emu_ctx *ctx)
{
	const struct x86_insn *in = e->in;
	unsigned w = opw(e), asz = in->addrsize;
	u8 kind = in->opcode & 0xfe;
	bool compares = kind == STR_CMPS || kind == STR_SCAS, done = false;
	u64 budget = ctx->max_reps ? ctx->max_reps : X86_EMU_DEFAULT_REPS;
	u64 count = e->w.gpr[X86_RCX] & x86_mask(asz);
	int rc = X86_EMU_OK;

	if (!in->rep) {
		rc = string_step(e, w, asz);
		e->res->reps = rc == X86_EMU_OK;
		return rc;
	}
	while (count && !done && e->res->reps < budget) {
		rc = string_step(e, w, asz);
		if (rc != X86_EMU_OK)
			break;
		x86_set_reg(&e->w, X86_RCX, asz, true, --count);
		e->res->reps++;
		if (compares)
			done = (in->rep == 0xf3) != !!(e->w.rflags & RFLAGS_ZF);
	}
	e->res->rep_incomplete = count != 0 && !done;
	if (rc != X86_EMU_OK || e->res->rep_incomplete)
		commit(e, ctx); /* finished iterations stand; RIP stays on the instruction */
	return rc;
}

static int dispatch(struct emu *e, struct x86_emu_ctx *ctx)
{
	const struct x86_insn *in = e->in;
	u8 op = in->opcode;
	int form;

	if (in->map == 1) {
		switch (op) {
		case 0xa3:
		case 0xab:
		case 0xb3:
		case 0xbb:
		case 0xba:
			return bit_test(e);
		case 0xb0:
		case 0xb1:
			return cmpxchg_insn(e);
		case 0xb6:
		case 0xb7:
		case 0xbe:
		case 0xbf:
			return movx(e);
		case 0xc0:
		case 0xc1:
			return xadd(e);
		case 0xc3:
			return mov(e);
		case 0xc7:
			return cmpxchg_double(e);
		case 0x00:
		case 0x01:
			return system_store(e);
		case 0x40 ... 0x4f:
			return cmov(e);
		case 0x90 ... 0x9f:
			return setcc(e);
		case 0xbc:
		case 0xbd:
			return bit_scan(e);
		case 0xaf:
			return imul_reg(e);
		case 0xb8:
			return popcnt(e);
		case 0xa1:
			return pop_sreg(e, X86_FS);
		case 0xa9:
			return pop_sreg(e, X86_GS);
		case 0xb2:
			return load_far_pointer(e, X86_SS);
		case 0xb4:
			return load_far_pointer(e, X86_FS);
		case 0xb5:
			return load_far_pointer(e, X86_GS);
		case 0xae:
			return group15(e);
		}
		form = fpu_lookup(in);
		return form >= 0 ? fpu_move(e, (unsigned)form) : sse_move(e);
	}
	if (in->map != 0)
		return X86_EMU_UNHANDLED;
	if ((op & 0xf8) == 0xd8) {
		form = fpu_env_lookup(in);
		if (form >= 0)
			return fpu_env(e, (unsigned)form);
		form = fpu_lookup(in);
		return form >= 0 ? fpu_move(e, (unsigned)form) : X86_EMU_UNHANDLED;
	}
	if (op < 0x40 && (op & 7) < 6)
		return alu_family(e);
	switch (op) {
	case 0x40 ... 0x4f:
		return inc_dec_reg(e); /* REX prefixes in 64-bit mode */
	case 0x50 ... 0x5f:
	case 0x68:
	case 0x6a:
		return push_pop_short(e);
	case 0x63:
		return movx(e);
	case 0x69:
	case 0x6b:
		return imul_reg(e);
	case 0xc0:
	case 0xc1:
	case 0xd0 ... 0xd3:
		return shift_group(e);
	case 0x80 ... 0x85:
	case 0xa8:
	case 0xa9:
	case 0xf6:
	case 0xf7:
	case 0xfe:
	case 0xff:
		return alu_group(e);
	case 0x86:
	case 0x87:
		return xchg(e);
	case 0x8f:
		return pop_rm(e);
	case 0x88 ... 0x8b:
	case 0xa0 ... 0xa3:
	case 0xc6:
	case 0xc7:
		return mov(e);
	case 0xa4 ... 0xa7:
	case 0xaa ... 0xaf:
		return string(e, ctx);
	case 0x8c:
		return mov_from_sreg(e);
	case 0x8e:
		return mov_to_sreg(e);
	case 0x07:
		return pop_sreg(e, X86_ES);
	case 0x17:
		return pop_sreg(e, X86_SS);
	case 0x1f:
		return pop_sreg(e, X86_DS);
	case 0xc4:
		return in->mode == X86_MODE_64 ? X86_EMU_UNHANDLED : load_far_pointer(e, X86_ES);
	case 0xc5:
		return in->mode == X86_MODE_64 ? X86_EMU_UNHANDLED : load_far_pointer(e, X86_DS);
	case 0x9e:
	case 0x9f:
	case 0xf5:
	case 0xf8:
	case 0xf9:
	case 0xfc:
	case 0xfd:
		return flag_insn(e);
	}
	return X86_EMU_UNHANDLED;
}

static void init(struct emu *e, const struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops,
		 const struct x86_insn *insn, struct x86_emu_result *res)
{
	memset(res, 0, sizeof(*res));
	e->orig = ctx;
	e->w = *ctx;
	e->ops = ops;
	e->in = insn;
	e->res = res;
}

int x86_emulate(struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops, const struct x86_insn *insn,
		struct x86_emu_result *res)
{
	struct emu e;
	int rc;

	init(&e, ctx, ops, insn, res);
	if (insn->len == 0 || insn->len > X86_MAX_INSN_LEN || insn->mode != x86_ctx_mode(ctx))
		return res->status = X86_EMU_UNHANDLED;
	rc = dispatch(&e, ctx);
	res->status = rc;
	if (rc != X86_EMU_FAULT)
		res->fault = (struct x86_fault){ 0 };
	if (rc != X86_EMU_OK || res->rep_incomplete)
		return rc;
	commit(&e, ctx);
	res->single_step = (ctx->rflags & RFLAGS_TF) && !res->mov_ss;
	ctx->rflags &= ~RFLAGS_RF;
	ctx->rip = x86_next_rip(ctx, insn);
	return rc;
}

int x86_emulate_at_rip(struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops,
		       struct x86_insn *insn, struct x86_emu_result *res)
{
	struct x86_fault f;
	int rc = x86_decode(ctx, ops, insn, &f);

	if (rc == X86_DEC_OK)
		return x86_emulate(ctx, ops, insn, res);
	memset(res, 0, sizeof(*res));
	res->fault = f;
	return res->status = rc == X86_DEC_FAULT ? X86_EMU_FAULT : X86_EMU_UNHANDLED;
}

int x86_read_rm(const struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops,
		const struct x86_insn *insn, unsigned width, u64 *val, struct x86_emu_result *res)
{
	struct emu e;
	struct opnd o;

	init(&e, ctx, ops, insn, res);
	if (width == 0 || width > 8)
		return res->status = X86_EMU_UNHANDLED;
	o = rm_op(&e, width);
	return res->status = load(&e, &o, val);
}

int x86_write_rm(struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops,
		 const struct x86_insn *insn, unsigned width, u64 val, struct x86_emu_result *res)
{
	struct emu e;
	struct opnd o;

	init(&e, ctx, ops, insn, res);
	if (width == 0 || width > 8)
		return res->status = X86_EMU_UNHANDLED;
	o = rm_op(&e, width);
	res->status = store(&e, &o, val);
	if (res->status == X86_EMU_OK)
		commit(&e, ctx);
	return res->status;
}
