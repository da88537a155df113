/* SPDX-License-Identifier: GPL-2.0-only */
/* The host's I/O APICs: the redirection entries of the device interrupts Umbra takes itself. */
#ifndef ARCH_X86_IOAPIC_H
#define ARCH_X86_IOAPIC_H

#include "arch/x86/acpi.h"
#include "lib/types.h"

/* Finds the MADT's I/O APICs (their registers mapped uncached) and keeps its ISA overrides.
 * Umbra routes nothing until asked: firmware's entries stay as they are (masked, on PCs). */
void host_ioapic_init(const struct acpi_cpus *madt);
/* The I/O APICs found (0: none, or no MADT). */
u32 host_ioapic_count(void);
/* The GSI an ISA IRQ arrives at (an override's, or the IRQ itself) and the override's flags
 * (ACPI_ISO_*; 0 when there is none). */
u32 host_ioapic_isa_gsi(u8 irq, u16 *flags);
/* Whether some I/O APIC has input gsi. */
bool host_ioapic_has(u32 gsi);
/* Input gsi as a level-triggered interrupt at vector, physical destination apic_id, fixed
 * delivery; active low or high; left masked (host_ioapic_mask unmasks it). */
void host_ioapic_route(u32 gsi, u8 vector, u32 apic_id, bool active_low);
/* Masks or unmasks input gsi; safe in an interrupt handler. */
void host_ioapic_mask(u32 gsi, bool mask);

#endif
