/* SPDX-License-Identifier: GPL-2.0-only */
/* Intel VMX backend: VMXON per CPU, the VMCS, world switch, exit decoding, event injection. */
#include "arch/x86/virt.h"
#include "arch/x86/vmcs.h"
#include "arch/x86/vmx_vm86.h"
#include "arch/x86/vmx_exits.h"
#include "arch/x86/vmx_check.h"
#include "arch/x86/cpu.h"
#include "arch/x86/devirq.h"
#include "arch/x86/lapic.h"
#include "arch/x86/paging.h"
#include "arch/x86/percpu.h"
#include "arch/x86/realmode.h"
#include "lib/assert.h"
#include "lib/palloc.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "arch/x86/tdp_format.h"

#define CPUID_VMX_ECX (1u << 5)
#define FC_LOCK (1ull << 0)
#define FC_VMX_OUTSIDE_SMX (1ull << 2)
#define BASIC_TRUE_CTLS (1ull << 55)

#define RFLAGS_IOPL (3ull << 12)

/* What every CPU offers, read once: the control words to use and the optional features. */
struct vmx_caps {
	bool ready;
	u32 revision;
	u32 pin, proc, proc2, exit, entry; /* entry without IA-32e mode guest */
	bool vpid, invvpid_single, load_efer, ack_intr, rdtscp;
	bool preempt; /* the VMX-preemption timer ends slices (it counts TSC >> rate) */
	bool mtf;     /* the monitor trap flag (a debugger's single step) */
	u8 preempt_rate;
	/* EPT with unrestricted guest, WB tables and 4-level walks: proc_tdp and proc2_tdp are
	 * the controls then (no CR3 or INVLPG exits). */
	bool ept, invept_single;
	u32 proc_tdp, proc2_tdp;
	u64 cr0_fixed0, cr0_fixed1, cr4_fixed0, cr4_fixed1;
	/* For the entry checks (audit=1): the capability MSRs the controls came from. */
	u64 pin_cap, proc_cap, proc2_cap, exit_cap, entry_cap;
	bool zero_len_ok;
	u8 maxphyaddr, va_bits;
	const char *error;
};
static struct vmx_caps caps;

/* EPT entries: read/write/execute, leaves write-back (combined with the PAT in force), a
 * device's leaves memory type UC (0), which no guest PAT overrides. Without 2 MiB EPT pages
 * (read_caps) large is cleared. */
static struct tdp_format ept_format = {
	.present = BIT(0),
	.write = BIT(1),
	.exec = BIT(2),
	.large = BIT(7),
	.leaf_extra = 6ull << 3,
	.leaf_uc = 0,
};

/* The VMCS currently loaded on each CPU, so that a switch between vCPUs reloads it. */
static u64 current_vmcs[NR_CPUS];

/* MSRs the guest reaches directly: the entry MSR-load list loads the guest's values and the
 * exit MSR-store list saves them to the same place (the host never uses them: no user mode,
 * no SWAPGS, no RDTSCP). TSC_AUX joins the list for a guest RDTSCP that runs natively (its
 * writes still exit: vmm/msr.c owns the value), and EFER on CPUs without the EFER controls. */
static const u32 swapped_msrs[] = { GUEST_MSR_LIST(GUEST_MSR_IN_ALONE_) };
#define NR_SWAPPED (ARRAY_SIZE(swapped_msrs))
/* And these live in the VMCS guest-state area anyway. */
static const u32 vmcs_msrs[] = { GUEST_MSR_LIST(GUEST_MSR_IN_SEG_) };

struct msr_entry {
	u32 index, reserved;
	u64 value;
};

/* Per-vCPU backend state, in the last page of the vCPU's allocation. */
struct vmx_vcpu {
	struct msr_entry guest_msrs[NR_SWAPPED + 2]; /* + TSC_AUX, EFER */
	struct msr_entry host_msrs[1];		     /* host EFER without the EFER controls */
	struct msr_entry *tsc_aux, *efer;	     /* their guest entries, if listed */
	u64 vmcs_pa;
	u64 cr2;      /* the guest's CR2 between runs */
	u64 exit_rip; /* RIP at the last exit: a moved RIP ends any STI/MOV SS shadow */
	u32 shadow;   /* the STI/MOV SS blocking bits the VMCS holds */
	u32 intr;     /* the whole interruptibility state the VMCS holds (NMI blocking too) */
	u32 windows;  /* PROC_INT_WINDOW, PROC_NMI_WINDOW: the exits Umbra waits for */
	bool irq_win, nmi_win; /* which of the two waits asked for them */
	u64 debugctl;	       /* the guest's IA32_DEBUGCTL the VMCS holds */
	u32 entry_ctls;	       /* entry controls in force, for the entry-failure dump */
	bool launched, flush;
	u64 root_hpa;	 /* the shadow root the VMCS holds */
	u32 proc;	 /* primary controls in force, without the window exits */
	u32 exc_bitmap;	 /* the exception bitmap in force */
	bool tdp;	 /* on EPT: the guest's own CR0/CR3/CR4/EFER run on the CPU */
	bool pdptes_set; /* the VMCS PDPTE fields hold this PAE context's PDPTEs */
	u64 eptp;
	struct vmx_vm86 rm; /* real mode in virtual-8086 mode, without unrestricted guest */
	bool pm_check; /* back in protected mode: enter only once VM entry accepts the segments */
};

/* Pages of a vCPU's allocation. */
enum { PG_VMCS, PG_IO_A, PG_IO_B, PG_MSR_BITMAP, PG_STATE, VCPU_PAGES };

int vmx_world_switch(u64 *gpr, int launched, u64 *cr2);

void vmwrite(u64 field, u64 val)
{
	u8 fail;
	__asm__ volatile("vmwrite %2, %1; setna %0" : "=qm"(fail) : "r"(field), "rm"(val) : "cc");
	if (fail)
		kprintf("vmx: VMWRITE of field 0x%lx = 0x%lx failed (error %lu)\n", field, val,
			vmread(F_INSN_ERROR));
}

static bool vmx_probe(const char **why)
{
	if (!(cpuid(1, 0).ecx & CPUID_VMX_ECX)) {
		*why = "CPUID reports no VMX";
		return false;
	}
	u64 fc = rdmsr(MSR_FEATURE_CONTROL);
	if ((fc & FC_LOCK) && !(fc & FC_VMX_OUTSIDE_SMX)) {
		*why = "VMX disabled and locked by firmware (IA32_FEATURE_CONTROL)";
		return false;
	}
	return true;
}

/*
 * A control word the capability MSR accepts: its allowed-0 bits (low half) forced on, only
 * allowed-1 bits (high half) on. A `need` bit the CPU cannot set is a refusal; `want` bits are
 * taken where offered.
 */
static bool adjust(u32 msr, u32 need, u32 want, u32 *out)
{
	u64 cap = rdmsr(msr);
	u32 must = (u32)cap, may = (u32)(cap >> 32);
	*out = (must | need | (want & may)) & may;
	return !(need & ~may);
}

/* virt.h's instruction intercepts as VMX controls them: a primary execution control, a
 * secondary one (wanted: a CPU without it runs the instruction natively, harmlessly), or
 * always (VMX exits on CPUID, INVD and its own instructions unconditionally, and on RDMSR and
 * WRMSR for every MSR the bitmaps do not pass). */
static const struct {
	u32 proc, proc2;
	bool always;
} insn_intercepts[VIRT_INSN_COUNT] = {
	[VIRT_INSN_CPUID] = { .always = true },
	[VIRT_INSN_HLT] = { .proc = PROC_HLT },
	[VIRT_INSN_INVLPG] = { .proc = PROC_INVLPG },
	[VIRT_INSN_RDPMC] = { .proc = PROC_RDPMC },
	[VIRT_INSN_INVD] = { .always = true },
	[VIRT_INSN_WBINVD] = { .proc2 = PROC2_WBINVD },
	[VIRT_INSN_MONITOR] = { .proc = PROC_MONITOR },
	[VIRT_INSN_MWAIT] = { .proc = PROC_MWAIT },
	[VIRT_INSN_IO] = { .proc = PROC_IO_BITMAPS },
	[VIRT_INSN_MSR] = { .always = true },
	[VIRT_INSN_VIRT] = { .always = true },
};

