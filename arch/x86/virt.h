/* SPDX-License-Identifier: GPL-2.0-only */
/* The one virtualization backend interface; svm.c and vmx.c are its only implementations. */
#ifndef ARCH_X86_VIRT_H
#define ARCH_X86_VIRT_H

#include "lib/types.h"
#include "arch/x86/decode.h"
#include "arch/x86/exit_reason.h"

struct percpu;
struct tdp_format;

/*
 * A vendor-neutral exit. reason is an enum exit_reason (arch/x86/exit_reason.h), the numbering
 * every counter and report uses; the fields below it are meaningful for the reasons named.
 */
/* clang-format off */
struct vexit {
	u32 reason;
	u32 insn_len;      /* the exiting instruction's length when the hardware gave it, else 0 */
	u64 error_code;    /* PAGE_FAULT, EXCEPTION (when has_error), NESTED_FAULT (vendor's) */
	u64 addr;          /* PAGE_FAULT: the faulting linear address; NESTED_FAULT: the gpa */
	u8 vector;         /* EXCEPTION: which one (#UD for a foreign VMCALL/VMMCALL, ...) */
	u8 insn;           /* INSN: which instruction (VINSN_*) */
	u64 dr6_set;       /* EXCEPTION #DB: the DR6 bits it sets, which the CPU left to Umbra
			      (VMX always; SVM where the emulator did not set them) */
	bool has_error;
	bool mtf;          /* EXCEPTION 1: in fact the monitor trap flag's exit (single_step) */
	bool swint;        /* EXCEPTION 3: in fact an INT n or INT3 instruction at RIP, not yet
			      run (SVM's INTn intercept, which QEMU takes for INT3 too) */
	u8 cr;             /* CR_ACCESS: which register */
	bool cr_write;     /* CR_ACCESS: write (else read) */
	bool cr_mov;       /* CR_ACCESS: a MOV to or from CR whose register the hardware named in
			      cr_gpr and whose length in insn_len (VMX's qualification, SVM's
			      decode assists): nothing to decode */
	u8 cr_gpr;
	u16 port;          /* IO */
	u8 io_size;        /* IO: 1, 2, 4 */
	bool io_in, io_string, io_rep;
	bool msr_write;    /* MSR */
	bool emulate_gp;   /* EMULATE: the CPU raised #GP at the instruction (virtual-8086 mode
			      refuses it); else the backend cannot enter the state at all, or has
			      an event to deliver that only emulation can (real mode's IVT) */
	bool vectoring;    /* the exit cut an event delivery short (now back in vcpu->pending):
			      the instruction at RIP has not run, nothing there may be emulated */
	const char *refused; /* OTHER: an exit Umbra refuses, "NAME: why" from the backend's
				list (vmx_exits.h, svm_exits.h), for the report */
	u64 raw_code;      /* the vendor's own exit code and qualification, for dumps */
	u64 raw_info1, raw_info2;
};
/* clang-format on */

/*
 * The instructions no guest runs natively, the same for both vendors: X(name, what vmm/ does
 * with them). Each backend maps every row to its own intercept control in a table indexed by
 * these names (svm.c: the VMCB's intercept words; vmx.c: an execution control, or "always"
 * where VMX exits unconditionally) and refuses to enable itself if a row is left unmapped.
 */
#define VIRT_INSN_INTERCEPTS(X) \
	X(CPUID, "answered from the guest's CPUID policy (vmm/cpuid.c)") \
	X(HLT, "the vCPU waits for an event while the CPU runs other guests") \
	X(INVLPG, "the shadow MMU drops the page's shadows (nested paging lets it run)") \
	X(RDPMC, "#GP: CPUID announces no performance counters") \
	X(INVD, "completed as WBINVD would be: the host's dirty lines must not be lost") \
	X(WBINVD, "completed") \
	X(MONITOR, "#UD: CPUID does not announce MONITOR/MWAIT") \
	X(MWAIT, "#UD: CPUID does not announce MONITOR/MWAIT") \
	X(IO, "every port goes to the board's device models (vmm/board.c)") \
	X(MSR, "every MSR goes to vmm/msr.c, but those the world switch handles") \
	X(VIRT, "#UD: the guest has no SVM or VMX of its own")
