/* SPDX-License-Identifier: GPL-2.0-only */
/* x86 instruction emulator: the memory-writing and MMIO-touching instructions, on a decoded x86_insn. */
#ifndef ARCH_X86_EMULATE_H
#define ARCH_X86_EMULATE_H

#include "arch/x86/decode.h"
#include "arch/x86/emu_status.h"
#include "arch/x86/fpu_forms.h"

/* String iterations per call when ctx->max_reps is 0: bounds the time a guest can hold us. */
#define X86_EMU_DEFAULT_REPS 256

/* clang-format off */
struct x86_emu_result {
	int status;
	struct x86_fault fault;
	u64 linear;        /* the first memory operand touched, and its size */
	u16 width;
	bool wrote;        /* memory was written */
	u64 reps;          /* string iterations run by this call */
	bool rep_incomplete; /* iterations remain: RIP left on the instruction so the guest re-runs it */
	bool single_step;  /* completed with RFLAGS.TF set: the caller owes the guest a #DB trap
			      (not after MOV SS: the CPU raises it after the next instruction) */
	bool seg_loaded;   /* a segment register changed in ctx->seg: the caller writes them back */
	bool mov_ss;       /* MOV SS or POP SS: the caller starts the shadow the CPU would, holding
			      interrupts, NMIs and debug traps for the next instruction */
};
/* clang-format on */

/*
 * Emulates insn (from x86_decode on the same ctx) against ctx and guest memory:
 *   MOV 88-8B, C6/C7 /0, A0-A3 (moffs), 0F C3 (MOVNTI); MOVZX/MOVSX 0F B6/B7/BE/BF, MOVSXD 63;
 *   ADD/OR/ADC/SBB/AND/SUB/XOR/CMP 00-3D and 80-83; TEST 84/85, A8/A9, F6/F7 /0; NOT/NEG/MUL/
 *   IMUL/DIV/IDIV F6/F7 /2-/7 (#DE as the CPU); IMUL 0F AF, 69, 6B; ROL/ROR/RCL/RCR/SHL/SHR/SAR
 *   C0/C1/D0-D3; INC/DEC FE/FF /0 /1 and 40-4F outside 64-bit mode; XCHG 86/87; XADD 0F C0/C1;
 *   CMPXCHG 0F B0/B1; CMPXCHG8B/16B 0F C7 /1; BT/BTS/BTR/BTC 0F A3/AB/B3/BB and 0F BA /4-/7;
 *   MOVS/CMPS/STOS/LODS/SCAS A4-A7/AA-AF with REP, REPE/REPNE (ZF ends CMPS and SCAS);
 *   CMOVcc 0F 40-4F, SETcc 0F 90-9F; BSF/BSR 0F BC/BD (TZCNT/LZCNT with F3); POPCNT F3 0F B8; SLDT/STR 0F 00
 *   /0 /1, SGDT/SIDT/SMSW 0F 01 /0 /1 /4; MOV r/m, Sreg 8C; MOV Sreg, r/m 8E; POP Sreg 07 17 1F
 *   0F A1/A9; LES LDS C4/C5, LSS LFS LGS 0F B2/B4/B5; CMC CLC STC CLD STD SAHF LAHF;
 *   the SSE moves of 4, 8 and 16 bytes through ops->xmm (see sse_forms in emulate.c); the x87
 *   and MMX memory forms of arch/x86/fpu_forms.h through ops->fpu (#NM, #MF, #UD as the CPU),
 *   FXSAVE/FXRSTOR 0F AE /0 /1 among them (#GP(0) misaligned or for a bad MXCSR); XSAVE,
 *   XRSTOR, XSAVEOPT 0F AE /4-/6: #UD while CR4.OSXSAVE is clear;
 *   PUSH/POP r 50-5F, PUSH imm 68/6A.
 *   Register and memory operands alike.
 * Writes and read-modify-writes reach ops->write once per operand with its full width, even
 * across pages. LOCKed read-modify-writes and XCHG with memory go through ops->cmpxchg.
 * The exit handler's use: OK -> resume (inject #DB if single_step); FAULT -> inject res->fault;
 * RETRY -> resume unchanged; UNHANDLED -> the page-table path unshadows the frame, counts it
 * and lets the guest run the instruction natively.
 */
int x86_emulate(struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops, const struct x86_insn *insn,
		struct x86_emu_result *res);

/* x86_decode then x86_emulate; a decode fault is reported as X86_EMU_FAULT. */
int x86_emulate_at_rip(struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops,
		       struct x86_insn *insn, struct x86_emu_result *res);

/* Reads insn's r/m operand with `width` bytes (LMSW's source, MOV to CR's register). */
int x86_read_rm(const struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops,
		const struct x86_insn *insn, unsigned width, u64 *val, struct x86_emu_result *res);

/* Writes val to insn's r/m operand with `width` bytes (SMSW's destination). */
int x86_write_rm(struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops,
		 const struct x86_insn *insn, unsigned width, u64 val, struct x86_emu_result *res);

/* Whether condition cc (the low nibble of Jcc, SETcc, CMOVcc) holds under rflags. */
bool x86_condition(u64 rflags, unsigned cc);

/* General register access with x86 partial-register rules (rex selects SPL.. over AH..). */
u64 x86_get_reg(const struct x86_emu_ctx *ctx, unsigned reg, unsigned width, bool rex);
void x86_set_reg(struct x86_emu_ctx *ctx, unsigned reg, unsigned width, bool rex, u64 val);

#endif
