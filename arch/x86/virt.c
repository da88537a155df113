/* SPDX-License-Identifier: GPL-2.0-only */
/* Chooses the virtualization backend; generic code only ever sees the virt_backend table. */
#include "arch/x86/virt.h"
#include "arch/x86/regs.h"
#include "lib/printf.h"

const struct virt_backend *virt;

const struct virt_backend *virt_select(const char **why)
{
	static const struct virt_backend *const backends[] = { &svm_backend, &vmx_backend };
	static char reasons[160];
	const char *w[2] = { "", "" };

	for (unsigned i = 0; i < 2; i++)
		if (backends[i]->probe(&w[i]))
			return backends[i];
	fmt_snprintf(reasons, sizeof(reasons), "svm: %s; vmx: %s", w[0], w[1]);
	*why = reasons;
	return NULL;
}

void virt_shadow_regs(const struct vcpu_hw *v, struct virt_shadow_regs *out)
{
	const struct x86_emu_ctx *r = &v->regs;
	u64 keep = CR4_VME | CR4_PVI | CR4_TSD | CR4_DE | CR4_MCE | CR4_PCE | CR4_OSFXSR |
		   CR4_OSXMMEXCPT | CR4_OSXSAVE;

	/* SMEP and SMAP only mean something with the guest's own paging on. */
	if (r->cr0 & CR0_PG)
		keep |= CR4_SMEP | CR4_SMAP;
	out->cr0 = (r->cr0 & ~(CR0_CD | CR0_NW)) | CR0_PG | CR0_WP;
	out->cr4 = (r->cr4 & keep) | CR4_PAE;
	out->long_mode = !v->root_pae;
	out->efer = EFER_NXE | (r->efer & EFER_SCE) | (out->long_mode ? EFER_LME | EFER_LMA : 0);
}

void virt_port_bitmap(u8 *bitmap, u16 first, u32 n, bool pass)
{
	for (u32 p = first; p < (u32)first + n && p <= 0xffff; p++) {
		if (pass)
			bitmap[p / 8] &= (u8) ~(1u << (p % 8));
		else
			bitmap[p / 8] |= (u8)(1u << (p % 8));
	}
}
