/* SPDX-License-Identifier: GPL-2.0-only */
/* The one hook through which the core reaches the debugger and the monitor (vmm/debug/). */
#include "vmm/debug_hook.h"

const struct debug_hook *debug_hook;

void debug_hook_set(const struct debug_hook *hook)
{
	debug_hook = hook;
}
