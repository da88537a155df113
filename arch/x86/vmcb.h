/* SPDX-License-Identifier: GPL-2.0-only */
/* The VMCB: its layout, intercept bits and the exit codes svm.c decodes itself (APM vol. 2). */
#ifndef ARCH_X86_VMCB_H
#define ARCH_X86_VMCB_H

#include "lib/types.h"
#include "lib/assert.h"

/* ---- VMCB layout (APM vol. 2, appendix B) ---- */
struct vmcb_seg {
	u16 sel, attr;
	u32 limit;
	u64 base;
} PACKED;

struct vmcb {
	/* control area */
	u16 cr_read, cr_write;
	u16 dr_read, dr_write;
	u32 exceptions;
	u32 misc1, misc2;
	u8 rsvd0[0x3c - 0x14];
	u16 pause_thresh, pause_count;
	u64 iopm_pa, msrpm_pa, tsc_offset;
	u32 asid;
	u8 tlb_control, rsvd1[3];
	u64 vintr, int_shadow, exit_code, exit_info1, exit_info2, exit_int_info, np_enable;
	u8 rsvd2[0xa8 - 0x98];
	u64 event_inj, n_cr3, lbr_virt, clean, nrip;
	u8 insn_len, insn_bytes[15];
	u8 rsvd3[0x400 - 0xe0];
	/* state save area */
	struct vmcb_seg es, cs, ss, ds, fs, gs, gdtr, ldtr, idtr, tr;
	u8 rsvd4[0x4cb - 0x4a0];
	u8 cpl;
	u32 rsvd5;
	u64 efer;
	u8 rsvd6[0x548 - 0x4d8];
	u64 cr4, cr3, cr0, dr7, dr6, rflags, rip;
	u8 rsvd7[0x5d8 - 0x580];
	u64 rsp;
	u8 rsvd8[0x5f8 - 0x5e0];
	u64 rax, star, lstar, cstar, sfmask, kernel_gs_base, sysenter_cs, sysenter_esp,
		sysenter_eip, cr2;
	u8 rsvd9[0x668 - 0x648];
	u64 g_pat;
} PACKED;

BUILD_BUG_ON(offsetof(struct vmcb, exit_code) != 0x70);
BUILD_BUG_ON(offsetof(struct vmcb, event_inj) != 0xa8);
BUILD_BUG_ON(offsetof(struct vmcb, nrip) != 0xc8);
BUILD_BUG_ON(offsetof(struct vmcb, cpl) != 0x4cb);
BUILD_BUG_ON(offsetof(struct vmcb, efer) != 0x4d0);
BUILD_BUG_ON(offsetof(struct vmcb, cr4) != 0x548);
BUILD_BUG_ON(offsetof(struct vmcb, rsp) != 0x5d8);
BUILD_BUG_ON(offsetof(struct vmcb, rax) != 0x5f8);
BUILD_BUG_ON(offsetof(struct vmcb, cr2) != 0x640);
BUILD_BUG_ON(offsetof(struct vmcb, g_pat) != 0x668);

/* misc1 intercepts */
#define I1_INTR BIT(0)
#define I1_NMI BIT(1)
#define I1_VINTR BIT(4)
#define I1_RDPMC BIT(15)
#define I1_CPUID BIT(18)
#define I1_INTN BIT(21)
#define I1_INVD BIT(22)
#define I1_IRET BIT(20)
#define I1_HLT BIT(24)
#define I1_INVLPG BIT(25)
#define I1_INVLPGA BIT(26)
#define I1_IOIO BIT(27)
#define I1_MSR BIT(28)
#define I1_TASK_SWITCH BIT(29)
#define I1_SHUTDOWN BIT(31)
/* misc2 intercepts: every SVM instruction, so a guest cannot use them on us */
#define I2_VMRUN BIT(0)
#define I2_VMMCALL BIT(1)
#define I2_SVM_INSNS (0x7fu << 0) /* VMRUN VMMCALL VMLOAD VMSAVE STGI CLGI SKINIT */
#define I2_RDTSCP BIT(7)	  /* TSC_AUX is the guest's, not the host's */
#define I2_WBINVD BIT(9)	  /* QEMU 7.2 checks INVD against this bit too */
#define I2_MONITOR BIT(10)
#define I2_MWAIT BIT(11)

/* The codes svm.c decodes itself; the whole list is svm_exits.h. */
#define VMEXIT_CR0_WRITE 0x10
#define VMEXIT_EXCP_BASE 0x40
#define VMEXIT_RDPMC 0x6f
#define VMEXIT_IRET 0x74
#define VMEXIT_SWINT 0x75
#define VMEXIT_INVD 0x76
#define VMEXIT_IOIO 0x7b
#define VMEXIT_MSR 0x7c
#define VMEXIT_WBINVD 0x89
#define VMEXIT_NPF 0x400
#define VMEXIT_INVALID 0xffffffffu

#define TLB_FLUSH_ALL 1	  /* tlb_control */
#define NP_ENABLE BIT(0)  /* np_enable */
#define CR_BIT_CR3 BIT(3) /* cr_read, cr_write */

#endif
