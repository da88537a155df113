/* SPDX-License-Identifier: GPL-2.0-only */
/* Real mode where the CPU cannot run it as the guest wrote it: IVT delivery, segment loads, mode switches, privileged instructions. */
#include "arch/x86/realmode.h"
#include "lib/string.h"

#define RFLAGS_IOPL (3ull << 12)
#define RFLAGS_NT BIT(14)
#define RFLAGS_ID BIT(21)
/* What POPF and IRET change at CPL 0 (real mode, or protected mode between the switches). */
#define POPF_16 (RFLAGS_ARITH | RFLAGS_TF | RFLAGS_IF | RFLAGS_DF | RFLAGS_IOPL | RFLAGS_NT)
#define POPF_32 (POPF_16 | RFLAGS_AC | RFLAGS_ID)

/* Not one of ours: the caller's fallback decides. */
#define NOT_MINE (-1)

struct rm {
	struct x86_emu_ctx *ctx;
	const struct x86_emu_ops *ops;
	const struct x86_insn *in;
	struct x86_fault *fault;
};

static int raise(struct rm *m, u8 vector, bool has_error, u32 error)
{
	*m->fault =
		(struct x86_fault){ .vector = vector, .has_error = has_error, .error_code = error };
	return X86_EMU_FAULT;
}

/* One access by linear address (32-bit wrap: never long mode here). */
static int mem(struct rm *m, bool write, u64 linear, void *buf, unsigned len)
{
	linear = (u32)linear;
	*m->fault = (struct x86_fault){ .vector = VEC_PF,
					.has_error = true,
					.error_code = write ? X86_PF_W : 0,
					.addr = linear };
	int r = write ? m->ops->write(m->ctx, linear, buf, len, m->fault)
		      : m->ops->read(m->ctx, linear, buf, len, m->fault);
	if (r == X86_ACC_OK)
		return X86_EMU_OK;
	return r == X86_ACC_FAULT ? X86_EMU_FAULT : X86_EMU_UNHANDLED;
}

static u64 sp_mask(const struct x86_emu_ctx *ctx)
{
	return (ctx->seg[X86_SS].attr & X86_SEG_DB) ? 0xffffffffull : 0xffffull;
}

/* Pushes and pops work on a copy of rSP, committed by set_sp once the instruction is done. */
static int push(struct rm *m, u64 *sp, u64 val, unsigned w)
{
	*sp = (*sp - w) & sp_mask(m->ctx);
	return mem(m, true, m->ctx->seg[X86_SS].base + *sp, &val, w);
}

static int pop(struct rm *m, u64 *sp, u64 *val, unsigned w)
{
	*val = 0;
	int rc = mem(m, false, m->ctx->seg[X86_SS].base + *sp, val, w);
	*sp = (*sp + w) & sp_mask(m->ctx);
	return rc;
}

static void set_sp(struct x86_emu_ctx *ctx, u64 sp)
{
	u64 mask = sp_mask(ctx);
	ctx->gpr[X86_RSP] = (ctx->gpr[X86_RSP] & ~mask) | (sp & mask);
}

static int load_seg(struct rm *m, unsigned sreg, u16 sel, struct x86_seg *out)
{
	return x86_load_segment(m->ctx, m->ops, sreg, sel, out, m->fault);
}

int x86_realmode_deliver(struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops, u8 vector, u64 ip,
			 struct x86_fault *fault)
{
	struct rm m = { ctx, ops, NULL, fault };
	u32 off = vector * 4u, entry;
	u64 sp = ctx->gpr[X86_RSP] & sp_mask(ctx);

	if (off + 3 > ctx->idtr.limit)
		return raise(&m, VEC_GP, true, off + 2);
	int rc = mem(&m, false, ctx->idtr.base + off, &entry, 4);
	if (rc == X86_EMU_OK)
		rc = push(&m, &sp, ctx->rflags & 0xffff, 2);
	if (rc == X86_EMU_OK)
		rc = push(&m, &sp, ctx->seg[X86_CS].sel, 2);
	if (rc == X86_EMU_OK)
		rc = push(&m, &sp, ip & 0xffff, 2);
	if (rc != X86_EMU_OK)
		return rc;
	set_sp(ctx, sp);
	ctx->rflags &= ~(u64)(RFLAGS_IF | RFLAGS_TF | RFLAGS_AC | RFLAGS_RF);
	x86_realmode_load_seg(&ctx->seg[X86_CS], (u16)(entry >> 16));
	ctx->rip = entry & 0xffff;
	return X86_EMU_OK;
}

