/* SPDX-License-Identifier: GPL-2.0-only */
/* The guests, allocated one by one, and the one way a guest ends: atomically, once, from any CPU. */
#include "vmm/vm.h"
#include "lib/string.h"
#include "lib/palloc.h"
#include "arch/x86/paging.h"
#include "arch/x86/lapic.h"
#include "arch/x86/percpu.h"

struct vm *vm_first;
u32 nr_vms;
static struct vm *vm_last;

static u64 pages_for(u64 bytes)
{
	return (bytes + PAGE_SIZE - 1) >> PAGE_SHIFT;
}

u64 vm_state_bytes(void)
{
	return pages_for(sizeof(struct vm)) << PAGE_SHIFT;
}

u64 vm_vcpus_bytes(u32 nr_vcpus)
{
	return pages_for((u64)nr_vcpus * sizeof(struct vcpu)) << PAGE_SHIFT;
}

/* Contiguous pages (runs below 2 MiB come first-fit from the bottom: lib/palloc.c), zeroed. */
static void *take(u64 bytes)
{
	u64 pa = palloc_alloc_contig(pages_for(bytes), 1);
	return pa ? phys_to_virt(pa) : NULL;
}

static void give_back(void *p, u64 bytes)
{
	for (u64 i = 0; i < pages_for(bytes); i++)
		palloc_free(virt_to_phys((u8 *)p + (i << PAGE_SHIFT)));
}

struct vm *vm_alloc(void)
{
	return take(sizeof(struct vm));
}

void vm_configure(struct vm *vm, const struct vm_config *cfg)
{
	memcpy((void *)&vm->config, cfg, sizeof(*cfg));
	memcpy(vm->name, cfg->name, sizeof(vm->name));
	vm->nr_vcpus = cfg->nr_vcpus;
}

bool vm_alloc_vcpus(struct vm *vm)
{
	vm->vcpus = take((u64)vm->nr_vcpus * sizeof(struct vcpu));
	return vm->vcpus != NULL;
}

void vm_free(struct vm *vm)
{
	if (vm->vcpus)
		give_back(vm->vcpus, (u64)vm->nr_vcpus * sizeof(struct vcpu));
	give_back(vm, sizeof(*vm));
}

void vm_add(struct vm *vm)
{
	vm->id = nr_vms;
	if (vm_last)
		vm_last->next = vm;
	else
		vm_first = vm;
	vm_last = vm;
	/* Other CPUs walk the list only once guests_ready is set, after the last vm_add. */
	nr_vms++;
}

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

struct vm *vm_by_id(u64 id)
{
	for_each_vm(vm) if (vm->id == id) return vm;
	return NULL;
}

struct vm *vm_by_name(const char *name)
{
	for_each_vm(vm) if (!strcmp(vm->name, name)) return vm;
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
		if ((i == 0 || __atomic_load_n(&v->power, __ATOMIC_RELAXED) == VCPU_ON) &&
		    w < waited)
			waited = w;
	}
	return vm->end_tsc + waited;
}
