/* SPDX-License-Identifier: GPL-2.0-only */
/* x86 instruction decoder: turns up to 15 guest bytes into a struct x86_insn, bounded for hostile input. */
#include "arch/x86/decode.h"
#include "lib/string.h"

/* Operand-format attributes: enough to size every instruction even when it is not emulated. */
/* clang-format off */
#define M    0x001 /* ModRM follows */
#define I8   0x002 /* imm8 */
#define IZ   0x004 /* imm16/32 by operand size */
#define IV   0x008 /* imm16/32/64 by operand size (MOV r, imm) */
#define IW   0x010 /* imm16 */
#define MO   0x020 /* moffs: address-size offset */
#define FP   0x040 /* far pointer: imm16 + imm16/32 */
#define I64  0x080 /* invalid in 64-bit mode */
#define UD   0x100 /* undefined */
#define REL  0x200 /* rel16/32; 32 in 64-bit mode whatever 66 says (Intel's behaviour) */
/* clang-format on */

static const u16 map0[256] = {
	[0x00 ... 0x03] = M,
	[0x04] = I8,
	[0x05] = IZ,
	[0x06 ... 0x07] = I64,
	[0x08 ... 0x0b] = M,
	[0x0c] = I8,
	[0x0d] = IZ,
	[0x0e] = I64,
	[0x10 ... 0x13] = M,
	[0x14] = I8,
	[0x15] = IZ,
	[0x16 ... 0x17] = I64,
	[0x18 ... 0x1b] = M,
	[0x1c] = I8,
	[0x1d] = IZ,
	[0x1e ... 0x1f] = I64,
	[0x20 ... 0x23] = M,
	[0x24] = I8,
	[0x25] = IZ,
	[0x27] = I64,
	[0x28 ... 0x2b] = M,
	[0x2c] = I8,
	[0x2d] = IZ,
	[0x2f] = I64,
	[0x30 ... 0x33] = M,
	[0x34] = I8,
	[0x35] = IZ,
	[0x37] = I64,
	[0x38 ... 0x3b] = M,
	[0x3c] = I8,
	[0x3d] = IZ,
	[0x3f] = I64,
	[0x60 ... 0x61] = I64,
	[0x62] = M | I64,
	[0x63] = M,
	[0x68] = IZ,
	[0x69] = M | IZ,
	[0x6a] = I8,
	[0x6b] = M | I8,
	[0x70 ... 0x7f] = I8,
	[0x80] = M | I8,
	[0x81] = M | IZ,
	[0x82] = M | I8 | I64,
	[0x83] = M | I8,
	[0x84 ... 0x8f] = M,
	[0x9a] = FP | I64,
	[0xa0 ... 0xa3] = MO,
	[0xa8] = I8,
	[0xa9] = IZ,
	[0xb0 ... 0xb7] = I8,
	[0xb8 ... 0xbf] = IV,
	[0xc0 ... 0xc1] = M | I8,
	[0xc2] = IW,
	[0xc4 ... 0xc5] = M | I64,
	[0xc6] = M | I8,
	[0xc7] = M | IZ,
	[0xc8] = IW | I8,
	[0xca] = IW,
	[0xcd] = I8,
	[0xce] = I64,
	[0xd0 ... 0xd3] = M,
	[0xd4 ... 0xd5] = I8 | I64,
	[0xd6] = I64,
	[0xd8 ... 0xdf] = M,
	[0xe0 ... 0xe7] = I8,
	[0xe8 ... 0xe9] = REL,
	[0xea] = FP | I64,
	[0xeb] = I8,
	[0xf6 ... 0xf7] = M,
	[0xfe ... 0xff] = M,
};

