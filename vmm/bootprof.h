/* SPDX-License-Identifier: GPL-2.0-only */
/* Where a guest's boot spends its exits and time, split at milestones every x86-64 kernel passes. */
#ifndef VMM_BOOTPROF_H
#define VMM_BOOTPROF_H

#include "lib/types.h"
#include "vmm/bootprof_state.h"

struct vcpu;
struct vexit;

/* Called on every exit before it is counted: notes the milestones the guest has passed. */
void bootprof_exit(struct vcpu *v, const struct vexit *x);
/* A phase's name as the report and the trace print it ("low", "early", "init"). */
const char *bootprof_phase_name(unsigned phase);
/* Prints the phases of a guest that reached the upper half: time from its first exit and the
 * exits by reason in each. */
void bootprof_report(const struct vcpu *v, const char *name);

#endif