/* A far transfer: CS from sel (checked first, so a bad one changes nothing), IP from ip. */
static int far_to(struct rm *m, u16 sel, u64 ip, u64 sp, bool commit_sp)
{
	struct x86_seg cs;
	int rc = load_seg(m, X86_CS, sel, &cs);
	if (rc != X86_EMU_OK)
		return rc;
	if (commit_sp)
		set_sp(m->ctx, sp);
	m->ctx->seg[X86_CS] = cs;
	m->ctx->rip = ip & x86_mask(m->in->opsize);
	return X86_EMU_OK;
}

/* Reads a far pointer m16:16/32 from the instruction's memory operand. */
static int far_pointer(struct rm *m, u16 *sel, u64 *off)
{
	unsigned w = m->in->opsize;
	u64 o = 0;
	u16 s = 0;
	int rc = mem(m, false, m->in->mem.linear, &o, w);
	if (rc == X86_EMU_OK)
		rc = mem(m, false, m->in->mem.linear + w, &s, 2);
	*off = o;
	*sel = s;
	return rc;
}

static int write_cr(struct rm *m, const struct x86_sys_ops *sys, unsigned cr, u64 val)
{
	if (sys->write_cr(m->ctx, cr, val) < 0)
		return X86_EMU_RETRY;
	m->ctx->rip = x86_next_rip(m->ctx, m->in);
	return X86_EMU_OK;
}

static int port_io(struct rm *m, const struct x86_sys_ops *sys, bool in)
{
	struct x86_emu_ctx *ctx = m->ctx;
	u16 port = m->in->port_dx ? (u16)ctx->gpr[X86_RDX] : m->in->port;
	unsigned size = m->in->io_size;
	u32 val = in ? 0 : (u32)x86_get_reg(ctx, X86_RAX, size, false);

	if (sys->io(ctx, port, size, in, &val) < 0)
		return X86_EMU_RETRY;
	if (in)
		x86_set_reg(ctx, X86_RAX, size, false, val);
	ctx->rip = x86_next_rip(ctx, m->in);
	return X86_EMU_OK;
}

/* INS/OUTS, REP or not: a batch of iterations per call, RIP left on the instruction until the
 * count is done (as an interrupted one); finished iterations stay when one faults. */
static int string_io(struct rm *m, const struct x86_sys_ops *sys, bool in)
{
	struct x86_emu_ctx *ctx = m->ctx;
	const struct x86_insn *i = m->in;
	u64 amask = x86_mask(i->addrsize);
	unsigned reg = in ? X86_RDI : X86_RSI, size = i->io_size;
	unsigned seg = in ? X86_ES : i->seg_override != X86_REG_NONE ? i->seg_override : X86_DS;
	u64 step = (ctx->rflags & RFLAGS_DF) ? -(u64)size : size;
	u64 count = i->rep ? ctx->gpr[X86_RCX] & amask : 1;
	unsigned batch = ctx->max_reps ? ctx->max_reps : X86_EMU_DEFAULT_REPS;
	u16 port = (u16)ctx->gpr[X86_RDX];

	for (unsigned n = 0; n < batch && count; n++) {
		u64 lin = ctx->seg[seg].base + (ctx->gpr[reg] & amask);
		u32 val = 0;
		int rc;
		if (in) {
			if (sys->io(ctx, port, size, true, &val) < 0)
				return X86_EMU_RETRY;
			rc = mem(m, true, lin, &val, size);
		} else {
			rc = mem(m, false, lin, &val, size);
			if (rc == X86_EMU_OK && sys->io(ctx, port, size, false, &val) < 0)
				return X86_EMU_RETRY;
		}
		if (rc != X86_EMU_OK)
			return rc;
		ctx->gpr[reg] = (ctx->gpr[reg] & ~amask) | ((ctx->gpr[reg] + step) & amask);
		count--;
		if (i->rep)
			ctx->gpr[X86_RCX] = (ctx->gpr[X86_RCX] & ~amask) | (count & amask);
	}
	if (!count)
		ctx->rip = x86_next_rip(ctx, i);
	return X86_EMU_OK;
}

