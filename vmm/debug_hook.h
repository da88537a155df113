/* SPDX-License-Identifier: GPL-2.0-only */
/* The one hook through which the core reaches the debugger and the monitor (vmm/debug/). */
#ifndef VMM_DEBUG_HOOK_H
#define VMM_DEBUG_HOOK_H

#include "lib/types.h"

struct vm;
struct vcpu;

/* Registered at boot by the layer above (vmm/debug/debug.c), so that the scheduler, the exit
 * path and the console call it without including it; absent, nothing debugs. */
struct debug_hook {
	/* An intercepted #BP (3) or #DB (1, DR6 bits as exited): true if it was the debugger's. */
	bool (*debug_exit)(struct vcpu *v, u8 vector, u64 dr6);
	/* Before vCPU 0's slice: true while the debugger holds the guest; may lower *wake. */
	bool (*hold)(struct vm *vm, u64 *wake);
	/* The guest's end, before its trace is dumped (the debugger lets go of it). */
	void (*ended)(struct vm *vm);
	/* The guest's end, once its console lines are out (the monitor's commands at its end). */
	void (*at_end)(struct vm *vm);
	/* Every scheduler turn of every CPU: queued monitor commands and the line typed at the
	 * console (console_monitor_line). */
	void (*poll)(void);
};

extern const struct debug_hook *debug_hook;
void debug_hook_set(const struct debug_hook *hook);

static inline bool debug_exit(struct vcpu *v, u8 vector, u64 dr6)
{
	return debug_hook && debug_hook->debug_exit(v, vector, dr6);
}

#endif
