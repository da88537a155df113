/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbra's own command line (from GRUB): log level, CPU limit, debugging switches. */
#ifndef VMM_OPTIONS_H
#define VMM_OPTIONS_H

#include "lib/types.h"

struct umbra_options {
	u32 max_cpus; /* cpus=N: bring up at most N CPUs (0: all) */
	bool audit;   /* audit=1: run the MMU audit after every fault */
	bool nocache; /* mmu=nocache: rebuild shadows after every CR3 load (the benchmark baseline) */
	bool tdp;     /* mmu=tdp: nested paging (NPT/EPT) where the CPU has it */
	u64 timeout_s; /* timeout=SECONDS: a guest without time= ends as timeout after this long */
	char console[24]; /* console=NAME: the guest that gets typed input first */
	char gdb[24];	  /* gdb=NAME: the guest the gdb stub on COM2 serves */
	bool term_raw; /* term=raw: the guest with the focus gets the terminal raw (vmm/console.c) */
	char trace[24]; /* trace=NAME: the guest whose exits are recorded, dumped at its end */
	bool gdbwait;	/* gdbwait: that guest waits for gdb before its first instruction */
	u8 gdbarch;	/* gdbarch=auto|i386|x86-64: the register layout gdb is given (0 auto) */
	char monitor[8][64]; /* monitor=NAME:CMD: monitor commands run when guest NAME ends */
	u32 n_monitor;
	bool iommu_off; /* iommu=off: PCI assignment without an IOMMU (unsafe: DMA unconfined) */
	u32 unknown;	/* how many words were not understood (each is reported) */
};

extern struct umbra_options options;

void options_parse(const char *cmdline);

#endif
