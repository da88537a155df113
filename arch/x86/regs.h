/* SPDX-License-Identifier: GPL-2.0-only */
/* Architectural register bits, MSR numbers and paging-entry bits (usable from C and assembly). */
#ifndef ARCH_X86_REGS_H
#define ARCH_X86_REGS_H

#ifdef __ASSEMBLY__
#define _B(n) (1 << (n))
#define _BL(n) (1 << (n))
#else
/* 64 bits wide, so ~BIT never clears the upper half of a 64-bit register or entry. */
#define _B(n) (1ull << (n))
#define _BL(n) (1ull << (n))
#endif

#define CR0_PE _B(0)
#define CR0_MP _B(1)
#define CR0_EM _B(2)
#define CR0_TS _B(3)
#define CR0_ET _B(4)
#define CR0_NE _B(5)
#define CR0_WP _B(16)
#define CR0_AM _B(18)
#define CR0_NW _B(29)
#define CR0_CD _B(30)
#define CR0_PG _B(31)

#define CR4_VME _B(0)
#define CR4_PVI _B(1)
#define CR4_TSD _B(2)
#define CR4_DE _B(3)
#define CR4_PSE _B(4)
#define CR4_PAE _B(5)
#define CR4_MCE _B(6)
#define CR4_PGE _B(7)
#define CR4_PCE _B(8)
#define CR4_OSFXSR _B(9)
#define CR4_OSXMMEXCPT _B(10)
#define CR4_VMXE _B(13)
#define CR4_SMXE _B(14)
#define CR4_PCIDE _B(17)
#define CR4_OSXSAVE _B(18)
#define CR4_LA57 _B(12)
#define CR4_SMEP _B(20)
#define CR4_SMAP _B(21)

#define MSR_EFER 0xc0000080
#define EFER_SCE _B(0)
#define EFER_LME _B(8)
#define EFER_LMA _B(10)
#define EFER_NXE _B(11)
#define EFER_SVME _B(12)

#define MSR_APIC_BASE 0x1b
#define APIC_DEFAULT_BASE 0xfee00000ull /* where IA32_APIC_BASE puts the xAPIC at reset */
#define MSR_FEATURE_CONTROL 0x3a
#define MSR_TSC_AUX 0xc0000103
#define MSR_FS_BASE 0xc0000100
#define MSR_GS_BASE 0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102
#define MSR_SYSENTER_CS 0x174
#define MSR_SYSENTER_ESP 0x175
#define MSR_SYSENTER_EIP 0x176
#define MSR_STAR 0xc0000081
#define MSR_LSTAR 0xc0000082
#define MSR_CSTAR 0xc0000083
#define MSR_SFMASK 0xc0000084

/*
 * The MSRs a guest reads and writes without an exit, on both vendors (its values need no
 * policy: the CPU's own checks, canonical addresses and #GP, apply). The second column says
 * where the guest's value lives while Umbra runs: SEG beside the segment registers, in every
 * vendor's saved guest state (the VMCS guest area; the VMCB through VMSAVE), or ALONE, which
 * VMX keeps only in its MSR-load and -store lists (SVM's VMSAVE takes those too).
 */
/* clang-format off */
#define GUEST_MSR_LIST(X) \
	X(MSR_SYSENTER_CS, SEG) X(MSR_SYSENTER_ESP, SEG) X(MSR_SYSENTER_EIP, SEG) \
	X(MSR_FS_BASE, SEG) X(MSR_GS_BASE, SEG) \
	X(MSR_KERNEL_GS_BASE, ALONE) X(MSR_STAR, ALONE) X(MSR_LSTAR, ALONE) X(MSR_CSTAR, ALONE) \
	X(MSR_SFMASK, ALONE)
/* clang-format on */
/* Selectors for GUEST_MSR_LIST: GUEST_MSR_ANY_ lists every one, GUEST_MSR_IF_ those of one place. */
#define GUEST_MSR_ANY_(msr, where) msr,
#define GUEST_MSR_SEG_SEG(msr) msr,
#define GUEST_MSR_SEG_ALONE(msr)
#define GUEST_MSR_ALONE_SEG(msr)
#define GUEST_MSR_ALONE_ALONE(msr) msr,
#define GUEST_MSR_IN_SEG_(msr, where) GUEST_MSR_SEG_##where(msr)
#define GUEST_MSR_IN_ALONE_(msr, where) GUEST_MSR_ALONE_##where(msr)
#define MSR_PAT 0x277
#define PAT_RESET 0x0007040600070406ull /* WB, WT, UC-, UC, twice */
#define MSR_DEBUGCTL 0x1d9
#define DEBUGCTL_LBR _B(0)
#define DEBUGCTL_BTF _B(1)    /* single-step on branches */
#define MSR_MISC_ENABLE 0x1a0 /* Intel only: AMD's CPUs #GP */
#define MISC_ENABLE_FAST_STRINGS _B(0)
#define MISC_ENABLE_TCC _B(3)
#define MISC_ENABLE_PERFMON _B(7)	/* read-only */
#define MISC_ENABLE_BTS_UNAVAIL _B(11)	/* read-only */
#define MISC_ENABLE_PEBS_UNAVAIL _B(12) /* read-only */
#define MISC_ENABLE_EIST _B(16)
#define MISC_ENABLE_MONITOR _B(18)
#define MISC_ENABLE_LIMIT_CPUID _B(22)
#define MISC_ENABLE_XTPR_DISABLE _B(23)
#define MISC_ENABLE_XD_DISABLE _B(34)
#define MISC_ENABLE_READ_ONLY \
	(MISC_ENABLE_PERFMON | MISC_ENABLE_BTS_UNAVAIL | MISC_ENABLE_PEBS_UNAVAIL)

