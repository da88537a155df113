/* SPDX-License-Identifier: GPL-2.0-only */
/* The x87 and MMX executor: runs one memory form of arch/x86/fpu_forms.h on the live FPU state against a buffer. */
#include "arch/x86/fpu_forms.h"
#include "arch/x86/decode.h" /* X86_ACC_* */
#include "arch/x86/fpu.h"

#define DESC(name, op, sub, w, st, wait, insn) [X86_FPU_##name] = { op, sub, w, st, wait },
const struct x86_fpu_form_desc x86_fpu_forms[X86_FPU_NR_FORMS] = { X86_X87_FORMS(DESC)
									   X86_MMX_FORMS(DESC) };
#undef DESC

/* FXSAVE's image: FOP, then the 64-bit FIP and FDP (the REX.W layout fpu_save writes). */
#define FXSAVE_FOP 6
#define FXSAVE_FIP 8
#define FXSAVE_FDP 16
#define FSW_ES BIT(7)

static bool has_sse3(void)
{
	u32 a = 1, b, c = 0, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return c & 1;
}

static void x87(unsigned form, void *buf)
{
	switch (form) {
#define RUN(name, op, sub, w, st, wait, insn) \
	case X86_FPU_##name: \
		__asm__ volatile(insn " (%0)" : : "r"(buf) : "memory"); \
		break;
		X86_X87_FORMS(RUN)
#undef RUN
	}
}

#define MMX_REGS(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#define LOAD32(n) \
	case n: \
		__asm__ volatile("movd (%0), %%mm" #n : : "r"(buf) : "memory"); \
		break;
#define LOAD64(n) \
	case n: \
		__asm__ volatile("movq (%0), %%mm" #n : : "r"(buf) : "memory"); \
		break;
#define STORE32(n) \
	case n: \
		__asm__ volatile("movd %%mm" #n ", (%0)" : : "r"(buf) : "memory"); \
		break;
#define STORE64(n) \
	case n: \
		__asm__ volatile("movq %%mm" #n ", (%0)" : : "r"(buf) : "memory"); \
		break;

/* MOVNTQ's hint means nothing for a buffer: every store is a MOVD or a MOVQ. */
static void mmx(const struct x86_fpu_form_desc *f, unsigned reg, void *buf)
{
	switch ((f->store ? 2 : 0) | (f->width == 8)) {
	case 0:
		switch (reg) {
			MMX_REGS(LOAD32)
		}
		break;
	case 1:
		switch (reg) {
			MMX_REGS(LOAD64)
		}
		break;
	case 2:
		switch (reg) {
			MMX_REGS(STORE32)
		}
		break;
	default:
		switch (reg) {
			MMX_REGS(STORE64)
		}
		break;
	}
}

/* The control forms leave the last instruction and operand pointers alone. */
static bool updates_pointers(unsigned form)
{
	return form < X86_FPU_MMX_FIRST && form != X86_FPU_FLDCW && form != X86_FPU_FNSTCW &&
	       form != X86_FPU_FNSTSW;
}

/*
 * The x87 forms leave their instruction and operand addresses in the FPU state (FNSTENV and
 * FXSAVE show them): there they must be the guest's, not Umbra's code and stack. FXRSTOR
 * loads them on Intel; AMD's loads them only with an exception pending (FSW.ES), so without
 * one they go in by FLDENV too (32-bit offsets), which then cannot raise anything.
 */
static void set_pointers(const struct x86_fpu_req *req)
{
	u8 image[512] __attribute__((aligned(16)));
	u32 env[7];
	u16 sw;

	/* FLDENV waits: only with nothing pending (and the values it loads raise nothing). */
	__asm__ volatile("fnstsw %0" : "=m"(sw) : : "memory");
	if (!(sw & FSW_ES)) {
		__asm__ volatile("fnstenv %0" : "=m"(env) : : "memory");
		env[3] = (u32)req->fip;
		env[4] = (env[4] & 0xffffu) | (u32)(req->fop & 0x7ff) << 16;
		env[5] = (u32)req->fdp;
		/* FNSTENV masked every exception: FLDENV puts the control word back. */
		__asm__ volatile("fldenv %0" : : "m"(env) : "memory");
	}
	fpu_save(image);
	memcpy(image + FXSAVE_FOP, &req->fop, 2);
	memcpy(image + FXSAVE_FIP, &req->fip, 8);
	memcpy(image + FXSAVE_FDP, &req->fdp, 8);
	fpu_restore(image);
}

int x86_fpu_run(const struct x86_fpu_req *req)
{
	unsigned form = req->form;

	switch (form) {
	case X86_FPU_SAVE:
		fpu_save(req->buf);
		return X86_ACC_OK;
	case X86_FPU_RESTORE:
		fpu_restore(req->buf);
		return X86_ACC_OK;
		/* The environment forms carry their own pointers: nothing to set after them. */
#define ENV(name, op, sub, regs, st, wait, insn) \
	case X86_FPU_##name: \
		__asm__ volatile(insn " (%0)" : : "r"(req->buf) : "memory"); \
		return X86_ACC_OK;
		X86_X87_ENV_FORMS(ENV)
#undef ENV
		/* FXRSTOR's MXCSR was checked against the mask: nothing here can fault. */
#define FXSR(name, insn) \
	case X86_FPU_##name: \
		__asm__ volatile(insn " (%0)" : : "r"(req->buf) : "memory"); \
		return X86_ACC_OK;
		X86_FXSR_FORMS(FXSR)
#undef FXSR
	}
	if (form >= X86_FPU_NR_FORMS || req->reg > 7)
		return X86_ACC_UNHANDLED;
	if ((form == X86_FPU_FISTTP_M16 || form == X86_FPU_FISTTP_M32 ||
	     form == X86_FPU_FISTTP_M64) &&
	    !has_sse3())
		return X86_ACC_UNHANDLED;
	if (form >= X86_FPU_MMX_FIRST)
		mmx(&x86_fpu_forms[form], req->reg, req->buf);
	else
		x87(form, req->buf);
	if (updates_pointers(form))
		set_pointers(req);
	return X86_ACC_OK;
}