#define VIRT_INSN_ENUM_(name, what) VIRT_INSN_##name,
enum virt_insn { VIRT_INSN_INTERCEPTS(VIRT_INSN_ENUM_) VIRT_INSN_COUNT };
#undef VIRT_INSN_ENUM_

/* Instructions that exit only to be refused or completed (EXIT_INSN). */
enum { VINSN_INVD = 1, VINSN_WBINVD, VINSN_RDPMC };

/* What a backend does with each of its exit codes (its list: vmx_exits.h, svm_exits.h): MAP
 * to a vendor-neutral reason (MAP_LEN: the CPU gives the instruction's length), UD (inject the
 * #UD a CPU without the feature raises), DECODE (the backend reads the details itself),
 * REFUSE (an exit Umbra never enables or cannot complete: the guest ends, the exit named). */
enum vexit_action { VEXIT_NONE, VEXIT_MAP, VEXIT_MAP_LEN, VEXIT_UD, VEXIT_DECODE, VEXIT_REFUSE };

/* A backend's exit row applied to x: MAP and MAP_LEN set the reason (the length is the
 * backend's to read), UD the #UD, REFUSE why it is refused; false for DECODE, whose details
 * the backend reads itself (x->reason is then the row's). */
static inline bool virt_exit_row(struct vexit *x, u8 action, u8 reason, const char *why)
{
	x->reason = reason;
	switch (action) {
	case VEXIT_UD:
		x->reason = EXIT_EXCEPTION;
		x->vector = VEC_UD;
		return true;
	case VEXIT_REFUSE:
		x->refused = why;
		return true;
	case VEXIT_MAP:
	case VEXIT_MAP_LEN:
		return true;
	default:
		return false;
	}
}

/* An event to deliver to the guest at the next entry. */
struct vevent {
	bool valid;
	u8 type; /* VEVENT_* */
	u8 vector;
	bool has_error;
	u32 error_code;
	u8 insn_len; /* software interrupts and exceptions (VMX): the instruction's length */
};
/* Event types as both vendors number them; the last two are VMX's alone (SVM re-executes
 * INT3/INTO and INT1 instead of re-injecting them). */
enum {
	VEVENT_EXT_INTR = 0,
	VEVENT_NMI = 2,
	VEVENT_EXCEPTION = 3,
	VEVENT_SOFT_INT = 4,
	VEVENT_PRIV_SOFT_EXC = 5,
	VEVENT_SOFT_EXC = 6
};

/*
 * What a backend sees of a vCPU, and all it sees: vmm/ embeds this in struct vcpu and passes
 * &v->hw, so vendor code cannot reach guests, the MMU or the devices, and reports failures by
 * return value (the guest is ended by vmm/, never by a backend).
 */
/* clang-format off */
struct vcpu_hw {
	const char *name;         /* the guest's name, for the backend's messages */
	u32 cpu;                  /* the physical CPU it runs on */
	u32 asid;                 /* SVM ASID / VMX VPID */
	struct x86_emu_ctx regs;  /* guest-visible state: GPRs, RIP, RFLAGS, CRs as the guest
				     sees them, segments (after read_segments), CPL */
	struct vevent pending;    /* delivered at the next entry */
	u64 root_hpa;             /* the shadow root the CPU runs on */
	bool root_pae;
	bool tlb_flush;           /* flush before the next entry */
	u64 exit_deadline;        /* host TSC by which the guest must exit again (0: none) */
	const u64 *pdptes;        /* the guest's four PAE PDPTEs, as its CR3 load read them */
	u64 pat, tsc_aux;
	u64 debugctl;             /* IA32_DEBUGCTL as the guest set it (LBR, BTF): the CPU runs
				     the guest with it */
	u32 exc_debug;            /* exceptions a debugger intercepts besides Umbra's own (#BP) */
	bool check_entry;         /* audit=1: check the state against the architecture's entry
				     checks before every entry; a broken rule ends the guest as
				     EXIT_INVALID with the rule's name in exit->refused */
	void *arch;               /* the backend's control structure */
	u64 arch_pa;
};
/* clang-format on */

/* Both vendors encode an event in one 32-bit word (VMX's interruption information, the low
 * half of SVM's EVENTINJ and EXITINTINFO): vector in bits 0-7, type (VEVENT_*) in 8-10, an
 * error code pushed in 11, valid in 31. The error code itself travels apart. */
#define VEVENT_WORD_HAS_ERROR BIT(11)
#define VEVENT_WORD_VALID BIT(31)
#define VEVENT_WORD_TYPE(w) (((w) >> 8) & 7)

