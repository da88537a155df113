/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest-side paravirt ops: one kernel binary that drives the hardware natively and Umbra by hypercall. */
#ifndef PV_GUEST_PV_OPS_H
#define PV_GUEST_PV_OPS_H

/* Freestanding: needs only <stdint.h> and pv/abi.h; builds as 32- or 64-bit code. The design
 * follows paravirt_ops: callers go through one table whose native defaults are replaced when
 * Umbra is detected, and less trusted code gets only the restricted subset (pv_mod_ops). */
#include <stdint.h>
#include "pv/abi.h"

typedef unsigned long pv_ulong; /* register width */

/* ---- the hypercall primitive ---- */
enum pv_insn { PV_VMCALL, PV_VMMCALL };
/* The instruction pv_hypercall uses: VMMCALL on AMD/Hygon, VMCALL otherwise (set by pv_init;
 * Umbra takes both, the foreign one costs an extra #UD round trip). */
extern enum pv_insn pv_insn;
/* Number in EAX, arguments in EBX ECX EDX ESI, result (>= 0 or -UMBRA_E*) in EAX. */
long pv_hypercall_insn(enum pv_insn insn, pv_ulong nr, pv_ulong a0, pv_ulong a1, pv_ulong a2,
		       pv_ulong a3);
long pv_hypercall(pv_ulong nr, pv_ulong a0, pv_ulong a1, pv_ulong a2, pv_ulong a3);

/* ---- the ops ----
 * Page-table entries are named by guest-physical address (what MMU_UPDATE takes); natively
 * they are written at pa + pv_phys_offset. `bytes` is the entry size of the paging mode in
 * force (4 for 2-level 32-bit paging, else 8): Umbra applies its own idea of it, so a caller
 * must not write entries of a mode that is not yet active. MMU ops return 0 or -UMBRA_E*. */
struct pv_ops {
	long (*write_cr3)(pv_ulong cr3);
	long (*set_pte)(uint64_t pa, unsigned bytes, uint64_t val);
	long (*invlpg)(pv_ulong va);
	long (*flush_tlb)(void);
	/* Batches, as the lazy mode flushes them: count applied or -UMBRA_E* (nothing applied). */
	long (*mmu_update)(const struct umbra_mmu_update *u, unsigned n, unsigned bytes);
	long (*mmu_op)(const struct umbra_mmu_op *o, unsigned n);
	long (*console_write)(const char *buf, pv_ulong len); /* bytes written */
	void (*halt)(void);	   /* until an interrupt (the caller enables them) */
	uint64_t (*time_ns)(void); /* monotonic */
};

/* The restricted subset for guest user-mode (CPL 3) code: every call is class R. Natively
 * yield does nothing, time reads the TSC (CR4.TSD clear) and console_write needs I/O
 * privilege (IOPL 3), as there is no hypervisor to ask. */
struct pv_mod_ops {
	long (*console_write)(const char *buf, pv_ulong len);
	long (*yield)(void);
	uint64_t (*time_ns)(void);
};

extern struct pv_ops pv_ops;
extern struct pv_mod_ops pv_mod_ops;
extern int pv_on_umbra;		/* CPUID 0x40000000 carries Umbra's signature, ABI version 1 */
extern uint64_t pv_tsc_hz;	/* natively measured against the PIT; on Umbra from TIME */
extern pv_ulong pv_phys_offset; /* virtual address of guest-physical 0 (identity: 0) */

/* Detects Umbra, installs its ops or keeps the native ones, calibrates time. Returns
 * pv_on_umbra. Call once, at CPL 0, before anything else here. */
int pv_init(void);
int pv_detect(void);

/* ---- lazy MMU mode ----
 * Between begin and end, pv_set_pte queues entry writes and pv_write_cr3/pv_invlpg/
 * pv_flush_tlb queue ops; end (or a full queue) flushes the entries in ONE MMU_UPDATE and then
 * the ops in ONE MMU_OP. Entries are applied before ops: that is what a batch means (the ops
 * of a batch act on its new tables). Until the flush, memory still holds the old entries:
 * read them through pv_pte_read, which sees the queue. end returns 0 or the first error. */
void pv_lazy_mmu_begin(void);
long pv_lazy_mmu_end(void);
long pv_lazy_mmu_flush(void);
int pv_lazy_mmu_active(void);
uint64_t pv_pte_read(uint64_t pa, unsigned bytes);

long pv_set_pte(uint64_t pa, unsigned bytes, uint64_t val);
long pv_write_cr3(pv_ulong cr3);
long pv_invlpg(pv_ulong va);
long pv_flush_tlb(void);

/* What the lazy mode did, for tests: calls made and records sent. */
struct pv_lazy_stats {
	unsigned long update_calls, updates, op_calls, ops, flushes_full;
};
extern struct pv_lazy_stats pv_lazy_stats;

#endif
