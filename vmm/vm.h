/* Virtual machines and their vCPUs: memory, devices, state, counters. */
#ifndef VMM_VM_H
#define VMM_VM_H

#include "lib/types.h"
#include "lib/spinlock.h"
#include "arch/x86/decode.h"
#include "arch/x86/virt.h"
#include "mmu/mmu.h"
#include "mmu/tdp.h"
#include "pv/abi.h"
#include "vmm/memslot.h"
#include "vmm/vlapic.h"

#define MAX_VMS 16
#define VM_NAME_LEN 24
#define VM_UNMODELLED_MAX 16

enum vm_state { VM_EMPTY, VM_READY, VM_RUNNING, VM_ENDED };

/* How a guest ended, for its report and the summary. */
enum vm_end {
	VM_END_NONE,
	VM_END_RESULT,     /* wrote the result port or called exit: status below */
	VM_END_HALT,       /* HLT with interrupts off and nothing pending */
	VM_END_SHUTDOWN,   /* triple fault */
	VM_END_FATAL,      /* something Umbra could not continue (dump printed) */
	VM_END_LOAD_ERROR, /* never started: bad image or no memory */
	VM_END_STOPPED,    /* stopped by another guest's STOP_GUEST */
};

struct vcpu {
	struct vm *vm;
	u32 id;
	u32 cpu;                  /* the physical CPU it runs on */
	u32 asid;                 /* SVM ASID / VMX VPID */
	struct x86_emu_ctx regs;  /* guest-visible state: GPRs, RIP, RFLAGS, CRs as the guest
				     sees them, segments (after read_segments), CPL */
	struct vevent pending;    /* delivered at the next entry */
	u64 root_hpa;             /* the shadow root the CPU runs on */
	bool root_pae;
	bool tlb_flush;           /* flush before the next entry */
	void *arch;               /* the backend's control structure */
	u64 arch_pa;
	struct mmu_vcpu mmu;
	struct vlapic vlapic;
	u64 apic_base_msr;
	u64 pat, tsc_aux, mtrr_def_type;
	u64 tsc_offset;           /* guest TSC = host TSC + this */
	/* Virtual interrupts and waiting. */
	u8 irq_vector;            /* an interrupt waiting to be injected (0: none) */
	u8 timer_vector;          /* the one-shot timer's vector */
	u64 timer_deadline;       /* TSC when it fires (0: not armed) */
	bool halted;              /* in HLT or BLOCK: not runnable until an event */
	bool blocking;            /* BLOCK hypercall: wakes on an event or at block_deadline */
	u64 block_deadline;
	bool yielded;             /* YIELD: give the CPU away at the end of this exit */
	u8 fpu[512] __attribute__((aligned(16))); /* FXSAVE image while another guest runs */
	u64 exits[UMBRA_EXIT_REASONS];
	u64 exits_total;
};

struct vm {
	u32 id;
	char name[VM_NAME_LEN];
	enum vm_state state;
	enum vm_end end;
	u32 status;               /* VM_END_RESULT: (v << 1) | 1 as isa-debug-exit gives it */
	const char *end_detail;
	bool expect_crash;        /* the command line says this guest is meant to crash */
	bool expect_stop;         /* ... or to be stopped by another guest */
	u32 caps;                 /* UMBRA_CAP_* from caps= */
	spinlock_t lock;          /* MMU and device state */
	struct memslots mem;
	struct mmu_vm mmu;
	bool tdp_on;              /* runs on nested paging: tdp below, the shadow MMU only walks */
	struct tdp tdp;
	struct vcpu vcpu;         /* one vCPU per guest for now */
	u32 cpu;                  /* where its vCPU runs */
	char cmdline[256];
	char guest_args[192];     /* after "--" on the module line: a multiboot v1 kernel's own */
	/* The console line being assembled, printed with the guest's name in front. */
	char line[128];
	u32 line_len;
	u8 com1_lcr, com1_ier, com1_mcr, com1_scr, com1_dll, com1_dlm, com1_rx;
	bool com1_rx_full;
	u16 unmodelled[VM_UNMODELLED_MAX];        /* distinct ports read as all ones */
	u32 n_unmodelled;
	u64 mmio_unmodelled[VM_UNMODELLED_MAX];   /* distinct unbacked MMIO pages */
	u32 n_mmio_unmodelled;
	/* Legacy PC devices. */
	u8 pic_mask[2], pic_icw_step[2];
	u32 pci_addr;
	u8 cmos_index;
	u64 audit_errors;
	u64 unemulated;           /* PT writes the emulator could not do: frame unshadowed */
};

extern struct vm vms[MAX_VMS];
extern u32 nr_vms;

/* Ends the guest (first call wins) and records how. Safe from any exit handler. */
void vm_end(struct vm *vm, enum vm_end how, u32 status, const char *detail);
/* Prints the guest's registers and recent state (on a fatal end). */
void vcpu_dump(struct vcpu *v);

#endif
