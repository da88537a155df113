/* Kernel log on the serial console: kprintf with one lock so CPUs' lines do not interleave. */
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

void console_vprintf(const char *fmt, va_list ap)
{
	int me = this_cpu_index();
	bool nested = console_owner == me;

	if (!nested) {
		spin_lock(&console_lock);
		console_owner = me;
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
