/* The guest's local APIC as a register file at 0xfee00000: enough for kernels that probe it. */
#ifndef VMM_VLAPIC_H
#define VMM_VLAPIC_H

#include "lib/types.h"

#define VLAPIC_BASE 0xfee00000ull

struct vlapic {
	u32 id, tpr, ldr, dfr, svr, esr, icr_lo, icr_hi;
	u32 lvt[7];   /* CMCI, timer, thermal, perf, LINT0, LINT1, error */
	u32 timer_init, timer_div;
};

struct vcpu;

void vlapic_reset(struct vlapic *l, u32 id);
u32 vlapic_read(struct vlapic *l, u32 offset);
void vlapic_write(struct vlapic *l, u32 offset, u32 val);

#endif