static inline u32 vevent_word(const struct vevent *e)
{
	return e->vector | ((u32)e->type << 8) | (e->has_error ? VEVENT_WORD_HAS_ERROR : 0) |
	       VEVENT_WORD_VALID;
}

/* The event a valid word describes (an exit cut its delivery short: it is delivered again). */
static inline struct vevent vevent_from_word(u32 w, u32 error_code)
{
	bool has_error = w & VEVENT_WORD_HAS_ERROR;
	return (struct vevent){ .valid = true,
				.vector = w & 0xff,
				.type = VEVENT_WORD_TYPE(w),
				.has_error = has_error,
				.error_code = has_error ? error_code : 0 };
}

/* Exceptions every backend intercepts: #UD (the other vendor's hypercall), #MC, and #DB and
 * #AC, whose delivery a guest can make raise the same exception again forever without an exit
 * (CVE-2015-5307, CVE-2015-8104); #PF too while the shadow MMU pages. */
#define VIRT_EXC_ALWAYS (BIT(VEC_DB) | BIT(VEC_UD) | BIT(VEC_AC) | BIT(VEC_MC))
#define VIRT_EXC_SHADOW (VIRT_EXC_ALWAYS | BIT(14))
/* The faults an event's delivery can raise (#TS, #NP, #SS, #GP), intercepted while Umbra injects
 * an exception: Umbra then combines them itself (#DF, triple fault), also where the CPU does
 * not apply the double-fault rules to an injected event (QEMU's TCG). */
#define VIRT_EXC_DELIVERY (BIT(VEC_TS) | BIT(VEC_NP) | BIT(VEC_SS) | BIT(VEC_GP))

/* The exception intercepts for the next entry; debug: those a debugger adds (#BP). */
static inline u32 virt_exc_bitmap(const struct vevent *pending, bool tdp, u32 debug)
{
	u32 bits = (tdp ? VIRT_EXC_ALWAYS : VIRT_EXC_SHADOW) | debug;
	return pending->valid && pending->type == VEVENT_EXCEPTION ? bits | VIRT_EXC_DELIVERY
								   : bits;
}

/* Does exception vector push an error code? */
static inline bool virt_exc_has_error(u8 vector)
{
	return vector == VEC_DF || (vector >= VEC_TS && vector <= VEC_PF) || vector == VEC_AC ||
	       vector == VEC_CP || vector == VEC_VC || vector == VEC_SX;
}

/* Exceptions of the fault class (SDM vol. 3 table 6-1): the frame the CPU pushes for them has
 * RFLAGS.RF set, so that the restarted instruction's own breakpoint does not fire again. #DB is
 * a trap (single step, data breakpoints) or an instruction breakpoint, whose handler sets RF
 * itself; #BP and #OF are traps; #DF and #MC abort. */
#define VIRT_EXC_FAULTS \
	(BIT(VEC_DE) | BIT(VEC_BR) | BIT(VEC_UD) | BIT(VEC_NM) | BIT(VEC_TS) | BIT(VEC_NP) | \
	 BIT(VEC_SS) | BIT(VEC_GP) | BIT(VEC_PF) | BIT(VEC_MF) | BIT(VEC_AC) | BIT(VEC_XM) | \
	 BIT(VEC_VE) | BIT(VEC_CP) | BIT(VEC_VC) | BIT(VEC_SX))

/* The guest's RFLAGS for an entry that delivers *e. Neither vendor sets RF when it injects an
 * exception (the CPU pushes RFLAGS as the entry loads it), so a fault Umbra injects or gives
 * back (a refused CR or MSR write, a reflected #UD, a shadow #PF, one whose delivery an exit
 * cut short) gets RF here; delivery clears it in the CPU again, as for any event. */
static inline u64 virt_entry_rflags(const struct vevent *e, u64 rflags)
{
	if (e->valid && e->type == VEVENT_EXCEPTION && e->vector < 32 &&
	    (VIRT_EXC_FAULTS & BIT(e->vector)))
		return rflags | RFLAGS_RF;
	return rflags;
}

/* DR6 after a #DB that sets the bits set: B0-B3 tell only this #DB's breakpoints (the CPU
 * clears the others when it reports one), BD, BS and the rest stay until software clears
 * them. */
