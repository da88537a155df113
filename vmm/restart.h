/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest's restart, once the reset it asked for (vmm/reset.c) holds every vCPU. */
#ifndef VMM_RESTART_H
#define VMM_RESTART_H

#include "lib/types.h"

struct vm;

/* Runs a requested restart once every vCPU is held, on vCPU 0's CPU outside guest mode, lock
 * not held; true if one was done (vCPU 0 is then VCPU_STARTING: its CPU builds it afresh; the
 * APs wait for a SIPI). */
bool vm_restart(struct vm *vm);
/* What a restart loads the guest's images with (and the BIOS's leftovers, for a guest that
 * booted on them), registered at boot by the layer above (the loader, vmm/load/loader.h) so
 * that the core calls it without including it: 0, or <0 with *why. */
typedef int (*vm_reload_fn)(struct vm *vm, const char **why);
void vm_restart_set_reload(vm_reload_fn fn);

#endif
