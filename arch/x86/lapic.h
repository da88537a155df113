/* The local APIC (xAPIC, by MMIO): identity, enabling, and the IPIs that start APs. */
#ifndef ARCH_X86_LAPIC_H
#define ARCH_X86_LAPIC_H

#include "lib/types.h"

void lapic_init(u64 base);
void lapic_enable(void);
u32 lapic_id(void);
void lapic_send_init(u32 apic_id);
void lapic_send_sipi(u32 apic_id, u8 vector_page);
void lapic_eoi(void);

/* Host interrupt vectors. */
#define TIMER_VECTOR 0x20
#define SPURIOUS_VECTOR 0xff

/* Periodic timer interrupts on TIMER_VECTOR about every `ms` milliseconds (a guest running
 * then exits, and the scheduler can switch), or off for ms == 0. */
void lapic_timer_periodic(u32 ms);

#endif
