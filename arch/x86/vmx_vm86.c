/* SPDX-License-Identifier: GPL-2.0-only */
/* VMX without unrestricted guest: the guest's real-mode segments in and out of vm86 form. */
#include "arch/x86/vmx_vm86.h"
#include "arch/x86/segment.h"
#include "arch/x86/vmcs.h"

void vm86_sync(struct vmx_vm86 *m)
{
	if (!m->loaded)
		return;
	for (int i = 0; i < X86_NR_SREGS; i++) {
		u16 sel = (u16)vmread(seg_field[i].sel);
		if (sel != m->seg[i].sel)
			x86_realmode_load_seg(&m->seg[i], sel);
	}
}

void vm86_enter(struct vmx_vm86 *m)
{
	for (int i = 0; i < X86_NR_SREGS; i++)
		m->seg[i] = vmcs_seg(i);
	m->tr_limit = (u32)vmread(seg_field[SEG_TR].limit);
	vmwrite(seg_field[SEG_TR].limit, 0);
	m->on = true;
	m->loaded = false;
}

void vm86_leave(struct vmx_vm86 *m)
{
	vm86_sync(m);
	for (int i = 0; i < X86_NR_SREGS; i++)
		write_seg(i, m->seg[i].sel, m->seg[i].base, m->seg[i].limit,
			  attr_to_ar(&m->seg[i]));
	vmwrite(seg_field[SEG_TR].limit, m->tr_limit);
	m->on = m->loaded = false;
}

bool vm86_load(struct vmx_vm86 *m)
{
	if (m->loaded)
		return true;
	for (int i = 0; i < X86_NR_SREGS; i++) {
		const struct x86_seg *g = &m->seg[i];
		if (g->base != (u64)g->sel << 4 || g->limit != 0xffff ||
		    (i == X86_CS && (g->attr & X86_SEG_DB)))
			return false;
	}
	for (int i = 0; i < X86_NR_SREGS; i++)
		write_seg(i, m->seg[i].sel, (u64)m->seg[i].sel << 4, 0xffff, AR_VM86);
	m->loaded = true;
	return true;
}
