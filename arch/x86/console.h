/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbra's log on the serial line (kprintf's back end), and the raw path of a guest's terminal. */
#ifndef ARCH_X86_CONSOLE_H
#define ARCH_X86_CONSOLE_H

#include <stdarg.h>
#include "lib/types.h"

/* kprintf's body: one line at a time under the log's lock, after settling the terminal that a
 * raw guest may have left mid-sequence or mid-line. */
void console_vprintf(const char *fmt, va_list ap);
/* One byte of the guest that has the terminal raw (term=raw), out as it is; the state it leaves
 * the terminal in is tracked for Umbra's next line. */
void console_raw_putc(char c);

#endif
