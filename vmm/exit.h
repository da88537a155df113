/* SPDX-License-Identifier: GPL-2.0-only */
/* Vendor-neutral exit dispatch. */
#ifndef VMM_EXIT_H
#define VMM_EXIT_H

struct vcpu;
struct vexit;

/* Counts the exit and acts on it; called with the VM lock held. */
void exit_handle(struct vcpu *v, const struct vexit *x);

#endif
