/* SPDX-License-Identifier: GPL-2.0-only */
/* The flat 32-bit protected-mode state a boot protocol starts a vCPU in. */
#include "vmm/flat32.h"
#include "arch/x86/decode.h"
#include "lib/string.h"

static void flat_segment(struct x86_seg *s, u16 sel, bool code)
{
	/* Present, DPL 0, S=1, accessed; code: execute/read; data: read/write; 4 GiB, D/B=1. */
	*s = (struct x86_seg){ .base = 0,
			       .limit = 0xffffffff,
			       .sel = sel,
			       .attr = (u16)((code ? 0x9b : 0x93) | X86_SEG_DB | X86_SEG_G) };
}

void flat32_state(struct x86_emu_ctx *r, u64 entry, u32 eax, u32 ebx)
{
	void *opaque = r->opaque;

	memset(r, 0, sizeof(*r));
	r->opaque = opaque;
	r->rip = entry;
	r->rflags = 0x2;
	r->gpr[X86_RAX] = eax;
	r->gpr[X86_RBX] = ebx;
	r->cr0 = CR0_PE | CR0_ET;
	flat_segment(&r->seg[X86_CS], 0x08, true);
	for (int s = 0; s < X86_NR_SREGS; s++)
		if (s != X86_CS)
			flat_segment(&r->seg[s], 0x10, false);
}
