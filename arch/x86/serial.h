/* SPDX-License-Identifier: GPL-2.0-only */
/* The 16550 UARTs: COM1 is Umbra's console, COM2 the gdb remote stub's line. */
#ifndef ARCH_X86_SERIAL_H
#define ARCH_X86_SERIAL_H

#include "lib/types.h"

#define COM1_BASE 0x3f8
#define COM2_BASE 0x2f8

void serial_init(void);
void serial_putc(char c);
/* Waits (bounded) until everything written has left COM1: before the machine goes off. */
void serial_drain(void);
/* Bytes COM1 takes per look at its status: 16 with the FIFOs the firmware left on, else 1. */
unsigned serial_tx_fifo(void);
/* Returns -1 when no byte is waiting. */
int serial_getc(void);

/* COM2, set up on demand (only a gdb= run uses it). */
void serial2_init(void);
void serial2_putc(u8 c);
int serial2_getc(void);

#endif
