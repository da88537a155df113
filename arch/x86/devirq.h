/* SPDX-License-Identifier: GPL-2.0-only */
/* Host vectors for device interrupts (assigned functions' MSIs and INTx lines): allocation and the per-CPU record of arrivals. */
#ifndef ARCH_X86_DEVIRQ_H
#define ARCH_X86_DEVIRQ_H

/* 64 vectors, above the timer's (0x20) and below the spurious one: one per MSI a function
 * of some guest may send. Their priority classes (4-7) are below nothing Umbra masks with TPR
 * (it keeps TPR 0), and Umbra's own timer is the lowest vector it uses. */
#define DEVIRQ_FIRST 0x40
#define DEVIRQ_COUNT 64

#ifndef __ASSEMBLER__
#include "lib/types.h"

static inline bool devirq_is(u64 vector)
{
	return vector >= DEVIRQ_FIRST && vector < DEVIRQ_FIRST + DEVIRQ_COUNT;
}

/* A free vector, or 0 when all are taken (the caller gives the function no MSI). */
u8 devirq_alloc(void);
/* Vector carries the level-triggered I/O APIC input gsi: each arrival masks the input before
 * its EOI, or the line, still high until vmm/ masks the function, would raise it again at
 * once; vmm/ unmasks it (host_ioapic_mask) once it has. */
void devirq_set_level(u8 vector, u32 gsi);
/* A device vector was taken on this CPU (its handler, or VMX's acknowledge on exit): recorded
 * for devirq_take, and EOIed (a level input masked first). */
void devirq_arrived(u8 vector);
/* The vectors recorded on this CPU since the last call, bit i for DEVIRQ_FIRST + i, cleared. */
u64 devirq_take(void);
/* Whether any is recorded on this CPU (read with interrupts off before sleeping). */
bool devirq_waiting(void);
#endif

#endif