static const u16 map1[256] = {
	[0x00 ... 0x03] = M,  [0x04] = UD,	    [0x0a] = UD,
	[0x0c] = UD,	      [0x0d] = M,	    [0x0f] = M | I8,
	[0x10 ... 0x1f] = M,  [0x20 ... 0x23] = M,  [0x24 ... 0x27] = UD,
	[0x28 ... 0x2f] = M,  [0x36] = UD,	    [0x39] = UD,
	[0x3b ... 0x3f] = UD, [0x40 ... 0x6f] = M,  [0x70 ... 0x73] = M | I8,
	[0x74 ... 0x76] = M,  [0x78 ... 0x7f] = M,  [0x80 ... 0x8f] = REL,
	[0x90 ... 0x9f] = M,  [0xa3] = M,	    [0xa4] = M | I8,
	[0xa5] = M,	      [0xa6 ... 0xa7] = UD, [0xab] = M,
	[0xac] = M | I8,      [0xad ... 0xaf] = M,  [0xb0 ... 0xb9] = M,
	[0xba] = M | I8,      [0xbb ... 0xbf] = M,  [0xc0 ... 0xc1] = M,
	[0xc2] = M | I8,      [0xc3] = M,	    [0xc4 ... 0xc6] = M | I8,
	[0xc7] = M,	      [0xd0 ... 0xff] = M,
};

/* 16-bit ModRM bases: BX+SI, BX+DI, BP+SI, BP+DI, SI, DI, BP, BX. */
static const u8 base16[8] = {
	X86_RBX, X86_RBX, X86_RBP, X86_RBP, X86_RSI, X86_RDI, X86_RBP, X86_RBX
};
static const u8 index16[8] = { X86_RSI,	     X86_RDI,	   X86_RSI,	 X86_RDI,
			       X86_REG_NONE, X86_REG_NONE, X86_REG_NONE, X86_REG_NONE };

struct dec {
	const struct x86_emu_ctx *ctx;
	const struct x86_emu_ops *ops; /* NULL: only the bytes already in insn */
	struct x86_insn *insn;
	struct x86_fault *fault;
	u8 avail;
	u8 pos;
	int status;
	bool mov_cr; /* a CR access exit: try MOV CR's common form first */
};

static void set_fault(struct x86_fault *f, u8 vector, bool has_error, u32 error, u64 addr)
{
	f->vector = vector;
	f->has_error = has_error;
	f->error_code = error;
	f->addr = addr;
}

static bool fail(struct dec *d, int status, u8 vector)
{
	if (d->status == X86_DEC_OK) {
		d->status = status;
		if (status == X86_DEC_FAULT)
			set_fault(d->fault, vector, vector != VEC_UD, 0, 0);
	}
	return false;
}

bool x86_canonical(const struct x86_emu_ctx *ctx, u64 linear)
{
	unsigned s = (ctx->cr4 & CR4_LA57) ? 7 : 16;

	return (u64)((s64)(linear << s) >> s) == linear;
}

/* The default #PF error code of a fetch; the I bit exists only with NX or SMEP in force. */
static u32 fetch_error(const struct x86_emu_ctx *ctx)
{
	bool id = (ctx->efer & EFER_NXE) || (ctx->cr4 & CR4_SMEP);

	return (id ? X86_PF_I : 0) | (ctx->cpl == 3 ? X86_PF_U : 0);
}

/*
 * Fetches until bytes [0, n) are available. Fetches run to the end of the page (never further)
 * so that a short instruction before an unmapped page does not fault, and fetching is done in
 * few calls.
 */
static bool fetch_more(struct dec *d, unsigned n)
{
	const struct x86_emu_ctx *ctx = d->ctx;
	const struct x86_seg *cs = &ctx->seg[X86_CS];
	u64 ipmask = x86_mask(d->insn->mode);

	if (d->status != X86_DEC_OK)
		return false;
	if (n > X86_MAX_INSN_LEN)
		return fail(d, X86_DEC_FAULT, VEC_GP);
	while (d->avail < n) {
		u64 ip = (ctx->rip + d->avail) & ipmask, lin;
		unsigned chunk = X86_MAX_INSN_LEN - d->avail;
		int rc;

		if (!d->ops || !d->ops->fetch)
			return fail(d, X86_DEC_UNHANDLED, 0);
		if (d->insn->mode == X86_MODE_64) {
			lin = ip;
			if (!x86_canonical(ctx, lin))
				return fail(d, X86_DEC_FAULT, VEC_GP);
		} else {
			if (ip > cs->limit)
				return fail(d, X86_DEC_FAULT, VEC_GP);
			if (chunk > cs->limit - ip + 1)
				chunk = cs->limit - ip + 1;
			if (chunk > ipmask - ip + 1)
				chunk = ipmask - ip + 1;
			lin = (cs->base + ip) & 0xffffffffull;
		}
		if (chunk > PAGE_SIZE - (lin & (PAGE_SIZE - 1)))
			chunk = PAGE_SIZE - (lin & (PAGE_SIZE - 1));
		set_fault(d->fault, VEC_PF, true, fetch_error(ctx), lin);
		rc = d->ops->fetch(ctx, lin, d->insn->bytes + d->avail, chunk, d->fault);
		if (rc == X86_ACC_FAULT) {
			d->status = X86_DEC_FAULT;
			return false;
		}
		if (rc != X86_ACC_OK)
			return fail(d, X86_DEC_UNHANDLED, 0);
		d->avail += chunk;
	}
	return true;
}

