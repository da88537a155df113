/* SPDX-License-Identifier: GPL-2.0-only */
/* A module's line: which guest a file is for (for=NAME), and a guest's own options. */
#ifndef VMM_GUEST_OPTIONS_H
#define VMM_GUEST_OPTIONS_H

#include "vmm/vm.h"

struct mb2_module;

/* Parses name=, mem= (MiB, or with a K/M/G unit, parse_mib), cpu=, vcpus=, cpus=, time=, caps=, expect= and what follows "--" into
 * vm, *mem_mib and *cpu (defaults: "guest<index>", 16 MiB, round robin over ncpus; one vCPU;
 * the vCPUs spread over the CPUs from *cpu on, unless cpus= lists them in vm->cpus_list).
 * Fills vm->nr_vcpus, vm->cmdline and vm->guest_args (pointers into cmdline). An unknown or
 * invalid option is reported and refuses the guest (false). */
bool guest_options_parse(struct vm *vm, const char *cmdline, u64 *mem_mib, u32 *cpu,
			 u32 ncpus, u32 index);
/* The most vCPUs a guest may have on a machine of ncpus CPUs (vmm/vm.h). */
u32 vcpus_max(u32 ncpus);
/* A line starting with for=NAME is a file for guest NAME: its name into name, and the rest of
 * the line (the file's own arguments); NULL for a guest's own module. */
const char *guest_options_attached_to(const struct mb2_module *mod, char *name, size_t size);

#endif
