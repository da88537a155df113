/* SPDX-License-Identifier: GPL-2.0-only */
/* Hypercall dispatch: decode the call from the guest's registers, check its class, run it. */
#ifndef PV_HYPERCALL_H
#define PV_HYPERCALL_H

struct vcpu;

/* Handles the hypercall in v's registers; the result goes to RAX. RIP is the caller's business. */
void pv_hypercall(struct vcpu *v);

#endif
