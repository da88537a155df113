/* SPDX-License-Identifier: GPL-2.0-only */
/* A vCPU's hot-path memos: answers kept from an earlier exit, each with the rule that drops it. */
#ifndef VMM_VCPU_MEMO_H
#define VMM_VCPU_MEMO_H

#include "lib/types.h"
#include "arch/x86/decode.h"

/*
 * Each memo lets an exit skip work an earlier one did, and is good only until the event its
 * comment names; whoever causes that event must drop it (or move what it is checked against),
 * or the vCPU runs on a stale answer. A reset of the vCPU (vcpu_memo_forget, vmm/reset.c) drops
 * them all. Two memos of the same kind live with the state they rest on, outside this one: the
 * shadow MMU's fetch memo (mmu_vcpu.fetch_memo, mmu/mmu.h: dropped when spte_gen moves or the
 * root's entry no longer points where it did, and at a paging mode change) and what a CPU still
 * holds of the last vCPU it ran (struct percpu: tsc_aux, dr_owner).
 */
struct vcpu_memo {
	/* The last MOV CR vcpu_decode_cr (vmm/vcpu.c) took from the bytes at RIP, decoded: a
	 * kernel's CR3 loads repeat one instruction. Checked at every use against what it depends
	 * on alone, the code size and the 4 bytes at RIP, so no other event drops it; a form it
	 * cannot take clears it. */
	struct cr_memo {
		bool valid;
		u8 mode;
		u32 code; /* its 4 bytes, as one word */
		struct x86_insn insn;
	} cr;
	/* The vCPU's interrupt state as vcpu_run_slice last evaluated it (vmm/run.c): settled
	 * when nothing was pending then, and entries skip the evaluation while it stays so. Dropped
	 * when the guest's devices move on from gen (vm->dev_gen: vm_devices_touched, under the
	 * VM's lock, by anything that may change what an interrupt controller has for a vCPU; so
	 * every exit but a CR access, page fault, INVLPG or CPUID, exit_handle, and the device
	 * paths those reach),
	 * when now reaches due (a device's next deadline; 0: none), and at the start of every
	 * turn (the console's focus, or anything else no exit reports, may have moved while the
	 * vCPU was away). */
	struct events_memo {
		bool settled;
		u32 gen;
		u64 due; /* also the exit deadline the entry is given */
	} events;
};

static inline void vcpu_memo_forget(struct vcpu_memo *m)
{
	*m = (struct vcpu_memo){ 0 };
}

#endif
