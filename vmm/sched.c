/* The per-CPU scheduler: round robin in slices the host timer enforces, idle until the next event. */
#include "vmm/sched.h"
#include "arch/x86/cpu.h"
#include "arch/x86/fpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/percpu.h"
#include "arch/x86/tsc.h"
#include "lib/printf.h"
#include "vmm/console.h"
#include "vmm/gdbstub.h"
#include "vmm/monitor.h"
#include "vmm/irq.h"
#include "vmm/vcpu.h"

/* First entry on its CPU: the backend's control structure and the MMU context. */
static bool start_vcpu(struct vcpu *v)
{
	struct vm *vm = v->vm;
	enum vm_state ready = VM_READY;

	/* A STOP_GUEST that came first wins: the guest never runs. */
	if (!__atomic_compare_exchange_n(&vm->state, &ready, VM_RUNNING, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return false;
	if (virt->vcpu_create(&v->hw) < 0 || mmu_vcpu_init(&v->mmu, &vm->mmu) < 0) {
		vm_end(vm, VM_END_FATAL, 0, "no memory for the vCPU");
		return false;
	}
	fpu_init_state(v->fpu);
	const struct x86_emu_ctx *r = &v->hw.regs;
	if (mmu_reset_context(&v->mmu, r->cr0, r->cr4, r->efer, r->cr3) < 0) {
		vm_end(vm, VM_END_FATAL, 0, "no memory for the MMU context");
		return false;
	}
	if (vm->tdp_on)
		virt->tdp_enable(&v->hw, tdp_root_hpa(&vm->tdp));
	if (!vcpu_update_paging(v))
		return false;
	/* The budget counts from the first instruction, not from boot. */
	vm->end_tsc = vm->budget_ns ? rdtsc() + ns_to_tsc(vm->budget_ns) : ~0ull;
	return true;
}

/* The CPU is done with the guest: nothing of it is touched here again, the report may read it. */
static void park(struct vm *vm)
{
	console_flush(vm);
	gdbstub_guest_ended(vm);
	monitor_at_end(vm);
	/* When, in the order it happened: tests read who finished while others still ran. */
	kinfo("guest %s: ended (%s) at %lu ms\n", vm->name, vm_end_name(vm->end),
	      monotonic_ns() / 1000000);
	__atomic_store_n(&vm->parked, true, __ATOMIC_RELEASE);
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
	u64 t = deadline_min(irq_next_deadline(v, now), v->vm->end_tsc);
	return v->blocking ? deadline_min(t, v->block_deadline) : t;
}

/* One pass over this CPU's guests; false once all have ended. *wake gets the earliest time a
 * waiting one needs the CPU, *ran whether any guest ran. */
static bool run_round(u32 me, bool *ran, u64 *wake)
{
	bool any = false;

	for (u32 i = 0; i < nr_vms; i++) {
		struct vm *vm = &vms[i];
		struct vcpu *v = &vm->vcpu;
		if (vm->cpu != me || vm->parked)
			continue;
		if (vm->state == VM_READY && !start_vcpu(v)) {
			park(vm);
			continue;
		}
		/* Held by gdb or paused by the monitor: not run, and its budget waits too. */
		if (!vm_ended(vm) && (gdbstub_poll(vm, wake) || held_by_monitor(vm, wake))) {
			any = true;
			continue;
		}
		if (!vm_ended(vm) && rdtsc() >= vm->end_tsc)
			vm_end(vm, VM_END_TIMEOUT, 0, "its time budget ran out");
		if (vm_ended(vm)) {
			park(vm);
			continue;
		}
		any = true;
		fpu_restore(v->fpu);
		*ran |= vcpu_run_slice(v, rdtsc() + ns_to_tsc(SCHED_SLICE_NS));
		fpu_save(v->fpu);
		if (vm_ended(vm))
			park(vm);
		else
			*wake = deadline_min(*wake, wake_deadline(v, rdtsc()));
	}
	return any;
}

void sched_run_this_cpu(void)
{
	u32 me = this_cpu()->index;

	for (;;) {
		bool ran = false;
		u64 wake = 0;
		/* Escape keys still work once the guest with the console has ended. */
		console_poll_input(NULL);
		monitor_poll();
		if (!run_round(me, &ran, &wake))
			break;
		if (ran)
			continue;
		/* Everyone here waits: sleep until the earliest of their events or a kick. */
		lapic_timer_arm(wake);
		if (!wake || rdtsc() < wake)
			__asm__ volatile("sti; hlt; cli" ::: "memory");
		lapic_timer_expired();
	}
	lapic_timer_arm(0);
}
