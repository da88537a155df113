/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest's PC board's state, which struct vm embeds: its device models and the ISA IRQ lines. */
#ifndef VMM_DEV_BOARD_H
#define VMM_DEV_BOARD_H

#include "lib/types.h"
#include "vmm/dev/acpi_pm.h"
#include "vmm/dev/ioapic.h"
#include "vmm/dev/kbc.h"
#include "vmm/dev/pci_bus.h"
#include "vmm/dev/pic.h"
#include "vmm/dev/pit.h"
#include "vmm/dev/rcr.h"
#include "vmm/dev/rtc.h"
#include "vmm/dev/uart.h"

/* ISA interrupt lines of the devices modelled. */
enum { IRQ_PIT = 0, IRQ_COM1 = 4, IRQ_SCI = 9 };
/* The I/O APIC pin (GSI) of an ISA IRQ: the same number, but the PIT's IRQ 0 on pin 2 (pin 0
 * is the 8259's INTR), as on every PC; the MP table and the MADT say the same. */
static inline unsigned isa_gsi(unsigned irq)
{
	return irq ? irq : 2;
}

/* The I/O APIC's ID: after the vCPUs' local APIC IDs (0..VCPUS_PER_GUEST_MAX-1), on the same
 * APIC bus; the highest its 4-bit ID register holds. */
#define BOARD_IOAPIC_ID 15

struct board {
	struct pic pic;
	struct ioapic ioapic;
	struct pit pit;
	struct uart com1;
	struct rtc rtc;
	struct acpi_pm pm;
	struct kbc kbc;
	struct rcr rcr;
	struct pci_bus pci; /* 0xCF8-0xCFF: the host bridge and the assigned functions */
	u16 irq_levels;	    /* the device lines as last driven into the PIC and I/O APIC */
};

#endif
