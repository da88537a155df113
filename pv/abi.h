/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbra's paravirtual ABI: the single source of numbers, structures and conventions for
 * Umbra and for guests (32- and 64-bit; C99, no dependencies beyond <stdint.h>). */
#ifndef UMBRA_PV_ABI_H
#define UMBRA_PV_ABI_H

#include <stdint.h>

/* ---- Detection ---------------------------------------------------------------------------
 * CPUID.1:ECX bit 31 (hypervisor present), then leaf 0x40000000: EAX = highest Umbra leaf,
 * EBX/ECX/EDX = "Umbra-Shadow"; leaf 0x40000001: EAX = UMBRA_ABI_VERSION, EBX = feature bits. */
#define UMBRA_CPUID_BASE 0x40000000u
#define UMBRA_CPUID_FEATURES 0x40000001u
#define UMBRA_SIGNATURE_EBX 0x72626d55u /* "Umbr" */
#define UMBRA_SIGNATURE_ECX 0x68532d61u /* "a-Sh" */
#define UMBRA_SIGNATURE_EDX 0x776f6461u /* "adow" */
#define UMBRA_ABI_VERSION 1u
#define UMBRA_FEAT_VMCALL_ANY (1u << 0) /* VMCALL and VMMCALL both work on both vendors */
/* The CPU walks the guest's page tables itself (mmu=tdp): page faults are the hardware's own. */
#define UMBRA_FEAT_NESTED_PAGING (1u << 1)

/* ---- Calling convention ------------------------------------------------------------------
 * Execute VMCALL (0f 01 c1) or VMMCALL (0f 01 d9) with the call number in EAX/RAX and up to
 * four arguments in EBX/RBX, ECX/RCX, EDX/RDX, ESI/RSI. The result comes back in EAX/RAX:
 * >= 0 on success, a negative UMBRA_E* code on failure; other registers are preserved.
 * A 32-bit guest passes 32-bit values; addresses are guest-virtual unless a call says gpa. */
/* The calls, listed once: X(number, NAME, class, capability). Class R = restricted (any CPL),
 * P = privileged (guest CPL 0 only), C = privileged and acting on another guest: the caller's
 * module command line must grant the capability (caps=stats,stop). The calls are numbered from
 * 1 without gaps. docs/abi.md describes each; a test checks its table against this list. */
/* clang-format off */
#define UMBRA_HYPERCALLS(X) \
	X(1, VERSION, R, 0)                 /* () -> UMBRA_ABI_VERSION */ \
	X(2, CONSOLE_WRITE, R, 0)           /* (gva buf, len) -> bytes written */ \
	X(3, EXIT, P, 0)                    /* (status) -> does not return */ \
	X(4, STATS, R, 0)                   /* (gva struct umbra_stats *, size) -> bytes written */ \
	X(5, CONSOLE_READ, R, 0)            /* (gva buf, len) -> bytes read, 0 if none */ \
	X(6, YIELD, R, 0)                   /* () -> 0 */ \
	X(7, TIME, R, 0)                    /* (gva struct umbra_time *) -> 0 */ \
	X(8, BLOCK, P, 0)                   /* (timeout_ns lo, hi) -> 1 event, 0 timed out */ \
	X(9, TIMER_SET, P, 0)               /* (vector, delay_ns lo, hi) -> 0; vector 0 cancels */ \
	X(10, MMU_UPDATE, P, 0)             /* (gva struct umbra_mmu_update[], count) -> count */ \
	X(11, MMU_OP, P, 0)                 /* (gva struct umbra_mmu_op[], count) -> count */ \
	X(12, VCPU_INFO, R, 0)              /* (gva struct umbra_vcpu_info *) -> 0 */ \
	X(13, STATS_OF, C, UMBRA_CAP_STATS) /* (guest id, gva struct umbra_stats *, size) -> bytes */ \
	X(14, STOP_GUEST, C, UMBRA_CAP_STOP) /* (guest id) -> 0 */ \
	X(15, VCPU_START, P, 0)             /* (vcpu index, eip, esp, arg) -> 0 */ \
	X(16, SHM_INFO, R, 0)               /* (region index, gva struct umbra_shm_info *) -> 0 */ \
	X(17, SHM_BIND, P, 0)               /* (region index, doorbell vector, IDT vector) -> 0 */ \
	X(18, SHM_RING, R, 0)               /* (region index, peer, doorbell vector) -> 0 or 1 */