/* Makes bytes [0, n) available. Most calls ask for a byte already fetched: answered inline,
 * before any mode arithmetic. */
static inline bool need(struct dec *d, unsigned n)
{
	if (d->status == X86_DEC_OK && n <= d->avail)
		return true;
	return fetch_more(d, n);
}

static bool next(struct dec *d, u8 *b)
{
	if (!need(d, d->pos + 1u))
		return false;
	*b = d->insn->bytes[d->pos++];
	return true;
}

/* Little-endian immediate or displacement of n bytes, sign-extended. */
static bool take(struct dec *d, unsigned n, s64 *out)
{
	u64 v = 0;

	if (!need(d, d->pos + n))
		return false;
	for (unsigned i = 0; i < n; i++)
		v |= (u64)d->insn->bytes[d->pos + i] << (8 * i);
	d->pos += n;
	if (n < 8 && (v & BIT(n * 8 - 1)))
		v |= ~x86_mask(n);
	*out = (s64)v;
	return true;
}

static bool prefixes(struct dec *d)
{
	struct x86_insn *in = d->insn;
	u8 b;

	for (;;) {
		if (!need(d, d->pos + 1u))
			return false;
		b = in->bytes[d->pos];
		switch (b) {
		case 0x66:
			in->opsize_prefix = true;
			break;
		case 0x67:
			in->addrsize_prefix = true;
			break;
		case 0xf0:
			in->lock = true;
			break;
		case 0xf2:
		case 0xf3:
			in->rep = b;
			break;
		case 0x26:
			in->seg_override = X86_ES;
			break;
		case 0x2e:
			in->seg_override = X86_CS;
			break;
		case 0x36:
			in->seg_override = X86_SS;
			break;
		case 0x3e:
			in->seg_override = X86_DS;
			break;
		case 0x64:
			in->seg_override = X86_FS;
			break;
		case 0x65:
			in->seg_override = X86_GS;
			break;
		default:
			if (in->mode != X86_MODE_64 || (b & 0xf0) != 0x40)
				return true;
			in->rex = b;
			d->pos++;
			continue;
		}
		/* A REX that a legacy prefix follows is ignored by the CPU. */
		in->rex = 0;
		d->pos++;
	}
}

static void sizes(struct x86_insn *in)
{
	in->opsize = in->mode == X86_MODE_16 ? 2 : 4;
	if (in->opsize_prefix)
		in->opsize ^= 6;
	if (in->rex & 8)
		in->opsize = 8;
	in->addrsize = in->mode;
	if (in->addrsize_prefix)
		in->addrsize = in->mode == X86_MODE_32 ? 2 : 4;
}

static bool modrm_mem16(struct dec *d)
{
	struct x86_insn *in = d->insn;
	struct x86_mem *m = &in->mem;
	unsigned rm = in->modrm & 7;

	m->base = base16[rm];
	m->index = index16[rm];
	if (in->mod == 0 && rm == 6) {
		m->base = X86_REG_NONE;
		return take(d, 2, &m->disp);
	}
	if (in->mod == 1)
		return take(d, 1, &m->disp);
	if (in->mod == 2)
		return take(d, 2, &m->disp);
	return true;
}