/* The controls every row of insn_intercepts needs; false if a row was left unmapped. */
static bool insn_intercept_controls(u32 *proc, u32 *proc2)
{
	*proc = *proc2 = 0;
	for (unsigned i = 0; i < VIRT_INSN_COUNT; i++) {
		if (!insn_intercepts[i].always && !insn_intercepts[i].proc &&
		    !insn_intercepts[i].proc2)
			return false;
		*proc |= insn_intercepts[i].proc;
		*proc2 |= insn_intercepts[i].proc2;
	}
	return true;
}

static const char *read_caps(struct vmx_caps *c)
{
	u32 insn_proc, insn_proc2;
	u64 basic = rdmsr(MSR_VMX_BASIC);
	bool tru = basic & BASIC_TRUE_CTLS;

	c->revision = (u32)basic & 0x7fffffff;
	if (!adjust(tru ? MSR_VMX_TRUE_PINBASED_CTLS : MSR_VMX_PINBASED_CTLS,
		    PIN_EXT_INTR | PIN_NMI | PIN_VIRTUAL_NMI, PIN_PREEMPT, &c->pin))
		return "no external-interrupt or NMI exiting, or no virtual NMIs";
	/* External interrupts alone do not always bound a slice (Bochs stops delivering the
	 * host timer to a guest spinning with IF=0): the preemption timer does, where offered. */
	c->preempt = c->pin & PIN_PREEMPT;
	c->preempt_rate = rdmsr(MSR_VMX_MISC) & 0x1f;
	if (!insn_intercept_controls(&insn_proc, &insn_proc2))
		return "an instruction intercept of virt.h has no VMX control";
	/* CR8 exits: it is the model's TPR (vmm/cr.c), which a TPR shadow would leave behind. */
	u32 need = insn_proc | PROC_CR3_LOAD | PROC_CR3_STORE | PROC_INT_WINDOW | PROC_CR8_LOAD |
		   PROC_CR8_STORE | PROC_NMI_WINDOW;
	u32 want = PROC_MSR_BITMAPS | PROC_SECONDARY | PROC_TSC_OFFSET | PROC_MOV_DR | PROC_MTF;
	u32 proc_msr = tru ? MSR_VMX_TRUE_PROCBASED_CTLS : MSR_VMX_PROCBASED_CTLS;
	if (!adjust(proc_msr, need, want, &c->proc))
		return "no HLT, INVLPG, RDPMC, MONITOR, MWAIT, CR3, CR8, interrupt- or NMI-window or "
		       "I/O-bitmap exiting";
	/* On only while Umbra waits for the window (vmx_vcpu.windows). */
	c->proc &= ~(u32)(PROC_INT_WINDOW | PROC_NMI_WINDOW);
	c->mtf = c->proc & PROC_MTF;
	c->proc &= ~(u32)PROC_MTF; /* on only while a debugger steps */

	/* Shadow paging: never EPT or unrestricted guest, even where offered. */
	c->proc2 = 0;
	if (c->proc & PROC_SECONDARY) {
		/* The EPT/VPID capability MSR exists only where one of the two does. */
		u32 may2 = (u32)(rdmsr(MSR_VMX_PROCBASED_CTLS2) >> 32);
		u64 ev = may2 & (PROC2_EPT | PROC2_VPID) ? rdmsr(MSR_VMX_EPT_VPID_CAP) : 0;
		bool invvpid = (ev & CAP_INVVPID) && (ev & (CAP_INVVPID_SINGLE | CAP_INVVPID_ALL));
		adjust(MSR_VMX_PROCBASED_CTLS2, 0,
		       PROC2_RDTSCP | insn_proc2 | (invvpid ? PROC2_VPID : 0), &c->proc2);
		if (c->proc2 & (PROC2_EPT | PROC2_UNRESTRICTED))
			return "secondary controls force EPT or unrestricted guest";
		c->invvpid_single = ev & CAP_INVVPID_SINGLE;
		if (!c->proc2)
			c->proc &= ~PROC_SECONDARY;
		/* The guest's own CR0 may have PE or PG clear: EPT alone is not enough. And the
		 * CR3/INVLPG exits shadow paging needs must be ones the CPU lets us drop. */
		u32 must = (u32)rdmsr(proc_msr);
		c->ept = (may2 & PROC2_EPT) && (may2 & PROC2_UNRESTRICTED) &&
			 (ev & CAP_EPT_WALK4) && (ev & CAP_EPT_WB) && (ev & CAP_INVEPT) &&
			 (ev & (CAP_INVEPT_SINGLE | CAP_INVEPT_ALL)) &&
			 !(must & (PROC_CR3_LOAD | PROC_CR3_STORE | PROC_INVLPG));
		c->invept_single = ev & CAP_INVEPT_SINGLE;
		if (!(ev & CAP_EPT_2M))
			ept_format.large = 0;
		c->proc_tdp = (c->proc & ~(u32)(PROC_CR3_LOAD | PROC_CR3_STORE | PROC_INVLPG)) |
			      PROC_SECONDARY;
		c->proc2_tdp = c->proc2 | PROC2_EPT | PROC2_UNRESTRICTED;
	}
	c->vpid = c->proc2 & PROC2_VPID;
	c->rdtscp = c->proc2 & PROC2_RDTSCP;

	/* The guest's DR7 and IA32_DEBUGCTL live in the VMCS: saved at every exit, loaded at
	 * every entry (the debug controls). */
	if (!adjust(tru ? MSR_VMX_TRUE_EXIT_CTLS : MSR_VMX_EXIT_CTLS,
		    EXIT_HOST_64 | EXIT_SAVE_DEBUG, EXIT_ACK_INTR | EXIT_SAVE_EFER | EXIT_LOAD_EFER,
		    &c->exit))
		return "no 64-bit host or save-debug-controls exit control";
	if (!adjust(tru ? MSR_VMX_TRUE_ENTRY_CTLS : MSR_VMX_ENTRY_CTLS, ENTRY_LOAD_DEBUG,
		    ENTRY_IA32E | ENTRY_LOAD_EFER, &c->entry))
		return "no load-debug-controls entry control";
	if (!((rdmsr(tru ? MSR_VMX_TRUE_ENTRY_CTLS : MSR_VMX_ENTRY_CTLS) >> 32) & ENTRY_IA32E))
		return "no IA-32e mode guest entry control";
	c->entry &= ~(u32)ENTRY_IA32E;
	/* Both halves or neither: the EFER lists below stand in for them otherwise. */
	c->load_efer = (c->entry & ENTRY_LOAD_EFER) && (c->exit & EXIT_LOAD_EFER) &&
		       (c->exit & EXIT_SAVE_EFER);
	if (!c->load_efer) {
		c->entry &= ~(u32)ENTRY_LOAD_EFER;
		c->exit &= ~(u32)(EXIT_LOAD_EFER | EXIT_SAVE_EFER);
	}
	c->ack_intr = c->exit & EXIT_ACK_INTR;

	c->cr0_fixed0 = rdmsr(MSR_VMX_CR0_FIXED0);
	c->cr0_fixed1 = rdmsr(MSR_VMX_CR0_FIXED1);
	c->cr4_fixed0 = rdmsr(MSR_VMX_CR4_FIXED0);
	c->cr4_fixed1 = rdmsr(MSR_VMX_CR4_FIXED1);
	c->pin_cap = rdmsr(tru ? MSR_VMX_TRUE_PINBASED_CTLS : MSR_VMX_PINBASED_CTLS);
	c->proc_cap = rdmsr(proc_msr);
	c->proc2_cap = c->proc & PROC_SECONDARY ? rdmsr(MSR_VMX_PROCBASED_CTLS2) : 0;
	c->exit_cap = rdmsr(tru ? MSR_VMX_TRUE_EXIT_CTLS : MSR_VMX_EXIT_CTLS);
	c->entry_cap = rdmsr(tru ? MSR_VMX_TRUE_ENTRY_CTLS : MSR_VMX_ENTRY_CTLS);
	c->zero_len_ok = rdmsr(MSR_VMX_MISC) & BIT(30);
	u32 widths = cpuid(0x80000008, 0).eax;
	c->maxphyaddr = (u8)widths;
	c->va_bits = (u8)(widths >> 8);
	return NULL;
}

