/* SPDX-License-Identifier: GPL-2.0-only */
/* The x87 environment's memory layouts by mode and operand size, to and from the 32-bit protected-mode image the executor runs FLDENV/FNSTENV/FRSTOR/FNSAVE on. */
#include "arch/x86/fpu_forms.h"
#include "lib/string.h"

#define DESC(name, op, sub, regs, st, wait, insn) \
	[X86_FPU_##name - X86_FPU_ENV_FIRST] = { op, sub, regs, st, wait },
const struct x86_fpu_env_desc x86_fpu_env_forms[X86_FPU_ENV_END - X86_FPU_ENV_FIRST] = {
	X86_X87_ENV_FORMS(DESC)
};
#undef DESC

/* The 32-bit protected-mode environment's words (SDM vol. 1, figure 8-9); the other layouts
 * keep the same order, in 2-byte words for 16 bits. */
enum { W_FCW, W_FSW, W_FTW, W_FIP, W_FCS_FOP, W_FDP, W_FDS, ENV_WORDS };

/* Word i of an environment whose words are size bytes (a 2-byte put keeps the low half). */
static u32 get(const u8 *p, unsigned i, unsigned size)
{
	u32 v = 0;

	memcpy(&v, p + i * size, size);
	return v;
}

static void put(u8 *p, unsigned i, unsigned size, u32 v)
{
	memcpy(p + i * size, &v, size);
}

unsigned x86_fpu_env_len(bool o16, bool regs)
{
	return (o16 ? X86_FPU_ENV16 : X86_FPU_ENV32) + (regs ? X86_FPU_REGS : 0);
}

/*
 * Protected mode: FIP, FCS (in 32 bits with the opcode above it), FDP and FDS, each in its own
 * word, the same in both sizes but for the width. Real and virtual-8086 mode: no selectors; a
 * pointer's low 16 bits in one word, its high bits (4 in 16 bits, 16 in 32) at bit 12 of the
 * next, the opcode's 11 bits below the instruction pointer's (SDM vol. 1, figures 8-10 to 8-12).
 * The control, status and tag words go as they are (the 32-bit image's reserved upper halves
 * as the CPU wrote them).
 */
void x86_fpu_env_to_guest(const u8 *image, u8 *guest, bool real, bool o16, bool regs)
{
	unsigned size = o16 ? 2 : 4;
	u32 hi = o16 ? 0xf : 0xffff, fip = get(image, W_FIP, 4), fdp = get(image, W_FDP, 4);
	u32 fop = (get(image, W_FCS_FOP, 4) >> 16) & 0x7ff;

	for (unsigned i = W_FCW; i < ENV_WORDS; i++)
		put(guest, i, size, get(image, i, 4));
	if (real) {
		put(guest, W_FIP, size, fip & 0xffff);
		put(guest, W_FCS_FOP, size, ((fip >> 16) & hi) << 12 | fop);
		put(guest, W_FDP, size, fdp & 0xffff);
		put(guest, W_FDS, size, ((fdp >> 16) & hi) << 12);
	}
	if (regs)
		memcpy(guest + ENV_WORDS * size, image + X86_FPU_ENV32, X86_FPU_REGS);
}

void x86_fpu_env_from_guest(const u8 *guest, u8 *image, bool real, bool o16, bool regs)
{
	unsigned size = o16 ? 2 : 4;
	u32 hi = o16 ? 0xf : 0xffff, w4 = get(guest, W_FCS_FOP, size);

	for (unsigned i = W_FCW; i < ENV_WORDS; i++)
		put(image, i, 4, get(guest, i, size));
	if (real) {
		put(image, W_FIP, 4, (get(guest, W_FIP, size) & 0xffff) | ((w4 >> 12) & hi) << 16);
		put(image, W_FCS_FOP, 4, (w4 & 0x7ff) << 16);
		put(image, W_FDP, 4,
		    (get(guest, W_FDP, size) & 0xffff) | ((get(guest, W_FDS, size) >> 12) & hi)
								 << 16);
		put(image, W_FDS, 4, 0);
	}
	if (regs)
		memcpy(image + X86_FPU_ENV32, guest + ENV_WORDS * size, X86_FPU_REGS);
}
