/* Port I/O models: COM1 (per-guest console), the result port, and all-ones for everything else. */
#ifndef VMM_IOPORT_H
#define VMM_IOPORT_H

#include "lib/types.h"

struct vm;

/* One IN or OUT of size 1, 2 or 4 bytes. */
u32 ioport_in(struct vm *vm, u16 port, unsigned size);
void ioport_out(struct vm *vm, u16 port, unsigned size, u32 val);
/* Prints what is left in the guest's console line buffer. */
void console_flush(struct vm *vm);

#endif
