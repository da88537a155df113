/* SPDX-License-Identifier: GPL-2.0-only */
/* x86 instruction decoder: guest-state view, prefixes, opcode maps, ModRM/SIB, lengths, exit-handler operands. */
#ifndef ARCH_X86_DECODE_H
#define ARCH_X86_DECODE_H

#include "lib/types.h"
#include "arch/x86/regs.h" /* RFLAGS, CR and EFER bits */

enum x86_gpr {
	X86_RAX,
	X86_RCX,
	X86_RDX,
	X86_RBX,
	X86_RSP,
	X86_RBP,
	X86_RSI,
	X86_RDI,
	X86_R8,
	X86_R9,
	X86_R10,
	X86_R11,
	X86_R12,
	X86_R13,
	X86_R14,
	X86_R15,
	X86_NR_GPRS
};

enum x86_sreg { X86_ES, X86_CS, X86_SS, X86_DS, X86_FS, X86_GS, X86_NR_SREGS };

/*
 * Segment attributes in the descriptor's own bit order (descriptor bits 40-47, then 52-55), the
 * layout both vendors' saved segment state converts to without loss. Only L and D/B are needed
 * to pick the mode; S/type (expand-down) refine the limit check.
 */
#define X86_SEG_TYPE_EXPDOWN BIT(2) /* with type bit 3 clear: data segment */
#define X86_SEG_TYPE_CODE BIT(3)
#define X86_SEG_S BIT(4)
#define X86_SEG_P BIT(7)
#define X86_SEG_L BIT(9)
#define X86_SEG_DB BIT(10)
#define X86_SEG_G BIT(11)

struct x86_seg {
	u64 base;
	u32 limit; /* byte granular, already scaled by G; real mode too (normally 0xffff) */
	u16 sel;
	u16 attr;
};

/* GDTR or IDTR. */
struct x86_dtr {
	u64 base;
	u32 limit;
};

#define X86_MAX_INSN_LEN 15

/* The value is the default address size in bytes, which is how the decoder uses it. */
enum x86_mode { X86_MODE_16 = 2, X86_MODE_32 = 4, X86_MODE_64 = 8 };

/* Guest state as the caller captured it at the exit; the emulator updates gpr, rip and rflags. */
struct x86_emu_ctx {
	u64 gpr[X86_NR_GPRS];
	u64 rip;
	u64 rflags;
	u64 cr0, cr2, cr3, cr4, efer;
	struct x86_seg seg[X86_NR_SREGS];
	struct x86_dtr gdtr, idtr; /* with seg[]: filled by read_segments */
	u16 ldtr, tr;		   /* selectors (SLDT, STR): filled by read_segments */
	struct x86_dtr ldt;	   /* LDTR's base and limit (LDT selectors): read_segments */
	/* FS, GS, ldtr, tr and ldt were not read: the CPU still holds them (SVM keeps its VMLOAD
	 * set loaded for a vCPU's turn, and reading it there costs a VMSAVE, an exit of its own
	 * under a nested hypervisor). Whoever is about to use one calls x86_segments_wanted. */
	bool segs_partial;
	int cpl;
	u32 max_reps; /* string iterations per x86_emulate call; 0 = X86_EMU_DEFAULT_REPS */
	void *opaque; /* the caller's (e.g. its vCPU); never touched here */
};

/* An exception for the caller to inject. */
struct x86_fault {
	u8 vector;
	bool has_error;
	u32 error_code;
	u64 addr; /* #PF: the linear address (CR2) */
};

#define X86_PF_P BIT(0)
#define X86_PF_W BIT(1)
#define X86_PF_U BIT(2)
#define X86_PF_I BIT(4)

/* What a memory callback returns. */
enum x86_acc {
	X86_ACC_OK = 0,
	X86_ACC_FAULT, /* *fault says what to inject; it arrives pre-filled as a #PF at the address */
	X86_ACC_UNHANDLED, /* the caller cannot perform this access (e.g. no device there) */
};

/*
 * Guest memory, by linear address: the caller walks the guest page tables. Accesses are never
 * split here: one call covers the whole operand even when it crosses a page, and the caller
 * splits it (and reports the fault address of the part that failed).
 * cmpxchg: atomically, if memory equals *expected store *desired, else copy memory into
 * *expected; the emulator learns which happened by comparing *expected afterwards.
 */
struct x86_fpu_req;

