/* SPDX-License-Identifier: GPL-2.0-only */
/* Exit traces: each exit of a traced guest recorded in its CPU's ring, dumped as framed lines. */
#ifndef VMM_TRACE_H
#define VMM_TRACE_H

#include "lib/types.h"

struct vm;
struct vcpu;
struct vexit;

/* Records per CPU: the ring keeps the latest ones and counts the ones it let go. */
#define TRACE_PAGES 2048
#define TRACE_RECS (TRACE_PAGES * (PAGE_SIZE / 32))

/* trace=NAME on Umbra's line: that guest is traced from its first exit. */
void trace_init(const char *name);
/* Starts or stops recording a guest's exits (the rings of its vCPUs' CPUs are allocated on the
 * first start; false and a message if there is no memory for them). */
bool trace_enable(struct vm *vm, bool on);
/* Records an exit of a traced guest once its handler is done: its RIP and the TSC before the
 * handler ran (the run loop, vmm/run.c, times the handler for a traced guest only, so an
 * untraced one pays one test per exit). */
void trace_exit(struct vcpu *v, const struct vexit *x, u64 rip, u64 start);
/* Writes the guest's records on the console, oldest first over all CPUs, between a begin and
 * an end line (docs/testing.md gives the format). */
void trace_dump(struct vm *vm);

#endif