/* clang-format on */

#define UMBRA_HC_ENUM_(nr, name, cls, cap) UMBRA_HC_##name = nr,
enum umbra_hypercall { UMBRA_HYPERCALLS(UMBRA_HC_ENUM_) };
#undef UMBRA_HC_ENUM_
#define UMBRA_HC_ONE_(nr, name, cls, cap) +1
enum { UMBRA_HC_COUNT = 1 UMBRA_HYPERCALLS(UMBRA_HC_ONE_) }; /* one past the highest call */
#undef UMBRA_HC_ONE_

#define UMBRA_CONSOLE_MAX 4096	/* longest console write or read in one call */
#define UMBRA_MMU_BATCH_MAX 512 /* most entries in one MMU_UPDATE or MMU_OP call */
#define UMBRA_TIMER_MAX_NS (3600ull * 1000000000ull) /* longest timer or block */

/* Error codes (returned negated), listed once: X(code, NAME). docs/abi.md describes each; a
 * test checks its table against this list. */
#define UMBRA_ERRORS(X) \
	X(1, EINVAL) /* invalid argument */ \
	X(2, EPERM)  /* not permitted (privilege class or capability) */ \
	X(3, EFAULT) /* bad guest address */ \
	X(4, ENOSYS) /* no such call */ \
	X(5, E2BIG)  /* length or count too big */ \
	X(6, ENOMEM) /* out of memory */ \
	X(7, EAGAIN) /* try again */ \
	X(8, EBUSY)  /* the object is in use (VCPU_START: that vCPU already runs) */ \
	X(9, ENOENT) /* no such object (a shared region or peer), or it has ended */
#define UMBRA_E_ENUM_(code, name) UMBRA_##name = code,
enum umbra_error { UMBRA_ERRORS(UMBRA_E_ENUM_) };
#undef UMBRA_E_ENUM_

/* 64-bit values travel as two arguments, low half first, for 32-bit guests' sake. */

struct umbra_time {
	uint64_t tsc_hz;       /* the TSC's frequency (RDTSC runs unintercepted) */
	uint64_t monotonic_ns; /* since Umbra booted */
};

/* MMU_UPDATE: write each guest page-table entry in order, as Xen's mmu_update does. The entry
 * at gpa `ptr` (aligned to the guest's entry size: 4 bytes for 2-level 32-bit paging, else 8)
 * gets `val`. Every entry is validated before any is applied: ptr inside the guest's RAM and
 * aligned, and val either not present or naming a frame inside the guest's RAM. */
struct umbra_mmu_update {
	uint64_t ptr;
	uint64_t val;
};

/* MMU_OP: a batch of these, applied in order. */
#define UMBRA_MMUOP_NEW_CR3 1	/* arg: the new CR3 */
#define UMBRA_MMUOP_INVLPG 2	/* arg: a guest-virtual address */
#define UMBRA_MMUOP_FLUSH_ALL 3 /* arg: 0 */
struct umbra_mmu_op {
	uint32_t op;
	uint32_t reserved; /* must be 0 */
	uint64_t arg;
};

/* VCPU_START: an AP that has not started yet (vcpus=N, index 1..N-1; still waiting for its
 * SIPI) starts in 32-bit protected mode as the boot vCPU does (flat segments, paging and
 * interrupts off) at eip, with ESP = esp, EAX = its index and EBX = arg. Errors: EINVAL for
 * an index that is not another vCPU of the guest, EBUSY if it already started, EFAULT for an
 * eip or esp outside guest RAM; nothing changes then. */

