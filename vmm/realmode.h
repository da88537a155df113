/* SPDX-License-Identifier: GPL-2.0-only */
/* Real-mode guests on a backend that runs them in virtual-8086 mode: emulation and IVT delivery. */
#ifndef VMM_REALMODE_H
#define VMM_REALMODE_H

struct vcpu;
struct vexit;

/* EXIT_EMULATE: deliver the pending event through the IVT, or emulate the instruction at
 * CS:IP (arch/x86/realmode.c); what cannot be emulated ends the guest with a message. */
void realmode_exit(struct vcpu *v, const struct vexit *x);

#endif
