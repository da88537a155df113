/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-CPU data: descriptors, stacks, identity and virtualization state, reached through GS. */
#ifndef ARCH_X86_PERCPU_H
#define ARCH_X86_PERCPU_H

#include "lib/types.h"

#define NR_CPUS 64
#define KSTACK_SIZE (16 * 1024)

struct tss {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
} PACKED;

#define GDT_KCODE 0x08
#define GDT_KDATA 0x10
#define GDT_TSS 0x18
#define GDT_ENTRIES 5

struct percpu {
	struct percpu *self; /* gs:0, so this_cpu() is one load */
	u32 index;
	u32 apic_id;
	volatile bool online;
	bool bsp;
	u64 gdt[GDT_ENTRIES];
	struct tss tss;
	u8 *kstack;		  /* KSTACK_SIZE bytes */
	void *virt;		  /* the backend's per-CPU state */
	const void *vmload_owner; /* SVM: the vCPU whose VMLOAD set the registers hold (its turn) */
	u64 tsc_aux;		  /* what the real TSC_AUX holds (the last guest's) */
	u64 timer_armed;	  /* the TSC deadline the host timer is armed for (0: none) */
	const void *dr_owner;	  /* the vCPU whose DR0-DR3 and DR6 the CPU holds (NULL: none) */
	bool timer_mode_set;	  /* this CPU's timer LVT is programmed for lapic_timer_arm */
	char virt_info[160];	  /* what enabling virtualization found, for the log */
	const char *virt_error;
};

extern struct percpu percpus[NR_CPUS];
extern u32 cpus_online;

static inline struct percpu *this_cpu(void)
{
	struct percpu *p;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(p));
	return p;
}

void percpu_init(struct percpu *pc, u32 index, u32 apic_id);
void percpu_load(struct percpu *pc);
/* This CPU's index; 0 before per-CPU data is loaded. */
int this_cpu_index(void);

#endif
