/* SPDX-License-Identifier: GPL-2.0-only */
/* The vCPU run loop: events and the shadow root before each entry, the world switch, the exit. */
#include "vmm/run.h"
#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/percpu.h"
#include "arch/x86/regs.h"
#include "arch/x86/tsc.h"
#include "vmm/cr.h"
#include "vmm/exit.h"
#include "vmm/irq.h"
#include "vmm/msi.h"
#include "vmm/pv_eoi.h"
#include "vmm/remote_flush.h"
#include "vmm/trace.h"
#include "vmm/vcpu.h"
#include "vmm/vm.h"
#include "vmm/vm_lock.h"

/* The root may have changed (CR3 load, context reset, a zapped root): reload it. */
static bool load_root(struct vcpu *v)
{
	if (mmu_load(&v->mmu) < 0) {
		vm_end(v->vm, VM_END_FATAL, 0, "out of shadow memory loading the root");
		return false;
	}
	u64 root = mmu_root_hpa(&v->mmu);
	bool pae = mmu_root_is_pae(&v->mmu);
	if (pae != v->hw.root_pae) {
		v->hw.root_hpa = root;
		v->hw.root_pae = pae;
		vcpu_update_paging(v);
		return true;
	}
	if (root != v->hw.root_hpa) {
		v->hw.root_hpa = root;
		return vcpu_set_root(v); /* a cached CR3 load: the root alone */
	}
	return true;
}

bool vcpu_update_events(struct vcpu *v)
{
	u64 now = rdtsc();

	irq_update(v, now);
	if (!v->halted)
		return true;
	if (v->blocking) {
		/* BLOCK returns 1 for an event (even with interrupts off), 0 at its timeout. */
		bool event = irq_pending(v);
		if (!event && now < v->block_deadline)
			return false;
		v->hw.regs.gpr[X86_RAX] = event;
		v->blocking = false;
		v->halted = false;
		return true;
	}
	/* HLT: an NMI ends it unless one is in service; with IF=1 (IF=0 only in a guest with
	 * other vCPUs, which may send an NMI or INIT) so does any interrupt the guest will take. */
	if ((v->nmi_pending && virt->nmi_window_open(&v->hw)) ||
	    ((v->hw.regs.rflags & RFLAGS_IF) && irq_pending(v)))
		v->halted = false;
	return !v->halted;
}

/* Inject the first waiting interrupt if the guest can take it now, else exit as soon as it
 * can (also right after an event injected now, whose handler may reopen the window). */
static void deliver_irq(struct vcpu *v)
{
	/* An NMI goes first, once the one in service has ended with its IRET and no STI/MOV SS
	 * shadow holds it; until then it waits (one: more coalesce into it) for the NMI window. */
	bool nmi_now = v->nmi_pending && !v->hw.pending.valid && virt->nmi_window_open(&v->hw);
	virt->request_nmi_window(&v->hw, v->nmi_pending && !nmi_now);
	if (nmi_now) {
		v->nmi_pending = false;
		v->hw.pending =
			(struct vevent){ .valid = true, .type = VEVENT_NMI, .vector = VEC_NMI };
	}
	if (!irq_pending(v)) {
		virt->request_irq_window(&v->hw, false);
		return;
	}
	if (v->hw.pending.valid || !virt->irq_window_open(&v->hw)) {
		virt->request_irq_window(&v->hw, true);
		return;
	}
	virt->request_irq_window(&v->hw, false);
	v->hw.pending =
		(struct vevent){ .valid = true, .type = VEVENT_EXT_INTR, .vector = irq_ack(v) };
}

/* Nothing was pending at the last look, no device has moved since and none is due: the
 * look would find the same, and is skipped (most exits of a busy guest: CR3 loads, shadow
 * fills). */
static bool events_settled(const struct vcpu *v, u64 now)
{
	const struct events_memo *m = &v->memo.events;
	return m->settled && m->gen == v->vm->dev_gen && (!m->due || now < m->due);
}

/* The full look: devices up to now, HLT and BLOCK wake-ups, the interrupt to inject and when
 * a device next needs the vCPU. False if the vCPU cannot run (halted). */
