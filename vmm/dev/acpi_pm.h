/* SPDX-License-Identifier: GPL-2.0-only */
/* The ACPI power-management registers of a PC chipset: PM1 event and control, the PM timer. */
#ifndef VMM_DEV_ACPI_PM_H
#define VMM_DEV_ACPI_PM_H

#include "lib/types.h"

/* The block's ports (as QEMU's PIIX4 places them) and the registers' offsets in it; the FADT
 * points at them. */
#define ACPI_PM_BASE 0x600
#define ACPI_PM1_EVT 0x0 /* PM1_STS (2 bytes) then PM1_EN (2 bytes) */
#define ACPI_PM1_CNT 0x4 /* 2 bytes */
#define ACPI_PM_TMR 0x8	 /* 4 bytes, 32 bits counted (FADT TMR_VAL_EXT) */
#define ACPI_PM_LEN 0xc
#define ACPI_PM_TMR_HZ 3579545ull
/* The SLP_TYP value the DSDT's \_S5 package gives for soft-off. */
#define ACPI_SLP_TYP_S5 5

struct acpi_pm {
	u16 sts;	    /* PM1_STS bits other than TMR_STS (write 1 to clear) */
	u16 en;		    /* PM1_EN */
	u16 cnt;	    /* PM1_CNT's read/write bits */
	u64 start_ns;	    /* the timer counts from 0 at this instant */
	u64 tmr_clear_tick; /* the timer tick at which TMR_STS was last cleared */
	bool soft_off;	    /* the guest entered S5: the board ends it */
};

/* Power-on: status and enables clear, SCI_EN set (the board is always in ACPI mode: the FADT
 * has no SMI command port), the timer at 0. */
void acpi_pm_reset(struct acpi_pm *pm, u64 now_ns);
/* An access of 1, 2 or 4 bytes at offset off in the block (off + size <= ACPI_PM_LEN, which
 * the board guarantees); each register takes the bytes of it that the access covers. */
u32 acpi_pm_read(struct acpi_pm *pm, unsigned off, unsigned size, u64 now_ns);
void acpi_pm_write(struct acpi_pm *pm, unsigned off, unsigned size, u32 val, u64 now_ns);
/* The PM timer's count at now_ns (32 bits, wrapping). */
u32 acpi_pm_timer(const struct acpi_pm *pm, u64 now_ns);

#endif
