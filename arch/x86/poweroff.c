/* SPDX-License-Identifier: GPL-2.0-only */
/* Emulator exit: tries QEMU's debug-exit port, then Bochs' magic break or shutdown port. */
#include "arch/x86/poweroff.h"
#include "arch/x86/cpu.h"
#include "arch/x86/serial.h"

NORETURN void platform_exit(bool pass)
{
	serial_drain(); /* up to a FIFO's worth of the last lines may still be in the UART */
	outl(EXIT_PORT, pass ? EXIT_VALUE_PASS : EXIT_VALUE_FAIL);
	/* Still here: not QEMU with isa-debug-exit. Bochs: the magic break runs the debugger's
	 * queued "quit" (exit 0); the "Shutdown" string on port 0x8900 makes it exit 1. */
	if (pass) {
		__asm__ volatile("xchg %bx, %bx");
	} else {
		static const char msg[] = "Shutdown";
		for (const char *p = msg; *p; p++)
			outb(0x8900, (u8)*p);
	}
	halt_forever();
}
