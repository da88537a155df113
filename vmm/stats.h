/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest's counters in the ABI's form: exits by reason and its MMU's statistics. */
#ifndef VMM_STATS_H
#define VMM_STATS_H

#include "pv/abi.h"

struct vcpu;

void stats_collect(struct vcpu *v, struct umbra_stats *out);
/* An exit reason's short name, as reports and arch/x86/exit_reason.h spell it ("pf", "io", ...). */
const char *stats_exit_name(unsigned reason);

#endif
