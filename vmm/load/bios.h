/* SPDX-License-Identifier: GPL-2.0-only */
/* The BIOS's leftovers a kernel loaded by GRUB on a BIOS PC finds: IVT, stubs, BDA, PIT, 8259s. */
#ifndef VMM_LOAD_BIOS_H
#define VMM_LOAD_BIOS_H

#include "lib/types.h"

struct vm;

/* bios= on a guest's line: absent (multiboot v1 guests get the leftovers), on, off. */
enum bios_choice { BIOS_DEFAULT, BIOS_ON, BIOS_OFF };

/* Where the handlers go: the BIOS segment F000, away from the MP and ACPI tables at its start. */
#define BIOS_STUBS_GPA 0xfe000ull
#define BIOS_TICKS_GPA 0x46cull /* the BIOS data area's tick count since midnight */

/* Whether a guest gets them: its choice, else yes for multiboot v1 (GRUB on a BIOS PC is the
 * machine `qemu -kernel` and Umbra imitate there), no for the others. */
bool bios_wanted(enum bios_choice choice, bool multiboot1);

/*
 * Guest memory as the BIOS leaves it: the real-mode interrupt vector table (every vector to an
 * IRET, the timer's to a handler that counts ticks at 0x46C, calls INT 1Ch and acknowledges the
 * master 8259, the other IRQs' to handlers that acknowledge their 8259s), those handlers at
 * BIOS_STUBS_GPA, and the BIOS data area's COM1 port, memory size and EBDA segment. Before the
 * image is loaded, so that an image loaded over it replaces it.
 */
void bios_write_memory(struct vm *vm);

/* The devices as the BIOS leaves them (after board_reset): the 8254's channel 0 in mode 3 with
 * count 65536 (18.2 Hz), both 8259s initialised at vector bases 0x08 and 0x70 with only IRQ0
 * and the cascade unmasked. */
void bios_start_devices(struct vm *vm, u64 now_ns);

#endif