static inline u64 virt_dr6_on_db(u64 dr6, u64 set)
{
	return ((set & DR6_B0_B3) ? dr6 & ~(u64)DR6_B0_B3 : dr6) | set;
}

/* Does an instruction that began with rflags and debugctl, completed by Umbra rather than the
 * CPU, owe the guest a single-step trap after it? With TF, unless BTF asks for traps on
 * branches only: Umbra completes none (CPUID, I/O, MSRs, emulated moves, hypercalls). */
static inline bool virt_step_owed(u64 rflags, u64 debugctl)
{
	return (rflags & RFLAGS_TF) && !(debugctl & DEBUGCTL_BTF);
}

struct virt_backend {
	const char *name; /* "svm" or "vmx": the summary's virt= value */
	/* Does this CPU offer the extension at all? On no, *why says what is missing. */
	bool (*probe)(const char **why);
	/* Enter SVM host / VMX root mode on the calling CPU; 0, or <0 with pc->virt_error set.
	 * On success pc->virt_info describes what was found (NPT/EPT, ASIDs, ...). */
	int (*cpu_enable)(struct percpu *pc);

	/* Control structure for v, guest state as in v->regs (segments, CRs); 0 or <0. Runs on
	 * the CPU that will run v. */
	int (*vcpu_create)(struct vcpu_hw *v);
	void (*vcpu_destroy)(struct vcpu_hw *v);
	/* Enter the guest with v->regs' GPRs, RIP and RFLAGS and v->pending event; on return
	 * those registers and v->regs.cpl are current and *exit says why the guest stopped. An
	 * event whose delivery the exit interrupted is put back into v->pending. Physical
	 * interrupts always exit the guest, whatever its RFLAGS.IF; the guest also exits by the
	 * host TSC v->exit_deadline at the latest (the backend may use a timer of its own). */
	void (*vcpu_run)(struct vcpu_hw *v, struct vexit *exit);
	/* v's turn on this CPU is over (its next may be on another): what the CPU kept of v's
	 * state between entries goes back to the control structure. NULL: the CPU keeps nothing. */
	void (*vcpu_put)(struct vcpu_hw *v);
	/* The guest's CR0/CR4/EFER or shadow root changed (v->regs, v->root_hpa, v->root_pae):
	 * recompute what the CPU really runs with. 0, or <0 with *why saying what this CPU cannot
	 * run (vmm/ then ends the guest). */
	int (*update_paging)(struct vcpu_hw *v, const char **why);
	/* Only the shadow root moved (v->root_hpa; root_pae as at the last update_paging), as at
	 * a cached CR3 load: load it. Same contract as update_paging. */
	int (*set_root)(struct vcpu_hw *v, const char **why);
	/* Fill v->regs.seg[], gdtr and idtr from the control structure (for decoding and dumps). */
	void (*read_segments)(struct vcpu_hw *v);
	/* The same for a decode, except that what only the CPU holds now may be left out (FS,
	 * GS, LDTR, TR), with v->regs.segs_partial set: the emulator asks for it when an
	 * instruction uses it (x86_emu_ops.segments). */
	void (*read_segments_lazy)(struct vcpu_hw *v);
	/* CS alone (v->regs.seg[X86_CS]): all a register-form instruction's decode needs (the
	 * code size, RIP's linear address); a CR exit's whole decode. */
	void (*read_cs)(struct vcpu_hw *v);
	/* The emulator changed them (EXIT_EMULATE): load them into the control structure. */
	void (*write_segments)(struct vcpu_hw *v);
	/* Flush v's TLB before its next entry. */
	void (*flush_tlb)(struct vcpu_hw *v);
	/* Guest CR2 as the guest sees it (set when a #PF is injected). */
	void (*set_cr2)(struct vcpu_hw *v, u64 cr2);
	/* Could an external interrupt be delivered right now (RFLAGS.IF set, no STI/MOV SS
	 * shadow)? */
	bool (*irq_window_open)(struct vcpu_hw *v);
	/* Exit (EXIT_IRQ_WINDOW) as soon as the guest can take an interrupt, or stop. */
	void (*request_irq_window)(struct vcpu_hw *v, bool on);
	/* Could an NMI be injected right now: none in service (the CPU blocks NMIs from an NMI's
	 * delivery until the guest's next IRET) and no STI/MOV SS shadow? An NMI injected
	 * (pending, VEVENT_NMI) is in service from its delivery on. */
	bool (*nmi_window_open)(struct vcpu_hw *v);
	/* Exit (EXIT_IRQ_WINDOW) as soon as an NMI could be injected, or stop. */
	void (*request_nmi_window)(struct vcpu_hw *v, bool on);
	/* Umbra completed a MOV SS or POP SS (the emulator's, on device memory) and RIP is past
	 * it: the next entry starts the shadow the CPU would have, holding interrupts, NMIs and
	 * debug traps for one instruction; a single step the MOV SS owes under TF comes after
	 * that instruction, from the CPU. Call before the entry, with nothing injected. */
	void (*mov_ss_shadow)(struct vcpu_hw *v);
	/* A debugger's single step: exit (EXCEPTION 1 with mtf set) after the guest's next
	 * instruction, its RFLAGS untouched (VMX's monitor trap flag). False where the CPU has
	 * none: the caller steps with RFLAGS.TF. Call on the vCPU's CPU. */
	bool (*single_step)(struct vcpu_hw *v, bool on);
	/* MOV DR exits (EXIT_DR_ACCESS) while on, run natively while off. */
	void (*intercept_dr)(struct vcpu_hw *v, bool on);
	/* The guest's DR6 or DR7 (n = 6, 7): SVM keeps both in the VMCB, VMX DR7 in the VMCS and
	 * DR6 in the real register. */
	u64 (*get_dr)(struct vcpu_hw *v, int n);
	void (*set_dr)(struct vcpu_hw *v, int n, u64 val);
	/* Is it the real register, to be switched with DR0-DR3 (no world switch saves it)? */
	bool dr6_live;
	/* The guest's RDTSC reads the host TSC plus this (a guest's TSC write sets it). */
	void (*set_tsc_offset)(struct vcpu_hw *v, u64 offset);
	/* The guest's IN and OUT on ports [first, first + n) run natively (pass) or exit again:
	 * the ports of a device the guest owns (vmm/pci_view.c). Under the guest's lock, for a
	 * vCPU on any CPU: the bitmap is memory the CPU reads at each access. */
	void (*pass_ports)(struct vcpu_hw *v, u16 first, u32 n, bool pass);

