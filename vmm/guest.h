/* Guests from multiboot2 modules: creation, scheduling on their CPUs, and the final report. */
#ifndef VMM_GUEST_H
#define VMM_GUEST_H

#include "lib/types.h"

struct boot_info;

/* Creates one VM per module (a bad module is reported and skipped); returns how many. */
u32 guests_create(const struct boot_info *bi, u32 ncpus);
/* Waits for every guest to end, prints the per-guest report; true if all went as expected. */
bool guests_wait_and_report(char *summary, size_t size);

#endif