static void describe(struct percpu *pc)
{
	/* Allowed-1 settings are the high halves of the capability MSRs. */
	u64 proc2 = 0;
	if ((rdmsr(MSR_VMX_PROCBASED_CTLS) >> 32) & PROC_SECONDARY)
		proc2 = rdmsr(MSR_VMX_PROCBASED_CTLS2) >> 32;
	u64 misc = rdmsr(MSR_VMX_MISC);

	fmt_snprintf(pc->virt_info, sizeof(pc->virt_info),
		     "vmx rev=0x%x ept=%s vpid=%s unrestricted_guest=%s cr3_targets=%u "
		     "preemption_timer=%s efer_controls=%s mtf=%s",
		     caps.revision, proc2 & PROC2_EPT ? "yes" : "no",
		     proc2 & PROC2_VPID ? "yes" : "no", proc2 & PROC2_UNRESTRICTED ? "yes" : "no",
		     (unsigned)((misc >> 16) & 0x1ff),
		     (rdmsr(MSR_VMX_PINBASED_CTLS) >> 32) & (1ull << 6) ? "yes" : "no",
		     caps.load_efer ? "yes" : "no", caps.mtf ? "yes" : "no");
}

static int vmx_cpu_enable(struct percpu *pc)
{
	const char *why;
	if (!vmx_probe(&why)) {
		pc->virt_error = why;
		return -1;
	}
	/* Every CPU is the same model: the first one to get here reads the capabilities. */
	if (!caps.ready) {
		caps.error = read_caps(&caps);
		caps.ready = true;
	}
	if (caps.error) {
		pc->virt_error = caps.error;
		return -1;
	}
	u64 fc = rdmsr(MSR_FEATURE_CONTROL);
	if (!(fc & FC_LOCK))
		wrmsr(MSR_FEATURE_CONTROL, fc | FC_LOCK | FC_VMX_OUTSIDE_SMX);

	/* CR0/CR4 must satisfy the fixed-0 (must be 1) and fixed-1 (may be 1) masks in VMX. */
	write_cr0((read_cr0() | caps.cr0_fixed0) & caps.cr0_fixed1);
	write_cr4((read_cr4() | CR4_VMXE | caps.cr4_fixed0) & caps.cr4_fixed1);

	u64 region = palloc_alloc();
	if (!region) {
		pc->virt_error = "no memory for the VMXON region";
		return -1;
	}
	*(volatile u32 *)phys_to_virt(region) = caps.revision;

	u8 fail;
	__asm__ volatile("vmxon %1; setna %0" : "=qm"(fail) : "m"(region) : "cc", "memory");
	if (fail) {
		pc->virt_error = "VMXON failed";
		return -1;
	}
	pc->virt = phys_to_virt(region);
	describe(pc);
	return 0;
}

static struct vmx_vcpu *state_of(struct vcpu_hw *v)
{
	return v->arch;
}
static u64 page_pa(struct vcpu_hw *v, int page)
{
	return v->arch_pa + (u64)page * PAGE_SIZE;
}

/* Makes v's VMCS the current one on this CPU (each CPU may run several vCPUs in turn). */
static bool load_vmcs(struct vmx_vcpu *s)
{
	u64 *cur = &current_vmcs[this_cpu()->index];
	if (*cur == s->vmcs_pa)
		return true;
	u8 fail;
	__asm__ volatile("vmptrld %1; setna %0" : "=qm"(fail) : "m"(s->vmcs_pa) : "cc", "memory");
	if (fail) {
		kprintf("vmx: VMPTRLD of 0x%lx failed\n", s->vmcs_pa);
		return false;
	}
	*cur = s->vmcs_pa;
	return true;
}

/* Clears the exit bits of the given MSRs in the 4 KiB MSR bitmap (reads low/high, then
 * writes low/high, 1 KiB each). */
static void msr_passthrough(u8 *bitmap, const u32 *msrs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		u32 m = msrs[i];
		u32 off = (m >= 0xc0000000u ? 1024 : 0) + ((m & 0x1fff) >> 3);
		u8 bit = (u8)(1u << (m & 7));
		bitmap[off] &= (u8)~bit;
		bitmap[off + 2048] &= (u8)~bit;
	}
}

static void write_host_state(void)
{
	struct percpu *pc = this_cpu();
	struct {
		u16 limit;
		u64 base;
	} PACKED gdtr, idtr;

	__asm__ volatile("sgdt %0; sidt %1" : "=m"(gdtr), "=m"(idtr));
	vmwrite(F_HOST_CR0, read_cr0());
	vmwrite(F_HOST_CR3, read_cr3());
	vmwrite(F_HOST_CR4, read_cr4());
	vmwrite(F_HOST_CS_SEL, GDT_KCODE);
	vmwrite(F_HOST_SS_SEL, GDT_KDATA);
	vmwrite(F_HOST_DS_SEL, GDT_KDATA);
	vmwrite(F_HOST_ES_SEL, GDT_KDATA);
	vmwrite(F_HOST_FS_SEL, 0);
	vmwrite(F_HOST_GS_SEL, 0);
	vmwrite(F_HOST_TR_SEL, GDT_TSS);
	vmwrite(F_HOST_FS_BASE, 0);
	vmwrite(F_HOST_GS_BASE, (u64)pc);
	vmwrite(F_HOST_TR_BASE, (u64)&pc->tss);
	vmwrite(F_HOST_GDTR_BASE, gdtr.base);
	vmwrite(F_HOST_IDTR_BASE, idtr.base);
	vmwrite(F_HOST_SYSENTER_CS, 0);
	vmwrite(F_HOST_SYSENTER_ESP, 0);
	vmwrite(F_HOST_SYSENTER_EIP, 0);
	if (caps.load_efer)
		vmwrite(F_HOST_EFER, rdmsr(MSR_EFER));
}

static void write_controls(struct vcpu_hw *v)
{
	struct vmx_vcpu *s = state_of(v);
	u64 state_pa = page_pa(v, PG_STATE);
	u32 nmsr = NR_SWAPPED;

	vmwrite(F_PIN, caps.pin);
	s->proc = caps.proc;
	vmwrite(F_PROC, s->proc);
	if (caps.proc & PROC_SECONDARY)
		vmwrite(F_PROC2, caps.proc2);
	if (caps.vpid)
		vmwrite(F_VPID, v->asid);
	vmwrite(F_EXIT_CTLS, caps.exit);
	vmwrite(F_ENTRY_CTLS, caps.entry);
	/* A VMCS holds no defined values until written: every field in use is set here. */
	s->exc_bitmap = VIRT_EXC_SHADOW;
	vmwrite(F_EXC_BITMAP, s->exc_bitmap);
	vmwrite(F_PF_ERROR_MASK, 0); /* every #PF exits */
	vmwrite(F_PF_ERROR_MATCH, 0);
	vmwrite(F_CR3_TARGETS, 0);
	if (caps.proc & PROC_TSC_OFFSET)
		vmwrite(F_TSC_OFFSET, 0);
	vmwrite(F_IO_BITMAP_A, page_pa(v, PG_IO_A));
	vmwrite(F_IO_BITMAP_B, page_pa(v, PG_IO_B));
	vmwrite(F_MSR_BITMAP, page_pa(v, PG_MSR_BITMAP));
	/* Every CR0/CR4 bit is the host's: the guest reads its own view from the shadows, and
	 * any write that changes it exits, so v->regs stays the whole truth (as under SVM). */
	vmwrite(F_CR0_MASK, ~0ull);
	vmwrite(F_CR4_MASK, ~0ull);

	for (u32 i = 0; i < NR_SWAPPED; i++)
		s->guest_msrs[i] = (struct msr_entry){ .index = swapped_msrs[i] };
	if (caps.rdtscp) {
		s->tsc_aux = &s->guest_msrs[nmsr++];
		s->tsc_aux->index = MSR_TSC_AUX;
	}
	if (!caps.load_efer) {
		s->efer = &s->guest_msrs[nmsr++];
		s->efer->index = MSR_EFER;
		s->host_msrs[0] = (struct msr_entry){ .index = MSR_EFER, .value = rdmsr(MSR_EFER) };
		vmwrite(F_EXIT_MSR_LOAD, state_pa + offsetof(struct vmx_vcpu, host_msrs));
	}
	vmwrite(F_EXIT_MSR_LOAD_N, caps.load_efer ? 0 : 1);
	vmwrite(F_ENTRY_MSR_LOAD, state_pa + offsetof(struct vmx_vcpu, guest_msrs));
	vmwrite(F_ENTRY_MSR_LOAD_N, nmsr);
	vmwrite(F_EXIT_MSR_STORE, state_pa + offsetof(struct vmx_vcpu, guest_msrs));
	vmwrite(F_EXIT_MSR_STORE_N, nmsr);
}

