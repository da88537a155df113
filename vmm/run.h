/* SPDX-License-Identifier: GPL-2.0-only */
/* The vCPU run loop, which the scheduler gives each turn to: entries and the exits' handling. */
#ifndef VMM_RUN_H
#define VMM_RUN_H

#include "lib/types.h"

struct vcpu;

/* Runs one vCPU until its guest ends, it halts or yields, or the time slice is over. Returns
 * false only if it cannot run now (halted, waiting for an event): the CPU may sleep on it.
 * A yield leaves v->yielded set for the caller to see and clear. */
bool vcpu_run_slice(struct vcpu *v, u64 tsc_deadline);
/* Timer expiry and wake-ups; true if the vCPU is runnable. */
bool vcpu_update_events(struct vcpu *v);

#endif
