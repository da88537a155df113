/* SPDX-License-Identifier: GPL-2.0-only */
/* Virtual machines and their vCPUs: memory, devices, state, counters. */
#ifndef VMM_VM_H
#define VMM_VM_H

#include "lib/types.h"
#include "lib/spinlock.h"
#include "arch/x86/decode.h"
#include "arch/x86/virt.h"
#include "arch/x86/iommu_pt.h"
#include "arch/x86/percpu.h"
#include "mmu/mmu.h"
#include "vmm/pci_assign.h"
#include "mmu/tdp.h"
#include "pv/abi.h"
#include "vmm/bootprof_state.h"
#include "vmm/boot_files.h"
#include "vmm/console_state.h"
#include "vmm/cpuid_policy.h"
#include "vmm/memslot.h"
#include "vmm/reset_cause.h"
#include "vmm/shm_port.h"
#include "vmm/vcpu_memo.h"
#include "vmm/vm_config.h"
#include "vmm/dev/board.h"
#include "vmm/dev/lapic.h"

#define VM_UNMODELLED_MAX 16

/* A vCPU's power state: the BSP runs from the start; an AP waits for a SIPI (or the PV start
 * hypercall), which makes it STARTING until its own CPU builds its control structure. */
enum vcpu_power { VCPU_WAIT_SIPI, VCPU_STARTING, VCPU_ON };
/* Whether the vCPU may be in guest mode (interrupts off from the switch until the exit), which
 * the remote TLB flush reads without the VM's lock (vmm/remote_flush.c). */
enum vcpu_mode { VCPU_OUTSIDE, VCPU_IN_GUEST };

/* READY -> RUNNING (its CPU starts it) -> ENDED (vm_end, from any CPU); READY -> ENDED if it is
 * stopped before it ran. Only vm_end moves a guest to ENDED, and only once. */
enum vm_state { VM_EMPTY, VM_READY, VM_RUNNING, VM_ENDED };

/* How a guest ended, for its report and the summary: X(NAME, what the report says). */
#define VM_END_LIST(X) \
	X(NONE, "none") \
	X(RESULT, "result")	      /* wrote the result port or called exit: status below */ \
	X(HALT, "halted")	      /* HLT with interrupts off and nothing pending */ \
	X(SHUTDOWN, "triple-fault")   /* triple fault */ \
	X(FATAL, "fatal")	      /* something Umbra could not continue (dump printed) */ \
	X(LOAD_ERROR, "load-error")   /* never started: bad image or no memory */ \
	X(STOPPED, "stopped")	      /* stopped by another guest's STOP_GUEST */ \
	X(TIMEOUT, "timeout")	      /* ran past its time budget (time= or Umbra's timeout=) */ \
	X(POWEROFF, "poweroff")	      /* entered ACPI S5 (soft-off), as `poweroff` does */ \
	X(REBOOT, "reboot")	      /* asked for a reset with on_reboot=end (vmm/reset.c) */ \
	X(REBOOT_LOOP, "reboot-loop") /* asked for one more reset than reboots= allows */
#define VM_END_ENUM_(name, text) VM_END_##name,
enum vm_end { VM_END_LIST(VM_END_ENUM_) };
#undef VM_END_ENUM_

