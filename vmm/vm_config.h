/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest's configuration: everything its module line asks for, as the option parser fills it. */
#ifndef VMM_VM_CONFIG_H
#define VMM_VM_CONFIG_H

#include "lib/types.h"
#include "vmm/dev/board.h"
#include "vmm/pci_assign.h"
#include "vmm/shm_port.h"

#define VM_NAME_LEN 24
/* vCPUs per guest (vcpus=N, APIC IDs 0..N-1): at most VCPUS_PER_HOST_CPU per CPU Umbra runs on
 * (more only take turns on the same CPUs, each turn a world switch and a slice of waiting), and
 * never more than VCPUS_PER_GUEST_MAX: the board's I/O APIC, whose ID register has 4 bits
 * (82093AA), takes ID 15 on the same APIC bus as the local APICs (vmm/dev/board.h). */
#define VCPUS_PER_HOST_CPU 4
#define VCPUS_PER_GUEST_MAX 15
_Static_assert(VCPUS_PER_GUEST_MAX <= BOARD_IOAPIC_ID, "local APIC IDs below the I/O APIC's");

/* shm=NAME[:ro]: a region by the name Umbra's line gave it. The parser checks the word's form
 * only; which regions exist is known when the guest is created (shm_join, vmm/shm.c). */
struct vm_config_shm {
	char name[SHM_NAME_LEN];
	bool ro;
};

/*
 * Filled by guest_options_parse (vmm/guest_options.c), which knows nothing of struct vm, so
 * that it stays testable on the host; guest creation (vmm/guest.c) checks what depends on the
 * machine and on the guests made before (memory, ASIDs, PCI owners, shm regions), and the guest
 * keeps it as vm->config, read-only from then on.
 */
/* clang-format off */
struct vm_config {
	char name[VM_NAME_LEN];   /* name= (default "guest<index>") */
	u64 mem_mib;              /* mem= (16 MiB by default) */
	u32 cpu;                  /* cpu=: vCPU 0's CPU without cpus= (default: index round robin) */
	u32 nr_vcpus;             /* vcpus= (1 by default) */
	u32 cpus_list[VCPUS_PER_GUEST_MAX]; /* cpus=: where its vCPUs go, in order */
	u32 n_cpus_list;
	bool expect_crash;        /* expect=crash: the guest is meant to crash */
	bool expect_stop;         /* ... expect=stop: or to be stopped by another guest */
	bool expect_timeout;      /* ... expect=timeout: or to run until its time budget ends */
	u64 budget_ns;            /* time=SECONDS; 0 from the parser means Umbra's timeout=, which
				     guest creation puts in */
	u32 weight;               /* weight=: its share of each CPU it runs on, against the other
				     guests there (0: the default, vmm/sched.c) */
	u8 bios;                  /* enum bios_choice: bios= (vmm/load/bios.h) */
	bool on_reboot_end;       /* on_reboot=end (vmm/reset.c) */
	u32 reboots_max;          /* reboots= (VM_REBOOTS_DEFAULT) */
	u32 caps;                 /* UMBRA_CAP_* from caps= */
	struct pci_assign_req pci; /* pci=: the host functions it asks for (vmm/pci_assign.c) */
	struct vm_config_shm shm[SHM_PER_GUEST]; /* shm=, in its line's order */
	u32 n_shm;
	/* Its module line, whole, and what follows "--" on it (the kernel's own command line):
	 * both point into the multiboot2 information, which Umbra keeps for good. */
	const char *cmdline;
	const char *guest_args;
};
/* clang-format on */

#endif
