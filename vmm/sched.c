/* SPDX-License-Identifier: GPL-2.0-only */
/* The per-CPU scheduler: fair shares per guest in slices the host timer enforces, idle until the next event. */
#include "vmm/sched.h"
#include "arch/x86/cpu.h"
#include "arch/x86/fpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/percpu.h"
#include "arch/x86/tsc.h"
#include "lib/printf.h"
#include "vmm/console.h"
#include "vmm/debug_hook.h"
#include "vmm/intx.h"
#include "vmm/iommu_domain.h"
#include "vmm/irq.h"
#include "vmm/pci_view.h"
#include "vmm/msi.h"
#include "arch/x86/devirq.h"
#include "vmm/trace.h"
#include "vmm/vcpu.h"
#include "vmm/vm_lock.h"
#include "vmm/reset.h"
#include "vmm/cr.h"
#include "vmm/run.h"
#include "vmm/restart.h"

/* First entry on its CPU: the backend's control structure and the MMU context (for an AP,
 * with the state its SIPI or PV start left in v->hw.regs). Under the guest's lock: the MMU's
 * vCPU list is shared by its vCPUs. */
static bool create_vcpu(struct vcpu *v)
{
	struct vm *vm = v->vm;
	bool ok = false;

	vm_lock(vm);
	/* An AP started again after an INIT: a fresh control structure, the same MMU vCPU. */
	if (v->hw.arch)
		virt->vcpu_destroy(&v->hw);
	if (virt->vcpu_create(&v->hw) < 0 || (!v->mmu.vm && mmu_vcpu_init(&v->mmu, &vm->mmu) < 0)) {
		vm_end(vm, VM_END_FATAL, 0, "no memory for the vCPU");
		goto out;
	}
	pci_view_vcpu_created(v);
	fpu_init_state(v->fpu);
	const struct x86_emu_ctx *r = &v->hw.regs;
	if (mmu_reset_context(&v->mmu, r->cr0, r->cr4, r->efer, r->cr3) < 0) {
		vm_end(vm, VM_END_FATAL, 0, "no memory for the MMU context");
		goto out;
	}
	if (vm->tdp_on)
		virt->tdp_enable(&v->hw, tdp_root_hpa(&vm->tdp));
	if (v->id) { /* one TSC for the whole guest */
		v->tsc_offset = vm->vcpus[0].tsc_offset;
		virt->set_tsc_offset(&v->hw, v->tsc_offset);
	}
	v->hw.root_hpa = 0; /* loaded again before the first entry */
	ok = vcpu_update_paging(v);
	v->power = VCPU_ON;
out:
	vm_unlock(vm);
	return ok;
}

