/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest reset: what a reboot request does (restart from the boot modules, or end), and the hold. */
#include "vmm/reset.h"
#include "arch/x86/tsc.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "vmm/console.h"
#include "vmm/ipi.h"
#include "vmm/vm.h"
#include "vmm/vm_lock.h"

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

const char *vm_reset_cause_name(enum vm_reset cause)
{
	return cause < VM_RESET_CAUSES ? cause_names[cause] : "?";
}

int vm_restart_text(const struct vm *vm, char *buf, size_t size)
{
	int n = fmt_snprintf(buf, size, " restarts=%u", vm->restarts);

	for (int i = 0; i < VM_RESET_CAUSES; i++)
		n += fmt_snprintf(buf + n, size - n, " %s=%u", cause_names[i],
				  vm->restart_causes[i]);
	return n;
}
