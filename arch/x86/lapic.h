/* SPDX-License-Identifier: GPL-2.0-only */
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

/* The one-shot timer that ends guest slices and wakes idle CPUs: TSC-deadline mode where the
 * CPU has it, else the APIC's own one-shot mode calibrated against the TSC. Once, on the BSP. */
void lapic_timer_init(void);
const char *lapic_timer_mode(void);
/* Interrupt this CPU on TIMER_VECTOR once the TSC reaches tsc (0: disarm). Cheap when the same
 * deadline is already armed. */
void lapic_timer_arm(u64 tsc);
/* After an exit or a wake-up: forget a deadline that has passed (it fired). */
void lapic_timer_expired(void);
/* A fixed IPI (KICK_VECTOR: make a CPU look at its guests again). */
void lapic_send_fixed(u32 apic_id, u8 vector);
#define KICK_VECTOR TIMER_VECTOR

#endif
