/* SPDX-License-Identifier: GPL-2.0-only */
/* The Intel MultiProcessor table in the guest's BIOS area: its CPUs and interrupt wiring. */
#ifndef VMM_LOAD_MPTABLE_H
#define VMM_LOAD_MPTABLE_H

#include "lib/types.h"

struct vm;

/* Where the floating pointer goes: the first 16 bytes of the F segment, which kernels scan. */
#define MPTABLE_GPA 0xf0000ull

/* Writes the floating pointer and the configuration table (one CPU per vCPU, the ISA bus,
 * the I/O APIC with the ISA IRQs on its pins, the 8259 on LINT0 in virtual-wire mode, NMI on
 * LINT1) into guest memory. */
void mptable_write(struct vm *vm);

#endif
