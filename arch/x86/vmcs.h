/* SPDX-License-Identifier: GPL-2.0-only */
/* The VMCS: field encodings, control and capability bits vmx.c uses (SDM vol. 3, appendix B). */
#ifndef ARCH_X86_VMCS_H
#define ARCH_X86_VMCS_H

#include "lib/types.h"
#include "arch/x86/decode.h"
#include "arch/x86/vmx_check.h" /* AR_UNUSABLE */

/* ---- VMCS field encodings (SDM vol. 3, appendix B) ---- */
enum {
	F_VPID = 0x0000,
	F_HOST_ES_SEL = 0x0c00,
	F_HOST_CS_SEL = 0x0c02,
	F_HOST_SS_SEL = 0x0c04,
	F_HOST_DS_SEL = 0x0c06,
	F_HOST_FS_SEL = 0x0c08,
	F_HOST_GS_SEL = 0x0c0a,
	F_HOST_TR_SEL = 0x0c0c,
	F_IO_BITMAP_A = 0x2000,
	F_IO_BITMAP_B = 0x2002,
	F_MSR_BITMAP = 0x2004,
	F_EXIT_MSR_STORE = 0x2006,
	F_EXIT_MSR_LOAD = 0x2008,
	F_ENTRY_MSR_LOAD = 0x200a,
	F_TSC_OFFSET = 0x2010,
	F_EPT_POINTER = 0x201a,
	F_GUEST_PHYS = 0x2400,
	F_LINK_POINTER = 0x2800,
	F_GUEST_DEBUGCTL = 0x2802,
	F_GUEST_EFER = 0x2806,
	F_GUEST_PDPTE0 = 0x280a,
	F_HOST_EFER = 0x2c02,
	F_PIN = 0x4000,
	F_PROC = 0x4002,
	F_EXC_BITMAP = 0x4004,
	F_PF_ERROR_MASK = 0x4006,
	F_PF_ERROR_MATCH = 0x4008,
	F_CR3_TARGETS = 0x400a,
	F_EXIT_CTLS = 0x400c,
	F_EXIT_MSR_STORE_N = 0x400e,
	F_EXIT_MSR_LOAD_N = 0x4010,
	F_ENTRY_CTLS = 0x4012,
	F_ENTRY_MSR_LOAD_N = 0x4014,
	F_ENTRY_INTR = 0x4016,
	F_ENTRY_ERROR = 0x4018,
	F_ENTRY_INSN_LEN = 0x401a,
	F_PROC2 = 0x401e,
	F_INSN_ERROR = 0x4400,
	F_EXIT_REASON = 0x4402,
	F_EXIT_INTR = 0x4404,
	F_EXIT_INTR_ERROR = 0x4406,
	F_IDT_VECTORING = 0x4408,
	F_IDT_VECTORING_ERROR = 0x440a,
	F_EXIT_INSN_LEN = 0x440c,
	F_GUEST_GDTR_LIMIT = 0x4810,
	F_GUEST_IDTR_LIMIT = 0x4812,
	F_GUEST_INTERRUPTIBILITY = 0x4824,
	F_GUEST_ACTIVITY = 0x4826,
	F_GUEST_SYSENTER_CS = 0x482a,
	F_PREEMPT_TIMER = 0x482e,
	F_HOST_SYSENTER_CS = 0x4c00,
	F_CR0_MASK = 0x6000,
	F_CR4_MASK = 0x6002,
	F_CR0_SHADOW = 0x6004,
	F_CR4_SHADOW = 0x6006,
	F_QUALIFICATION = 0x6400,
	F_GUEST_CR0 = 0x6800,
	F_GUEST_CR3 = 0x6802,
	F_GUEST_CR4 = 0x6804,
	F_GUEST_GDTR_BASE = 0x6816,
	F_GUEST_IDTR_BASE = 0x6818,
	F_GUEST_DR7 = 0x681a,
	F_GUEST_RSP = 0x681c,
	F_GUEST_RIP = 0x681e,
	F_GUEST_RFLAGS = 0x6820,
	F_GUEST_PENDING_DBG = 0x6822,
	F_GUEST_SYSENTER_ESP = 0x6824,
	F_GUEST_SYSENTER_EIP = 0x6826,
	F_HOST_CR0 = 0x6c00,
	F_HOST_CR3 = 0x6c02,
	F_HOST_CR4 = 0x6c04,
	F_HOST_FS_BASE = 0x6c06,
	F_HOST_GS_BASE = 0x6c08,
	F_HOST_TR_BASE = 0x6c0a,
	F_HOST_GDTR_BASE = 0x6c0c,
	F_HOST_IDTR_BASE = 0x6c0e,
	F_HOST_SYSENTER_ESP = 0x6c10,
	F_HOST_SYSENTER_EIP = 0x6c12,
};

/* Guest segment registers in VMCS order: ES CS SS DS FS GS (= enum x86_sreg), LDTR, TR. */
enum { SEG_LDTR = X86_NR_SREGS, SEG_TR, NR_VMCS_SEGS };
struct seg_fields {
	u16 sel, limit, ar, base;
};
#define SEG_FIELDS(i) \
	{ \
		0x0800 + 2 * (i), 0x4800 + 2 * (i), 0x4814 + 2 * (i), 0x6806 + 2 * (i) \
	}