static int msr(struct rm *m, const struct x86_sys_ops *sys, bool write)
{
	struct x86_emu_ctx *ctx = m->ctx;
	u64 val = (ctx->gpr[X86_RDX] << 32) | (u32)ctx->gpr[X86_RAX];

	if (sys->msr(ctx, (u32)ctx->gpr[X86_RCX], write, &val) < 0)
		return X86_EMU_RETRY;
	if (!write) {
		ctx->gpr[X86_RAX] = (u32)val;
		ctx->gpr[X86_RDX] = val >> 32;
	}
	ctx->rip = x86_next_rip(ctx, m->in);
	return X86_EMU_OK;
}

/* LGDT/LIDT/SGDT/SIDT: limit, then base (24 bits with a 16-bit operand size). */
static int descriptor_table(struct rm *m, unsigned sub)
{
	struct x86_dtr *t = sub & 1 ? &m->ctx->idtr : &m->ctx->gdtr;
	u64 base_mask = m->in->opsize == 2 ? 0xffffff : 0xffffffff;
	u16 limit = (u16)t->limit;
	u32 base = (u32)(t->base & base_mask);
	int rc;

	if (sub < 2) {
		rc = mem(m, true, m->in->mem.linear, &limit, 2);
		if (rc == X86_EMU_OK)
			rc = mem(m, true, m->in->mem.linear + 2, &base, 4);
	} else {
		rc = mem(m, false, m->in->mem.linear, &limit, 2);
		if (rc == X86_EMU_OK)
			rc = mem(m, false, m->in->mem.linear + 2, &base, 4);
		if (rc == X86_EMU_OK)
			*t = (struct x86_dtr){ .base = base & base_mask, .limit = limit };
	}
	if (rc == X86_EMU_OK)
		m->ctx->rip = x86_next_rip(m->ctx, m->in);
	return rc;
}