static void write_guest_state(struct vcpu_hw *v)
{
	const struct x86_emu_ctx *r = &v->regs;

	for (int i = 0; i < X86_NR_SREGS; i++)
		write_seg(i, r->seg[i].sel, r->seg[i].base, r->seg[i].limit,
			  attr_to_ar(&r->seg[i]));
	write_seg(SEG_LDTR, 0, 0, 0, AR_UNUSABLE);
	write_seg(SEG_TR, 0, 0, 0x67, 0x8b); /* present, busy 32-bit TSS */
	vmwrite(F_GUEST_GDTR_BASE, 0);
	vmwrite(F_GUEST_GDTR_LIMIT, 0xffff);
	vmwrite(F_GUEST_IDTR_BASE, 0);
	vmwrite(F_GUEST_IDTR_LIMIT, 0xffff);
	vmwrite(F_GUEST_DR7, 0x400);
	vmwrite(F_GUEST_DEBUGCTL, 0);
	vmwrite(F_GUEST_SYSENTER_CS, 0);
	vmwrite(F_GUEST_SYSENTER_ESP, 0);
	vmwrite(F_GUEST_SYSENTER_EIP, 0);
	vmwrite(F_GUEST_ACTIVITY, 0);
	vmwrite(F_GUEST_INTERRUPTIBILITY, 0);
	vmwrite(F_GUEST_PENDING_DBG, 0);
	vmwrite(F_LINK_POINTER, ~0ull);
	vmwrite(F_GUEST_RFLAGS, r->rflags | 2);
}

static int vmx_vcpu_create(struct vcpu_hw *v)
{
	u64 pa = palloc_alloc_contig(VCPU_PAGES, 1);
	if (!pa)
		return -1;
	v->arch_pa = pa;
	v->arch = phys_to_virt(page_pa(v, PG_STATE));
	struct vmx_vcpu *s = state_of(v);
	BUILD_BUG_ON(sizeof(struct vmx_vcpu) > PAGE_SIZE);

	/* Every port and MSR exits (the policies in vmm/ decide) except the MSRs whose guest
	 * value the CPU keeps for us. */
	memset(phys_to_virt(page_pa(v, PG_IO_A)), 0xff, 2 * PAGE_SIZE);
	u8 *msr_bitmap = phys_to_virt(page_pa(v, PG_MSR_BITMAP));
	memset(msr_bitmap, 0xff, PAGE_SIZE);
	msr_passthrough(msr_bitmap, vmcs_msrs, ARRAY_SIZE(vmcs_msrs));
	msr_passthrough(msr_bitmap, swapped_msrs, NR_SWAPPED);

	s->vmcs_pa = page_pa(v, PG_VMCS);
	*(volatile u32 *)phys_to_virt(s->vmcs_pa) = caps.revision;
	u8 fail;
	__asm__ volatile("vmclear %1; setna %0" : "=qm"(fail) : "m"(s->vmcs_pa) : "cc", "memory");
	if (fail || !load_vmcs(s)) {
		kprintf("vmx: VMCLEAR/VMPTRLD of a new VMCS failed\n");
		return -1;
	}
	s->cr2 = v->regs.cr2;
	s->flush = true;
	write_controls(v);
	write_host_state();
	write_guest_state(v);
	return 0;
}

static void vmx_vcpu_destroy(struct vcpu_hw *v)
{
	struct vmx_vcpu *s = state_of(v);
	u64 *cur = &current_vmcs[this_cpu()->index];

	/* VMCLEAR writes back whatever the CPU caches before the page is reused. */
	__asm__ volatile("vmclear %0" ::"m"(s->vmcs_pa) : "cc", "memory");
	if (*cur == s->vmcs_pa)
		*cur = 0;
	for (int i = 0; i < VCPU_PAGES; i++)
		palloc_free(page_pa(v, i));
	v->arch = NULL;
}

static void write_efer(struct vmx_vcpu *s, u64 efer)
{
	if (caps.load_efer)
		vmwrite(F_GUEST_EFER, efer);
	else
		s->efer->value = efer;
}

/*
 * On EPT the CPU runs the guest's own CR0/CR3/CR4/EFER. Unrestricted guest relaxes the fixed
 * PE and PG bits; CR0/CR4 writes still all exit (masks stay full), so vmm/ validates them.
 */
static void update_paging_tdp(struct vcpu_hw *v)
{
	struct vmx_vcpu *s = state_of(v);
	const struct x86_emu_ctx *r = &v->regs;
	u64 fixed0 = caps.cr0_fixed0 & ~(u64)(CR0_PE | CR0_PG);
	bool pae = (r->cr0 & CR0_PG) && (r->cr4 & CR4_PAE) && !(r->efer & EFER_LMA);

	/* PAE PDPTEs come from the VMCS at entry, not from memory. The CPU reloads them itself
	 * on the guest's CR3 loads (and stores them back at exit); here only a context change
	 * Umbra made (a CR0/CR4 paging bit, a PV CR3 load) reloads them, as MOV to CR would. */
	if (pae && (!s->pdptes_set || r->cr3 != vmread(F_GUEST_CR3) ||
		    ((r->cr0 ^ vmread(F_CR0_SHADOW)) & (CR0_PG | CR0_CD | CR0_NW)) ||
		    ((r->cr4 ^ vmread(F_CR4_SHADOW)) & (CR4_PAE | CR4_PGE | CR4_PSE | CR4_SMEP)))) {
		for (int i = 0; i < 4; i++)
			vmwrite(F_GUEST_PDPTE0 + 2 * i, v->pdptes[i]);
	}
	s->pdptes_set = pae;

	u64 cr0 = (r->cr0 & ~(u64)(CR0_CD | CR0_NW)) | CR0_NE;
	vmwrite(F_GUEST_CR0, (cr0 | fixed0) & caps.cr0_fixed1);
	vmwrite(F_GUEST_CR4, (r->cr4 | CR4_VMXE | caps.cr4_fixed0) & caps.cr4_fixed1);
	vmwrite(F_CR0_SHADOW, r->cr0);
	vmwrite(F_CR4_SHADOW, r->cr4);
	vmwrite(F_GUEST_CR3, r->cr3);
	s->entry_ctls = caps.entry | (r->efer & EFER_LMA ? ENTRY_IA32E : 0);
	vmwrite(F_ENTRY_CTLS, s->entry_ctls);
	write_efer(s, r->efer);
	/* A mode change Umbra emulated would flush the TLB on real hardware. */
	s->flush = true;
}

/* With EPT off, VM entry itself reads the PDPTEs of a PAE root from GUEST_CR3 (SDM 26.3.2.4):
 * the PDPTE fields are only for EPT. */
static void load_root(struct vmx_vcpu *s, u64 root_hpa)
{
	vmwrite(F_GUEST_CR3, root_hpa);
	if (root_hpa != s->root_hpa) {
		/* VPID tags translations by VPID, not by CR3: a new root needs a flush. */
		s->root_hpa = root_hpa;
		s->flush = true;
	}
}

static int vmx_set_root(struct vcpu_hw *v, const char **why)
{
	struct vmx_vcpu *s = state_of(v);

	if (!load_vmcs(s)) {
		*why = "VMPTRLD of its VMCS failed";
		return -1;
	}
	load_root(s, v->root_hpa);
	return 0;
}

