/* SPDX-License-Identifier: GPL-2.0-only */
/* panic(): the one way out of a fatal internal error, for every layer; the report is a hook. */
#include "lib/assert.h"

static panic_handler_fn handler;

void panic_set_handler(panic_handler_fn fn)
{
	handler = fn;
}

NORETURN void panic(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (handler)
		handler(fmt, ap); /* does not return */
	va_end(ap);
	/* Nothing registered yet, so nothing to print with: stop here. */
	for (;;)
		;
}
