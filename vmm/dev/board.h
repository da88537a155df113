/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest's PC board: which device model answers which port and MMIO range, and the IRQ wiring. */
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

struct vm;
struct vcpu;

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
	u16 irq_levels;     /* the device lines as last driven into the PIC and I/O APIC */
};

/* Power-on state of every device (the vm's memory size is known). */
void board_reset(struct vm *vm, u64 now_ns);
/* One IN or OUT of 1, 2 or 4 bytes. A device narrower than the access sees consecutive byte
 * accesses, as on the ISA bus; ports nobody models read as all ones and are listed in the
 * guest's report. */
u32 board_pio_in(struct vcpu *v, u16 port, unsigned size);
void board_pio_out(struct vcpu *v, u16 port, unsigned size, u32 val);
/* One access of 1-8 bytes within a page, outside guest RAM. */
void board_mmio_read(struct vcpu *v, u64 gpa, void *buf, unsigned len);
void board_mmio_write(struct vcpu *v, u64 gpa, const void *buf, unsigned len);
/* Time-driven device events up to now (timer ticks, console input) onto the IRQ lines. */
void board_update(struct vcpu *v, u64 now_ns);
/* When a device next needs board_update (absolute ns), or 0 if none will by itself. */
u64 board_next_event_ns(struct vcpu *v, u64 now_ns);

#endif
