/* SPDX-License-Identifier: GPL-2.0-only */
/* The debug layer's registration with the core: the gdb stub and the monitor behind one hook. */
#ifndef VMM_DEBUG_DEBUG_H
#define VMM_DEBUG_DEBUG_H

/* Registers the hook (vmm/debug_hook.h): at boot, before any guest runs. */
void debug_register(void);

#endif
