/* SPDX-License-Identifier: GPL-2.0-only */
/* Exit traces: a per-CPU ring of the exits of traced guests (trace=NAME, the monitor's trace). */
#include "vmm/trace.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/percpu.h"
#include "arch/x86/tsc.h"
#include "arch/x86/virt.h"
#include "lib/palloc.h"
#include "lib/printf.h"
#include "vmm/stats.h"
#include "vmm/vm.h"
#include "vmm/bootprof.h"

/* One exit: when it came (host TSC), from where, why, and what handling it cost (TSC ticks from
 * the handler's start to its end: the part of the exit that is Umbra's own code). */
struct trace_rec {
	u64 tsc;
	u64 rip;
	u64 qual;
	u32 cost;
	u8 reason;
	u8 vcpu;
	u16 guest; /* its id, modulo 65536: the dump of guest N shows N + 65536's */
};
_Static_assert(sizeof(struct trace_rec) == 32, "a record is 32 bytes, 128 a page");
#define RECS_PER_PAGE (PAGE_SIZE / sizeof(struct trace_rec))

/* Written by its CPU alone; the monitor reads it. `ready` is set once every page is there. */
struct trace_ring {
	struct trace_rec *page[TRACE_PAGES];
	u64 written;
	bool ready;
};
static struct trace_ring rings[NR_CPUS];

static struct trace_rec *rec_at(struct trace_ring *r, u64 i)
{
	i %= TRACE_RECS;
	return &r->page[i / RECS_PER_PAGE][i % RECS_PER_PAGE];
}

/* Allocated from the monitor or at boot, never on the exit path. */
static bool ring_alloc(struct trace_ring *r)
{
	if (__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE))
		return true;
	for (u32 i = 0; i < TRACE_PAGES; i++) {
		if (r->page[i])
			continue;
		u64 pa = palloc_alloc();
		if (!pa)
			return false;
		r->page[i] = phys_to_virt(pa);
	}
	__atomic_store_n(&r->ready, true, __ATOMIC_RELEASE);
	return true;
}

bool trace_enable(struct vm *vm, bool on)
{
	if (on)
		for (u32 i = 0; i < vm->nr_vcpus; i++)
			if (!ring_alloc(&rings[vm->vcpus[i].cpu])) {
				kprintf("trace: no memory for CPU %u's ring (%lu KiB)\n",
					vm->vcpus[i].cpu, (u64)(TRACE_PAGES * PAGE_SIZE / 1024));
				return false;
			}
	__atomic_store_n(&vm->trace, on, __ATOMIC_RELEASE);
	return true;
}

void trace_init(const char *name)
{
	struct vm *vm = vm_by_name(name);

	if (!vm)
		kprintf("trace: no guest named '%s' to trace\n", name);
	else if (trace_enable(vm, true))
		kprintf("trace: %s's exits are recorded (%u per CPU), dumped when it ends\n", name,
			(u32)TRACE_RECS);
}

/* What the record's qualification holds, by reason: the address, port, register or vector the
 * exit was about (the vendor's raw qualification for the rest). */
static u64 qualification(const struct vexit *x)
{
	switch (x->reason) {
	case EXIT_PAGE_FAULT:
	case EXIT_NESTED_FAULT:
		return x->addr;
	case EXIT_IO:
		return x->port;
	case EXIT_CR_ACCESS:
		return (u64)x->cr << 1 | x->cr_write;
	case EXIT_EXCEPTION:
		return x->vector;
	default:
		return x->raw_info1;
	}
}

/* Runs exactly once per record, as the ring's next one: tests/bench/exitcount.c's record= hooks
 * its entry to count Umbra's instructions of each recorded exit, numbered as the ring numbers
 * them. noipa keeps it one real function at its own symbol (no inlining, no clone). */
__attribute__((noipa)) static void trace_record(struct trace_ring *r, const struct trace_rec *t)
{
	*rec_at(r, r->written) = *t;
	__atomic_store_n(&r->written, r->written + 1, __ATOMIC_RELEASE);
}

void trace_exit(struct vcpu *v, const struct vexit *x, u64 rip, u64 start)
{
	struct trace_ring *r = &rings[v->cpu];

	if (!__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE))
		return;
	u64 cost = rdtsc() - start;
	trace_record(r, &(struct trace_rec){ .tsc = start,
					     .rip = rip,
					     .qual = qualification(x),
					     .cost = cost > 0xffffffffull ? 0xffffffffu : (u32)cost,
					     .reason = (u8)x->reason,
					     .vcpu = (u8)v->id,
					     .guest = (u16)v->vm->id });
}

/* The oldest record of the guest not yet printed from ring c, from index *at on (or NULL). */
static const struct trace_rec *next_of(u32 c, u16 guest, u64 *at)
{
	struct trace_ring *r = &rings[c];
	u64 end = __atomic_load_n(&r->written, __ATOMIC_ACQUIRE);

	for (; *at < end; (*at)++) {
		const struct trace_rec *t = rec_at(r, *at);
		if (t->guest == guest)
			return t;
	}
	return NULL;
}

void trace_dump(struct vm *vm)
{
	u64 at[NR_CPUS], dropped = 0, n = 0;
	u16 guest = (u16)vm->id;

	for (u32 c = 0; c < NR_CPUS; c++) {
		u64 w = __atomic_load_n(&rings[c].written, __ATOMIC_ACQUIRE);
		at[c] = w > TRACE_RECS ? w - TRACE_RECS : 0;
		dropped += at[c];
	}
	/* The line format, once (docs/debugging.md): "trace: TSC VCPU REASON RIP QUAL COST CPU SEQ",
	 * SEQ the record's number in CPU's ring (what the instruction-counting plugin joins on). */
	kprintf("trace: begin guest=%s tsc_hz=%lu overwritten=%lu\n", vm->name, tsc_hz, dropped);
	for (;;) {
		const struct trace_rec *best = NULL;
		u32 from = 0;
		for (u32 c = 0; c < NR_CPUS; c++) {
			if (!__atomic_load_n(&rings[c].ready, __ATOMIC_ACQUIRE))
				continue;
			const struct trace_rec *t = next_of(c, guest, &at[c]);
			if (t && (!best || t->tsc < best->tsc)) {
				best = t;
				from = c;
			}
		}
		if (!best)
			break;
		kprintf("trace: %lu %u %s 0x%lx 0x%lx %u %u %lu\n", best->tsc, best->vcpu,
			stats_exit_name(best->reason), best->rip, best->qual, best->cost, from,
			at[from]);
		at[from]++;
		n++;
	}
	/* Each ring's records so far: a plugin file joined to this dump must have at least these. */
	for (u32 c = 0; c < NR_CPUS; c++)
		if (__atomic_load_n(&rings[c].ready, __ATOMIC_ACQUIRE))
			kprintf("trace: ring %u written=%lu\n", c,
				__atomic_load_n(&rings[c].written, __ATOMIC_ACQUIRE));
	/* A kernel's boot phases (vCPU 0's milestones), for the timeline. */
	for (u32 p = 0; p < BOOT_PHASES; p++)
		if (vm->vcpus[0].boot.end_tsc[p])
			kprintf("trace: phase %lu %s\n", vm->vcpus[0].boot.end_tsc[p],
				bootprof_phase_name(p));
	kprintf("trace: end guest=%s records=%lu\n", vm->name, n);
}
