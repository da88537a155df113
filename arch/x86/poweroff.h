/* SPDX-License-Identifier: GPL-2.0-only */
/* Ends the emulator run with a status: isa-debug-exit on QEMU, magic break or shutdown on Bochs. */
#ifndef ARCH_X86_POWEROFF_H
#define ARCH_X86_POWEROFF_H

#include "lib/types.h"

/* QEMU's isa-debug-exit turns `out v` into exit status (v << 1) | 1. */
#define EXIT_PORT 0xf4
#define EXIT_VALUE_PASS 0x10 /* QEMU exits 33 */
#define EXIT_VALUE_FAIL 0x11 /* QEMU exits 35 */

NORETURN void platform_exit(bool pass);

#endif
