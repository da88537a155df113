/* SPDX-License-Identifier: GPL-2.0-only */
/* The monitor (README "The monitor"): Ctrl-A c on the console, or monitor=NAME:CMD at a guest's end. */
#ifndef VMM_DEBUG_MONITOR_H
#define VMM_DEBUG_MONITOR_H

#include "vmm/vm.h"

/* Runs one command line now, printing its answer ("monitor: ..." lines). Takes the locks of
 * the guests it looks at: call with none held. */
void monitor_exec(const char *line);
/* Queues a line for monitor_poll (gdb's "monitor CMD" too); false if one is waiting already. */
bool monitor_queue(const char *line);
/* Runs a queued line (a line typed on the console is queued first); called by every CPU's scheduler loop, which holds no lock. */
void monitor_poll(void);
/* Runs the monitor= commands given for vm, which has just ended (on its CPU). */
void monitor_at_end(struct vm *vm);

#endif