#define AR_VM86 0xf3 /* every segment in virtual-8086 mode: present, DPL 3, read/write data */

/* Control bits (the ones the entry checks read too are in vmx_check.h) */
#define PIN_EXT_INTR BIT(0)
#define PIN_PREEMPT BIT(6)
#define PROC_INT_WINDOW BIT(2)
#define PROC_TSC_OFFSET BIT(3)
#define PROC_HLT BIT(7)
#define PROC_INVLPG BIT(9)
#define PROC_RDPMC BIT(11)
#define PROC_MWAIT BIT(10)
#define PROC_CR3_LOAD BIT(15)
#define PROC_CR3_STORE BIT(16)
#define PROC_CR8_LOAD BIT(19)
#define PROC_CR8_STORE BIT(20)
#define PROC_MOV_DR BIT(23)
#define PROC_IO_BITMAPS BIT(25)
#define PROC_MTF BIT(27)
#define PROC_MSR_BITMAPS BIT(28)
#define PROC_MONITOR BIT(29)
#define PROC2_RDTSCP BIT(3)
#define PROC2_VPID BIT(5)
#define PROC2_WBINVD BIT(6)
#define EXIT_SAVE_DEBUG BIT(2)
#define EXIT_HOST_64 BIT(9)
#define EXIT_ACK_INTR BIT(15)
#define EXIT_SAVE_EFER BIT(20)
#define EXIT_LOAD_EFER BIT(21)

#define CAP_EPT_WALK4 (1ull << 6)
#define CAP_EPT_WB (1ull << 14)
#define CAP_EPT_2M (1ull << 16)
#define CAP_INVEPT (1ull << 20)
#define CAP_INVEPT_SINGLE (1ull << 25)
#define CAP_INVEPT_ALL (1ull << 26)
#define CAP_INVVPID (1ull << 32)
#define CAP_INVVPID_SINGLE (1ull << 41)
#define CAP_INVVPID_ALL (1ull << 42)
/* EPT pointer: write-back paging structures, a 4-level walk (length - 1 in bits 5:3). */
#define EPTP_WB 6ull
#define EPTP_WALK4 (3ull << 3)

/* Interruption information (entry, exit, IDT vectoring) is the common event word (virt.h). */
/* Guest interruptibility state: blocking by STI, by MOV SS, by NMI. */
/* Exit interruption information (and an EPT violation's qualification): the exit came in an
 * IRET that had unblocked NMIs; blocking is set again before it runs again (SDM 27.2.3). */
#define EXIT_NMI_UNBLOCKED_BY_IRET BIT(12)

/* Set with reasons 33 (invalid guest state), 34 (MSR loading), 41 (machine check). */
#define EXIT_ENTRY_FAILED BIT(31)

/* ---- Access to the current VMCS (vmx.c and vmx_vm86.c) ---- */
/* Each guest segment register's selector, limit, access rights and base. */
static const struct seg_fields seg_field[NR_VMCS_SEGS] = {
	SEG_FIELDS(0), SEG_FIELDS(1), SEG_FIELDS(2), SEG_FIELDS(3),
	SEG_FIELDS(4), SEG_FIELDS(5), SEG_FIELDS(6), SEG_FIELDS(7),
};

static inline u64 vmread(u64 field)
{
	u64 v;
	__asm__ volatile("vmread %1, %0" : "=rm"(v) : "r"(field) : "cc");
	return v;
}

/* A VMWRITE that fails means a bug here (a field this CPU lacks, a bad value): vmx.c says which. */
void vmwrite(u64 field, u64 val);

/* x86_seg packs the access rights as VMX does, with AVL/L/D/G four bits lower and no
 * "unusable" bit: a null data selector that is not present stands for an unusable one. */
static inline u32 attr_to_ar(const struct x86_seg *s)
{
	if (!(s->attr & X86_SEG_P))
		return AR_UNUSABLE;
	return (s->attr & 0xff) | ((u32)(s->attr & 0xf00) << 4);
}

static inline u16 attr_from_ar(u32 ar)
{
	if (ar & AR_UNUSABLE)
		return 0;
	return (u16)((ar & 0xff) | ((ar >> 4) & 0xf00));
}

static inline void write_seg(int i, u16 sel, u64 base, u32 limit, u32 ar)
{
	vmwrite(seg_field[i].sel, sel);
	vmwrite(seg_field[i].base, base);
	vmwrite(seg_field[i].limit, limit);
	vmwrite(seg_field[i].ar, ar);
}

static inline struct x86_seg vmcs_seg(int i)
{
	return (struct x86_seg){ .sel = (u16)vmread(seg_field[i].sel),
				 .base = vmread(seg_field[i].base),
				 .limit = (u32)vmread(seg_field[i].limit),
				 .attr = attr_from_ar((u32)vmread(seg_field[i].ar)) };
}

#endif