/* Intel VMX capability MSRs. */
#define MSR_VMX_BASIC 0x480
#define MSR_VMX_PINBASED_CTLS 0x481
#define MSR_VMX_PROCBASED_CTLS 0x482
#define MSR_VMX_EXIT_CTLS 0x483
#define MSR_VMX_ENTRY_CTLS 0x484
#define MSR_VMX_MISC 0x485
#define MSR_VMX_CR0_FIXED0 0x486
#define MSR_VMX_CR0_FIXED1 0x487
#define MSR_VMX_CR4_FIXED0 0x488
#define MSR_VMX_CR4_FIXED1 0x489
#define MSR_VMX_PROCBASED_CTLS2 0x48b
#define MSR_VMX_EPT_VPID_CAP 0x48c
#define MSR_VMX_TRUE_PINBASED_CTLS 0x48d
#define MSR_VMX_TRUE_PROCBASED_CTLS 0x48e
#define MSR_VMX_TRUE_EXIT_CTLS 0x48f
#define MSR_VMX_TRUE_ENTRY_CTLS 0x490

/* AMD SVM MSRs. */
#define MSR_VM_CR 0xc0010114
#define VM_CR_SVMDIS _B(4)
#define MSR_VM_HSAVE_PA 0xc0010117

#define RFLAGS_CF _B(0)
#define RFLAGS_PF _B(2)
#define RFLAGS_AF _B(4)
#define RFLAGS_ZF _B(6)
#define RFLAGS_SF _B(7)
#define RFLAGS_TF _B(8)
#define RFLAGS_IF _B(9)
#define RFLAGS_DF _B(10)
#define RFLAGS_OF _B(11)
#define RFLAGS_RF _B(16)
#define RFLAGS_VM _B(17)
#define RFLAGS_AC _B(18)
/* The status flags arithmetic instructions write. */
#define RFLAGS_ARITH (RFLAGS_CF | RFLAGS_PF | RFLAGS_AF | RFLAGS_ZF | RFLAGS_SF | RFLAGS_OF)

/* Exception vectors. */
#define VEC_DE 0
#define VEC_DB 1
#define VEC_NMI 2
#define VEC_BP 3
#define VEC_OF 4
#define VEC_BR 5
#define VEC_UD 6
#define VEC_NM 7
#define VEC_DF 8
#define VEC_TS 10
#define VEC_NP 11
#define VEC_SS 12
#define VEC_GP 13
#define VEC_PF 14
#define VEC_MF 16
#define VEC_AC 17
#define VEC_MC 18
#define VEC_XM 19
#define VEC_VE 20
#define VEC_CP 21
#define VEC_VC 29
#define VEC_SX 30

/* Debug status and control bits. */
#define DR6_B0_B3 0xfull
#define DR6_BD _B(13) /* general detect */
#define DR6_BS _B(14) /* single step */
#define DR7_GD _B(13)
#define DR6_INIT 0xffff0ff0ull /* DR6 at reset: no cause recorded */

/* Page-table entry bits (all formats). */
#define PTE_P _B(0)
#define PTE_W _B(1)
#define PTE_U _B(2)
#define PTE_PWT _B(3)
#define PTE_PCD _B(4)
#define PTE_A _B(5)
#define PTE_D _B(6)
#define PTE_PS _B(7)
#define PTE_G _B(8)
#define PTE_NX _BL(63)
#ifndef __ASSEMBLY__
#define PTE_ADDR 0x000ffffffffff000ull /* the frame address bits 12..51 */
/* A PAE PDPTE's reserved bits 1-2 and 5-8 (Accessed among them); those above the physical
 * address width are reserved too. */
#define PDPTE_PAE_RSVD 0x1e6ull
#endif

#endif