/* clang-format off */
struct vcpu {
	struct vm *vm;
	u32 id;                   /* its index in vm->vcpus, and its APIC ID */
	u32 cpu;                  /* the physical CPU it runs on (static placement) */
	enum vcpu_power power;    /* changed under vm->lock */
	bool parked;              /* its CPU has left it for good (the guest ended) */
	bool reset_held;          /* stopped by its CPU for a pending reset (under vm->lock) */
	/* Remote TLB flush (vmm/remote_flush.c): mode and exit_seq are written by its own CPU
	 * without the lock, flush_req by any CPU holding vm->lock; all atomics. */
	u32 mode;                 /* enum vcpu_mode */
	u32 exit_seq;             /* bumped at every exit from guest mode */
	u32 flush_req;            /* flush its TLB before it next enters the guest */
	u32 flush_seen_seq;       /* the flusher waits for exit_seq to move past this */
	bool flush_wait;          /* ... while this is set */
	bool nmi_pending;         /* an NMI waits to be injected (one latch, as the CPU's) */
	struct vcpu_hw hw;        /* registers, pending event, paging target: the backend's view */
	struct mmu_vcpu mmu;
	struct vlapic vlapic;
	u64 mtrr_def_type;
	u64 misc_enable_flip;     /* IA32_MISC_ENABLE bits the guest changed from the announced
				     CPU's value (cpuid_misc_enable): 0 at reset, whoever creates it */
	u64 tsc_offset;           /* guest TSC = host TSC + this */
	u64 tsc_adjust;           /* IA32_TSC_ADJUST: what the guest's TSC writes added */
	u64 kvmclock_msr, wallclock_msr; /* the KVM clock MSRs as written (vmm/kvmclock.c) */
	u32 kvmclock_version;
	u64 pv_eoi_msr;           /* KVM's PV EOI MSR as written (vmm/pv_eoi.c) */
	bool pv_eoi_armed;        /* its flag was set at the last entry */
	u64 pv_eoi_offered, pv_eoi_taken; /* flags set; EOIs the guest made through one */
	/* DR0-DR3 and, where the world switch does not keep it, DR6 (DR7 is in the VMCB/VMCS):
	 * switched only for a vCPU that has touched them; until then MOV DR exits, so no guest
	 * ever sees another's values. */
	bool dr_active;
	u64 dr[4], dr6;
	/* While the debugger has hardware breakpoints (debug_dr_own), the CPU runs with its
	 * DR0-DR3 and DR7; the guest's DR6/DR7 wait in guest_dr6/7 (DR0-DR3 in dr[]) and its MOV
	 * DR is emulated against them. */
	bool debug_dr_own;
	u64 debug_dr[4];
	u64 guest_dr6, guest_dr7;
	/* Virtual interrupts and waiting. */
	u8 irq_vector;            /* the PV timer's interrupt waiting to be injected (0: none) */
	u8 timer_vector;          /* the PV one-shot timer's vector */
	u64 timer_deadline;       /* TSC when it fires (0: not armed) */
	bool halted;              /* in HLT or BLOCK: not runnable until an event */
	bool blocking;            /* BLOCK hypercall: wakes on an event or at block_deadline */
	u64 block_deadline;
	bool yielded;             /* YIELD: give the CPU away at the end of this exit (the
				     scheduler clears it once it has seen it) */
	u64 cpu_tsc;              /* TSC ticks its turns on its CPU lasted (vmm/sched.c) */
	u64 waited_tsc;           /* TSC ticks it was runnable while another guest's vCPU had
				     its CPU (vmm/sched.c; written by that CPU alone) */
	/* The debugger (vmm/debug/gdbstub.c, which also sets hw.exc_debug): whether it holds the vCPU
	 * (not run until it lets go) and whether it is single-stepping it. */
	bool debug_stop;
	bool debug_step;
	/* What its hot paths keep from earlier exits, and when each is dropped (vmm/vcpu_memo.h). */
	struct vcpu_memo memo;
	/* This exit ran one iteration of a REP string instruction and left RIP on it (more
	 * remain): with TF that iteration owes its single-step trap, as on the CPU. */
	bool step_iteration;
	/* This exit completed a MOV SS or POP SS: the single step it owes comes from the CPU after
	 * the next instruction (the shadow, virt->mov_ss_shadow), not from Umbra now. */
	bool step_held;
	u8 fpu[512] __attribute__((aligned(16))); /* FXSAVE image while another guest runs */
	u64 exits[EXIT_REASONS];
	u64 lock_waits[EXIT_REASONS]; /* exits whose handling found the VM's lock held */
	u64 exits_total;
	u64 sched_turn;           /* when its last turn began, in its CPU's count (vmm/sched.c) */
	struct vcpu *sched_next;  /* the next candidate of its CPU's round (vmm/sched.c) */
	struct bootprof boot;     /* exits and time by boot phase (vmm/bootprof.c) */
};
/* clang-format on */

