/* SPDX-License-Identifier: GPL-2.0-only */
/* IPIs between a guest's vCPUs: delivery by mode, the kick out of guest mode, AP start-up. */
#ifndef VMM_IPI_H
#define VMM_IPI_H

#include "lib/types.h"

struct vcpu;

/* The virtual LAPIC's ICR was written (vlapic.ipi, ctx the sending vCPU), under vm->lock:
 * every vCPU the message reaches gets it (fixed and lowest priority into its IRR, NMI, INIT,
 * SIPI), and one on another CPU is kicked so it sees it now. Destinations no vCPU has are
 * dropped, as on hardware. */
void ipi_send(void *ctx, u32 icr_lo, u32 dest);
/* INIT arrives at t (an INIT IPI, an I/O APIC INIT message): it stops and waits for a SIPI,
 * its APIC at power-on. The BSP's would reset the machine, which the board does not model:
 * dropped (false). Under vm->lock; the caller kicks t. */
bool ipi_init_signal(struct vcpu *t);
/* Makes v's CPU look at it again (out of guest mode, out of its idle HLT). */
void ipi_kick(struct vcpu *v);
/* Starts an AP waiting for SIPI at a 32-bit protected-mode entry (flat segments, paging and
 * interrupts off, ESP = esp, EAX = its vCPU index, EBX = arg): the PV start hypercall. */
void vcpu_start_flat32(struct vcpu *t, u32 eip, u32 esp, u32 arg);

#endif
