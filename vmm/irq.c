/* SPDX-License-Identifier: GPL-2.0-only */
/* Interrupt delivery to a vCPU: one order for all sources, shared by injection and HLT wake-up. */
#include "vmm/irq.h"
#include "arch/x86/tsc.h"
#include "vmm/vm.h"
#include "vmm/board.h"
#include "vmm/shm.h"

static bool extint_pending(const struct vcpu *v)
{
	return vlapic_accepts_extint(&v->vlapic) && pic_pending(&v->vm->board.pic);
}

void irq_update(struct vcpu *v, u64 now_tsc)
{
	if (v->timer_deadline && now_tsc >= v->timer_deadline) {
		v->timer_deadline = 0;
		v->irq_vector = v->timer_vector;
	}
	board_update(v, tsc_to_monotonic_ns(now_tsc));
	/* The 8259's INTR drives every CPU's LINT0; in NMI mode its rising edge is an NMI, taken
	 * by the vCPU's NMI path as an NMI IPI is (no acknowledge reaches the 8259). */
	if (vlapic_lint0(&v->vlapic, pic_pending(&v->vm->board.pic)))
		v->nmi_pending = true;
}

bool irq_pending(const struct vcpu *v)
{
	return v->irq_vector || shm_irq_pending(v) || extint_pending(v) ||
	       vlapic_pending(&v->vlapic) >= 0;
}

u8 irq_ack(struct vcpu *v)
{
	u8 vector;

	if (v->irq_vector) {
		vector = v->irq_vector;
		v->irq_vector = 0;
		return vector;
	}
	if (shm_irq_pending(v))
		return shm_irq_ack(v);
	if (extint_pending(v))
		return pic_ack(&v->vm->board.pic);
	vector = (u8)vlapic_pending(&v->vlapic);
	vlapic_ack(&v->vlapic, vector);
	return vector;
}

bool irq_may_arrive(struct vcpu *v, u64 now_tsc)
{
	return irq_pending(v) || irq_next_deadline(v, now_tsc) || shm_may_ring(v->vm) ||
	       uart_rx_irq_enabled(&v->vm->board.com1) || pci_msi_may_arrive(&v->vm->board.pci);
}

u64 irq_next_deadline(struct vcpu *v, u64 now_tsc)
{
	u64 ns = board_next_event_ns(v, tsc_to_monotonic_ns(now_tsc));
	return deadline_min(v->timer_deadline, ns ? monotonic_ns_to_tsc(ns) : 0);
}
