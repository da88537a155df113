/* SPDX-License-Identifier: GPL-2.0-only */
/* The guests' consoles on Umbra's serial line: output by line with a name prefix, input by focus. */
#ifndef VMM_CONSOLE_H
#define VMM_CONSOLE_H

#include "lib/types.h"
#include "vmm/console_state.h"

struct vm;

/* One byte the guest sent (its COM1 or the console hypercall); lines print as "[name] ...". */
void console_putc(struct vm *vm, char c);
/* Prints what is left in the guest's console line buffer. */
void console_flush(struct vm *vm);
/* Prints the guest's last console lines (as many as are kept), for who ("monitor"). */
void console_log_print(const struct vm *vm, const char *who);

/* Keyboard input: bytes typed on Umbra's serial line go to the guest with the focus
 * (console=NAME on Umbra's line, else the first guest). Ctrl-A n moves the focus to the next
 * guest that has not ended, Ctrl-A c opens or closes the monitor (vmm/debug/monitor.c), Ctrl-A a sends
 * a Ctrl-A, Ctrl-A h lists the keys. */
#define CONSOLE_ESCAPE 0x01
void console_focus_init(const char *name);
/* Moves typed bytes into vm's COM1 if it has the focus; with vm NULL (or an ended focus) only
 * the escape keys are read, so the focus can always be moved. Called by the CPU running vm. */
void console_poll_input(struct vm *vm);
/* How often typed input is looked for while nobody is interrupted by it (Umbra polls its
 * serial line): by a guest that waits for input by interrupt, and by the scheduler's loop
 * while the focus guest does not read (ended, held by gdb, paused, or the monitor open). */
#define CONSOLE_POLL_NS 10000000ull
/* When the loop on this CPU must look for typed keys next (0: it need not): without it, a CPU
 * whose guests all wait would sleep through Ctrl-A n typed after the focus guest ended. */
u64 console_keys_deadline(u64 now_tsc);
/* The monitor's input: Ctrl-A c gives it the keys, the console edits the line, and the
 * monitor's poll takes each line ended by Enter (true, copied into buf; once). */
#define CONSOLE_MONITOR_LINE 96
bool console_monitor_line(char *buf, size_t size);
/* The terminal is back to lines (the raw guest ended): the lines that waited are shown. */
void console_lines_again(void);
/* Gives vm the focus (the monitor's focus command). */
void console_focus_set(struct vm *vm);
/* Does vm have the focus (so input may arrive for it)? */
bool console_has_focus(const struct vm *vm);

#endif