struct umbra_vcpu_info {
	uint32_t guest_id; /* what STATS_OF and STOP_GUEST take */
	uint32_t vcpu_id;
	uint32_t nr_vcpus;
	uint32_t cpu; /* the physical CPU it runs on */
	uint32_t nr_guests;
	uint32_t caps; /* UMBRA_CAP_* granted to this guest */
	char name[32];
};
#define UMBRA_CAP_STATS (1u << 0) /* caps=stats: STATS_OF on other guests */
#define UMBRA_CAP_STOP (1u << 1)  /* caps=stop: STOP_GUEST */

/* ---- Shared memory ------------------------------------------------------------------------
 * Umbra's line declares regions (shm=NAME:SIZE); a module line gives one to its guest
 * (shm=NAME, or shm=NAME:ro). A guest's regions are numbered 0.. in the order of its line; each
 * sits at the same guest-physical address in every guest that has it (in the PCI hole), and is
 * also BAR2 of an ivshmem PCI function (vendor 0x1af4, device 0x1110) on its PCI bus. Its
 * members are its peers, numbered 0.. in module order; a peer rings another's doorbell
 * (SHM_RING or the ivshmem doorbell register), naming one of UMBRA_SHM_VECTORS vectors.
 * A doorbell is an edge: rung again before the peer took it, it coalesces (SHM_RING returns 1).
 * The peer takes it as the interrupt it bound with SHM_BIND (on its vCPU 0, which a HLT or BLOCK
 * wakes), else as its ivshmem function's interrupt (INTx). A read-only member's writes to the
 * region fault as writes to a read-only page do (#PF, error code P|W). */
#define UMBRA_SHM_VECTORS 16
#define UMBRA_SHM_RO (1u << 0) /* flags: this guest may not write the region */

struct umbra_shm_info {
	uint64_t gpa;	  /* where the region is in this guest */
	uint64_t size;	  /* bytes */
	uint32_t peer_id; /* this guest's number among the region's members */
	uint32_t peers;	  /* how many members it has */
	uint32_t flags;	  /* UMBRA_SHM_* */
	uint32_t vectors; /* UMBRA_SHM_VECTORS */
	char name[16];
};

/* ---- Boot ----------------------------------------------------------------------------------
 * A guest starts in 32-bit protected mode, paging off, flat 4 GiB segments (CS 0x08 code,
 * 0x10 data), interrupts off, at its ELF entry point, with EAX = UMBRA_BOOT_MAGIC and
 * EBX = the guest-physical address of struct umbra_boot_info (page-aligned, in guest RAM). */
#define UMBRA_BOOT_MAGIC 0x554d4252u /* "UMBR" */

struct umbra_boot_info {
	uint32_t magic;	      /* UMBRA_BOOT_MAGIC */
	uint32_t size;	      /* sizeof(struct umbra_boot_info) */
	uint64_t mem_bytes;   /* guest RAM: [0, mem_bytes) */
	uint64_t cmdline_gpa; /* the module's command line, NUL-terminated */
	uint32_t cmdline_len; /* bytes, without the NUL */
	uint32_t vcpu_id;
	char name[32]; /* the guest's name= */
};

/* ---- Results -------------------------------------------------------------------------------
 * Test guests report like QEMU's isa-debug-exit: `out` of v to UMBRA_RESULT_PORT ends the
 * guest with status (v << 1) | 1. UMBRA_RESULT_PASS/FAIL are the values test guests use. */
#define UMBRA_RESULT_PORT 0xf4
#define UMBRA_RESULT_PASS 0x10 /* status 33 */
#define UMBRA_RESULT_FAIL 0x11 /* status 35 */

/* ---- Statistics ----------------------------------------------------------------------------
 * The slots of struct umbra_stats' exit counters, one per kind of exit Umbra counts (its
 * report prints the same kinds by these short names). New kinds are appended. */
