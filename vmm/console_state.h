/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest's console state, which struct vm embeds: its line being assembled and its last lines. */
#ifndef VMM_CONSOLE_STATE_H
#define VMM_CONSOLE_STATE_H

#include "lib/types.h"

/* A guest's console, console.c's own: the line being assembled (printed with the guest's name
 * in front), its last lines for the monitor's log command, and how many of them are on the
 * terminal (the rest wait while another guest has it raw). */
#define CONSOLE_LOG_LINES 64
#define CONSOLE_LINE_MAX 128
struct console {
	char line[CONSOLE_LINE_MAX];
	u32 line_len;
	char log[CONSOLE_LOG_LINES][CONSOLE_LINE_MAX];
	u32 log_count;
	u32 log_shown;
};

#endif
