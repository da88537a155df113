/* SPDX-License-Identifier: GPL-2.0-only */
/* The x87 and MMX forms with a memory operand that the emulator runs on the live FPU state: one list for the emulator, the executor and the tests. */
#ifndef ARCH_X86_FPU_FORMS_H
#define ARCH_X86_FPU_FORMS_H

#include "lib/types.h"

/*
 * X(name, opcode, sub, width, store, waits, insn)
 *   x87 (D8-DF): sub is ModRM.reg; insn the AT&T mnemonic taking the memory operand.
 *   MMX (0F xx, no 66/F2/F3 prefix): sub is the REX.W the form needs (2: either); insn names
 *   the move between memory and MM<ModRM.reg> (REX.R ignored), which the executor picks by
 *   width and direction.
 *   width: bytes in memory; store: the form writes memory (else reads it); waits: a pending
 *   unmasked x87 exception (FSW.ES) raises #MF before it runs (the FN* control forms do not
 *   wait).
 * The environment forms are X86_X87_ENV_FORMS below, FXSAVE/FXRSTOR X86_FXSR_FORMS. Not
 * here: XSAVE and kin, which #UD on device memory as natively (Umbra announces no XSAVE, so
 * a guest's CR4.OSXSAVE stays clear).
 */
#define X86_X87_ARITH(X, tag, op, suffix, w) \
	X(FADD_##tag, op, 0, w, false, true, "fadd" suffix) \
	X(FMUL_##tag, op, 1, w, false, true, "fmul" suffix) \
	X(FCOM_##tag, op, 2, w, false, true, "fcom" suffix) \
	X(FCOMP_##tag, op, 3, w, false, true, "fcomp" suffix) \
	X(FSUB_##tag, op, 4, w, false, true, "fsub" suffix) \
	X(FSUBR_##tag, op, 5, w, false, true, "fsubr" suffix) \
	X(FDIV_##tag, op, 6, w, false, true, "fdiv" suffix) \
	X(FDIVR_##tag, op, 7, w, false, true, "fdivr" suffix)
#define X86_X87_IARITH(X, tag, op, suffix, w) \
	X(FIADD_##tag, op, 0, w, false, true, "fiadd" suffix) \
	X(FIMUL_##tag, op, 1, w, false, true, "fimul" suffix) \
	X(FICOM_##tag, op, 2, w, false, true, "ficom" suffix) \
	X(FICOMP_##tag, op, 3, w, false, true, "ficomp" suffix) \
	X(FISUB_##tag, op, 4, w, false, true, "fisub" suffix) \
	X(FISUBR_##tag, op, 5, w, false, true, "fisubr" suffix) \
	X(FIDIV_##tag, op, 6, w, false, true, "fidiv" suffix) \
	X(FIDIVR_##tag, op, 7, w, false, true, "fidivr" suffix)

#define X86_X87_FORMS(X) \
	X86_X87_ARITH(X, M32, 0xd8, "s", 4) \
	X86_X87_IARITH(X, M32INT, 0xda, "l", 4) \
	X86_X87_ARITH(X, M64, 0xdc, "l", 8) \
	X86_X87_IARITH(X, M16INT, 0xde, "s", 2) \
	X(FLD_M32, 0xd9, 0, 4, false, true, "flds") \
	X(FST_M32, 0xd9, 2, 4, true, true, "fsts") \
	X(FSTP_M32, 0xd9, 3, 4, true, true, "fstps") \
	X(FLDCW, 0xd9, 5, 2, false, true, "fldcw") \
	X(FNSTCW, 0xd9, 7, 2, true, false, "fnstcw") \
	X(FILD_M32, 0xdb, 0, 4, false, true, "fildl") \
	X(FISTTP_M32, 0xdb, 1, 4, true, true, "fisttpl") \
	X(FIST_M32, 0xdb, 2, 4, true, true, "fistl") \
	X(FISTP_M32, 0xdb, 3, 4, true, true, "fistpl") \
	X(FLD_M80, 0xdb, 5, 10, false, true, "fldt") \
	X(FSTP_M80, 0xdb, 7, 10, true, true, "fstpt") \
	X(FLD_M64, 0xdd, 0, 8, false, true, "fldl") \
	X(FISTTP_M64, 0xdd, 1, 8, true, true, "fisttpll") \
	X(FST_M64, 0xdd, 2, 8, true, true, "fstl") \
	X(FSTP_M64, 0xdd, 3, 8, true, true, "fstpl") \
	X(FNSTSW, 0xdd, 7, 2, true, false, "fnstsw") \
	X(FILD_M16, 0xdf, 0, 2, false, true, "filds") \
	X(FISTTP_M16, 0xdf, 1, 2, true, true, "fisttps") \
	X(FIST_M16, 0xdf, 2, 2, true, true, "fists") \
	X(FISTP_M16, 0xdf, 3, 2, true, true, "fistps") \
	X(FBLD, 0xdf, 4, 10, false, true, "fbld") \
	X(FILD_M64, 0xdf, 5, 8, false, true, "fildll") \
	X(FBSTP, 0xdf, 6, 10, true, true, "fbstp") \
	X(FISTP_M64, 0xdf, 7, 8, true, true, "fistpll")

#define X86_MMX_FORMS(X) \
	X(MOVD_LOAD, 0x6e, 0, 4, false, true, "movd") \
	X(MOVQ_LOAD_6E, 0x6e, 1, 8, false, true, "movq") \
	X(MOVQ_LOAD, 0x6f, 2, 8, false, true, "movq") \
	X(MOVD_STORE, 0x7e, 0, 4, true, true, "movd") \
	X(MOVQ_STORE_7E, 0x7e, 1, 8, true, true, "movq") \
	X(MOVQ_STORE, 0x7f, 2, 8, true, true, "movq") \
	X(MOVNTQ, 0xe7, 2, 8, true, true, "movntq")

/*
 * The x87 environment forms: E(name, opcode, sub, registers, store, waits, insn). Their image
 * in memory depends on the guest's mode and operand size: the environment (control, status
 * and tag words, instruction and operand pointers, opcode) in 14 bytes (16-bit) or 28 (32-bit),
 * in the real-mode layout (real and virtual-8086 mode: linear pointers split around the
 * opcode, no selectors) or the protected-mode one; FNSAVE/FRSTOR (registers) add the eight
 * 10-byte registers. The executor runs them on the 32-bit protected-mode image (what they
 * write in Umbra's 64-bit mode), which x86_fpu_env_to_guest/from_guest convert.
 */
#define X86_X87_ENV_FORMS(E) \
	E(FLDENV, 0xd9, 4, false, false, true, "fldenv") \
	E(FNSTENV, 0xd9, 6, false, true, false, "fnstenv") \
	E(FRSTOR, 0xdd, 4, true, false, true, "frstor") \
	E(FNSAVE, 0xdd, 6, true, true, false, "fnsave")

/*
 * FXSAVE/FXRSTOR (0F AE /0 /1): F(name, insn). The executor runs them on a 512-byte, 16-byte
 * aligned buffer in Umbra's 64-bit mode, which without REX.W writes and reads the legacy
 * layout (32-bit FIP and FDP with FCS and FDS) and with it the 64-bit pointers; both take
 * XMM0-15 there, so the emulator moves only the part the guest's mode has.
 */
#define X86_FXSR_FORMS(F) \
	F(FXSAVE, "fxsave") \
	F(FXSAVE64, "fxsave64") \
	F(FXRSTOR, "fxrstor") \
	F(FXRSTOR64, "fxrstor64")

#define X86_FPU_ENUM(name, ...) X86_FPU_##name,
enum x86_fpu_form {
	X86_X87_FORMS(X86_FPU_ENUM) X86_FPU_MMX_FIRST,
	X86_FPU_MMX_BEFORE = X86_FPU_MMX_FIRST - 1,
	X86_MMX_FORMS(X86_FPU_ENUM) X86_FPU_NR_FORMS,
	/* Not forms: the whole state to or from a 512-byte, 16-byte aligned FXSAVE image. */
	X86_FPU_SAVE = X86_FPU_NR_FORMS,
	X86_FPU_RESTORE,
	/* The environment forms, on a X86_FPU_ENV_IMAGE-byte buffer in the 32-bit protected
	 * layout. */
	X86_FPU_ENV_FIRST,
	X86_FPU_ENV_BEFORE = X86_FPU_ENV_FIRST - 1,
	X86_X87_ENV_FORMS(X86_FPU_ENUM) X86_FPU_ENV_END,
	/* FXSAVE/FXRSTOR, on a 512-byte, 16-byte aligned buffer. */
	X86_FPU_FXSR_BEFORE = X86_FPU_ENV_END - 1,
	X86_FXSR_FORMS(X86_FPU_ENUM)
};
#undef X86_FPU_ENUM

#define X86_FPU_ENV16 14 /* bytes of the 16-bit environment */
#define X86_FPU_ENV32 28 /* and of the 32-bit one */
#define X86_FPU_REGS 80	 /* ST0-ST7 after it, 10 bytes each */
#define X86_FPU_ENV_IMAGE (X86_FPU_ENV32 + X86_FPU_REGS)

/* The FXSAVE image (SDM vol. 1, table 10-2): MXCSR, the bits FXRSTOR accepts in it (0: the
 * default, all but DAZ), XMM0 with the other registers after it, 16 bytes each. */
#define X86_FXSAVE_SIZE 512
#define X86_FXSAVE_MXCSR 24
#define X86_FXSAVE_MXCSR_MASK 28
#define X86_FXSAVE_XMM 160
#define X86_MXCSR_MASK_DEFAULT 0xffbfu

struct x86_fpu_env_desc {
	u8 opcode, sub;
	bool regs, store, waits;
};

/* Indexed by form - X86_FPU_ENV_FIRST. */
extern const struct x86_fpu_env_desc x86_fpu_env_forms[X86_FPU_ENV_END - X86_FPU_ENV_FIRST];

/* The guest's image: how many bytes, and the conversions from and to the executor's 32-bit
 * protected-mode image (X86_FPU_ENV_IMAGE bytes; the registers copied when regs). real: real
 * or virtual-8086 mode; o16: 16-bit operand size. Fields a layout lacks load as zero. */
unsigned x86_fpu_env_len(bool o16, bool regs);
void x86_fpu_env_to_guest(const u8 *image, u8 *guest, bool real, bool o16, bool regs);
void x86_fpu_env_from_guest(const u8 *guest, u8 *image, bool real, bool o16, bool regs);

struct x86_fpu_form_desc {
	u8 opcode, sub, width;
	bool store, waits;
};

/* Indexed by enum x86_fpu_form (below X86_FPU_NR_FORMS). */
extern const struct x86_fpu_form_desc x86_fpu_forms[X86_FPU_NR_FORMS];

/* One request to the executor (struct x86_emu_ops' fpu). fip, fdp and fop are the guest's
 * instruction and operand, which the x87 forms leave in the FPU state in place of the
 * executor's own code and stack addresses. */
struct x86_fpu_req {
	u16 form;  /* enum x86_fpu_form */
	u8 reg;	   /* MMX: the register, 0-7 */
	u16 fop;   /* opcode bits 10:8 and ModRM */
	void *buf; /* the memory operand, the FXSAVE image, or the environment image */
	u64 fip, fdp;
};

/*
 * Runs req on the FPU state now in the registers (the guest's, while Umbra handles its exits):
 * X86_ACC_OK, or X86_ACC_UNHANDLED for a form this CPU lacks (FISTTP without SSE3: the #UD
 * the guest would get natively). The caller has checked CR0 and FSW.ES.
 */
int x86_fpu_run(const struct x86_fpu_req *req);

#endif