static bool modrm_mem32(struct dec *d)
{
	struct x86_insn *in = d->insn;
	struct x86_mem *m = &in->mem;
	unsigned rm = in->modrm & 7, b = (in->rex & 1) << 3;

	if (rm == 4) {
		if (!next(d, &in->sib))
			return false;
		in->has_sib = true;
		m->scale = 1 << (in->sib >> 6);
		m->index = ((in->sib >> 3) & 7) | ((in->rex & 2) << 2);
		if (m->index == X86_RSP)
			m->index = X86_REG_NONE;
		m->base = (in->sib & 7) | b;
		if ((in->sib & 7) == 5 && in->mod == 0) {
			m->base = X86_REG_NONE;
			return take(d, 4, &m->disp);
		}
	} else if (rm == 5 && in->mod == 0) {
		m->base = X86_REG_NONE;
		m->rip_rel = in->mode == X86_MODE_64;
		return take(d, 4, &m->disp);
	} else {
		m->base = rm | b;
	}
	if (in->mod == 1)
		return take(d, 1, &m->disp);
	if (in->mod == 2)
		return take(d, 4, &m->disp);
	return true;
}

/* MOV CR/DR ignore ModRM.mod: the operand is always a register. */
static bool modrm_is_reg(const struct x86_insn *in)
{
	return in->mod == 3 || (in->map == 1 && in->opcode >= 0x20 && in->opcode <= 0x23);
}

static bool modrm(struct dec *d)
{
	struct x86_insn *in = d->insn;

	if (!next(d, &in->modrm))
		return false;
	in->has_modrm = true;
	in->mod = in->modrm >> 6;
	in->sub = (in->modrm >> 3) & 7;
	in->reg = in->sub | ((in->rex & 4) << 1);
	in->rm = (in->modrm & 7) | ((in->rex & 1) << 3);
	if (modrm_is_reg(in))
		return true;
	in->rm = in->modrm & 7;
	in->has_mem = true;
	in->mem.scale = 1;
	in->mem.index = X86_REG_NONE;
	return in->addrsize == 2 ? modrm_mem16(d) : modrm_mem32(d);
}

static bool immediates(struct dec *d, u16 attr)
{
	struct x86_insn *in = d->insn;
	unsigned z = in->opsize == 2 ? 2 : 4;
	unsigned n = 0;

	if (attr & (IZ | REL))
		n = (attr & REL) && in->mode == X86_MODE_64 ? 4 : z;
	else if (attr & IV)
		n = in->opsize;
	else if (attr & IW)
		n = 2;
	else if (attr & MO)
		n = in->addrsize;
	else if (attr & FP)
		n = z + 2;
	else if (attr & I8)
		n = 1;
	if (n && !take(d, n, &in->imm))
		return false;
	if (attr & (MO | FP))
		in->imm &= (s64)x86_mask(n);
	if ((attr & (IW | I8)) == (IW | I8) && !take(d, 1, &in->imm2))
		return false;
	in->imm_len = n + ((attr & (IW | I8)) == (IW | I8));
	return true;
}

static u16 attributes(struct dec *d)
{
	struct x86_insn *in = d->insn;
	u16 attr;

	switch (in->map) {
	case 0:
		attr = map0[in->opcode];
		break;
	case 1:
		attr = map1[in->opcode];
		break;
	case 2:
		attr = M;
		break;
	default:
		attr = M | I8;
		break;
	}
	if ((attr & I64) && in->mode == X86_MODE_64)
		attr |= UD;
	return attr;
}

/* VEX, EVEX and XOP reuse LES/LDS/BOUND/POP encodings; none of it is emulated. */
static bool vex_like(struct dec *d)
{
	struct x86_insn *in = d->insn;
	u8 op = in->opcode, b;

	if (in->map != 0 || (op != 0xc4 && op != 0xc5 && op != 0x62 && op != 0x8f))
		return false;
	if (!need(d, d->pos + 1u))
		return true;
	b = in->bytes[d->pos];
	if (op == 0x8f)
		return ((b >> 3) & 7) != 0;
	return in->mode == X86_MODE_64 || (b & 0xc0) == 0xc0;
}

static bool opcode(struct dec *d)
{
	struct x86_insn *in = d->insn;

	if (!next(d, &in->opcode))
		return false;
	if (in->opcode != 0x0f)
		return true;
	in->map = 1;
	if (!next(d, &in->opcode))
		return false;
	if (in->opcode == 0x38 || in->opcode == 0x3a) {
		in->map = in->opcode == 0x38 ? 2 : 3;
		return next(d, &in->opcode);
	}
	return true;
}

