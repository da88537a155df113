/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest reset: what a reboot request does (restart from the boot modules, or end), and the hold. */
#ifndef VMM_RESET_H
#define VMM_RESET_H

#include "lib/types.h"
#include "vmm/reset_cause.h"

struct vm;
struct vcpu;

/* The guest asks for a reset (caller holds its lock, on the vCPU's exit path). With
 * on_reboot=end it ends as "reboot"; past reboots= restarts, as "reboot-loop"; else every
 * vCPU's slice ends (the others' CPUs are kicked) and vCPU 0's CPU restarts the guest once
 * all are held (vm_reset_hold, vm_restart in vmm/restart.c). */
void vm_reset_request(struct vcpu *v, enum vm_reset cause);
/* A triple fault (detail: how it came about): a reset, as the chipset turns the CPU's shutdown
 * into one, unless the guest was started with expect=crash, which ends it as "triple-fault". */
void vm_triple_fault(struct vcpu *v, const char *detail);
/* Before a vCPU's turn, on its CPU outside guest mode, lock not held: true while a reset is
 * pending, the vCPU then held (not run) until vCPU 0's CPU has restarted the guest. */
bool vm_reset_hold(struct vcpu *v);
/* The cause's name as the report and the log spell it ("8042", "cf9", "triple-fault"). */
const char *vm_reset_cause_name(enum vm_reset cause);
/* The restart counts for the report: " restarts=N 8042=a cf9=b triple-fault=c". */
int vm_restart_text(const struct vm *vm, char *buf, size_t size);

#endif