	/* Nested paging (NPT/EPT); all three NULL on a backend without it. Does every CPU here
	 * have it? */
	bool (*tdp_supported)(void);
	/* The entry format of the nested table the backend runs on (mmu/tdp.h). */
	const struct tdp_format *tdp_format;
	/* From now on v runs on the nested table at root_hpa: the guest's own CR3 and page
	 * faults need no exit (EXIT_NESTED_FAULT instead), and every exit leaves the
	 * guest's CR3 and CR2 in v->regs; update_paging then loads the guest's own CR0, CR3, CR4
	 * and EFER (v->regs) into the CPU, without the shadow root (the caller calls it next). */
	void (*tdp_enable)(struct vcpu_hw *v, u64 root_hpa);
};

/* What the CPU really runs with under shadow paging, whichever the vendor (arch/x86/virt.c). */
struct virt_shadow_regs {
	u64 cr0, cr4, efer;
	bool long_mode; /* the shadow root is 4-level: the CPU runs in IA-32e mode */
};
/* From the guest's view (v->regs) and the root it runs on: paging always on through the
 * shadow, WP always on (so write-protected guest tables trap even from ring 0), PAE always on
 * (every shadow is 8-byte entries), NX always on (shadow entries use it), caching bits off,
 * and of CR4 only the bits that do not change translation; EFER.LME/LMA follow the root. The
 * backend adds its own must-be-one bits (SVME, VMXE, NE and PE, the VMX fixed bits). */
void virt_shadow_regs(const struct vcpu_hw *v, struct virt_shadow_regs *out);
/* Both vendors' I/O bitmaps: one bit per port, set = the access exits (SVM's IOPM, VMX's
 * bitmaps A and B back to back); an access exits if any of its bytes' bits is set. */
void virt_port_bitmap(u8 *bitmap, u16 first, u32 n, bool pass);

extern const struct virt_backend svm_backend;
extern const struct virt_backend vmx_backend;

/* The backend chosen at boot (NULL if the CPU has neither extension). */
extern const struct virt_backend *virt;

/* Picks the backend for this machine; on failure returns NULL with a reason. */
const struct virt_backend *virt_select(const char **why);

#endif
