/* SPDX-License-Identifier: GPL-2.0-only */
/* The 82093AA I/O APIC (24 pins, with the version-0x20 EOI register), as a pure model. */
#ifndef VMM_DEV_IOAPIC_H
#define VMM_DEV_IOAPIC_H

#include "lib/types.h"

#define IOAPIC_BASE 0xfec00000ull
#define IOAPIC_PINS 24

/* MMIO offsets in the 4 KiB page. */
#define IOAPIC_REGSEL 0x00
#define IOAPIC_WIN 0x10
#define IOAPIC_EOI 0x40

/* Register indices behind IOREGSEL; pin n's entry is at 0x10 + 2n (low dword), + 1 (high). */
#define IOAPIC_REG_ID 0x00
#define IOAPIC_REG_VER 0x01
#define IOAPIC_REG_ARB 0x02
#define IOAPIC_REG_REDIR 0x10

/* Version 0x20 (the ICH's, which has the EOI register), max redirection entry 23. */
#define IOAPIC_VERSION 0x00170020u

/* Redirection entry bits (the low dword's, as the guest sees them). */
#define IOAPIC_RTE_VECTOR 0xffu
#define IOAPIC_RTE_DELMODE_SHIFT 8
#define IOAPIC_RTE_LOGICAL (1u << 11)
#define IOAPIC_RTE_DELIVS (1u << 12) /* read-only: a message waits for ioapic_take */
#define IOAPIC_RTE_ACTIVE_LOW (1u << 13)
#define IOAPIC_RTE_REMOTE_IRR (1u << 14) /* read-only: level message taken, awaiting EOI */
#define IOAPIC_RTE_LEVEL (1u << 15)
#define IOAPIC_RTE_MASKED (1u << 16)
#define IOAPIC_RTE_DEST_SHIFT 56

enum {
	IOAPIC_DM_FIXED = 0,
	IOAPIC_DM_LOWEST = 1,
	IOAPIC_DM_SMI = 2,
	IOAPIC_DM_NMI = 4,
	IOAPIC_DM_INIT = 5,
	IOAPIC_DM_EXTINT = 7,
};

/* One interrupt message for the local APICs, decoded from a redirection entry. */
struct ioapic_msg {
	u8 vector;
	u8 dest;      /* entry bits 56-63: an APIC ID, or a logical mask if logical */
	u8 delivery;  /* IOAPIC_DM_*, as programmed */
	bool logical; /* destination mode (bit 11) */
	bool level;   /* trigger mode (bit 15): the local APIC sets TMR and EOIs back */
};

/* clang-format off */
struct ioapic {
	u8 id;                    /* 4 bits: ID register bits 24-27 */
	u32 sel;                  /* IOREGSEL (8 bits) */
	u64 redir[IOAPIC_PINS];   /* as written (reserved bits 0) plus Remote IRR; delivery
	                           * status is derived when read */
	u32 lines;                /* input levels as driven */
	u32 pending;              /* edge requests latched, awaiting ioapic_take */
	u32 low_level;            /* level-triggered active-low pins: asserted with the line low */
};
/* clang-format on */

/* The state after RESET: every pin masked, everything else 0, ID id (4 bits). The input
 * levels are cleared too: the board drives its lines again, idle high for an active-low
 * input, or a level-triggered active-low pin reads as asserted once unmasked. */
void ioapic_reset(struct ioapic *io, u8 id);
/* 32-bit accesses at off in the page: IOREGSEL (0x00), IOWIN (0x10) and the write-only EOI
 * register (0x40, the vector in bits 0-7); anything else reads 0 and ignores writes.
 * Reserved register indices (3-0xf, above 0x3f) read 0 and ignore writes. */
u32 ioapic_mmio_read(struct ioapic *io, u32 off);
void ioapic_mmio_write(struct ioapic *io, u32 off, u32 val);
/* The electrical level of input pin (before the entry's polarity); pins >= IOAPIC_PINS are
 * ignored. An edge pin latches one request when its input becomes asserted while unmasked
 * (a masked edge is lost); a level pin requests for as long as it is asserted. */
void ioapic_set_irq(struct ioapic *io, unsigned pin, bool level);
/* The next message to send (lowest pin first), false if none: it consumes an edge request,
 * or sets a level pin's Remote IRR until ioapic_eoi. An edge request latched before the pin
 * was masked waits for the unmask (QEMU's behaviour), so masking loses no taken edge.
 * Delivery modes go out as programmed: the datasheet's edge-only rule for SMI, NMI, INIT
 * and ExtINT is the guest's to follow. */
bool ioapic_take(struct ioapic *io, struct ioapic_msg *m);
/* A local APIC's EOI for vector (broadcast, or the EOI register): clears Remote IRR of every
 * level-triggered pin with that vector; one still asserted then requests again. */
void ioapic_eoi(struct ioapic *io, u8 vector);

#endif
