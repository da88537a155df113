/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest table and the one way a guest ends: atomically, once, from any CPU. */
#include "vmm/vm.h"
#include "lib/string.h"
#include "arch/x86/lapic.h"
#include "arch/x86/percpu.h"
#include "vmm/remote_flush.h"
#include "vmm/mmu_host.h"

struct vm vms[MAX_VMS];
u32 nr_vms;

const char *vm_end_name(enum vm_end how)
{
#define VM_END_TEXT_(name, text) text,
	static const char *const n[] = { VM_END_LIST(VM_END_TEXT_) };
#undef VM_END_TEXT_
	return how < ARRAY_SIZE(n) ? n[how] : "?";
}

bool vm_end(struct vm *vm, enum vm_end how, u32 status, const char *detail)
{
	enum vm_end none = VM_END_NONE;

	if (!__atomic_compare_exchange_n(&vm->end, &none, how, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return false;
	vm->status = status;
	vm->end_detail = detail;
	/* A start racing with this end either sees ENDED and never runs the guest, or ran it
	 * first and sees ENDED at its next exit: the state moves to ENDED exactly once. */
	__atomic_store_n(&vm->state, VM_ENDED, __ATOMIC_RELEASE);
	/* Its CPUs may be deep in a slice or asleep until their next timer: wake them. */
	vm_kick_all(vm);
	return true;
}

void vm_kick_all(struct vm *vm)
{
	u32 me = (u32)this_cpu_index();

	for (u32 i = 0; i < vm->nr_vcpus; i++) {
		u32 cpu = vm->vcpus[i].cpu, j;
		for (j = 0; j < i && vm->vcpus[j].cpu != cpu; j++)
			;
		if (cpu != me && j == i) /* once per CPU */
			lapic_send_fixed(percpus[cpu].apic_id, KICK_VECTOR);
	}
}

u64 vm_lock(struct vm *vm)
{
	u64 spins = spin_lock_spins(&vm->lock);
	vm->lock_taken++;
	if (spins) {
		vm->lock_contended++;
		vm->lock_spins += spins;
	}
	return spins;
}

void vm_unlock(struct vm *vm)
{
	remote_flush_wait(vm);
	if (vm->deferred_free)
		mmu_host_release_deferred(vm);
	spin_unlock(&vm->lock);
}

struct vm *vm_by_id(u64 id)
{
	for_each_vm(vm)
		if (vm->id == id)
			return vm;
	return NULL;
}

struct vm *vm_by_name(const char *name)
{
	for_each_vm(vm)
		if (!strcmp(vm->name, name))
			return vm;
	return NULL;
}

/* When the guest's budget ends: a budget counts the guest's own time only, so the time its vCPUs
 * stood runnable behind other guests' vCPUs is added (for several vCPUs, the least any of the
 * started ones waited: the guest's time moves at the pace of its luckiest vCPU). */
u64 vm_budget_end(const struct vm *vm)
{
	u64 waited = ~0ull;

	if (vm->end_tsc == ~0ull)
		return ~0ull;
	for (u32 i = 0; i < vm->nr_vcpus; i++) {
		const struct vcpu *v = &vm->vcpus[i];
		u64 w = __atomic_load_n(&v->waited_tsc, __ATOMIC_RELAXED);
		if ((i == 0 || __atomic_load_n(&v->power, __ATOMIC_RELAXED) == VCPU_ON) && w < waited)
			waited = w;
	}
	return vm->end_tsc + waited;
}
