/* SPDX-License-Identifier: GPL-2.0-only */
/* The debug layer's registration with the core: the gdb stub and the monitor behind one hook. */
#include "vmm/debug/debug.h"
#include "vmm/debug/gdbstub.h"
#include "vmm/debug/monitor.h"
#include "vmm/debug_hook.h"

static const struct debug_hook hook = {
	.debug_exit = gdbstub_debug_exit,
	.hold = gdbstub_poll,
	.ended = gdbstub_guest_ended,
	.at_end = monitor_at_end,
	.poll = monitor_poll,
};

void debug_register(void)
{
	debug_hook_set(&hook);
}
