/* SPDX-License-Identifier: GPL-2.0-only */
/* The ACPI tables a guest's firmware would leave: RSDP, RSDT/XSDT, FADT, FACS, DSDT, MADT, MCFG. */
#ifndef VMM_LOAD_ACPI_TABLES_H
#define VMM_LOAD_ACPI_TABLES_H

#include "lib/types.h"

/* Where they go: in the BIOS area kernels scan for the RSDP (0xe0000-0xfffff, on a 16-byte
 * boundary), after the MP table. */
#define ACPI_TABLES_GPA 0xf1000ull
#define ACPI_TABLES_MAX 0x1000u

struct acpi_board {
	unsigned cpus; /* local APIC IDs 0 .. cpus-1, ACPI processor IDs alike */
	u8 ioapic_id;
	u32 ioapic_gpa;
	u16 pm_base; /* the PM1 event, PM1 control and PM timer block (vmm/dev/acpi_pm.h) */
	u8 sci_irq;
	u32 ecam_gpa; /* the PCI bus's ECAM window for bus 0 (1 MiB); 0: the guest has no bus */
};

/* Builds the tables into buf (at least ACPI_TABLES_MAX bytes), which the guest sees at gpa
 * (16-byte aligned); the RSDP is first. Returns the bytes used, or 0 if they do not fit. */
size_t acpi_tables_build(u8 *buf, u64 gpa, const struct acpi_board *b);

#endif
