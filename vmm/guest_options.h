/* SPDX-License-Identifier: GPL-2.0-only */
/* A module's line: which guest a file is for (for=NAME), and a guest's own options. */
#ifndef VMM_GUEST_OPTIONS_H
#define VMM_GUEST_OPTIONS_H

#include "vmm/vm_config.h"

struct mb2_module;

/* Parses name=, mem= (MiB, or with a K/M/G unit, parse_mib), cpu=, vcpus=, cpus=, time=, caps=,
 * weight=, bios=, on_reboot=, reboots=, expect=, pci=, shm= and what follows "--" into cfg
 * (defaults: "guest<index>", 16 MiB, cpu round robin over ncpus, one vCPU spread over the CPUs
 * from cfg->cpu on unless cpus= lists them; see struct vm_config). cfg->cmdline and
 * cfg->guest_args point into cmdline. An unknown or invalid option is reported and refuses the
 * guest (false). What depends on the machine's memory and on the other guests is checked by
 * guest creation (vmm/guest.c). */
bool guest_options_parse(struct vm_config *cfg, const char *cmdline, u32 ncpus, u32 index);
/* The most vCPUs a guest may have on a machine of ncpus CPUs (vmm/vm_config.h). */
u32 vcpus_max(u32 ncpus);
/* A line starting with for=NAME is a file for guest NAME: its name into name, and the rest of
 * the line (the file's own arguments); NULL for a guest's own module. */
const char *guest_options_attached_to(const struct mb2_module *mod, char *name, size_t size);

#endif
