/* SPDX-License-Identifier: GPL-2.0-only */
/* Application-processor bring-up: INIT-SIPI-SIPI through a real-mode trampoline below 1 MiB. */
#ifndef ARCH_X86_SMP_H
#define ARCH_X86_SMP_H

#include "lib/types.h"

struct acpi_cpus;
/* Starts the APs listed by ACPI one at a time, until max_cpus CPUs (BSP included) are online.
 * Each AP runs setup() before it counts as online (so bring-up stays sequential), then run(). */
void smp_boot_aps(const struct acpi_cpus *cpus, u32 max_cpus, void (*setup)(void),
		  void (*run)(void));

#endif
