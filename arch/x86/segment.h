/* SPDX-License-Identifier: GPL-2.0-only */
/* Segment register loads: the descriptor fetch and the checks the CPU makes, for both emulators. */
#ifndef ARCH_X86_SEGMENT_H
#define ARCH_X86_SEGMENT_H

#include "arch/x86/decode.h"

/*
 * Loads sel into segment register sreg as MOV/POP Sreg and far transfers do. Real and
 * virtual-8086 mode set selector and base only. Protected and long mode read the GDT, or the
 * LDT for a selector with TI set (ctx->ldt; with a null LDTR every such selector is #GP(sel)),
 * and check what the CPU checks: the table limit, type, privilege (data segments: RPL and CPL
 * against DPL unless conforming code; SS: RPL and DPL equal CPL), presence (#NP, #SS for SS),
 * setting the descriptor's accessed bit in the table as the CPU does. A null selector is #GP(0)
 * for CS and SS, but for SS in 64-bit mode at CPL < 3 with RPL = CPL. X86_EMU_OK with *out, X86_EMU_FAULT with *fault, nothing loaded
 * (enum x86_emu_status, arch/x86/emu_status.h).
 */
int x86_load_segment(const struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops, unsigned sreg,
		     u16 sel, struct x86_seg *out, struct x86_fault *fault);

/* A real-mode segment as a load in real mode leaves it: base sel * 16, limit and attributes
 * kept (present writable data if it was unusable). */
void x86_realmode_load_seg(struct x86_seg *s, u16 sel);

#endif
