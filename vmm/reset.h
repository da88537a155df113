/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest reset: what a reboot request does (restart from the boot modules, or end), and the restart. */
#ifndef VMM_RESET_H
#define VMM_RESET_H

#include "lib/types.h"

struct vm;
struct vcpu;

/* How a guest asked to be reset, for its report: X(NAME, what the report says). */
#define VM_RESET_LIST(X) \
	X(KBC, "8042")                /* the keyboard controller's reset line (0xFE to port 0x64) */ \
	X(RCR, "cf9")                 /* port 0xCF9, which the FADT's reset register names */ \
	X(TRIPLE_FAULT, "triple-fault")
#define VM_RESET_ENUM_(name, text) VM_RESET_##name,
enum vm_reset { VM_RESET_LIST(VM_RESET_ENUM_) VM_RESET_CAUSES };
#undef VM_RESET_ENUM_

/* Restarts a guest may make before a reboot ends it as a reboot loop (reboots=N). */
#define VM_REBOOTS_DEFAULT 8

/* The guest asks for a reset (caller holds its lock, on the vCPU's exit path). With
 * on_reboot=end it ends as "reboot"; past reboots= restarts, as "reboot-loop"; else every
 * vCPU's slice ends (the others' CPUs are kicked) and vCPU 0's CPU restarts the guest once
 * all are held (vm_reset_hold, vm_restart). */
void vm_reset_request(struct vcpu *v, enum vm_reset cause);
/* A triple fault (detail: how it came about): a reset, as the chipset turns the CPU's shutdown
 * into one, unless the guest was started with expect=crash, which ends it as "triple-fault". */
void vm_triple_fault(struct vcpu *v, const char *detail);
/* Before a vCPU's turn, on its CPU outside guest mode, lock not held: true while a reset is
 * pending, the vCPU then held (not run) until vCPU 0's CPU has restarted the guest. */
bool vm_reset_hold(struct vcpu *v);
/* Runs a requested restart once every vCPU is held, on vCPU 0's CPU outside guest mode, lock
 * not held; true if one was done (vCPU 0 is then VCPU_STARTING: its CPU builds it afresh; the
 * APs wait for a SIPI). */
bool vm_restart(struct vm *vm);
/* What a restart loads the guest's image with, registered at boot by the layer above (the
 * loader, vmm/load/loader.h) so that the core calls it without including it: 0, or <0 with
 * *why. */
typedef int (*vm_reload_fn)(struct vm *vm, const char **why);
void vm_reset_set_reload(vm_reload_fn fn);
/* The restart counts for the report: " restarts=N 8042=a cf9=b triple-fault=c". */
int vm_restart_text(const struct vm *vm, char *buf, size_t size);

#endif
