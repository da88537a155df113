/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel log on the serial console: kprintf with one lock so CPUs' lines do not interleave. */
#include "arch/x86/console.h"
#include "lib/printf.h"
#include "lib/spinlock.h"
#include "arch/x86/serial.h"
#include "arch/x86/percpu.h"

int log_level = LOG_INFO;
static spinlock_t console_lock = SPINLOCK_INIT;
/* A CPU that panics while holding the lock must still be able to print its dump. */
static volatile int console_owner = -1;

static void console_out(char c, void *arg)
{
	(void)arg;
	if (c == '\n')
		serial_putc('\r');
	serial_putc(c);
}

/* The terminal state a guest with the raw terminal (vmm/console.c, term=raw) left: inside an
 * escape sequence (1: after ESC, 2: a CSI's parameters, 3: a string such as an OSC, 4: ESC in
 * a string), in the middle of a line, or with anything written at all since Umbra's last line. */
static struct {
	u8 esc;
	bool mid_line, touched;
} raw;

static void raw_track(u8 b)
{
	raw.touched = true;
	switch (raw.esc) {
	case 1:
		raw.esc = b == '[' ? 2 : (b == ']' || b == 'P' || b == '_' || b == '^') ? 3 : 0;
		return;
	case 2:
		if (b >= 0x40 && b <= 0x7e)
			raw.esc = 0;
		return;
	case 3:
		raw.esc = b == 0x1b ? 4 : (b == 0x07 || b == 0x9c) ? 0 : 3;
		return;
	case 4:
		raw.esc = b == '\\' ? 0 : 3;
		return;
	}
	if (b == 0x1b)
		raw.esc = 1;
	else if (b == 0x9b)
		raw.esc = 2;
	else if (b == '\n')
		raw.mid_line = false;
	else if (b >= 0x20 || b == '\t')
		raw.mid_line = true;
}

/* Before a line of Umbra's own after raw output: the guest's unfinished escape sequence is
 * cancelled (CAN), its attributes reset, and Umbra's line starts a line of its own, so that
 * nothing the guest wrote can hide, colour or run into it. */
static void raw_settle(void)
{
	if (!raw.touched)
		return;
	if (raw.esc)
		serial_putc(0x18);
	for (const char *p = "\x1b[0m"; *p; p++)
		serial_putc(*p);
	if (raw.mid_line) {
		serial_putc('\r');
		serial_putc('\n');
	}
	raw.esc = 0;
	raw.mid_line = raw.touched = false;
}

void console_raw_putc(char c)
{
	spin_lock(&console_lock);
	serial_putc(c);
	raw_track((u8)c);
	spin_unlock(&console_lock);
}

void console_vprintf(const char *fmt, va_list ap)
{
	int me = this_cpu_index();
	bool nested = console_owner == me;

	if (!nested) {
		spin_lock(&console_lock);
		console_owner = me;
		raw_settle();
	}
	fmt_vcbprintf(console_out, NULL, fmt, ap);
	if (!nested) {
		console_owner = -1;
		spin_unlock(&console_lock);
	}
}

void kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	console_vprintf(fmt, ap);
	va_end(ap);
}