/* clang-format off */
#define UMBRA_EXIT_REASON_LIST(X) \
	X(PAGE_FAULT, pf) X(CR_ACCESS, cr) X(INVLPG, invlpg) X(HYPERCALL, hypercall) X(IO, io) \
	X(MSR, msr) X(CPUID, cpuid) X(HLT, hlt) X(EXCEPTION, exception) X(INTR, intr) X(NMI, nmi) \
	X(IRQ_WINDOW, irq_window) X(RDTSCP, rdtscp) X(SHUTDOWN, shutdown) X(INVALID, invalid) \
	X(OTHER, other) X(NESTED_FAULT, npf) X(PREEMPT, preempt) \
	X(DR_ACCESS, dr) X(INSN, insn) X(EMULATE, emulate)
/* clang-format on */

#define UMBRA_EXIT_ENUM_(name, short_name) UMBRA_EXIT_##name,
enum umbra_exit_reason { UMBRA_EXIT_REASON_LIST(UMBRA_EXIT_ENUM_) UMBRA_EXIT_REASONS };
#undef UMBRA_EXIT_ENUM_

/* Room for exit reasons in struct umbra_stats: fixed, so that adding a reason never moves the
 * fields after it (guests built against an older header keep reading the right counters). */
#define UMBRA_EXIT_SLOTS 32
typedef char umbra_exit_slots_fit_[(UMBRA_EXIT_REASONS <= UMBRA_EXIT_SLOTS) ? 1 : -1];

/* The MMU counters of struct umbra_stats, listed once, in ABI order (new ones are appended):
 * X(field, the name the guest's report gives it). */
/* clang-format off */
#define UMBRA_MMU_STATS(X) \
	X(faults_fixed, faults_fixed)          /* shadow faults that filled or fixed an entry */ \
	X(faults_to_guest, faults_to_guest)    /* faults that were the guest's own, injected */ \
	X(pages_shadowed, shadowed)            /* shadow pages created */ \
	X(pages_zapped, zapped)                /* shadow pages zapped (all causes) */ \
	X(pages_reclaimed, reclaimed)          /* zapped to make room in the pool */ \
	X(writes_emulated, writes_emulated)    /* guest page-table writes emulated */ \
	X(flood_zaps, flood_zaps)              /* tables unshadowed by a flood of writes */ \
	X(misaligned_zaps, misaligned_zaps)    /* tables unshadowed by a write across entries */ \
	X(root_cache_hits, root_hits)          /* CR3 loads that found their shadow root cached */ \
	X(root_cache_misses, root_misses) \
	X(rmap_descs, rmap_descs)              /* reverse-map descriptors in use */ \
	X(unshadowed_unemulated, unemulated)   /* PT writes the emulator could not do: unshadowed */ \
	X(nested_faults_filled, nested_filled) /* mmu=tdp: nested faults that mapped guest memory */ \
	X(prefetched, prefetched)              /* leaves filled ahead of a fault */ \
	X(unsyncs, unsyncs)                    /* guest leaf tables left writable (out of sync) */ \
	X(resyncs, resyncs)                    /* out-of-sync tables brought back in sync */
/* clang-format on */

#define UMBRA_MMU_STAT_FIELD_(field, name) uint64_t field;
struct umbra_mmu_stats {
	UMBRA_MMU_STATS(UMBRA_MMU_STAT_FIELD_)
};
#undef UMBRA_MMU_STAT_FIELD_

struct umbra_stats {
	uint32_t size;	  /* bytes filled by Umbra */
	uint32_t reasons; /* UMBRA_EXIT_REASONS as Umbra counts them */
	uint64_t exits_total;
	uint64_t exits[UMBRA_EXIT_SLOTS]; /* [0, reasons) counted, the rest 0 */
	struct umbra_mmu_stats mmu;
};

#endif
