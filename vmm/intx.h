/* SPDX-License-Identifier: GPL-2.0-only */
/* Assigned functions' INTx: the host line of each, masked at the function until its guest's EOI. */
#ifndef VMM_INTX_H
#define VMM_INTX_H

#include "lib/types.h"

struct vm;

/* Host function bdf, the guest's device dev, shows its INTA to the guest when the host's
 * firmware routed its pin to an I/O APIC input Umbra can take (its interrupt line, as PC
 * firmware writes it); otherwise says why not, and the function has MSI alone. */
void intx_attach(struct vm *vm, unsigned dev, u16 bdf);
/* Whether vector is an INTx line's; if so, its arrival is handled: each function on the line
 * that asserts INTx is masked at the function and raises its guest's INTA, then the line is
 * unmasked. Takes each guest's lock, so the caller holds none. */
bool intx_arrived(u8 vector);
/* Whether a line's vector is sent to cpu while a guest with a function on it runs: that CPU
 * goes on taking it after its own vCPUs have ended. */
bool intx_serves(u32 cpu);

#endif
