/* The 16550 UART on COM1: Umbra's console. */
#ifndef ARCH_X86_SERIAL_H
#define ARCH_X86_SERIAL_H

#include "lib/types.h"

#define COM1_BASE 0x3f8

void serial_init(void);
void serial_putc(char c);
/* Returns -1 when no byte is waiting. */
int serial_getc(void);

#endif
