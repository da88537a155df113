/* SPDX-License-Identifier: GPL-2.0-only */
/* A vCPU's control registers and EFER: guest writes, CR access exits, and the paging they set. */
#ifndef VMM_CR_H
#define VMM_CR_H

#include "lib/types.h"

struct vcpu;
struct vexit;

/* Guest writes to CR0/CR3/CR4/EFER: validate (#GP on a bad value), update the guest's view
 * and the MMU context. Return false after injecting #GP. */
bool vcpu_set_cr0(struct vcpu *v, u64 val);
bool vcpu_set_cr3(struct vcpu *v, u64 val);
bool vcpu_set_cr4(struct vcpu *v, u64 val);
bool vcpu_set_efer(struct vcpu *v, u64 val);
/* The guest's paging mode or shadow root changed: the backend recomputes what the CPU runs
 * with. A mode this CPU cannot run ends the guest (false). */
bool vcpu_update_paging(struct vcpu *v);
/* Only the shadow root changed (a cached CR3 load): the backend loads just that. */
bool vcpu_set_root(struct vcpu *v);
/* Nested paging: the guest loaded CR3 without an exit. The emulator and the hypercalls still
 * walk its tables through the shadow MMU's walker, which must follow it. */
void vcpu_follow_cr3(struct vcpu *v);
/* Handles a CR access exit (decodes MOV CR, CLTS, LMSW, SMSW). */
void vcpu_cr_access(struct vcpu *v, const struct vexit *x);

#endif
