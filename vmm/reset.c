/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest reset: what a reboot request does (restart from the boot modules, or end), and the restart. */
#include "vmm/reset.h"
#include "arch/x86/paging.h"
#include "arch/x86/tsc.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "vmm/bios.h"
#include "vmm/console.h"
#include "vmm/ipi.h"
#include "vmm/loader.h"
#include "vmm/pci_view.h"
#include "vmm/vm.h"
#include "vmm/vm_lock.h"
#include "vmm/board.h"

#define VM_RESET_TEXT_(name, text) text,
static const char *const cause_names[] = { VM_RESET_LIST(VM_RESET_TEXT_) };
#undef VM_RESET_TEXT_

void vm_reset_request(struct vcpu *v, enum vm_reset cause)
{
	struct vm *vm = v->vm;

	if (vm->reset_pending)
		return; /* the second of two requests in one exit (a word to 0x64 and 0x65) */
	console_flush(vm);
	if (vm->config.on_reboot_end) {
		vm_end(vm, VM_END_REBOOT, 0, cause_names[cause]);
		return;
	}
	if (vm->restarts >= vm->config.reboots_max) {
		vm_end(vm, VM_END_REBOOT_LOOP, 0, "more resets than reboots= allows");
		return;
	}
	/* Every vCPU leaves guest mode and is held by its CPU (vm_reset_hold); vCPU 0's CPU
	 * restarts the guest once all are. The kick brings the others out of guest mode or of
	 * the CPU's HLT at once. */
	__atomic_store_n(&vm->reset_pending, cause + 1, __ATOMIC_SEQ_CST);
	v->yielded = true; /* end the slice: the restart runs before the next entry */
	vm_kick_all(vm);
}

bool vm_reset_hold(struct vcpu *v)
{
	struct vm *vm = v->vm;
	bool all = true;

	if (!__atomic_load_n(&vm->reset_pending, __ATOMIC_ACQUIRE))
		return false;
	/* Under the lock, which the restart holds: a hold is never left over from a reset
	 * already done, so the next one waits for this vCPU again. */
	vm_lock(vm);
	if (vm->reset_pending) {
		v->reset_held = true;
		for (u32 i = 0; i < vm->nr_vcpus; i++)
			all &= vm->vcpus[i].reset_held;
	}
	vm_unlock(vm);
	/* The last one held wakes vCPU 0's CPU, which may sleep waiting for it. */
	if (all && v->id)
		ipi_kick(&vm->vcpus[0]);
	return true;
}

void vm_triple_fault(struct vcpu *v, const char *detail)
{
	if (v->vm->config.expect_crash) {
		console_flush(v->vm);
		vm_end(v->vm, VM_END_SHUTDOWN, 0, detail);
		return;
	}
	kinfo("guest %s: %s: reset\n", v->vm->name, detail);
	vm_reset_request(v, VM_RESET_TRIPLE_FAULT);
}

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
	if (loader_load(vm, vm->image, vm->image_size, vm->files, vm->nfiles, &why) < 0) {
		/* The same files loaded at boot: only a bug gets here. */
		vm_end(vm, VM_END_FATAL, 0, "its images could not be loaded again");
		vm_unlock(vm);
		return false;
	}
	/* A guest that booted on the BIOS's leftovers gets them again, as after a PC's reset. */
	if (vm->bios_on)
		bios_start_devices(vm, monotonic_ns());
	/* The time its memory's clearing and the reload take, for the log (never a test). */
	kinfo("guest %s: restart %u (%s) at %lu ms, %lu us\n", vm->name, vm->restarts,
	      cause_names[cause], t0 / 1000000, (monotonic_ns() - t0) / 1000);
	__atomic_store_n(&v->power, VCPU_STARTING, __ATOMIC_RELEASE);
	vm_unlock(vm);
	return true;
}

int vm_restart_text(const struct vm *vm, char *buf, size_t size)
{
	int n = fmt_snprintf(buf, size, " restarts=%u", vm->restarts);

	for (int i = 0; i < VM_RESET_CAUSES; i++)
		n += fmt_snprintf(buf + n, size - n, " %s=%u", cause_names[i], vm->restart_causes[i]);
	return n;
}