/* The instructions virtual-8086 mode refuses (#GP): every caller wants these. */
static int privileged(struct rm *m, const struct x86_sys_ops *sys)
{
	struct x86_emu_ctx *ctx = m->ctx;
	const struct x86_insn *in = m->in;
	bool real = !(ctx->cr0 & CR0_PE);
	u64 next = x86_next_rip(ctx, in), sp = ctx->gpr[X86_RSP] & sp_mask(ctx), val, ip, cs, fl;
	unsigned w = in->opsize;
	int rc;

	switch (in->kind) {
	case X86_K_MOV_TO_CR:
		return write_cr(m, sys, in->cr, x86_get_reg(ctx, in->gpr, 4, false));
	case X86_K_MOV_FROM_CR: {
		u64 crs[5] = { ctx->cr0, 0, ctx->cr2, ctx->cr3, ctx->cr4 };
		if (in->cr > 4)
			return raise(m, VEC_UD, false, 0);
		x86_set_reg(ctx, in->gpr, 4, false, crs[in->cr]);
		ctx->rip = next;
		return X86_EMU_OK;
	}
	case X86_K_CLTS:
		return write_cr(m, sys, 0, ctx->cr0 & ~(u64)CR0_TS);
	case X86_K_LMSW: {
		struct x86_emu_result r;
		if (x86_read_rm(ctx, m->ops, in, 2, &val, &r) != X86_EMU_OK) {
			*m->fault = r.fault;
			return r.status;
		}
		/* LMSW sets PE but cannot clear it, and touches only MP, EM, TS. */
		return write_cr(m, sys, 0,
				(ctx->cr0 & ~0xeull) | (val & 0xf) | (ctx->cr0 & CR0_PE));
	}
	case X86_K_SMSW: {
		struct x86_emu_result r;
		if (x86_write_rm(ctx, m->ops, in, in->has_mem ? 2 : w, ctx->cr0, &r) !=
		    X86_EMU_OK) {
			*m->fault = r.fault;
			return r.status;
		}
		ctx->rip = next;
		return X86_EMU_OK;
	}
	case X86_K_HLT:
		ctx->rip = next;
		sys->halt(ctx);
		return X86_EMU_OK;
	case X86_K_IN:
	case X86_K_OUT:
		return port_io(m, sys, in->kind == X86_K_IN);
	case X86_K_INS:
	case X86_K_OUTS:
		return string_io(m, sys, in->kind == X86_K_INS);
	case X86_K_RDMSR:
	case X86_K_WRMSR:
		return msr(m, sys, in->kind == X86_K_WRMSR);
	case X86_K_INVLPG:
		/* With paging off nothing is cached by linear address; with it on, the caller's MMU
		 * would have to know: not modelled. */
		if (ctx->cr0 & CR0_PG)
			return X86_EMU_UNHANDLED;
		ctx->rip = next;
		return X86_EMU_OK;
	default:
		break;
	}
	if (in->map == 1) {
		if (in->opcode == 0x01 && in->has_mem && in->sub < 4)
			return descriptor_table(m, in->sub);
		if (in->opcode == 0x08 ||
		    in->opcode == 0x09) { /* INVD, WBINVD: caches are coherent */
			ctx->rip = next;
			return X86_EMU_OK;
		}
		return NOT_MINE;
	}
	if (in->map != 0)
		return NOT_MINE;
	switch (in->opcode) {
	case 0xfa:
		ctx->rflags &= ~(u64)RFLAGS_IF;
		ctx->rip = next;
		return X86_EMU_OK;
	case 0xfb:
		ctx->rflags |= RFLAGS_IF;
		ctx->rip = next;
		return X86_EMU_OK;
	case 0x9c: /* PUSHF: never VM or RF */
		rc = push(m, &sp, ctx->rflags & (w == 2 ? 0xffff : 0xfcffff), w);
		if (rc == X86_EMU_OK) {
			set_sp(ctx, sp);
			ctx->rip = next;
		}
		return rc;
	case 0x9d:
		rc = pop(m, &sp, &val, w);
		if (rc == X86_EMU_OK) {
			set_sp(ctx, sp);
			ctx->rflags =
				(ctx->rflags & ~(w == 2 ? POPF_16 : POPF_32) & ~(u64)RFLAGS_RF) |
				(val & (w == 2 ? POPF_16 : POPF_32)) | 2;
			ctx->rip = next;
		}
		return rc;
	case 0xcc:
	case 0xcd:
	case 0xce:
		/* Protected mode's gates are beyond this emulator: the switch code has none. */
		if (!real)
			return X86_EMU_UNHANDLED;
		if (in->opcode == 0xce && !(ctx->rflags & RFLAGS_OF)) {
			ctx->rip = next;
			return X86_EMU_OK;
		}
		return x86_realmode_deliver(ctx, m->ops,
					    in->opcode == 0xcc	 ? VEC_BP
					    : in->opcode == 0xce ? VEC_OF
								 : (u8)in->imm,
					    next, m->fault);
	case 0xcf:
		if (!real)
			return X86_EMU_UNHANDLED;
		rc = pop(m, &sp, &ip, w);
		if (rc == X86_EMU_OK)
			rc = pop(m, &sp, &cs, w);
		if (rc == X86_EMU_OK)
			rc = pop(m, &sp, &fl, w);
		if (rc != X86_EMU_OK)
			return rc;
		set_sp(ctx, sp);
		ctx->rflags = (ctx->rflags & ~(w == 2 ? POPF_16 : POPF_32) & ~(u64)RFLAGS_RF) |
			      (fl & (w == 2 ? POPF_16 : POPF_32)) | 2;
		x86_realmode_load_seg(&ctx->seg[X86_CS], (u16)cs);
		ctx->rip = ip & x86_mask(w);
		return X86_EMU_OK;
	default:
		return NOT_MINE;
	}
}

static const u8 push_sreg[] = {
	[0x06] = X86_ES + 1, [0x0e] = X86_CS + 1, [0x16] = X86_SS + 1, [0x1e] = X86_DS + 1
};
static const u8 pop_sreg[] = { [0x07] = X86_ES + 1, [0x17] = X86_SS + 1, [0x1f] = X86_DS + 1 };

