/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest's restart after a reset request: memory cleared, devices at power-on, images reloaded. */
#include "vmm/restart.h"
#include "arch/x86/paging.h"
#include "arch/x86/tsc.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "vmm/board.h"
#include "vmm/pci_view.h"
#include "vmm/reset.h"
#include "vmm/vm.h"
#include "vmm/vm_lock.h"

/* What a vCPU's reset leaves: the power-on state of everything the guest set, the MMU vCPU
 * and the counters kept. Its registers come from the loader, its control structure afresh. */
static void vcpu_reset(struct vcpu *v)
{
	void *opaque = v->hw.regs.opaque;

	memset(&v->hw.regs, 0, sizeof(v->hw.regs));
	v->hw.regs.opaque = opaque;
	v->hw.pending.valid = false;
	v->hw.pat = PAT_RESET;
	v->hw.debugctl = 0;
	v->hw.tsc_aux = 0;
	vlapic_reset(&v->vlapic, v->id, v->id == 0);
	v->mtrr_def_type = 0;
	v->misc_enable_flip = 0;
	v->kvmclock_msr = v->wallclock_msr = 0; /* nothing publishes into the zeroed memory */
	v->pv_eoi_msr = 0;
	v->pv_eoi_armed = false;
	v->dr_active = false;
	memset(v->dr, 0, sizeof(v->dr));
	v->dr6 = 0xffff0ff0;
	v->irq_vector = v->timer_vector = 0;
	v->timer_deadline = 0;
	v->halted = v->blocking = false;
	v->nmi_pending = false;
	vcpu_memo_forget(&v->memo);
	v->step_iteration = false;
}

static vm_reload_fn reload;

void vm_restart_set_reload(vm_reload_fn fn)
{
	reload = fn;
}

bool vm_restart(struct vm *vm)
{
	struct vcpu *v = &vm->vcpus[0];
	const char *why;

	vm_lock(vm);
	u32 cause = vm->reset_pending - 1;
	if (!vm->reset_pending || vm_ended(vm)) {
		vm_unlock(vm);
		return false;
	}
	u64 t0 = monotonic_ns();
	/* Each vCPU's CPU has stopped it (vm_reset_hold): none is in guest mode. */
	for (u32 i = 0; i < vm->nr_vcpus; i++) {
		if (!vm->vcpus[i].reset_held) {
			vm_unlock(vm);
			return false;
		}
	}
	__atomic_store_n(&vm->reset_pending, 0, __ATOMIC_RELEASE);
	vm->restarts++;
	vm->restart_causes[cause]++;
	/* Every shadow page goes before the memory they shadow is cleared; the vCPU's roots
	 * are reloaded when its CPU builds it again. Nested paging maps the same frames. */
	mmu_zap_all(&vm->mmu);
	/* A DMA the devices still run would land in the cleared memory of the next boot. */
	pci_view_quiesce(vm, "for its reset");
	for (u32 s = 0; s < vm->mem.n; s++)
		memset(phys_to_virt(vm->mem.hpa[s]), 0, vm->mem.slot[s].npages << PAGE_SHIFT);
	/* The BSP at power-on, the APs back to waiting for a SIPI, as at first boot; an AP's
	 * own CPU builds its control structure afresh after its next SIPI (vmm/sched.c). */
	for (u32 i = 0; i < vm->nr_vcpus; i++) {
		vcpu_reset(&vm->vcpus[i]);
		vm->vcpus[i].reset_held = false;
		if (i)
			__atomic_store_n(&vm->vcpus[i].power, VCPU_WAIT_SIPI, __ATOMIC_RELEASE);
	}
	/* The RTC and its CMOS memory are battery-backed: they survive, as on a PC. */
	struct rtc rtc = vm->board.rtc;
	board_reset(vm, monotonic_ns());
	vm->board.rtc = rtc;
	vm_devices_touched(vm);
	if (!reload || reload(vm, &why) < 0) {
		/* The same files loaded at boot: only a bug gets here. */
		vm_end(vm, VM_END_FATAL, 0, "its images could not be loaded again");
		vm_unlock(vm);
		return false;
	}
	/* The time its memory's clearing and the reload take, for the log (never a test). */
	kinfo("guest %s: restart %u (%s) at %lu ms, %lu us\n", vm->name, vm->restarts,
	      vm_reset_cause_name(cause), t0 / 1000000, (monotonic_ns() - t0) / 1000);
	__atomic_store_n(&v->power, VCPU_STARTING, __ATOMIC_RELEASE);
	vm_unlock(vm);
	return true;
}