static u64 reg_value(const struct x86_emu_ctx *ctx, u8 r)
{
	return r == X86_REG_NONE ? 0 : ctx->gpr[r];
}

static void effective_address(const struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops,
			      struct x86_insn *in)
{
	struct x86_mem *m = &in->mem;
	u64 ea;

	if (m->seg == X86_REG_NONE)
		m->seg = in->seg_override;
	if (m->seg == X86_REG_NONE)
		m->seg = (m->base == X86_RSP || m->base == X86_RBP) ? X86_SS : X86_DS;
	ea = reg_value(ctx, m->base) + reg_value(ctx, m->index) * m->scale + (u64)m->disp;
	if (m->rip_rel)
		ea += ctx->rip + in->len;
	m->ea = ea & x86_mask(in->addrsize);
	if (m->seg >= X86_FS)
		x86_segments_wanted(ctx, ops);
	if (in->mode == X86_MODE_64)
		m->linear = m->ea + (m->seg >= X86_FS ? ctx->seg[m->seg].base : 0);
	else
		m->linear = (ctx->seg[m->seg].base + m->ea) & 0xffffffffull;
}

static bool is_cr_valid(u8 cr)
{
	return cr == 0 || cr == 2 || cr == 3 || cr == 4 || cr == 8;
}

static unsigned io_width(const struct x86_insn *in)
{
	return (in->opcode & 1) ? (in->opsize == 2 ? 2 : 4) : 1;
}

static void classify_map1(struct dec *d)
{
	struct x86_insn *in = d->insn;

	switch (in->opcode) {
	case 0x20:
	case 0x22:
		in->kind = in->opcode == 0x20 ? X86_K_MOV_FROM_CR : X86_K_MOV_TO_CR;
		in->cr = in->reg;
		/* AMD's alternative encoding of CR8 for 32-bit code. */
		if (in->lock && in->cr == 0) {
			in->cr = 8;
			in->lock = false;
		}
		in->gpr = in->rm;
		in->opsize = in->mode == X86_MODE_64 ? 8 : 4;
		if (!is_cr_valid(in->cr))
			fail(d, X86_DEC_FAULT, VEC_UD);
		break;
	case 0x01:
		if (in->has_mem && in->sub == 7)
			in->kind = X86_K_INVLPG;
		else if (in->sub == 6)
			in->kind = X86_K_LMSW;
		else if (in->sub == 4)
			in->kind = X86_K_SMSW;
		else if (in->modrm == 0xc1)
			in->kind = X86_K_VMCALL;
		else if (in->modrm == 0xd9)
			in->kind = X86_K_VMMCALL;
		else if (in->modrm == 0xf9)
			in->kind = X86_K_RDTSCP;
		break;
	case 0x06:
		in->kind = X86_K_CLTS;
		break;
	case 0x30:
		in->kind = X86_K_WRMSR;
		break;
	case 0x31:
		in->kind = X86_K_RDTSC;
		break;
	case 0x32:
		in->kind = X86_K_RDMSR;
		break;
	case 0xa2:
		in->kind = X86_K_CPUID;
		break;
	}
}

static void classify(struct dec *d)
{
	struct x86_insn *in = d->insn;
	u8 op = in->opcode;

	if (in->map == 1) {
		classify_map1(d);
		return;
	}
	if (in->map != 0)
		return;
	if (op == 0xf4) {
		in->kind = X86_K_HLT;
	} else if ((op & 0xf4) == 0xe4) { /* E4-E7, EC-EF */
		in->kind = (op & 2) ? X86_K_OUT : X86_K_IN;
		in->port_dx = op & 8;
		in->port = in->port_dx ? (u16)d->ctx->gpr[X86_RDX] : (u8)in->imm;
		in->io_size = io_width(in);
	} else if (op >= 0x6c && op <= 0x6f) {
		in->kind = op < 0x6e ? X86_K_INS : X86_K_OUTS;
		in->port_dx = true;
		in->port = (u16)d->ctx->gpr[X86_RDX];
		in->io_size = io_width(in);
	}
}