/* The guest's first entry, on vCPU 0's CPU. */
static bool start_guest(struct vcpu *v)
{
	struct vm *vm = v->vm;
	enum vm_state ready = VM_READY;

	/* The budget counts from the first instruction, not from boot; set before the state
	 * moves, since the APs' CPUs read it as soon as it has. */
	u64 budget = vm->config.budget_ns;
	__atomic_store_n(&vm->end_tsc, budget ? rdtsc() + ns_to_tsc(budget) : ~0ull,
			 __ATOMIC_RELEASE);
	/* A STOP_GUEST that came first wins: the guest never runs. */
	if (!__atomic_compare_exchange_n(&vm->state, &ready, VM_RUNNING, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return false;
	return create_vcpu(v);
}

/* The CPU is done with the guest: nothing of it is touched here again, the report may read it. */
static void park(struct vm *vm)
{
	/* No vCPU of it runs any more: its devices stop before anything else looks at it. */
	pci_view_quiesce(vm, "at its end");
	console_flush(vm);
	if (debug_hook)
		debug_hook->ended(vm);
	if (vm->trace)
		trace_dump(vm);
	console_lines_again();
	if (debug_hook)
		debug_hook->at_end(vm);
	/* When, in the order it happened: tests read who finished while others still ran. */
	kinfo("guest %s: ended (%s) at %lu ms\n", vm->name, vm_end_name(vm->end),
	      monotonic_ns() / 1000000);
	__atomic_store_n(&vm->parked, true, __ATOMIC_RELEASE);
}

/* A vCPU's CPU is done with it; vCPU 0's CPU parks the guest once every other vCPU has parked
 * (true then), so the guest's own end work runs where it always did. */
static bool park_vcpu(struct vcpu *v, u64 *wake)
{
	struct vm *vm = v->vm;

	if (v->id) {
		v->parked = true;
		__atomic_add_fetch(&vm->vcpus_parked, 1, __ATOMIC_ACQ_REL);
		if (vm->cpu != this_cpu()->index)
			lapic_send_fixed(percpus[vm->cpu].apic_id, KICK_VECTOR);
		return false;
	}
	if (__atomic_load_n(&vm->vcpus_parked, __ATOMIC_ACQUIRE) + 1 < vm->nr_vcpus) {
		/* The others park at their next exit (vm_end kicked their CPUs); look again soon. */
		*wake = deadline_min(*wake, rdtsc() + ns_to_tsc(1000000));
		return false;
	}
	v->parked = true;
	park(vm);
	return true;
}

/* The monitor's pause: the time it lasts is added to the guest's budget when it resumes. */
static bool held_by_monitor(struct vm *vm, u64 *wake)
{
	u64 now = rdtsc();
	if (__atomic_load_n(&vm->paused, __ATOMIC_ACQUIRE)) {
		if (!vm->pause_tsc)
			vm->pause_tsc = now;
		*wake = deadline_min(*wake, now + ns_to_tsc(SCHED_SLICE_NS));
		return true;
	}
	if (vm->pause_tsc) {
		if (vm->end_tsc != ~0ull)
			vm->end_tsc += now - vm->pause_tsc;
		vm->pause_tsc = 0;
	}
	return false;
}

/* When a waiting vCPU may become runnable: its interrupt sources, BLOCK's timeout, its budget. */
static u64 wake_deadline(struct vcpu *v, u64 now)
{
	u64 t = deadline_min(irq_next_deadline(v, now), vm_budget_end(v->vm));
	return v->blocking ? deadline_min(t, v->block_deadline) : t;
}

/* Where a vCPU stands before its turn: false if it is not to run now (*any says whether it
 * still needs this CPU). */
static bool ready_to_run(struct vcpu *v, bool *any, u64 *wake)
{
	struct vm *vm = v->vm;

	if (v->id == 0 && vm->state == VM_READY && !start_guest(v)) {
		vm_end(vm, VM_END_FATAL, 0, "it could not start");
		*any |= !park_vcpu(v, wake);
		return false;
	}
	if (vm->state == VM_READY) {
		*any = true; /* an AP waits for its guest to start on vCPU 0's CPU */
		return false;
	}
	/* Held by gdb or paused by the monitor: not run, and its budget waits too. gdb holds
	 * vCPU 0 alone; the monitor's pause holds them all. */
	if (!vm_ended(vm) &&
	    (v->id == 0 ? (debug_hook && debug_hook->hold(vm, wake)) || held_by_monitor(vm, wake)
			: __atomic_load_n(&vm->paused, __ATOMIC_ACQUIRE))) {
		*any = true;
		if (v->id)
			*wake = deadline_min(*wake, rdtsc() + ns_to_tsc(SCHED_SLICE_NS));
		return false;
	}
	if (!vm_ended(vm) && rdtsc() >= vm_budget_end(vm))
		vm_end(vm, VM_END_TIMEOUT, 0, "its time budget ran out");
	if (vm_ended(vm)) {
		*any |= !park_vcpu(v, wake);
		return false;
	}
	/* A reset: every vCPU held here; vCPU 0's CPU restarts the guest once all are, woken by
	 * the last one held (or, should a kick be lost, by this deadline). */
	if (vm_reset_hold(v) && !(v->id == 0 && vm_restart(vm))) {
		*any = true;
		if (v->id == 0)
			*wake = deadline_min(*wake, rdtsc() + ns_to_tsc(1000000));
		return false;
	}
	if (!vm_ended(vm) && __atomic_load_n(&v->power, __ATOMIC_ACQUIRE) == VCPU_STARTING)
		create_vcpu(v);
	if (vm_ended(vm)) {
		*any |= !park_vcpu(v, wake);
		return false;
	}
	*any = true;
	/* An AP waiting for its SIPI: the sender kicks this CPU. */
	return __atomic_load_n(&v->power, __ATOMIC_ACQUIRE) == VCPU_ON;
}

/*
 * Fair share, per guest rather than per vCPU (as Xen's credit scheduler shares per domain): on
 * each CPU a guest's virtual time is the time its vCPUs ran there over its weight, and the
 * runnable guest furthest behind goes next; its vCPUs there take turns with its time (the one
 * whose last turn is oldest first). A guest that waited comes back at most a slice behind the
 * last one that ran: waiting banks no CPU time. A YIELD is charged as a whole slice, so the
 * yielder goes behind the others. A guest's virtual time here (vm->sched_vtime[cpu]) and its
 * vCPUs' turns (vcpu->sched_turn) are this CPU's alone (each CPU runs its own scheduler, and a
 * vCPU stays on its CPU). A round's candidates are linked through vcpu->sched_next, which only
 * the vCPU's own CPU writes: no table bounds how many guests share a CPU.
 */
static u64 vfloor[NR_CPUS];
static u64 turns[NR_CPUS];

static u64 weight_of(const struct vm *vm)
{
	return vm->config.weight ? vm->config.weight : SCHED_WEIGHT_DEFAULT;
}

/* The candidate to run next: the guest with the least virtual time, then its oldest turn. */
static struct vcpu *pick(u32 me, struct vcpu *cand)
{
	const u64 lag = SCHED_SLICE_NS;
	struct vcpu *best = cand;

	for (struct vcpu *c = cand; c; c = c->sched_next)
		if (c->vm->sched_vtime[me] + lag < vfloor[me])
			c->vm->sched_vtime[me] = vfloor[me] - lag;
	for (struct vcpu *c = cand->sched_next; c; c = c->sched_next) {
		u64 g = c->vm->sched_vtime[me], b = best->vm->sched_vtime[me];
		if (g < b || (c->vm == best->vm && c->sched_turn < best->sched_turn))
			best = c;
	}
	return best;
}

/* Takes v off the list at *head. */
static void unlink_cand(struct vcpu **head, struct vcpu *v)
{
	while (*head != v)
		head = &(*head)->sched_next;
	*head = v->sched_next;
}

/* What a turn cost: the guest's CPU time, and its virtual time on this CPU. */
static void charge(u32 me, struct vcpu *v, u64 used)
{
	struct vm *vm = v->vm;
	u64 ns = tsc_to_ns(used);

	v->cpu_tsc += used;
	__atomic_add_fetch(&vm->cpu_tsc, used, __ATOMIC_RELAXED);
	if (v->yielded && ns < SCHED_SLICE_NS)
		ns = SCHED_SLICE_NS;
	v->yielded = false;
	if (vm->sched_vtime[me] > vfloor[me])
		vfloor[me] = vm->sched_vtime[me];
	vm->sched_vtime[me] += ns * SCHED_WEIGHT_DEFAULT / weight_of(vm);
	v->sched_turn = ++turns[me];
}

/* A turn of v was time the other guests' runnable vCPUs here waited for the CPU: their budgets
 * (vm_budget_end) count it out. A vCPU of v's own guest waited for its guest's own time. */
static void charge_waiting(const struct vcpu *v, u64 used, struct vcpu *cand)
{
	for (struct vcpu *c = cand; c; c = c->sched_next)
		if (c->vm != v->vm && !c->halted)
			__atomic_store_n(&c->waited_tsc, c->waited_tsc + used, __ATOMIC_RELAXED);
}

/* Since when Umbra's own work on each CPU has run (its scheduler loop, the console and IOMMU
 * polls): since the last turn ended, or the CPU woke. */
static u64 umbra_since[NR_CPUS];

/* Umbra's own time before a turn was no guest's: the runnable vCPUs waited for it, and their
 * budgets count it out as they do the other guests' turns. Under an emulator on a loaded host
 * it is not small (each port access of the loop's polls waits for the emulator's I/O thread):
 * counted in a budget, it left a guest short of its time= by up to a tenth. */
static void charge_umbra(u32 me, u64 start, struct vcpu *cand)
{
	u64 own = start - umbra_since[me];

	for (struct vcpu *c = cand; c; c = c->sched_next)
		if (!c->halted)
			__atomic_store_n(&c->waited_tsc, c->waited_tsc + own, __ATOMIC_RELAXED);
}

/* One decision for this CPU: the vCPUs that may run are tried in fair-share order until one
 * runs; false once all their guests have ended. *wake gets the earliest time a waiting one
 * needs the CPU, *ran whether one ran. */
static bool run_round(u32 me, bool *ran, u64 *wake)
{
	struct vcpu *cand = NULL, **tail = &cand;
	bool any = false;

	for_each_vm(vm)
	{
		for (u32 j = 0; j < vm->nr_vcpus; j++) {
			struct vcpu *v = &vm->vcpus[j];
			if (v->cpu == me && !v->parked && ready_to_run(v, &any, wake)) {
				*tail = v;
				tail = &v->sched_next;
			}
		}
	}
	*tail = NULL;
	while (cand) {
		struct vcpu *v = pick(me, cand);
		u64 start = rdtsc();
		charge_umbra(me, start, cand);
		fpu_restore(v->fpu);
		bool did = vcpu_run_slice(v, start + ns_to_tsc(SCHED_SLICE_NS));
		fpu_save(v->fpu);
		u64 end = rdtsc(), used = end - start;
		umbra_since[me] = end;
		charge(me, v, used);
		if (did)
			charge_waiting(v, used, cand);
		if (vm_ended(v->vm))
			any |= !park_vcpu(v, wake);
		else
			*wake = deadline_min(*wake, wake_deadline(v, rdtsc()));
		if (did) {
			*ran = true;
			break;
		}
		unlink_cand(&cand, v);
	}
	return any;
}

void sched_run_this_cpu(void)
{
	u32 me = this_cpu()->index;

	umbra_since[me] = rdtsc();
	for (;;) {
		bool ran = false;
		u64 wake = 0;
		/* Escape keys still work once the guest with the console has ended. */
		console_poll_input(NULL);
		if (debug_hook)
			debug_hook->poll();
		if (me == 0)
			iommu_poll(false);
		/* MSIs taken while this CPU slept, before its vCPUs are looked at. */
		msi_dispatch();
		if (!run_round(me, &ran, &wake)) {
			if (!intx_serves(me))
				break;
			/* Its vCPUs have ended, but a device line other guests share arrives
			 * here: taken as it comes, and every 10 ms a look at whether they ended. */
			wake = rdtsc() + ns_to_tsc(10 * 1000 * 1000);
		}
		if (ran)
			continue;
		wake = deadline_min(wake, console_keys_deadline(rdtsc()));
		/* Everyone here waits: sleep until the earliest of their events or a kick. */
		lapic_timer_arm(wake);
		if ((!wake || rdtsc() < wake) && !devirq_waiting())
			__asm__ volatile("sti; hlt; cli" ::: "memory");
		umbra_since[me] = rdtsc(); /* asleep, nobody waited for Umbra */
		lapic_timer_expired();
	}
	lapic_timer_arm(0);
}