static int vmx_update_paging(struct vcpu_hw *v, const char **why)
{
	struct vmx_vcpu *s = state_of(v);
	const struct x86_emu_ctx *r = &v->regs;

	if (!load_vmcs(s)) {
		*why = "VMPTRLD of its VMCS failed";
		return -1;
	}
	if (s->tdp) {
		update_paging_tdp(v);
		return 0;
	}
	/* Without unrestricted guest real mode runs in virtual-8086 mode. */
	bool real = !(r->cr0 & CR0_PE);
	if (real && !s->rm.on) {
		vm86_enter(&s->rm);
	} else if (!real && s->rm.on) {
		vm86_leave(&s->rm);
		s->pm_check = true;
	}
	/* NE and PE stay on as VMX demands (the guest's view is in the read shadows). */
	struct virt_shadow_regs sh;
	virt_shadow_regs(v, &sh);
	if (real) /* vm86 INT n through the TSS's redirection map: not what real mode does */
		sh.cr4 &= ~(u64)(CR4_VME | CR4_PVI);
	vmwrite(F_GUEST_CR0, (sh.cr0 | CR0_NE | CR0_PE | caps.cr0_fixed0) & caps.cr0_fixed1);
	vmwrite(F_GUEST_CR4, (sh.cr4 | CR4_VMXE | caps.cr4_fixed0) & caps.cr4_fixed1);
	vmwrite(F_CR0_SHADOW, r->cr0);
	vmwrite(F_CR4_SHADOW, r->cr4);

	load_root(s, v->root_hpa);
	s->entry_ctls = caps.entry | (sh.long_mode ? ENTRY_IA32E : 0);
	vmwrite(F_ENTRY_CTLS, s->entry_ctls);
	write_efer(s, sh.efer);
	return 0;
}

/* A VMCS is active on one CPU only: elsewhere (the final report's dump) the segments read
 * last, and at a triple fault or failed entry, must do. True with the VMCS loaded and the
 * virtual-8086 mode copies in step. */
static bool segments_here(struct vcpu_hw *v, struct vmx_vcpu *s)
{
	if (this_cpu()->index != v->cpu || !load_vmcs(s))
		return false;
	vm86_sync(&s->rm);
	return true;
}

/* Segment i as the guest has it (real mode's own copy while it runs in virtual-8086 mode). */
static struct x86_seg guest_seg(const struct vmx_vcpu *s, int i)
{
	return s->rm.on ? s->rm.seg[i] : vmcs_seg(i);
}

static void vmx_read_segments(struct vcpu_hw *v)
{
	struct vmx_vcpu *s = state_of(v);
	struct x86_seg *seg = v->regs.seg;

	if (!segments_here(v, s))
		return;
	for (int i = 0; i < X86_NR_SREGS; i++)
		seg[i] = guest_seg(s, i);
	v->regs.gdtr = (struct x86_dtr){ .base = vmread(F_GUEST_GDTR_BASE),
					 .limit = (u32)vmread(F_GUEST_GDTR_LIMIT) };
	v->regs.idtr = (struct x86_dtr){ .base = vmread(F_GUEST_IDTR_BASE),
					 .limit = (u32)vmread(F_GUEST_IDTR_LIMIT) };
	v->regs.ldtr = (u16)vmread(seg_field[SEG_LDTR].sel);
	v->regs.ldt = (struct x86_dtr){ .base = vmread(seg_field[SEG_LDTR].base),
					.limit = (u32)vmread(seg_field[SEG_LDTR].limit) };
	v->regs.tr = (u16)vmread(seg_field[SEG_TR].sel);
}

static void vmx_read_cs(struct vcpu_hw *v)
{
	struct vmx_vcpu *s = state_of(v);

	if (segments_here(v, s))
		v->regs.seg[X86_CS] = guest_seg(s, X86_CS);
}

static void vmx_write_segments(struct vcpu_hw *v)
{
	struct vmx_vcpu *s = state_of(v);
	const struct x86_seg *seg = v->regs.seg;

	if (!load_vmcs(s))
		return;
	vmwrite(F_GUEST_GDTR_BASE, v->regs.gdtr.base);
	vmwrite(F_GUEST_GDTR_LIMIT, v->regs.gdtr.limit);
	vmwrite(F_GUEST_IDTR_BASE, v->regs.idtr.base);
	vmwrite(F_GUEST_IDTR_LIMIT, v->regs.idtr.limit);
	if (s->rm.on) {
		for (int i = 0; i < X86_NR_SREGS; i++)
			s->rm.seg[i] = seg[i];
		s->rm.loaded = false;
		return;
	}
	for (int i = 0; i < X86_NR_SREGS; i++)
		write_seg(i, seg[i].sel, seg[i].base, seg[i].limit, attr_to_ar(&seg[i]));
	s->pm_check = true;
}

/* VM entry's checks of protected-mode segments without unrestricted guest (SDM 26.3.1.2),
 * which a state the guest's mode switch left may fail: CS code, SS writable data with
 * DPL = RPL = CS's RPL, CS's DPL against SS's, data segments' DPL not below their RPL. */
static bool pm_segments_enterable(void)
{
	struct x86_seg cs = vmcs_seg(X86_CS), ss = vmcs_seg(X86_SS);
	unsigned cs_dpl = (cs.attr >> 5) & 3, ss_dpl = (ss.attr >> 5) & 3, rpl = cs.sel & 3;
	bool conforming = (cs.attr & 0xc) == 0xc;

	if (!(cs.attr & X86_SEG_P) || !(cs.attr & X86_SEG_TYPE_CODE) || !(ss.attr & X86_SEG_P) ||
	    (ss.attr & X86_SEG_TYPE_CODE) || !(ss.attr & 2) || (ss.sel & 3) != rpl ||
	    ss_dpl != rpl || (conforming ? cs_dpl > ss_dpl : cs_dpl != ss_dpl))
		return false;
	for (int i = 0; i < X86_NR_SREGS; i++) {
		struct x86_seg d = vmcs_seg(i);
		bool conforming_code = (d.attr & 0xc) == 0xc;
		if (i != X86_CS && i != X86_SS && (d.attr & X86_SEG_P) && !conforming_code &&
		    ((d.attr >> 5) & 3) < (d.sel & 3u))
			return false;
	}
	return true;
}

/*
 * Can the CPU enter the guest as it is? In real mode only in vm86 mode, with segments that
 * mode can express (base = selector * 16, 64 KiB limits, 16-bit code) and no event to deliver
 * (vm86 would take it through a protected-mode IDT; real mode's IVT is emulated). Back in
 * protected mode, once the segments pass VM entry's checks.
 */
static bool enterable(struct vcpu_hw *v)
{
	struct vmx_vcpu *s = state_of(v);

	if (!s->rm.on) {
		if (s->pm_check && !pm_segments_enterable())
			return false;
		s->pm_check = false;
		return true;
	}
	return !v->pending.valid && vm86_load(&s->rm);
}

static void vmx_flush_tlb(struct vcpu_hw *v)
{
	state_of(v)->flush = true;
}

static void vmx_set_cr2(struct vcpu_hw *v, u64 cr2)
{
	state_of(v)->cr2 = cr2;
}

/* Without VPID every entry and exit flushes the guest's TLB (VPID 0) anyway, but not the
 * guest-physical mappings EPT caches by EPT pointer. */
static void flush_vpid(struct vcpu_hw *v)
{
	struct vmx_vcpu *s = state_of(v);
	struct {
		u64 vpid, addr;
	} desc = { v->asid, 0 };
	u64 type = caps.invvpid_single ? 1 : 2;
	if (caps.vpid)
		__asm__ volatile("invvpid %0, %1" ::"m"(desc), "r"(type) : "cc", "memory");
	if (s->tdp) {
		struct {
			u64 eptp, zero;
		} ed = { s->eptp, 0 };
		u64 et = caps.invept_single ? 1 : 2;
		__asm__ volatile("invept %0, %1" ::"m"(ed), "r"(et) : "cc", "memory");
	}
}

/* The STI/MOV SS shadow as the next entry will see it: an instruction Umbra completed (RIP
 * moved) ends it, and blocking by STI cannot outlive RFLAGS.IF. */
static u32 entry_shadow(struct vcpu_hw *v)
{
	const struct vmx_vcpu *s = state_of(v);
	if (v->regs.rip != s->exit_rip)
		return 0;
	return (v->regs.rflags & RFLAGS_IF) ? s->shadow : s->shadow & ~1u;
}

static bool vmx_irq_window_open(struct vcpu_hw *v)
{
	return (v->regs.rflags & RFLAGS_IF) && !entry_shadow(v);
}