struct x86_emu_ops {
	int (*fetch)(const struct x86_emu_ctx *ctx, u64 linear, void *buf, unsigned len,
		     struct x86_fault *fault);
	int (*read)(const struct x86_emu_ctx *ctx, u64 linear, void *buf, unsigned len,
		    struct x86_fault *fault);
	int (*write)(const struct x86_emu_ctx *ctx, u64 linear, const void *buf, unsigned len,
		     struct x86_fault *fault);
	int (*cmpxchg)(const struct x86_emu_ctx *ctx, u64 linear, void *expected,
		       const void *desired, unsigned len, struct x86_fault *fault);
	/* XMM register reg (0-15), all 16 bytes, read into or written from buf: the SSE moves.
	 * NULL: those moves are not emulated. */
	int (*xmm)(const struct x86_emu_ctx *ctx, unsigned reg, void *buf, bool write);
	/* The x87 and MMX memory forms: runs a struct x86_fpu_req (arch/x86/fpu_forms.h) on the
	 * guest's FPU state, as x86_fpu_run does. NULL: those forms are not emulated. */
	int (*fpu)(const struct x86_emu_ctx *ctx, const struct x86_fpu_req *req);
	/* Fills what ctx->segs_partial says is missing and clears it: ctx is the caller's own
	 * state, which the callback rewrites (it is const here only for the emulator). */
	void (*segments)(const struct x86_emu_ctx *ctx);
};

/* Before FS, GS, the LDT or TR of ctx is read. */
static inline void x86_segments_wanted(const struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops)
{
	if (ctx->segs_partial && ops && ops->segments)
		ops->segments(ctx);
}

/* What an exit handler needs to know without emulating; X86_K_OTHER for everything else. */
enum x86_kind {
	X86_K_OTHER,
	X86_K_MOV_FROM_CR, /* gpr <- CR[cr]: x86_set_reg(ctx, gpr, opsize, true, value) */
	X86_K_MOV_TO_CR,   /* CR[cr] <- gpr: x86_get_reg(ctx, gpr, opsize, true) */
	X86_K_CLTS,
	X86_K_LMSW,   /* source: the r/m operand, 16 bits (x86_read_rm) */
	X86_K_SMSW,   /* destination: the r/m operand, 16 bits in memory (x86_write_rm) */
	X86_K_INVLPG, /* mem.linear */
	X86_K_VMCALL,
	X86_K_VMMCALL,
	X86_K_CPUID,
	X86_K_RDMSR,
	X86_K_WRMSR,
	X86_K_RDTSC,
	X86_K_RDTSCP,
	X86_K_HLT,
	X86_K_IN, /* port, port_dx, io_size */
	X86_K_OUT,
	X86_K_INS,  /* io_size, rep; memory at ES:rDI (addrsize) */
	X86_K_OUTS, /* io_size, rep; memory at seg_override (or DS):rSI */
};

#define X86_REG_NONE 0xff

struct x86_mem {
	u8 seg;		/* enum x86_sreg after overrides */
	u8 base, index; /* X86_REG_NONE when absent */
	u8 scale;	/* 1, 2, 4, 8 */
	bool rip_rel;
	s64 disp;
	u64 ea;	    /* effective address, wrapped to the address size */
	u64 linear; /* segment base + ea (no limit check; 32-bit wrap outside long mode) */
};

struct x86_insn {
	u8 len;
	u8 bytes[X86_MAX_INSN_LEN];
	u8 mode;     /* enum x86_mode */
	u8 opsize;   /* 2, 4, 8 (byte forms are the opcode's business) */
	u8 addrsize; /* 2, 4, 8 */
	u8 map;	     /* 0: one byte, 1: 0F, 2: 0F 38, 3: 0F 3A */
	u8 opcode;
	u8 rex;		 /* 0 when absent or cancelled by a later legacy prefix */
	u8 seg_override; /* enum x86_sreg or X86_REG_NONE */
	u8 rep;		 /* 0, 0xf2 or 0xf3: the last one seen */
	bool lock, opsize_prefix, addrsize_prefix;
	bool has_modrm;
	u8 modrm, mod;
	u8 reg; /* ModRM.reg with REX.R */
	u8 sub; /* ModRM.reg without REX: the group selector */
	u8 rm;	/* ModRM.rm with REX.B when it names a register */
	bool has_sib;
	u8 sib;
	bool has_mem; /* ModRM memory operand or moffs */
	struct x86_mem mem;
	u8 imm_len;
	s64 imm;    /* first immediate, sign-extended (moffs and far pointers: zero-extended) */
	s64 imm2;   /* ENTER's second immediate */
	u8 kind;    /* enum x86_kind */
	u8 cr;	    /* MOV CR: control register number */
	u8 gpr;	    /* MOV CR: general register */
	u8 io_size; /* IN/OUT/INS/OUTS: 1, 2, 4 */
	bool port_dx;
	u16 port; /* immediate port (port_dx false) */
};

