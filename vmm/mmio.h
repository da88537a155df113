/* Guest-physical addresses outside RAM: the local APIC model, and all-ones for the rest. */
#ifndef VMM_MMIO_H
#define VMM_MMIO_H

#include "lib/types.h"

struct vcpu;

/* One access of 1-8 bytes within a page. */
void mmio_read(struct vcpu *v, u64 gpa, void *buf, unsigned len);
void mmio_write(struct vcpu *v, u64 gpa, const void *buf, unsigned len);

#endif