/* The window exits both waits ask for. The NMI wait takes the NMI window while an NMI is in
 * service or MOV SS blocks; after STI (IF is then set) it takes the interrupt window, which
 * ends with the shadow: Bochs' NMI-window exit, like the SDM's, does not wait for an STI
 * shadow, and would come back at once for ever. */
static void set_windows(struct vcpu_hw *v)
{
	struct vmx_vcpu *s = state_of(v);
	u32 w = s->irq_win ? PROC_INT_WINDOW : 0;

	if (s->nmi_win)
		w |= (s->intr & INTR_NMI) || (entry_shadow(v) & INTR_MOV_SS) ||
				     !(v->regs.rflags & RFLAGS_IF)
			     ? PROC_NMI_WINDOW
			     : PROC_INT_WINDOW;
	if (w != s->windows && load_vmcs(s)) {
		s->windows = w;
		vmwrite(F_PROC, s->proc | w);
	}
}

static void vmx_request_irq_window(struct vcpu_hw *v, bool on)
{
	state_of(v)->irq_win = on;
	set_windows(v);
}

/* Virtual NMIs: the CPU sets NMI blocking when it delivers the NMI Umbra injects and clears
 * it at the guest's IRET, in the interruptibility state. */
static bool vmx_nmi_window_open(struct vcpu_hw *v)
{
	return !(state_of(v)->intr & INTR_NMI) && !entry_shadow(v);
}

static void vmx_request_nmi_window(struct vcpu_hw *v, bool on)
{
	state_of(v)->nmi_win = on;
	set_windows(v);
}

/* As if the CPU had run the MOV SS at the exit's RIP: blocking by MOV SS at the next entry
 * (entry_shadow), and the single step it owes under TF held in the pending debug exceptions
 * until the next instruction is done, where the CPU keeps it (and where the entry checks
 * want it: BS set exactly when TF is and BTF is not, with MOV SS blocking). */
static void vmx_mov_ss_shadow(struct vcpu_hw *v)
{
	struct vmx_vcpu *s = state_of(v);

	if (!load_vmcs(s))
		return;
	s->exit_rip = v->regs.rip;
	s->shadow = INTR_MOV_SS;
	u64 pending = vmread(F_GUEST_PENDING_DBG) & ~(u64)DR6_BS;
	if (virt_step_owed(v->regs.rflags, v->debugctl))
		pending |= DR6_BS;
	vmwrite(F_GUEST_PENDING_DBG, pending);
	set_windows(v); /* an NMI wait takes the NMI window while MOV SS blocks */
}

static bool vmx_single_step(struct vcpu_hw *v, bool on)
{
	struct vmx_vcpu *s = state_of(v);
	if (!caps.mtf || !load_vmcs(s))
		return false;
	s->proc = on ? s->proc | PROC_MTF : s->proc & ~(u32)PROC_MTF;
	vmwrite(F_PROC, s->proc | s->windows);
	return true;
}

static void vmx_intercept_dr(struct vcpu_hw *v, bool on)
{
	struct vmx_vcpu *s = state_of(v);
	if (!(caps.proc & PROC_MOV_DR) || !load_vmcs(s))
		return;
	s->proc = on ? s->proc | PROC_MOV_DR : s->proc & ~(u32)PROC_MOV_DR;
	vmwrite(F_PROC, s->proc | s->windows);
}

/* VMX leaves DR6 alone on entry and exit: the guest's value is the CPU's. DR7 is in the VMCS
 * (the debug controls load and save it). */
static u64 vmx_get_dr(struct vcpu_hw *v, int n)
{
	if (n == 6)
		return read_dr6();
	/* Between slices (the gdb stub) another guest's VMCS may be the current one. */
	return load_vmcs(state_of(v)) ? vmread(F_GUEST_DR7) : 0;
}

static void vmx_set_dr(struct vcpu_hw *v, int n, u64 val)
{
	if (n == 6)
		write_dr6(val);
	else if (load_vmcs(state_of(v)))
		vmwrite(F_GUEST_DR7, val);
}

static void vmx_set_tsc_offset(struct vcpu_hw *v, u64 offset)
{
	/* Without TSC offsetting (every model here has it) a TSC write stays invisible. */
	if ((caps.proc & PROC_TSC_OFFSET) && load_vmcs(state_of(v)))
		vmwrite(F_TSC_OFFSET, offset);
}

/* audit=1: the rule of VM entry's (vmx_check.h) this VMCS breaks, which a lenient emulator
 * might let through, or NULL. */
static const char *entry_check(const struct vmx_vcpu *s)
{
	BUILD_BUG_ON((int)SEG_LDTR != (int)VMX_CHECK_LDTR || (int)SEG_TR != (int)VMX_CHECK_TR);
	struct vmx_check_state c = {
		.pin = (u32)vmread(F_PIN),
		.proc = (u32)vmread(F_PROC),
		.exit = (u32)vmread(F_EXIT_CTLS),
		.entry = (u32)vmread(F_ENTRY_CTLS),
		.pin_cap = caps.pin_cap,
		.proc_cap = caps.proc_cap,
		.proc2_cap = caps.proc2_cap,
		.exit_cap = caps.exit_cap,
		.entry_cap = caps.entry_cap,
		.cr0_fixed0 = caps.cr0_fixed0,
		.cr0_fixed1 = caps.cr0_fixed1,
		.cr4_fixed0 = caps.cr4_fixed0,
		.cr4_fixed1 = caps.cr4_fixed1,
		.maxphyaddr = caps.maxphyaddr,
		.va_bits = caps.va_bits,
		.zero_len_ok = caps.zero_len_ok,
		.other_event_ok = caps.mtf,
		.cr0 = vmread(F_GUEST_CR0),
		.cr3 = vmread(F_GUEST_CR3),
		.cr4 = vmread(F_GUEST_CR4),
		.dr7 = vmread(F_GUEST_DR7),
		.debugctl = vmread(F_GUEST_DEBUGCTL),
		.efer = caps.load_efer ? vmread(F_GUEST_EFER) : 0,
		.rip = vmread(F_GUEST_RIP),
		.rflags = vmread(F_GUEST_RFLAGS),
		.gdtr_base = vmread(F_GUEST_GDTR_BASE),
		.idtr_base = vmread(F_GUEST_IDTR_BASE),
		.gdtr_limit = (u32)vmread(F_GUEST_GDTR_LIMIT),
		.idtr_limit = (u32)vmread(F_GUEST_IDTR_LIMIT),
		.activity = (u32)vmread(F_GUEST_ACTIVITY),
		.intr_state = (u32)vmread(F_GUEST_INTERRUPTIBILITY),
		.pending_dbg = vmread(F_GUEST_PENDING_DBG),
		.link = vmread(F_LINK_POINTER),
		.event = (u32)vmread(F_ENTRY_INTR),
		.event_error = (u32)vmread(F_ENTRY_ERROR),
		.event_len = (u32)vmread(F_ENTRY_INSN_LEN),
	};
	if (c.proc & PROC_SECONDARY)
		c.proc2 = (u32)vmread(F_PROC2);
	for (int i = 0; i < NR_VMCS_SEGS; i++)
		c.seg[i] = (struct vmx_check_seg){ .sel = (u16)vmread(seg_field[i].sel),
						   .limit = (u32)vmread(seg_field[i].limit),
						   .ar = (u32)vmread(seg_field[i].ar),
						   .base = vmread(seg_field[i].base) };
	/* EPT: the PDPTEs entry loads are the VMCS's; else those of Umbra's shadow root. */
	for (int i = 0; i < 4; i++)
		c.pdpte[i] = s->tdp ? vmread(F_GUEST_PDPTE0 + 2 * i)
				    : ((const u64 *)phys_to_virt(c.cr3 & ~0x1full))[i];
	return vmx_check(&c);
}

