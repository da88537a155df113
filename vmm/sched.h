/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-CPU scheduling of guests: time slices, budgets, and sleeping until the next event. */
#ifndef VMM_SCHED_H
#define VMM_SCHED_H

#include "lib/types.h"

/* How long one vCPU runs before the others on its CPU get their turn. */
#define SCHED_SLICE_NS 10000000ull

/* weight=: a guest's share of each CPU against the other guests there, whatever its number
 * of vCPUs (the default when not given: every guest alike). */
#define SCHED_WEIGHT_DEFAULT 256
#define SCHED_WEIGHT_MAX 65535

/* Runs the guests assigned to the calling CPU until every one of them has ended. */
void sched_run_this_cpu(void);

#endif
