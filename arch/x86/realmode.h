/* SPDX-License-Identifier: GPL-2.0-only */
/* Real mode where the CPU cannot run it as the guest wrote it: IVT delivery, segment loads, mode switches, privileged instructions. */
#ifndef ARCH_X86_REALMODE_H
#define ARCH_X86_REALMODE_H

#include "arch/x86/emulate.h"
#include "arch/x86/segment.h" /* x86_realmode_load_seg */

/*
 * What only the caller can do. Each returns 0, or -1 when it has raised a fault itself or
 * ended the guest: the emulator then returns X86_EMU_RETRY with RIP on the instruction.
 */
struct x86_sys_ops {
	/* MOV to CR0/CR3/CR4 (LMSW and CLTS arrive as CR0 values): checks, mode changes. */
	int (*write_cr)(struct x86_emu_ctx *ctx, unsigned cr, u64 val);
	/* IN (*val filled) or OUT of size 1, 2 or 4 bytes. */
	int (*io)(struct x86_emu_ctx *ctx, u16 port, unsigned size, bool in, u32 *val);
	/* HLT, RIP already past it. */
	int (*halt)(struct x86_emu_ctx *ctx);
	/* RDMSR (*val filled) or WRMSR. */
	int (*msr)(struct x86_emu_ctx *ctx, u32 msr, bool write, u64 *val);
};

/*
 * Emulates the instruction at CS:RIP, for a guest whose code runs in virtual-8086 mode or
 * cannot be run natively at all (segment state a switch into or out of protected mode left).
 * gp: the CPU raised #GP at it in virtual-8086 mode, so only the instructions that mode
 * refuses are emulated (CLI STI PUSHF POPF INT n INT3 INTO IRET HLT, IN OUT INS OUTS with REP
 * in batches of ctx->max_reps like x86_emulate's strings, MOV to/from CR, LMSW CLTS SMSW,
 * LGDT LIDT SGDT SIDT, RDMSR WRMSR, WBINVD INVD, INVLPG with paging off) and anything else
 * gets the #GP (a limit violation, say). Not modelled: MOV DR, XSETBV. Without gp it also runs the segment loads (MOV/PUSH/POP sreg, far JMP,
 * CALL and RET: descriptors from the GDT in protected mode), near JMP/CALL/RET, MOV r, imm,
 * and every instruction x86_emulate knows. Results as x86_emulate's: UNHANDLED leaves
 * everything unchanged (the caller ends the guest, naming the instruction).
 */
int x86_emulate_sys(struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops,
		    const struct x86_sys_ops *sys, bool gp, struct x86_insn *insn,
		    struct x86_emu_result *res);

/*
 * Delivers vector as real mode does: FLAGS, CS and ip (the return address) pushed as 16-bit
 * words on SS:SP, IF, TF, AC and RF cleared, CS:IP from the interrupt vector table at IDTR.
 * X86_EMU_OK, or X86_EMU_FAULT with *fault (the entry beyond IDTR's limit: #GP; a push or the
 * table read failing) and ctx unchanged.
 */
int x86_realmode_deliver(struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops, u8 vector, u64 ip,
			 struct x86_fault *fault);

#endif