/* Segment loads and control transfers: what an invalid segment state leaves to emulate. */
static int transfers(struct rm *m)
{
	struct x86_emu_ctx *ctx = m->ctx;
	const struct x86_insn *in = m->in;
	u64 next = x86_next_rip(ctx, in), sp = ctx->gpr[X86_RSP] & sp_mask(ctx), val, ip;
	unsigned w = in->opsize, sreg = X86_NR_SREGS;
	struct x86_emu_result r;
	struct x86_seg seg;
	u16 sel;
	int rc;

	if (in->map == 1) {
		/* PUSH/POP FS and GS, and Jcc rel16/32. */
		if (in->opcode == 0xa0 || in->opcode == 0xa8) {
			rc = push(m, &sp, ctx->seg[in->opcode == 0xa0 ? X86_FS : X86_GS].sel, w);
			goto pushed;
		}
		if (in->opcode == 0xa1 || in->opcode == 0xa9) {
			sreg = in->opcode == 0xa1 ? X86_FS : X86_GS;
			goto pop_segment;
		}
		if (in->opcode >= 0x80 && in->opcode <= 0x8f) {
			ctx->rip = x86_condition(ctx->rflags, in->opcode & 0xf)
					   ? (next + (u64)in->imm) & x86_mask(w)
					   : next;
			return X86_EMU_OK;
		}
		return NOT_MINE;
	}
	if (in->map != 0)
		return NOT_MINE;
	u8 op = in->opcode;
	if (op < sizeof(push_sreg) && push_sreg[op]) {
		rc = push(m, &sp, ctx->seg[push_sreg[op] - 1].sel, w);
		goto pushed;
	}
	if (op < sizeof(pop_sreg) && pop_sreg[op]) {
		sreg = pop_sreg[op] - 1;
		goto pop_segment;
	}
	if (op >= 0x70 && op <= 0x7f) {
		ctx->rip = x86_condition(ctx->rflags, op & 0xf)
				   ? (next + (u64)in->imm) & x86_mask(w)
				   : next;
		return X86_EMU_OK;
	}
	if (op >= 0xb0 && op <= 0xbf) {
		x86_set_reg(ctx, op & 7, op < 0xb8 ? 1 : w, false, (u64)in->imm);
		ctx->rip = next;
		return X86_EMU_OK;
	}
	switch (op) {
	case 0x90:
		ctx->rip = next;
		return X86_EMU_OK;
	case 0x8c: /* MOV r/m, sreg: 16 bits to memory, the operand size to a register */
		if (in->sub >= X86_NR_SREGS)
			return raise(m, VEC_UD, false, 0);
		if (x86_write_rm(ctx, m->ops, in, in->has_mem ? 2 : w, ctx->seg[in->sub].sel, &r) !=
		    X86_EMU_OK) {
			*m->fault = r.fault;
			return r.status;
		}
		ctx->rip = next;
		return X86_EMU_OK;
	case 0x8e:
		if (in->sub >= X86_NR_SREGS || in->sub == X86_CS)
			return raise(m, VEC_UD, false, 0);
		if (x86_read_rm(ctx, m->ops, in, 2, &val, &r) != X86_EMU_OK) {
			*m->fault = r.fault;
			return r.status;
		}
		rc = load_seg(m, in->sub, (u16)val, &seg);
		if (rc != X86_EMU_OK)
			return rc;
		ctx->seg[in->sub] = seg;
		ctx->rip = next;
		return X86_EMU_OK;
	case 0xeb:
	case 0xe9:
		ctx->rip = (next + (u64)in->imm) & x86_mask(w);
		return X86_EMU_OK;
	case 0xe8:
		rc = push(m, &sp, next, w);
		if (rc != X86_EMU_OK)
			return rc;
		set_sp(ctx, sp);
		ctx->rip = (next + (u64)in->imm) & x86_mask(w);
		return X86_EMU_OK;
	case 0xc2:
	case 0xc3:
		rc = pop(m, &sp, &ip, w);
		if (rc != X86_EMU_OK)
			return rc;
		set_sp(ctx, sp + (op == 0xc2 ? (u64)in->imm : 0));
		ctx->rip = ip & x86_mask(w);
		return X86_EMU_OK;
	case 0xea: /* JMP ptr16:16/32 */
		return far_to(m, (u16)((u64)in->imm >> (w * 8)), (u64)in->imm, sp, false);
	case 0x9a:
		rc = push(m, &sp, ctx->seg[X86_CS].sel, w);
		if (rc == X86_EMU_OK)
			rc = push(m, &sp, next, w);
		if (rc != X86_EMU_OK)
			return rc;
		return far_to(m, (u16)((u64)in->imm >> (w * 8)), (u64)in->imm, sp, true);
	case 0xca:
	case 0xcb:
		rc = pop(m, &sp, &ip, w);
		if (rc == X86_EMU_OK)
			rc = pop(m, &sp, &val, w);
		if (rc != X86_EMU_OK)
			return rc;
		return far_to(m, (u16)val, ip, sp + (op == 0xca ? (u64)in->imm : 0), true);
	case 0xff:
		if (in->sub == 2 || in->sub == 4) { /* CALL/JMP near r/m */
			if (x86_read_rm(ctx, m->ops, in, w, &ip, &r) != X86_EMU_OK) {
				*m->fault = r.fault;
				return r.status;
			}
			if (in->sub == 2) {
				rc = push(m, &sp, next, w);
				if (rc != X86_EMU_OK)
					return rc;
				set_sp(ctx, sp);
			}
			ctx->rip = ip & x86_mask(w);
			return X86_EMU_OK;
		}
		if ((in->sub == 3 || in->sub == 5) && in->has_mem) { /* CALL/JMP far m16:16/32 */
			rc = far_pointer(m, &sel, &ip);
			if (rc == X86_EMU_OK && in->sub == 3) {
				rc = push(m, &sp, ctx->seg[X86_CS].sel, w);
				if (rc == X86_EMU_OK)
					rc = push(m, &sp, next, w);
			}
			if (rc != X86_EMU_OK)
				return rc;
			return far_to(m, sel, ip, sp, in->sub == 3);
		}
		return NOT_MINE;
	default:
		return NOT_MINE;
	}

pushed:
	if (rc == X86_EMU_OK) {
		set_sp(ctx, sp);
		ctx->rip = next;
	}
	return rc;
pop_segment:
	rc = pop(m, &sp, &val, w);
	if (rc == X86_EMU_OK)
		rc = load_seg(m, sreg, (u16)val, &seg);
	if (rc != X86_EMU_OK)
		return rc;
	set_sp(ctx, sp);
	ctx->seg[sreg] = seg;
	ctx->rip = next;
	return X86_EMU_OK;
}

