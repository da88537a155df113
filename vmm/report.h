/* SPDX-License-Identifier: GPL-2.0-only */
/* The end of a run: the one UMBRA SUMMARY line every test reads, then the emulator exit. */
#ifndef VMM_REPORT_H
#define VMM_REPORT_H

#include <stdarg.h>
#include "lib/types.h"

/* Prints the summary (once, whichever CPU gets here first) and ends the run. */
NORETURN void umbra_finish(bool pass, const char *why);
/* panic()'s handler (lib/assert.h): the message, a backtrace, then the summary with result=fail. */
NORETURN void umbra_panic(const char *fmt, va_list ap);
/* Waits for every guest to end, prints the per-guest report; true if all went as expected. */
bool guests_wait_and_report(char *summary, size_t size);
/* More key=value pairs for the summary line (the guests' totals). */
void umbra_set_summary_extra(const char *kv);

#endif