/* LOCK is legal only on read-modify-write forms with a memory destination. */
static bool lock_ok(const struct x86_insn *in)
{
	u8 op = in->opcode, sub = in->sub;

	if (!in->has_mem || !in->has_modrm)
		return false;
	if (in->map == 0) {
		if (op < 0x38)
			return (op & 7) < 2;
		switch (op) {
		case 0x80 ... 0x83:
			return sub != 7;
		case 0x86:
		case 0x87:
			return true;
		case 0xf6:
		case 0xf7:
			return sub == 2 || sub == 3;
		case 0xfe:
		case 0xff:
			return sub < 2;
		}
		return false;
	}
	if (in->map != 1)
		return false;
	switch (op) {
	case 0xab:
	case 0xb3:
	case 0xbb:
	case 0xb0:
	case 0xb1:
	case 0xc0:
	case 0xc1:
		return true;
	case 0xba:
		return sub >= 5;
	case 0xc7:
		return sub == 1;
	}
	return false;
}

static void decode(struct dec *d)
{
	struct x86_insn *in = d->insn;
	u16 attr;

	if (!prefixes(d))
		return;
	sizes(in);
	if (!opcode(d))
		return;
	if (vex_like(d)) {
		fail(d, X86_DEC_UNHANDLED, 0);
		return;
	}
	attr = attributes(d);
	if (attr & UD) {
		fail(d, X86_DEC_UNHANDLED, 0);
		return;
	}
	if ((attr & M) && !modrm(d))
		return;
	/* TEST r/m, imm is the only member of group 3 with an immediate. */
	if (in->map == 0 && (in->opcode & 0xfe) == 0xf6 && in->sub < 2)
		attr |= in->opcode & 1 ? IZ : I8;
	if (!immediates(d, attr))
		return;
	in->len = d->pos;
	if (attr & MO) {
		in->has_mem = true;
		in->mem.base = in->mem.index = X86_REG_NONE;
		in->mem.scale = 1;
		in->mem.disp = in->imm;
	}
	if (in->has_mem)
		effective_address(d->ctx, d->ops, in);
	classify(d);
	if (in->lock && !lock_ok(in))
		fail(d, X86_DEC_FAULT, VEC_UD);
}

/* The form mov_cr (below) takes, in the avail bytes at b: its length (3, or 4 with REX), 0 for
 * another instruction, or -n when n bytes are needed to tell. */
static int mov_cr_form(enum x86_mode mode, const u8 *b, unsigned avail)
{
	unsigned p;

	if (avail < 1)
		return -1;
	p = mode == X86_MODE_64 && (b[0] & 0xf0) == 0x40;
	if (avail < p + 1)
		return -(int)(p + 1);
	if (b[p] != 0x0f)
		return 0;
	if (avail < p + 2)
		return -(int)(p + 2);
	if ((b[p + 1] & 0xfd) != 0x20)
		return 0;
	if (avail < p + 3)
		return -(int)(p + 3);
	if (b[p + 2] < 0xc0)
		return 0; /* the other mods read as registers too, but rarely: decode() */
	return (int)p + 3;
}

/*
 * MOV to or from a control register with no prefix but REX and register-form ModRM (0F 22 /r,
 * 0F 20 /r): every kernel's CR3 load, the commonest instruction Umbra decodes without decode
 * assists. Sets what decode() would from its 3 or 4 bytes, without the prefix loop and the
 * opcode tables. Bytes are asked for one at a time, as decode() would (an instruction that
 * ends before an unmapped page must not fault). false: not this form, and nothing in *in has
 * changed but fetched bytes: decode() starts over.
 */
static bool mov_cr(struct dec *d)
{
	struct x86_insn *in = d->insn;
	const u8 *b = in->bytes;
	int len;

	while ((len = mov_cr_form(in->mode, b, d->avail)) < 0)
		if (!need(d, (unsigned)-len))
			return true;
	if (!len)
		return false;
	unsigned p = (unsigned)len - 3;
	u8 rex = p ? b[0] : 0;
	in->rex = rex;
	in->map = 1;
	in->opcode = b[p + 1];
	in->has_modrm = true;
	in->modrm = b[p + 2];
	in->mod = 3;
	in->sub = (in->modrm >> 3) & 7;
	in->reg = in->sub | ((rex & 4) << 1);
	in->rm = (in->modrm & 7) | ((rex & 1) << 3);
	in->addrsize = in->mode;
	in->opsize = in->mode == X86_MODE_64 ? 8 : 4;
	in->len = (u8)(p + 3);
	d->pos = in->len;
	in->kind = in->opcode == 0x20 ? X86_K_MOV_FROM_CR : X86_K_MOV_TO_CR;
	in->cr = in->reg;
	in->gpr = in->rm;
	if (!is_cr_valid(in->cr))
		fail(d, X86_DEC_FAULT, VEC_UD);
	return true;
}