enum x86_dec_status {
	X86_DEC_OK = 0,
	X86_DEC_UNHANDLED, /* unknown, unsupported or truncated: len may be 0 */
	X86_DEC_FAULT,	   /* *fault: fetch fault, #GP for > 15 bytes, #UD for a bad LOCK or CR */
};

/* All ones in the low `bytes` bytes: operand, address and IP wrap-around. */
static inline u64 x86_mask(unsigned bytes)
{
	return bytes >= 8 ? ~0ull : BIT(bytes * 8) - 1;
}

/* The code size the CPU uses for ctx (real and virtual-8086 mode give X86_MODE_16). */
static inline enum x86_mode x86_ctx_mode(const struct x86_emu_ctx *ctx)
{
	u16 cs = ctx->seg[X86_CS].attr;

	if (!(ctx->cr0 & CR0_PE) || (ctx->rflags & RFLAGS_VM))
		return X86_MODE_16;
	if ((ctx->efer & EFER_LMA) && (cs & X86_SEG_L))
		return X86_MODE_64;
	return (cs & X86_SEG_DB) ? X86_MODE_32 : X86_MODE_16;
}

/* Decodes the instruction at CS:RIP, fetching through ops->fetch. */
int x86_decode(const struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops, struct x86_insn *insn,
	       struct x86_fault *fault);

/*
 * x86_decode for an instruction that exited as a control-register access: MOV CR with no
 * prefix but REX and a register ModRM (a kernel's CR3 load) is decoded without the general
 * decoder, anything else by it. The same result either way; only the cost differs.
 */
int x86_decode_cr(const struct x86_emu_ctx *ctx, const struct x86_emu_ops *ops,
		  struct x86_insn *insn, struct x86_fault *fault);

/*
 * The MOV CR the hardware already decoded (VMX's exit qualification, SVM's decode assists): the
 * fields the CR handlers read, as the decoder would set them; no instruction bytes.
 */
void x86_insn_mov_cr(const struct x86_emu_ctx *ctx, bool to_cr, u8 cr, u8 gpr, u8 len,
		     struct x86_insn *in);

/* The MOV CR form mov_cr decodes (0F 20/22 /r, at most REX, register ModRM, a valid CR), from
 * n bytes at RIP the caller read: true with the fields x86_insn_mov_cr sets. false for
 * anything else, or too few bytes to tell: x86_decode_cr then decides, faults included. */
bool x86_decode_mov_cr_bytes(const struct x86_emu_ctx *ctx, const u8 *b, unsigned n,
			     struct x86_insn *in);

/* The length of the VMCALL or VMMCALL (0F 01 C1 / 0F 01 D9, no prefix) that the n bytes at RIP
 * begin with, 3 in every code size; 0 for anything else (a prefixed one too), which x86_decode
 * then settles. An exit of either knows its instruction, only not always its length. */
static inline unsigned x86_hypercall_len(const u8 *b, unsigned n)
{
	return n >= 3 && b[0] == 0x0f && b[1] == 0x01 && (b[2] == 0xc1 || b[2] == 0xd9) ? 3 : 0;
}

/* Decodes from bytes the caller already has (decode assists, tests); never fetches. */
int x86_decode_bytes(const struct x86_emu_ctx *ctx, const u8 *bytes, size_t n,
		     struct x86_insn *insn, struct x86_fault *fault);

#ifdef UMBRA_HOST
/* The same as x86_decode_cr would (its fast path first): tests compare the two. */
int x86_decode_bytes_cr(const struct x86_emu_ctx *ctx, const u8 *bytes, size_t n,
			struct x86_insn *insn, struct x86_fault *fault);
#endif

/* Whether a linear address is canonical under the current paging (48 or 57 bits). */
bool x86_canonical(const struct x86_emu_ctx *ctx, u64 linear);

/* RIP after insn (wrapped to the code size). */
u64 x86_next_rip(const struct x86_emu_ctx *ctx, const struct x86_insn *insn);

#endif
