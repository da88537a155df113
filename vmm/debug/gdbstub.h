/* SPDX-License-Identifier: GPL-2.0-only */
/* The gdb remote stub on COM2 (gdb=NAME): what the scheduler and the exit handlers call. */
#ifndef VMM_DEBUG_GDBSTUB_H
#define VMM_DEBUG_GDBSTUB_H

#include "vmm/vm.h"

/* Attaches the stub to the guest called name (reported if there is none); with wait, the guest
 * is held before its first instruction until gdb continues it. gdb's "monitor CMD" goes to
 * rcmd (the monitor's queue, which itself asks the stub whether it is attached): false, busy. */
void gdbstub_init(const char *name, bool wait, bool (*rcmd)(const char *line));
/* Is the stub attached to vm? */
bool gdbstub_attached(const struct vm *vm);
/* Called by vm's CPU before each slice: serves gdb's packets and lowers *wake so the CPU looks
 * again soon. True while the debugger holds the guest (it must not run). */
bool gdbstub_poll(struct vm *vm, u64 *wake);
/* An intercepted #BP (vector 3) or #DB (1, with the DR6 bits the exit reported) of v: true if
 * it was gdb's (one of its breakpoints or watchpoints, its single step), which stops the guest;
 * false if it belongs to the guest. */
bool gdbstub_debug_exit(struct vcpu *v, u8 vector, u64 dr6);
/* vm ended: a gdb waiting for it is told (W/X packet) and the stub lets go. */
void gdbstub_guest_ended(struct vm *vm);

#endif