static int run(struct dec *d)
{
	struct x86_insn *in = d->insn;

	in->mode = x86_ctx_mode(d->ctx);
	in->seg_override = X86_REG_NONE;
	in->mem.seg = X86_REG_NONE;
	if (!d->mov_cr || !mov_cr(d))
		decode(d);
	return d->status;
}

static int decode_at(struct dec *d)
{
	memset(d->insn, 0, sizeof(*d->insn));
	memset(d->fault, 0, sizeof(*d->fault));
	return run(d);
}

int x86_decode(const struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops, struct x86_insn *insn,
	       struct x86_fault *fault)
{
	return decode_at(&(struct dec){ .ctx = ctx, .ops = ops, .insn = insn, .fault = fault });
}

int x86_decode_cr(const struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops,
		  struct x86_insn *insn, struct x86_fault *fault)
{
	return decode_at(&(struct dec){
		.ctx = ctx, .ops = ops, .insn = insn, .fault = fault, .mov_cr = true });
}

static int decode_from(const struct x86_emu_ctx *ctx, const u8 *bytes, size_t n,
		       struct x86_insn *insn, struct x86_fault *fault, bool mov_cr_first)
{
	struct dec d = { .ctx = ctx, .insn = insn, .fault = fault, .mov_cr = mov_cr_first };

	memset(insn, 0, sizeof(*insn));
	memset(fault, 0, sizeof(*fault));
	d.avail = n < X86_MAX_INSN_LEN ? (u8)n : X86_MAX_INSN_LEN;
	memcpy(insn->bytes, bytes, d.avail);
	return run(&d);
}

int x86_decode_bytes(const struct x86_emu_ctx *ctx, const u8 *bytes, size_t n,
		     struct x86_insn *insn, struct x86_fault *fault)
{
	return decode_from(ctx, bytes, n, insn, fault, false);
}

bool x86_decode_mov_cr_bytes(const struct x86_emu_ctx *ctx, const u8 *b, unsigned n,
			     struct x86_insn *in)
{
	int len = mov_cr_form(x86_ctx_mode(ctx), b, n);

	if (len <= 0)
		return false;
	u8 rex = len == 4 ? b[0] : 0, modrm = b[len - 1];
	u8 cr = (u8)(((modrm >> 3) & 7) | ((rex & 4) << 1)),
	   gpr = (u8)((modrm & 7) | ((rex & 1) << 3));
	if (!is_cr_valid(cr))
		return false;
	x86_insn_mov_cr(ctx, b[len - 2] == 0x22, cr, gpr, (u8)len, in);
	return true;
}

void x86_insn_mov_cr(const struct x86_emu_ctx *ctx, bool to_cr, u8 cr, u8 gpr, u8 len,
		     struct x86_insn *in)
{
	memset(in, 0, sizeof(*in));
	in->mode = x86_ctx_mode(ctx);
	in->seg_override = X86_REG_NONE;
	in->mem.seg = X86_REG_NONE;
	in->addrsize = in->mode;
	in->opsize = in->mode == X86_MODE_64 ? 8 : 4;
	in->len = len;
	in->kind = to_cr ? X86_K_MOV_TO_CR : X86_K_MOV_FROM_CR;
	in->cr = cr;
	in->gpr = gpr;
}

#ifdef UMBRA_HOST
int x86_decode_bytes_cr(const struct x86_emu_ctx *ctx, const u8 *bytes, size_t n,
			struct x86_insn *insn, struct x86_fault *fault)
{
	return decode_from(ctx, bytes, n, insn, fault, true);
}
#endif

u64 x86_next_rip(const struct x86_emu_ctx *ctx, const struct x86_insn *insn)
{
	return (ctx->rip + insn->len) & x86_mask(insn->mode);
}
