/* SPDX-License-Identifier: GPL-2.0-only */
/* Remote TLB flushes: a vCPU's flush request, the kick out of guest mode, and the wait for it. */
#include "vmm/remote_flush.h"
#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/percpu.h"
#include "vmm/vm.h"

/*
 * The handshake, a vCPU v against a flusher holding vm->lock (both sides sequentially
 * consistent, so one of them sees the other):
 *   v:        mode = IN_GUEST; if (flush_req) abort the entry; ...guest...; exit_seq++; mode = OUTSIDE
 *   flusher:  flush_req = 1; seq = exit_seq; if (mode == IN_GUEST) kick v's CPU, and wait until
 *             mode != IN_GUEST or exit_seq != seq.
 * Either v sees the request before it enters (and flushes on entry), or the flusher sees it in
 * guest mode and waits for the exit the kick forces (interrupts are off from the mode store to
 * the world switch, so the kick exits the guest at once); v's next entry then flushes. Leaving
 * guest mode takes no lock, so the flusher may wait with vm->lock held.
 */
void remote_flush_request(struct vcpu *v)
{
	/* A vCPU of this CPU is not in guest mode now: this CPU is running Umbra. (Only vCPU
	 * context asks, after per-CPU data is loaded: this_cpu_index's early-boot check, an
	 * RDMSR, is not needed here.) */
	if (v->cpu == this_cpu()->index) {
		v->hw.tlb_flush = true;
		return;
	}
	__atomic_store_n(&v->flush_req, 1, __ATOMIC_SEQ_CST);
	u32 seq = __atomic_load_n(&v->exit_seq, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&v->mode, __ATOMIC_SEQ_CST) != VCPU_IN_GUEST || v->flush_wait)
		return;
	v->flush_seen_seq = seq;
	v->flush_wait = true;
	v->vm->flush_pending = true;
	lapic_send_fixed(percpus[v->cpu].apic_id, KICK_VECTOR);
}

void remote_flush_wait(struct vm *vm)
{
	if (!vm->flush_pending)
		return;
	for (u32 i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];
		if (!v->flush_wait)
			continue;
		while (__atomic_load_n(&v->mode, __ATOMIC_SEQ_CST) == VCPU_IN_GUEST &&
		       __atomic_load_n(&v->exit_seq, __ATOMIC_SEQ_CST) == v->flush_seen_seq)
			cpu_relax();
		v->flush_wait = false;
		vm->remote_flushes++;
	}
	vm->flush_pending = false;
}

bool remote_flush_enter_guest(struct vcpu *v)
{
	__atomic_store_n(&v->mode, VCPU_IN_GUEST, __ATOMIC_SEQ_CST);
	if (!__atomic_exchange_n(&v->flush_req, 0, __ATOMIC_SEQ_CST))
		return true;
	v->hw.tlb_flush = true;
	__atomic_store_n(&v->mode, VCPU_OUTSIDE, __ATOMIC_SEQ_CST);
	return false;
}

void remote_flush_exit_guest(struct vcpu *v)
{
	__atomic_add_fetch(&v->exit_seq, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&v->mode, VCPU_OUTSIDE, __ATOMIC_SEQ_CST);
}