int x86_emulate_sys(struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops,
		    const struct x86_sys_ops *sys, bool gp, struct x86_insn *insn,
		    struct x86_emu_result *res)
{
	struct x86_fault f = { 0 };
	struct rm m = { ctx, ops, insn, &res->fault };

	memset(res, 0, sizeof(*res));
	if (ctx->efer & EFER_LMA)
		return res->status = X86_EMU_UNHANDLED;
	int rc = x86_decode(ctx, ops, insn, &f);
	if (rc != X86_DEC_OK) {
		res->fault = f;
		return res->status = rc == X86_DEC_FAULT ? X86_EMU_FAULT : X86_EMU_UNHANDLED;
	}
	rc = privileged(&m, sys);
	if (rc == NOT_MINE && !gp)
		rc = transfers(&m);
	if (rc == NOT_MINE) {
		if (gp) /* vm86 mode runs everything else: the #GP was the guest's own */
			return res->status = raise(&m, VEC_GP, true, 0);
		return x86_emulate(ctx, ops, insn, res);
	}
	if (rc != X86_EMU_FAULT)
		res->fault = (struct x86_fault){ 0 };
	/* Its own MOV SS and POP SS start the shadow too (x86_emulate's say so themselves). */
	if (rc == X86_EMU_OK && insn->map == 0 &&
	    ((insn->opcode == 0x8e && insn->sub == X86_SS) || insn->opcode == 0x17))
		res->mov_ss = true;
	return res->status = rc;
}