/* Says why the CPU refused to enter, with what an entry check most often trips over. */
static void entry_failed(struct vcpu_hw *v, struct vexit *x, const char *what, u64 detail, u64 qual)
{
	const struct vmx_vcpu *s = state_of(v);

	kprintf("[%s] vmx: %s %lu (qualification %lu); guest cr0=0x%lx cr4=0x%lx cr3=0x%lx "
		"entry_ctls=0x%x rip=0x%lx rflags=0x%lx\n",
		v->name, what, detail, qual, vmread(F_GUEST_CR0), vmread(F_GUEST_CR4),
		vmread(F_GUEST_CR3), s->entry_ctls, vmread(F_GUEST_RIP), vmread(F_GUEST_RFLAGS));
	x->reason = EXIT_INVALID;
}

/* A #DB fault (general detect, an instruction breakpoint) in an STI or MOV SS shadow: the
 * debug exceptions the shadow holds (the single step MOV SS owes under TF; a data breakpoint
 * MOV SS hit) come with it, in the one #DB the guest is given, as the CPU reports them. The
 * CPU leaves the step out of the pending-debug-exceptions field at a #DB exit (Bochs does
 * not), so it is read from TF; the injection then clears the field (vmx_vcpu_run). */
static u64 db_held(struct vcpu_hw *v)
{
	if (!state_of(v)->shadow)
		return 0;
	u64 held = vmread(F_GUEST_PENDING_DBG) & (DR6_BS | DR6_B0_B3);
	if ((v->regs.rflags & RFLAGS_TF) && !(v->debugctl & DEBUGCTL_BTF))
		held |= DR6_BS;
	return held;
}

/* The IRET that unblocked NMIs did not complete (a fault the host handles, or one the guest
 * gets): NMIs stay blocked until it runs again, as the CPU would have it. */
static void nmi_block_again(struct vcpu_hw *v)
{
	struct vmx_vcpu *s = state_of(v);
	s->intr |= INTR_NMI;
	vmwrite(F_GUEST_INTERRUPTIBILITY, s->intr);
}

static void decode_exit(struct vcpu_hw *v, struct vexit *x)
{
	u32 code = (u32)vmread(F_EXIT_REASON);
	u64 qual = vmread(F_QUALIFICATION);
	u32 basic = code & 0xffff;
	const struct vmx_exit_row *row = basic < VX_REASONS ? &vmx_exit_rows[basic] : NULL;

	*x = (struct vexit){ .raw_code = code, .raw_info1 = qual, .reason = EXIT_OTHER };
	if (code & EXIT_ENTRY_FAILED) {
		x->raw_info2 = vmread(F_INSN_ERROR);
		entry_failed(v, x, "VM entry failed: exit reason", basic, qual);
		return;
	}
	if (!row) {
		x->refused = "an exit reason past the SDM's list";
		return;
	}
	if (row->action == VEXIT_MAP_LEN)
		x->insn_len = (u32)vmread(F_EXIT_INSN_LEN);
	if (virt_exit_row(x, row->action, row->reason, row->why))
		return;
	switch (basic) {
	case VX_MTF:
		x->vector = VEC_DB;
		x->mtf = true;
		break;
	case VX_EXCEPTION_NMI: {
		u32 info = (u32)vmread(F_EXIT_INTR);
		x->raw_info2 = info;
		if ((info & EXIT_NMI_UNBLOCKED_BY_IRET) && (info & 0xff) != VEC_DF)
			nmi_block_again(v);
		x->vector = info & 0xff;
		x->has_error = info & VEVENT_WORD_HAS_ERROR;
		if (x->has_error)
			x->error_code = (u32)vmread(F_EXIT_INTR_ERROR);
		if (VEVENT_WORD_TYPE(info) == VEVENT_NMI) {
			x->reason = EXIT_NMI;
		} else if (x->vector == VEC_PF) {
			x->reason = EXIT_PAGE_FAULT;
			x->addr = qual;
		} else if (x->vector == VEC_GP && state_of(v)->rm.on) {
			x->reason = EXIT_EMULATE; /* an instruction vm86 mode refuses */
			x->emulate_gp = true;
		} else if (x->vector == VEC_OF && state_of(v)->rm.on) {
			x->reason = EXIT_EMULATE; /* INTO: real mode returns past it */
		} else {
			x->reason = EXIT_EXCEPTION;
			/* B0-B3, BD, BS: SDM 27.1, a #DB exit leaves DR6 as it was. */
			if (x->vector == VEC_DB)
				x->dr6_set = ((u32)qual & 0x600f) | db_held(v);
		}
		break;
	}
	case VX_EPT_VIOLATION:
		if (qual & EXIT_NMI_UNBLOCKED_BY_IRET)
			nmi_block_again(v);
		x->error_code = qual;
		x->addr = vmread(F_GUEST_PHYS);
		break;
	case VX_EPT_MISCONFIG:
		/* An entry Umbra wrote is malformed: the guest ends with the exit named. */
		x->raw_info2 = vmread(F_GUEST_PHYS);
		kprintf("[%s] vmx: EPT misconfiguration at gpa 0x%lx\n", v->name, x->raw_info2);
		x->refused = row->why;
		break;
	case VX_EXT_INTR:
		x->raw_info2 = vmread(F_EXIT_INTR);
		break;
	case VX_CR:
		x->insn_len = (u32)vmread(F_EXIT_INSN_LEN);
		x->cr = qual & 0xf;
		x->cr_write = ((qual >> 4) & 3) != 1; /* MOV to CR, CLTS, LMSW */
		x->cr_mov = ((qual >> 4) & 3) <= 1 && x->insn_len;
		x->cr_gpr = (qual >> 8) & 0xf;
		break;
	case VX_IO:
		x->insn_len = (u32)vmread(F_EXIT_INSN_LEN);
		x->io_size = (u8)((qual & 7) + 1);
		x->io_in = qual & BIT(3);
		x->io_string = qual & BIT(4);
		x->io_rep = qual & BIT(5);
		x->port = (u16)(qual >> 16);
		break;
	case VX_WRMSR:
		x->insn_len = (u32)vmread(F_EXIT_INSN_LEN);
		x->msr_write = true;
		break;
	case VX_INVD:
	case VX_WBINVD:
	case VX_RDPMC:
		x->insn_len = (u32)vmread(F_EXIT_INSN_LEN);
		x->insn = basic == VX_INVD     ? VINSN_INVD
			  : basic == VX_WBINVD ? VINSN_WBINVD
					       : VINSN_RDPMC;
		break;
	default:
		/* Entry failures come with bit 31 set (above); without it the CPU is broken. */
		x->reason = EXIT_INVALID;
		break;
	}
}

