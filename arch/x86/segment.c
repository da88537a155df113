/* SPDX-License-Identifier: GPL-2.0-only */
/* Segment register loads: the descriptor fetch and the checks the CPU makes, for both emulators. */
#include "arch/x86/segment.h"
#include "arch/x86/emu_status.h"

static int raise(struct x86_fault *fault, u8 vector, u32 error)
{
	*fault = (struct x86_fault){ .vector = vector, .has_error = true, .error_code = error };
	return X86_EMU_FAULT;
}

/* The descriptor table by linear address (32-bit wrap outside long mode). */
static int table(const struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops, bool write,
		 u64 linear, void *buf, unsigned len, struct x86_fault *fault)
{
	if (!(ctx->efer & EFER_LMA))
		linear = (u32)linear;
	*fault = (struct x86_fault){ .vector = VEC_PF,
				     .has_error = true,
				     .error_code = write ? X86_PF_W : 0,
				     .addr = linear };
	int r = write ? ops->write(ctx, linear, buf, len, fault)
		      : ops->read(ctx, linear, buf, len, fault);
	if (r == X86_ACC_OK)
		return X86_EMU_OK;
	return r == X86_ACC_FAULT ? X86_EMU_FAULT : X86_EMU_UNHANDLED;
}

void x86_realmode_load_seg(struct x86_seg *s, u16 sel)
{
	s->sel = sel;
	s->base = (u64)sel << 4;
	if (!(s->attr & X86_SEG_P)) {
		s->attr = X86_SEG_P | X86_SEG_S | 0x3;
		s->limit = 0xffff;
	}
}

/* Whether a descriptor's privilege lets sreg take it at the context's CPL. */
static bool privilege_ok(const struct x86_emu_ctx *ctx, unsigned sreg, u16 sel, u16 attr)
{
	unsigned rpl = sel & 3, dpl = (attr >> 5) & 3, cpl = (unsigned)ctx->cpl;
	bool conforming = (attr & X86_SEG_TYPE_CODE) && (attr & X86_SEG_TYPE_EXPDOWN);

	if (sreg == X86_CS)
		return true; /* far transfers check CS themselves */
	if (sreg == X86_SS)
		return rpl == cpl && dpl == cpl;
	return conforming || (rpl <= dpl && cpl <= dpl);
}

int x86_load_segment(const struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops, unsigned sreg,
		     u16 sel, struct x86_seg *out, struct x86_fault *fault)
{
	u16 err = sel & ~3u;

	*out = ctx->seg[sreg];
	if (!(ctx->cr0 & CR0_PE) || (ctx->rflags & RFLAGS_VM)) {
		x86_realmode_load_seg(out, sel);
		return X86_EMU_OK;
	}
	if (!err) {
		if (sreg == X86_SS && x86_ctx_mode(ctx) == X86_MODE_64 && ctx->cpl < 3 &&
		    (sel & 3) == (unsigned)ctx->cpl) {
			/* 64-bit mode's null SS below ring 3: usable, its DPL the CPL (which VMX
			 * reads from SS), flat as the CPU treats it. */
			*out = (struct x86_seg){ .sel = sel,
						 .limit = 0xffffffff,
						 .attr = (u16)(X86_SEG_P | X86_SEG_S | 3 |
							       ctx->cpl << 5 | X86_SEG_DB |
							       X86_SEG_G) };
			return X86_EMU_OK;
		}
		if (sreg == X86_CS || sreg == X86_SS)
			return raise(fault, VEC_GP, 0);
		*out = (struct x86_seg){ .sel = sel }; /* a null selector: unusable */
		return X86_EMU_OK;
	}
	/* TI names the LDT; a null LDTR is no table at all (its cached limit means nothing). */
	const struct x86_dtr *dt = (sel & 4) ? &ctx->ldt : &ctx->gdtr;
	u32 off = sel & ~7u;
	if (((sel & 4) && !(ctx->ldtr & ~3u)) || off + 7 > dt->limit)
		return raise(fault, VEC_GP, err);
	u64 d;
	int rc = table(ctx, ops, false, dt->base + off, &d, 8, fault);
	if (rc != X86_EMU_OK)
		return rc;
	u16 attr = (u16)(((d >> 40) & 0xff) | (((d >> 52) & 0xf) << 8));
	u32 limit = (u32)((d & 0xffff) | ((d >> 32) & 0xf0000));
	if (attr & X86_SEG_G)
		limit = (limit << 12) | 0xfff;
	bool code = attr & X86_SEG_TYPE_CODE, rw = attr & 2;
	bool fits = sreg == X86_CS ? code : sreg == X86_SS ? !code && rw : !code || rw;
	if (!(attr & X86_SEG_S) || !fits || !privilege_ok(ctx, sreg, sel, attr))
		return raise(fault, VEC_GP, err);
	if (!(attr & X86_SEG_P))
		return raise(fault, sreg == X86_SS ? VEC_SS : VEC_NP, err);
	if (!(attr & 1)) {
		u8 type = (u8)(attr | 1);
		attr |= 1;
		rc = table(ctx, ops, true, dt->base + off + 5, &type, 1, fault);
		if (rc != X86_EMU_OK)
			return rc;
	}
	*out = (struct x86_seg){ .base = ((d >> 16) & 0xffffff) | ((d >> 32) & 0xff000000),
				 .limit = limit,
				 .sel = sel,
				 .attr = attr };
	return X86_EMU_OK;
}
