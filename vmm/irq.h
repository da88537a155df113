/* SPDX-License-Identifier: GPL-2.0-only */
/* Interrupts into a vCPU: the sources in order, the acknowledge cycle, and when to look again. */
#ifndef VMM_IRQ_H
#define VMM_IRQ_H

#include "lib/types.h"

struct vcpu;

/* Brings every interrupt source up to now (host TSC): device timers, PV timer, input. */
void irq_update(struct vcpu *v, u64 now_tsc);
/* Is an interrupt waiting that the vCPU takes as soon as its window is open? */
bool irq_pending(const struct vcpu *v);
/* The acknowledge cycle: takes the first waiting interrupt from its source, returns its vector.
 * Call only when irq_pending. Order: the PV timer, bound doorbells (vmm/shm.c), the 8259
 * through LINT0 (ExtINT bypasses the APIC's priorities), then the local APIC. */
u8 irq_ack(struct vcpu *v);
/* Could an interrupt ever arrive: one waiting, a deadline armed, a device that interrupts on
 * input, an assigned function with its MSI on, or a peer's doorbell (a HLT without any of
 * these would wait forever)? */
bool irq_may_arrive(struct vcpu *v, u64 now_tsc);
/* When the vCPU's interrupt sources next need irq_update (host TSC), or 0 for never. */
u64 irq_next_deadline(struct vcpu *v, u64 now_tsc);

#endif
