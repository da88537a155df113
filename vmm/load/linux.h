/* SPDX-License-Identifier: GPL-2.0-only */
/* Booting Linux bzImages as guests (the 32-bit boot protocol). */
#ifndef VMM_LOAD_LINUX_H
#define VMM_LOAD_LINUX_H

#include "vmm/load/format.h"

/* An image with a Linux setup header ("HdrS"): the protected-mode kernel at 1 MiB, the zero
 * page (setup header, e820 map, command line from the module line's words after "--") and
 * files[0] as the initrd; the 32-bit entry state. A load fails with *why saying what the
 * image or the guest's memory cannot meet. */
extern const struct load_format linux_format;

#endif