/* clang-format off */
struct vm {
	u32 id;                   /* its index among the guests created */
	struct vm *next;          /* the next one created (for_each_vm) */
	char name[VM_NAME_LEN];   /* config.name, which every message names it by */
	enum vm_state state;      /* atomics: other CPUs end guests (STOP_GUEST) */
	enum vm_end end;
	bool parked;              /* its CPU has left it for good: the report may read it */
	u32 status;               /* VM_END_RESULT: (v << 1) | 1 as isa-debug-exit gives it */
	const char *end_detail;
	struct cpuid_policy cpuid; /* what its CPUID announces, and what follows (vmm/cpuid.c) */
	bool bios_on;             /* it starts with the BIOS's leftovers (set by the loader) */
	bool trace;               /* its exits are recorded (vmm/trace.c) */
	u64 end_tsc;              /* host TSC at which its budget ends (set when it starts, moved
				     on by pauses); vm_budget_end adds the time others took */
	u64 cpu_tsc;              /* TSC ticks all its vCPUs ran, on every CPU (atomic) */
	struct iommu_pt dma;     /* its IOMMU domain when it owns devices (vmm/iommu_domain.c) */
	struct shm_port shm[SHM_PER_GUEST]; /* shm=: its shared regions, in its line's order */
	u32 n_shm;
	u64 dma_faults;            /* DMA its devices tried outside it, blocked */
	u64 msis, msis_dropped;    /* its functions' MSIs delivered; dropped (off, masked, no APIC) */
	u64 intx_raised, intx_eois; /* its functions' INTx raised (vmm/intx.c); ended by its EOI */
	spinlock_t lock;          /* MMU and device state */
	struct memslots mem;
	struct mmu_vm mmu;
	bool tdp_on;              /* runs on nested paging: tdp below, the shadow MMU only walks */
	struct tdp tdp;
	struct vcpu *vcpus;       /* nr_vcpus of them, allocated with the guest; [0] is the BSP */
	u32 nr_vcpus;             /* config.nr_vcpus: how many vcpus holds */
	u32 vcpus_parked;         /* how many have parked (atomic); the last one parks the guest */
	u32 cpu;                  /* where vCPU 0 runs (the monitor, gdb and console use it) */
	bool flush_pending;       /* some vCPU's flush_wait is set: vm_unlock waits for them */
	u64 remote_flushes;       /* waits for a vCPU kicked out of guest mode to flush */
	u64 deferred_free;        /* shadow pages freed under the lock, released by vm_unlock after
				   * the remote flush (vmm/mmu_host.c): hpa, each page links the next */
	u64 ipis;                 /* IPIs its vCPUs sent to each other (delivered) */
	/* The lock's use (vm_lock), counted under it: acquisitions, those that found it held, and
	 * the pause iterations they waited (make bench and the report show them). */
	u64 lock_taken, lock_contended, lock_spins;
	struct console con;       /* its console lines (vmm/console.c) */
	bool paused;              /* the monitor's pause: not run until resume (atomic) */
	u64 pause_tsc;            /* when its CPU last saw it paused (its budget waits) */
	struct board board;       /* its PC devices (vmm/dev/) */
	u32 dev_gen;              /* bumped under the lock by anything that may change what an
				   * interrupt controller has for a vCPU (vm_devices_touched) */
	u16 unmodelled[VM_UNMODELLED_MAX];        /* distinct ports read as all ones */
	u32 n_unmodelled;
	struct { u64 gpa, count; } mmio_unclaimed[VM_UNMODELLED_MAX]; /* distinct addresses no
				   * device answers (read as all ones, writes dropped), with counts */
	u32 n_mmio_unclaimed;
	u64 mmio_unclaimed_other; /* accesses to addresses beyond the table */
	u64 mmio_ud;              /* MMIO instructions the emulator does not take: #UD */
	u64 audit_errors;
	u64 unemulated;           /* PT writes the emulator could not do: frame unshadowed */
	/* Reset (vmm/reset.c): the restarts so far by cause, one asked for and not yet done (its
	 * cause + 1), and the boot modules a restart loads again. */
	u32 restarts;
	u32 restart_causes[VM_RESET_CAUSES];
	u32 reset_pending;        /* atomic: the vCPUs' run loops read it without the lock */
	const u8 *image;
	u64 image_size;
	struct mb1_file files[MB1_MAX_FILES];
	unsigned nfiles;
	/* Its module line's options (vmm/vm_config.h): written once, by vm_configure as the guest
	 * is created, and only read from then on; the rest of struct vm is its state. */
	const struct vm_config config;
	/* Per-guest state of the layers that serve every guest, here so that it grows with the
	 * guests: its virtual time on each CPU (vmm/sched.c), the exit counts the monitor's top
	 * last saw, and where a hypercall's arguments are copied to before they are checked (one
	 * copy per guest: its calls run one at a time, under its lock; pv/hypercall.c). */
	u64 sched_vtime[NR_CPUS];
	u64 top_last[EXIT_REASONS];
	union {
		struct umbra_mmu_update update[UMBRA_MMU_BATCH_MAX];
		struct umbra_mmu_op op[UMBRA_MMU_BATCH_MAX];
		char text[UMBRA_CONSOLE_MAX];
	} pv_copy;
};
/* clang-format on */