static bool update_events(struct vcpu *v, u64 now)
{
	pv_eoi_settle(v);
	bool ok = vcpu_update_events(v);

	/* gdb's single step runs the instruction at RIP, not an interrupt or NMI handler, and no
	 * window exit may come before it (what waits stays pending). */
	if (ok && !v->debug_step) {
		deliver_irq(v);
		pv_eoi_arm(v);
	} else if (ok) {
		virt->request_irq_window(&v->hw, false);
		virt->request_nmi_window(&v->hw, false);
	}
	v->memo.events.due = irq_next_deadline(v, now);
	v->memo.events.gen = v->vm->dev_gen;
	v->memo.events.settled = ok && !v->debug_step && !v->nmi_pending && !irq_pending(v);
	return ok;
}

/* RDTSCP returns the real TSC_AUX even where the intercept is ignored (QEMU TCG): give it
 * the guest's value, once per change on this CPU (Umbra itself never reads it). */
static void load_tsc_aux(struct vcpu *v)
{
	static int has_rdtscp = -1;
	struct percpu *pc = this_cpu();

	if (has_rdtscp < 0)
		has_rdtscp = (cpuid(0x80000001, 0).edx >> 27) & 1;
	if (has_rdtscp && pc->tsc_aux != v->hw.tsc_aux) {
		wrmsr(MSR_TSC_AUX, v->hw.tsc_aux);
		pc->tsc_aux = v->hw.tsc_aux;
	}
}

bool vcpu_run_slice(struct vcpu *v, u64 slice_end)
{
	struct vm *vm = v->vm;
	struct vexit x;
	bool ran = false, locked = false;
	u64 budget_end = vm_budget_end(vm), turn_end = deadline_min(slice_end, budget_end);

	/* The lock taken to handle an exit is kept for the next entry's look at events and the
	 * root: one round trip per exit. */
	while (!vm_ended(vm) && !v->yielded && !v->debug_stop &&
	       __atomic_load_n(&v->power, __ATOMIC_ACQUIRE) == VCPU_ON &&
	       !__atomic_load_n(&vm->reset_pending, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&vm->paused, __ATOMIC_ACQUIRE)) {
		u64 now = rdtsc();
		/* Past its budget: the scheduler ends the guest at its next look. */
		if (now >= budget_end)
			break;
		/* The slice ends after one entry at least. A turn that starts late (this CPU held
		 * up longer than a slice, as an emulator's thread can be) still runs the vCPU:
		 * had it returned false, the scheduler would sleep on a runnable vCPU until its
		 * next event, and nobody kicks a vCPU that only computes. */
		if (ran && now >= slice_end)
			break;
		if (!locked)
			vm_lock(vm);
		locked = false;
		/* Each turn starts with a full look (the console's focus, or anything else no
		 * exit reports, may have moved while the vCPU was away). */
		if (!ran)
			v->memo.events.settled = false;
		bool ok = events_settled(v, now) || update_events(v, now);
		if (ok)
			ok = vm->tdp_on || load_root(v);
		/* The guest exits by the end of its slice or budget, or when a device needs it. */
		v->hw.exit_deadline = deadline_min(turn_end, v->memo.events.due);
		vm_unlock(vm);
		if (!ok)
			break;
		/* Runnable, whether or not this entry goes ahead: the scheduler must not sleep on it
		 * (a slice spent waiting for the lock under contention may end with an aborted
		 * entry, and nobody kicks a vCPU outside guest mode). */
		ran = true;
		/* A flush request since the unlock may come with a zapped root: back to the lock. */
		if (!remote_flush_enter_guest(v))
			continue;
		load_tsc_aux(v);
		if (v->dr_active)
			vcpu_dr_load(v);
		lapic_timer_arm(v->hw.exit_deadline);
		v->hw.regs.rflags = virt_entry_rflags(&v->hw.pending, v->hw.regs.rflags);
		virt->vcpu_run(&v->hw, &x);
		remote_flush_exit_guest(v);
		lapic_timer_expired();
		/* A device's MSI made it exit: into its guest's local APIC, this one's or not. */
		if (x.reason == EXIT_INTR)
			msi_dispatch();
		if (vm_lock(vm))
			v->lock_waits[x.reason < EXIT_REASONS ? x.reason : EXIT_OTHER]++;
		locked = true;
		if (vm->tdp_on)
			vcpu_follow_cr3(v);
		if (__builtin_expect(vm->trace, 0)) {
			u64 rip = v->hw.regs.rip, start = rdtsc();
			exit_handle(v, &x);
			trace_exit(v, &x, rip, start);
		} else {
			exit_handle(v, &x);
		}
	}
	if (locked)
		vm_unlock(vm);
	if (v->dr_active)
		vcpu_dr_save(v);
	if (virt->vcpu_put)
		virt->vcpu_put(&v->hw);
	return ran;
}