static void vmx_vcpu_run(struct vcpu_hw *v, struct vexit *x)
{
	struct vmx_vcpu *s = state_of(v);
	struct x86_emu_ctx *r = &v->regs;

	if (!load_vmcs(s)) {
		*x = (struct vexit){ .reason = EXIT_INVALID };
		return;
	}
	if (!enterable(v)) {
		if (s->rm.on)
			r->cpl = 0; /* real mode's, whatever the last protected-mode exit said */
		*x = (struct vexit){ .reason = EXIT_EMULATE };
		return;
	}
	vmwrite(F_GUEST_RSP, r->gpr[X86_RSP]);
	vmwrite(F_GUEST_RIP, r->rip);
	/* vm86 mode: the guest's IOPL is kept aside (0 makes its flag instructions #GP). */
	vmwrite(F_GUEST_RFLAGS, s->rm.on ? (r->rflags & ~RFLAGS_IOPL) | RFLAGS_VM : r->rflags);
	/* Delivering an event ends the shadow: a #DB carries what the shadow held (db_held), and
	 * an exception may not enter with TF, a shadow and no pending single step (SDM 26.3.1.5). */
	bool event_ends_shadow = v->pending.valid && v->pending.type == VEVENT_EXCEPTION;
	u32 shadow = event_ends_shadow ? 0 : entry_shadow(v);
	if (event_ends_shadow && v->pending.vector == VEC_DB)
		vmwrite(F_GUEST_PENDING_DBG, 0);
	/* An NMI injected is not yet in service (one whose delivery an exit cut short, too). */
	u32 state = (s->intr & ~(u32)(INTR_STI | INTR_MOV_SS)) | shadow;
	if (v->pending.valid && v->pending.type == VEVENT_NMI)
		state &= ~(u32)INTR_NMI;
	if (state != s->intr) {
		vmwrite(F_GUEST_INTERRUPTIBILITY, state);
		s->intr = state;
	}
	s->shadow = shadow;
	/* Debug exceptions the exit left pending (a single step owed since a MOV SS, or since
	 * the exiting instruction began with TF: Bochs) belong to an instruction Umbra has
	 * completed itself, and vmm/ has delivered what it owes (or nothing, under BTF). */
	if (r->rip != s->exit_rip && (r->rflags & RFLAGS_TF))
		vmwrite(F_GUEST_PENDING_DBG, 0);
	if (s->tsc_aux)
		s->tsc_aux->value = v->tsc_aux;
	/* The entry loads it (load debug controls) and every exit clears the CPU's. */
	if (v->debugctl != s->debugctl) {
		vmwrite(F_GUEST_DEBUGCTL, v->debugctl);
		s->debugctl = v->debugctl;
	}
	/* In vm86 mode the CPU would deliver exceptions through a protected-mode IDT: all exit. */
	u32 exc = s->rm.on ? ~0u : virt_exc_bitmap(&v->pending, s->tdp, v->exc_debug);
	if (exc != s->exc_bitmap) {
		s->exc_bitmap = exc;
		vmwrite(F_EXC_BITMAP, exc);
	}
	u32 intr = 0;
	if (v->pending.valid) {
		intr = vevent_word(&v->pending);
		vmwrite(F_ENTRY_ERROR, v->pending.error_code);
		vmwrite(F_ENTRY_INSN_LEN, v->pending.insn_len);
		v->pending.valid = false;
	}
	vmwrite(F_ENTRY_INTR, intr);
	if (caps.preempt) {
		u64 now = rdtsc(), left = v->exit_deadline > now ? v->exit_deadline - now : 0;
		left >>= caps.preempt_rate;
		vmwrite(F_PREEMPT_TIMER,
			!v->exit_deadline || left > 0xffffffffu ? 0xffffffffu : left);
	}
	if (v->tlb_flush || s->flush) {
		flush_vpid(v);
		v->tlb_flush = s->flush = false;
	}

	const char *broken = v->check_entry ? entry_check(s) : NULL;
	if (broken) {
		*x = (struct vexit){ .reason = EXIT_INVALID, .refused = broken };
		vmx_read_segments(v); /* for the dump, as after a failed entry */
		return;
	}

	int fail = vmx_world_switch(r->gpr, s->launched, &s->cr2);
	if (fail) {
		*x = (struct vexit){ .raw_code = (u64)fail };
		if (fail == 2)
			x->raw_info2 = vmread(F_INSN_ERROR);
		entry_failed(v, x,
			     fail == 2 ? "VMLAUNCH/VMRESUME failed: VM-instruction error"
				       : "VMLAUNCH/VMRESUME failed without a current VMCS",
			     x->raw_info2, 0);
		return;
	}
	s->launched = true;
	r->gpr[X86_RSP] = vmread(F_GUEST_RSP);
	r->rip = s->exit_rip = vmread(F_GUEST_RIP);
	s->intr = (u32)vmread(F_GUEST_INTERRUPTIBILITY);
	s->shadow = s->intr & (INTR_STI | INTR_MOV_SS);
	u64 iopl = r->rflags & RFLAGS_IOPL;
	r->rflags = vmread(F_GUEST_RFLAGS);
	if (s->rm.on)
		r->rflags = (r->rflags & ~(RFLAGS_VM | RFLAGS_IOPL)) | iopl;
	r->cr2 = s->cr2;
	if (s->tdp)
		r->cr3 = vmread(F_GUEST_CR3); /* the guest loads CR3 without us */
	r->cpl = s->rm.on ? 0 : (int)((vmread(seg_field[X86_SS].ar) >> 5) & 3);
	decode_exit(v, x);
	if (x->reason == EXIT_SHUTDOWN || x->reason == EXIT_INVALID)
		vmx_read_segments(v);

	/* An event cut short by this exit (a #PF while delivering an interrupt, say) must be
	 * delivered again once the exit is handled. */
	u32 idt = (u32)vmread(F_IDT_VECTORING);
	if (idt & VEVENT_WORD_VALID) {
		u8 type = (u8)VEVENT_WORD_TYPE(idt);
		u32 error = idt & VEVENT_WORD_HAS_ERROR ? (u32)vmread(F_IDT_VECTORING_ERROR) : 0;
		v->pending = vevent_from_word(idt, error);
		x->vectoring = true;
		/* INT n, INT3, INTO, INT1: RIP is still at the instruction. Delivered again with
		 * its length rather than run again: an interrupt that became deliverable meanwhile
		 * must not overtake it (an STI shadow ended by the exit, say). */
		if (type == VEVENT_SOFT_INT || type == VEVENT_PRIV_SOFT_EXC ||
		    type == VEVENT_SOFT_EXC)
			v->pending.insn_len = (u8)vmread(F_EXIT_INSN_LEN);
	}
	/* Blocked on the host since the exit: the host's own handler runs, as it would natively
	 * (and under SVM, once GIF is set again), and its IRET unblocks NMIs. */
	if (x->reason == EXIT_NMI)
		__asm__ volatile("int $2" ::: "memory");
	if (x->reason == EXIT_INTR) {
		/* Acknowledged on exit: the vector is ours to finish (the timer, whose work the
		 * exit itself has done, or a device's MSI, recorded for vmm/). Otherwise it is
		 * still pending: take it now. */
		if (caps.ack_intr) {
			u8 vec = (u8)x->raw_info2;
			if (devirq_is(vec))
				devirq_arrived(vec);
			else if (vec != SPURIOUS_VECTOR)
				lapic_eoi();
		} else {
			__asm__ volatile("sti; nop; cli" ::: "memory");
		}
	}
}

/* I/O bitmaps A (ports 0-0x7fff) and B (0x8000-0xffff) are consecutive pages. */
static void vmx_pass_ports(struct vcpu_hw *v, u16 first, u32 n, bool pass)
{
	virt_port_bitmap(phys_to_virt(page_pa(v, PG_IO_A)), first, n, pass);
}

static bool vmx_tdp_supported(void)
{
	return caps.ready && !caps.error && caps.ept;
}

static void vmx_tdp_enable(struct vcpu_hw *v, u64 root_hpa)
{
	struct vmx_vcpu *s = state_of(v);

	if (!load_vmcs(s))
		return;
	s->tdp = true;
	s->eptp = root_hpa | EPTP_WB | EPTP_WALK4;
	s->proc = caps.proc_tdp;
	vmwrite(F_PROC, s->proc | s->windows);
	vmwrite(F_PROC2, caps.proc2_tdp);
	vmwrite(F_EPT_POINTER, s->eptp);
	s->exc_bitmap = VIRT_EXC_ALWAYS; /* the guest takes its own page faults */
	vmwrite(F_EXC_BITMAP, s->exc_bitmap);
	s->flush = true; /* a reused root page may still have cached translations */
}

const struct virt_backend vmx_backend = {
	.name = "vmx",
	.probe = vmx_probe,
	.cpu_enable = vmx_cpu_enable,
	.vcpu_create = vmx_vcpu_create,
	.vcpu_destroy = vmx_vcpu_destroy,
	.vcpu_run = vmx_vcpu_run,
	.update_paging = vmx_update_paging,
	.set_root = vmx_set_root,
	.read_segments = vmx_read_segments,
	.read_segments_lazy = vmx_read_segments, /* every field is a VMREAD away */
	.read_cs = vmx_read_cs,
	.write_segments = vmx_write_segments,
	.flush_tlb = vmx_flush_tlb,
	.set_cr2 = vmx_set_cr2,
	.irq_window_open = vmx_irq_window_open,
	.request_irq_window = vmx_request_irq_window,
	.nmi_window_open = vmx_nmi_window_open,
	.request_nmi_window = vmx_request_nmi_window,
	.mov_ss_shadow = vmx_mov_ss_shadow,
	.set_tsc_offset = vmx_set_tsc_offset,
	.pass_ports = vmx_pass_ports,
	.intercept_dr = vmx_intercept_dr,
	.single_step = vmx_single_step,
	.get_dr = vmx_get_dr,
	.set_dr = vmx_set_dr,
	.dr6_live = true,
	.tdp_supported = vmx_tdp_supported,
	.tdp_format = &ept_format,
	.tdp_enable = vmx_tdp_enable,
};
