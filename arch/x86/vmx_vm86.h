/* SPDX-License-Identifier: GPL-2.0-only */
/* VMX without unrestricted guest: real mode run in virtual-8086 mode, and what that takes. */
#ifndef ARCH_X86_VMX_VM86_H
#define ARCH_X86_VMX_VM86_H

#include "lib/types.h"
#include "arch/x86/decode.h"

/*
 * Real mode under shadow paging runs in virtual-8086 mode (RFLAGS.VM, IOPL 0 so that CLI, STI,
 * PUSHF, POPF, INT n and IRET #GP, a TR limit below the I/O map base so that every port access
 * #GPs, every exception intercepted): the #GPs come back as EXIT_EMULATE. seg is the guest's
 * view of its segments meanwhile; the VMCS holds their vm86 form, which exists only for
 * base = selector * 16 and 64 KiB limits. What vm86 cannot express, and the events real mode
 * takes through its IVT, are emulated (arch/x86/realmode.c, vmm/realmode.c).
 */
struct vmx_vm86 {
	bool on;
	bool loaded;  /* the VMCS segments are seg in vm86 form */
	u32 tr_limit; /* the guest's TR limit, set aside while vm86 mode runs with 0 */
	struct x86_seg seg[X86_NR_SREGS];
};

/* The guest cleared CR0.PE: its segments, as the current VMCS holds them, become seg. */
void vm86_enter(struct vmx_vm86 *m);
/* CR0.PE set again: seg goes back into the VMCS as the protected-mode segments the CPU keeps
 * (the guest's far jump then loads CS from its GDT). */
void vm86_leave(struct vmx_vm86 *m);
/* Selectors the guest loaded natively in vm86 mode into seg (the VMCS is current). */
void vm86_sync(struct vmx_vm86 *m);
/* seg into the VMCS in vm86 form, if vm86 can express it (base = selector * 16, 64 KiB limits,
 * 16-bit code); false if not, and real mode must be emulated. */
bool vm86_load(struct vmx_vm86 *m);

#endif