/* The guests created, in module order: allocated one by one (vmm/vm.c), vm->id = their index
 * (0..nr_vms-1), which the report, the monitor, gdb and the trace name them by. */
extern struct vm *vm_first;
extern u32 nr_vms;
/* Every guest loaded, in module order: the one way to walk them. */
#define for_each_vm(vm) for (struct vm *vm = vm_first; vm; vm = vm->next)

/* Ends the guest and records how: the first call wins (atomically, from any CPU); false for
 * every later one. The guest's own CPU notices at its next exit (a kick brings it there). */
bool vm_end(struct vm *vm, enum vm_end how, u32 status, const char *detail);
/* How it ended, as the report spells it ("result", "timeout", ...). */
const char *vm_end_name(enum vm_end how);
/* Has it ended (possibly from another CPU)? */
/* When the guest's budget ends: a budget counts the guest's own time only (vmm/vm.c). */
u64 vm_budget_end(const struct vm *vm);

static inline bool vm_ended(const struct vm *vm)
{
	return __atomic_load_n(&vm->state, __ATOMIC_ACQUIRE) == VM_ENDED;
}
/* Its vCPUs look at their interrupts again before their next entry (caller holds the lock). */
static inline void vm_devices_touched(struct vm *vm)
{
	vm->dev_gen++;
}
/* A guest's state and vCPUs, zeroed, from the page allocator; NULL when memory is short.
 * vm_add appends one to the guests (its id the next index); vm_free returns one never added. */
struct vm *vm_alloc(void);
/* The guest takes its configuration (the one write to vm->config), its name and its vCPU
 * count from cfg, before its vCPUs are allocated. */
void vm_configure(struct vm *vm, const struct vm_config *cfg);
bool vm_alloc_vcpus(struct vm *vm); /* vm->nr_vcpus of them */
void vm_add(struct vm *vm);
void vm_free(struct vm *vm);
/* What they take, in whole pages: a guest's state, and its vCPUs. */
u64 vm_state_bytes(void);
u64 vm_vcpus_bytes(u32 nr_vcpus);
/* The guest with this id or name among those created (NULL if none). */
struct vm *vm_by_id(u64 id);
struct vm *vm_by_name(const char *name);
/* Makes every CPU running one of the guest's vCPUs (but the caller's) look at it again. */
void vm_kick_all(struct vm *vm);
/* Prints the guest's registers and recent state (on a fatal end). */
void vcpu_dump(struct vcpu *v);
/* Its general and control registers as saved, lines starting with prefix (no segments: those
 * need the vCPU's own CPU on VMX). */
void vcpu_print_regs(const struct vcpu *v, const char *prefix);

#endif
