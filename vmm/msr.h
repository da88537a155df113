/* The MSRs a guest may read and write; every other one raises #GP. */
#ifndef VMM_MSR_H
#define VMM_MSR_H

#include "lib/types.h"

struct vcpu;

/* RDMSR/WRMSR on behalf of the guest: true on success, false when the guest gets #GP. */
bool msr_read(struct vcpu *v, u32 msr, u64 *val);
bool msr_write(struct vcpu *v, u32 msr, u64 val);

#endif
