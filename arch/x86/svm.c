/* SPDX-License-Identifier: GPL-2.0-only */
/* AMD SVM backend: per-CPU enabling, the VMCB, world switch, exit decoding, event injection. */
#include "arch/x86/virt.h"
#include "arch/x86/vmcb.h"
#include "arch/x86/svm_exits.h"
#include "arch/x86/svm_db.h"
#include "arch/x86/svm_check.h"
#include "arch/x86/svm_entry.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/percpu.h"
#include "lib/assert.h"
#include "lib/palloc.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "arch/x86/tdp_format.h"

#define CPUID_SVM_ECX (1u << 2) /* 0x80000001 ECX */
#define SVM_FEAT_NP (1u << 0)	/* 0x8000000a EDX */
#define SVM_FEAT_NRIPS (1u << 3)
#define SVM_FEAT_CLEAN (1u << 5)
#define SVM_FEAT_FLUSH_ASID (1u << 6)
#define SVM_FEAT_DECODE (1u << 7)

struct svm_caps {
	u32 revision, nasid, features;
	u64 cr4_mbz, efer_mbz; /* what VMRUN's checks reserve here (audit=1) */
	u8 maxphyaddr;
};
static struct svm_caps caps;

static bool svm_probe(const char **why)
{
	if (cpuid(0x80000000, 0).eax < 0x8000000a) {
		*why = "no CPUID leaf 0x8000000a";
		return false;
	}
	if (!(cpuid(0x80000001, 0).ecx & CPUID_SVM_ECX)) {
		*why = "CPUID reports no SVM";
		return false;
	}
	/* Bochs does not implement VM_CR: no MSR means no firmware lock. */
	u64 vm_cr = 0;
	if (rdmsr_safe(MSR_VM_CR, &vm_cr) && (vm_cr & VM_CR_SVMDIS)) {
		*why = "SVM disabled by firmware (VM_CR.SVMDIS)";
		return false;
	}
	struct cpuid_regs r = cpuid(0x8000000a, 0);
	caps = (struct svm_caps){ .revision = r.eax & 0xff, .nasid = r.ebx, .features = r.edx };
	if (caps.nasid < 2) {
		*why = "no ASID for guests (CPUID 0x8000000a EBX < 2)";
		return false;
	}
	struct cpuid_regs l1 = cpuid(1, 0), l7 = cpuid(7, 0), e1 = cpuid(0x80000001, 0);
	svm_check_reserved(l1.ecx, l7.ebx, l7.ecx, e1.ecx, e1.edx, &caps.cr4_mbz, &caps.efer_mbz);
	caps.maxphyaddr = (u8)cpuid(0x80000008, 0).eax;
	return true;
}

static bool insn_intercept_words(u32 *misc1, u32 *misc2);

static int svm_cpu_enable(struct percpu *pc)
{
	/* Each CPU checks for itself: a heterogeneous or half-disabled machine must not hang. */
	const char *why;
	u32 misc1, misc2;
	if (!svm_probe(&why)) {
		pc->virt_error = why;
		return -1;
	}
	if (!insn_intercept_words(&misc1, &misc2)) {
		pc->virt_error = "an instruction intercept of virt.h has no SVM intercept bit";
		return -1;
	}
	u64 hsave = palloc_alloc();
	if (!hsave) {
		pc->virt_error = "no memory for the host save area";
		return -1;
	}
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SVME);
	wrmsr(MSR_VM_HSAVE_PA, hsave);
	pc->virt = phys_to_virt(hsave);

	fmt_snprintf(pc->virt_info, sizeof(pc->virt_info),
		     "svm rev=%u asids=%u npt=%s nrip_save=%s decode_assists=%s clean_bits=%s "
		     "flush_by_asid=%s",
		     caps.revision, caps.nasid, caps.features & SVM_FEAT_NP ? "yes" : "no",
		     caps.features & SVM_FEAT_NRIPS ? "yes" : "no",
		     caps.features & SVM_FEAT_DECODE ? "yes" : "no",
		     caps.features & SVM_FEAT_CLEAN ? "yes" : "no",
		     caps.features & SVM_FEAT_FLUSH_ASID ? "yes" : "no");
	return 0;
}

/* virt.h's instruction intercepts in the VMCB's two intercept words. */
static const struct {
	u32 misc1, misc2;
} insn_intercepts[VIRT_INSN_COUNT] = {
	[VIRT_INSN_CPUID] = { I1_CPUID, 0 },
	[VIRT_INSN_HLT] = { I1_HLT, 0 },
	[VIRT_INSN_INVLPG] = { I1_INVLPG, 0 },
	[VIRT_INSN_RDPMC] = { I1_RDPMC, 0 },
	[VIRT_INSN_INVD] = { I1_INVD, 0 },
	[VIRT_INSN_WBINVD] = { 0, I2_WBINVD },
	[VIRT_INSN_MONITOR] = { 0, I2_MONITOR },
	[VIRT_INSN_MWAIT] = { 0, I2_MWAIT },
	[VIRT_INSN_IO] = { I1_IOIO, 0 },
	[VIRT_INSN_MSR] = { I1_MSR, 0 },
	[VIRT_INSN_VIRT] = { I1_INVLPGA, I2_SVM_INSNS },
};

/* The two words with every row of insn_intercepts; false if a row was left unmapped. */
static bool insn_intercept_words(u32 *misc1, u32 *misc2)
{
	*misc1 = *misc2 = 0;
	for (unsigned i = 0; i < VIRT_INSN_COUNT; i++) {
		if (!insn_intercepts[i].misc1 && !insn_intercepts[i].misc2)
			return false;
		*misc1 |= insn_intercepts[i].misc1;
		*misc2 |= insn_intercepts[i].misc2;
	}
	return true;
}
/* MOV DR intercepts until a guest first touches its debug registers (DR6/DR7 live in the
 * VMCB; DR0-DR3 are the CPU's and are switched only for guests that use them, so DR7 must
 * exit too: it would arm breakpoints on another guest's addresses). */
#define DR_LAZY (BIT(0) | BIT(1) | BIT(2) | BIT(3) | BIT(6) | BIT(7))

/* The VMCB packs segment attributes as x86_seg does: access byte, then AVL, L, D/B, G. */
static u16 attr_to_vmcb(u16 a)
{
	return a & 0xfff;
}
static u16 attr_from_vmcb(u16 a)
{
	return a & 0xfff;
}

static struct vmcb *vmcb_of(struct vcpu_hw *v)
{
	return v->arch;
}

/* What SVM leaves to software, in the last page of the vCPU's allocation: without virtual
 * NMIs (neither emulator has them) the NMI blocking from an injected NMI's delivery to the
 * guest's IRET is Umbra's. The IRET intercept exits before the IRET runs; the NMI is
 * unblocked at the first exit with RIP elsewhere (as KVM does). A waiting NMI gets that exit
 * at once, whatever IF the IRET restores, by a single step over the IRET (TF at its start:
 * the #DB intercept after it), which Umbra takes for itself. */
struct svm_soft {
	bool nmi_masked;       /* an NMI injected, its IRET not yet run */
	bool iret_seen;	       /* the IRET intercept came, at iret_rip */
	bool irq_win, nmi_win; /* which waits ask for an exit (VINTR for interrupts and shadows) */
	bool step;	       /* this entry steps over the IRET with Umbra's TF */
	u64 iret_rip;
	u64 step_dr6;	  /* the guest's DR6 before that step */
	u64 gs_base;	  /* the guest's GS base between exits (the CPU has the host's) */
	bool vmcb_behind; /* the guest ran since the VMCB's copy of its VMLOAD set was taken */
};
enum { SVM_PAGES = 7 };
static struct svm_soft *soft_of(struct vcpu_hw *v)
{
	return phys_to_virt(v->arch_pa + (SVM_PAGES - 1) * PAGE_SIZE);
}

/* The VMLOAD set (FS, GS, TR, LDTR with their hidden parts, KernelGsBase, STAR/LSTAR/CSTAR/
 * SFMASK, SYSENTER_CS/ESP/EIP) is the guest's in the CPU for the whole of a vCPU's turn: the
 * host uses none of it but GS's base, which the world switch swaps by WRMSR, and no IST (whose
 * stacks the guest's TR would point elsewhere). VMLOAD at the turn's first entry and VMSAVE
 * when Umbra reads the set or the turn ends take the place of a VMSAVE and a VMLOAD on each
 * side of every VMRUN: four exits to a nested hypervisor without virtual VMLOAD/VMSAVE. */
static bool vmload_set_held(const struct vcpu_hw *v)
{
	return this_cpu()->vmload_owner == v;
}

/* The VMCB's copy of the set made current. Only the CPU holding it can: elsewhere (a dump
 * from another CPU) the copy of the last sync is what there is. */
static void vmload_set_sync(struct vcpu_hw *v)
{
	struct svm_soft *soft = soft_of(v);

	if (!vmload_set_held(v) || !soft->vmcb_behind)
		return;
	__asm__ volatile("vmsave %%rax" ::"a"(v->arch_pa) : "memory");
	vmcb_of(v)->gs.base = soft->gs_base; /* VMSAVE took the host's */
	soft->vmcb_behind = false;
}

/* Before Umbra changes the VMCB's copy: the CPU reloads it at the next entry. */
static void vmload_set_edit(struct vcpu_hw *v)
{
	vmload_set_sync(v);
	if (vmload_set_held(v))
		this_cpu()->vmload_owner = NULL;
}

static void seg_to_vmcb(struct vmcb_seg *d, const struct x86_seg *s)
{
	*d = (struct vmcb_seg){
		.sel = s->sel, .attr = attr_to_vmcb(s->attr), .limit = s->limit, .base = s->base
	};
}

static void seg_from_vmcb(struct x86_seg *d, const struct vmcb_seg *s)
{
	*d = (struct x86_seg){
		.sel = s->sel, .attr = attr_from_vmcb(s->attr), .limit = s->limit, .base = s->base
	};
}

/* Lets the guest read and write an MSR directly: two bits per MSR in three 2 KiB ranges. */
static void msrpm_pass(u8 *msrpm, u32 msr)
{
	u32 base;
	if (msr < 0x2000)
		base = 0;
	else if (msr - 0xc0000000u < 0x2000)
		base = 0x800, msr -= 0xc0000000u;
	else
		base = 0x1000, msr -= 0xc0010000u;
	u32 bit = msr * 2;
	msrpm[base + bit / 8] &= (u8) ~(3u << (bit % 8));
}

/* The guest's own MSRs (arch/x86/regs.h): every one is in the VMLOAD set. */
static const u32 vmcb_msrs[] = { GUEST_MSR_LIST(GUEST_MSR_ANY_) };

static int svm_vcpu_create(struct vcpu_hw *v)
{
	/* One allocation: VMCB, I/O permission map (3 pages), MSR permission map (2 pages), the
	 * software state (struct svm_soft). */
	u64 pa = palloc_alloc_contig(SVM_PAGES, 1);
	if (!pa)
		return -1;
	struct vmcb *vmcb = phys_to_virt(pa);
	u8 *iopm = phys_to_virt(pa + PAGE_SIZE), *msrpm = phys_to_virt(pa + 4 * PAGE_SIZE);

	/* Every port and every MSR exits: the policies in vmm/ decide. */
	memset(iopm, 0xff, 3 * PAGE_SIZE);
	memset(msrpm, 0xff, 2 * PAGE_SIZE);
	memset(phys_to_virt(pa + (SVM_PAGES - 1) * PAGE_SIZE), 0, sizeof(struct svm_soft));
	for (unsigned i = 0; i < ARRAY_SIZE(vmcb_msrs); i++)
		msrpm_pass(msrpm, vmcb_msrs[i]);
	v->arch = vmcb;
	v->arch_pa = pa;

	/* CR8 too: it is the model's TPR (vmm/cr.c), not the VMCB's V_TPR. */
	vmcb->cr_read = BIT(0) | BIT(3) | BIT(4) | BIT(8);
	vmcb->cr_write = BIT(0) | BIT(3) | BIT(4) | BIT(8);
	vmcb->exceptions = VIRT_EXC_SHADOW;
	/* virt.h's instructions, plus what SVM alone needs: physical interrupts and NMIs exit,
	 * task switches and shutdown are reported, RDTSCP (TSC_AUX is the guest's). */
	u32 misc1, misc2;
	insn_intercept_words(&misc1, &misc2);
	vmcb->misc1 = misc1 | I1_INTR | I1_NMI | I1_TASK_SWITCH | I1_SHUTDOWN;
	vmcb->misc2 = misc2 | I2_RDTSCP;
	vmcb->dr_read = vmcb->dr_write = DR_LAZY;
	vmcb->iopm_pa = pa + PAGE_SIZE;
	vmcb->msrpm_pa = pa + 4 * PAGE_SIZE;
	/* Past the CPU's ASIDs (VMRUN would fail), vCPUs share the last one and, since none of them
	 * may then meet another's translations, flush at every entry. */
	if (v->asid >= caps.nasid - 1)
		v->asid = caps.nasid - 1;
	vmcb->asid = v->asid;
	vmcb->tlb_control = TLB_FLUSH_ALL;
	vmcb->vintr =
		BIT(24); /* V_INTR_MASKING: the host's IF, not the guest's, gates interrupts */

	const struct x86_emu_ctx *r = &v->regs;
	seg_to_vmcb(&vmcb->es, &r->seg[X86_ES]);
	seg_to_vmcb(&vmcb->cs, &r->seg[X86_CS]);
	seg_to_vmcb(&vmcb->ss, &r->seg[X86_SS]);
	seg_to_vmcb(&vmcb->ds, &r->seg[X86_DS]);
	seg_to_vmcb(&vmcb->fs, &r->seg[X86_FS]);
	seg_to_vmcb(&vmcb->gs, &r->seg[X86_GS]);
	vmcb->gdtr = (struct vmcb_seg){ .limit = 0xffff };
	vmcb->idtr = (struct vmcb_seg){ .limit = 0xffff };
	vmcb->ldtr = (struct vmcb_seg){ .attr = 0x82, .limit = 0xffff };
	vmcb->tr = (struct vmcb_seg){ .attr = 0x8b, .limit = 0xffff };
	vmcb->cpl = 0;
	vmcb->dr6 = 0xffff0ff0;
	vmcb->dr7 = 0x400;
	vmcb->g_pat = PAT_RESET;
	vmcb->cr2 = r->cr2;
	return 0;
}

static void svm_vcpu_put(struct vcpu_hw *v)
{
	vmload_set_edit(v);
}

static void svm_vcpu_destroy(struct vcpu_hw *v)
{
	/* Its address may be a new vCPU's next: no CPU may take that one's set as loaded. */
	for (u32 i = 0; i < NR_CPUS; i++)
		if (percpus[i].vmload_owner == v)
			percpus[i].vmload_owner = NULL;
	for (int i = 0; i < SVM_PAGES; i++)
		palloc_free(v->arch_pa + i * PAGE_SIZE);
	v->arch = NULL;
}

static bool npt_on(const struct vmcb *vmcb)
{
	return vmcb->np_enable & NP_ENABLE;
}

static int svm_update_paging(struct vcpu_hw *v, const char **why)
{
	(void)why; /* SVM runs every mode the guest can enter */
	struct vmcb *vmcb = vmcb_of(v);
	const struct x86_emu_ctx *r = &v->regs;

	if (npt_on(vmcb)) {
		/* The CPU pages with the guest's own control registers. Their changes that exit
		 * (CR0, CR4, EFER, a PV CR3 load) would each flush the TLB on real hardware. */
		vmcb->cr0 = r->cr0 & ~(u64)(CR0_CD | CR0_NW);
		vmcb->cr4 = r->cr4;
		vmcb->efer = r->efer | EFER_SVME;
		vmcb->cr3 = r->cr3;
		vmcb->tlb_control = TLB_FLUSH_ALL;
		return 0;
	}

	/* The guest's own view stays in v->regs; CR reads exit and are answered from there. */
	struct virt_shadow_regs sh;
	virt_shadow_regs(v, &sh);
	vmcb->cr0 = sh.cr0;
	vmcb->cr4 = sh.cr4;
	vmcb->efer = sh.efer | EFER_SVME;
	vmcb->cr3 = v->root_hpa;
	return 0;
}

static int svm_set_root(struct vcpu_hw *v, const char **why)
{
	(void)why;
	vmcb_of(v)->cr3 = v->root_hpa;
	return 0;
}

/* What VMRUN and #VMEXIT keep in the VMCB itself. */
static void read_vmcb_segments(struct vcpu_hw *v)
{
	const struct vmcb *vmcb = vmcb_of(v);
	struct x86_seg *s = v->regs.seg;

	seg_from_vmcb(&s[X86_ES], &vmcb->es);
	seg_from_vmcb(&s[X86_CS], &vmcb->cs);
	seg_from_vmcb(&s[X86_SS], &vmcb->ss);
	seg_from_vmcb(&s[X86_DS], &vmcb->ds);
	v->regs.gdtr = (struct x86_dtr){ .base = vmcb->gdtr.base, .limit = vmcb->gdtr.limit };
	v->regs.idtr = (struct x86_dtr){ .base = vmcb->idtr.base, .limit = vmcb->idtr.limit };
}

/* The VMLOAD set's part, from the VMCB's copy (brought up to date first). */
static void read_vmload_segments(struct vcpu_hw *v)
{
	const struct vmcb *vmcb = vmcb_of(v);

	vmload_set_sync(v);
	seg_from_vmcb(&v->regs.seg[X86_FS], &vmcb->fs);
	seg_from_vmcb(&v->regs.seg[X86_GS], &vmcb->gs);
	v->regs.ldtr = vmcb->ldtr.sel;
	v->regs.ldt = (struct x86_dtr){ .base = vmcb->ldtr.base, .limit = vmcb->ldtr.limit };
	v->regs.tr = vmcb->tr.sel;
	v->regs.segs_partial = false;
}

static void svm_read_segments(struct vcpu_hw *v)
{
	read_vmcb_segments(v);
	read_vmload_segments(v);
}

/* Most emulated instructions (a page-table store, INVLPG, a device register access) use no FS,
 * GS or LDT: their decode needs no VMSAVE. */
static void svm_read_segments_lazy(struct vcpu_hw *v)
{
	read_vmcb_segments(v);
	if (vmload_set_held(v) && soft_of(v)->vmcb_behind)
		v->regs.segs_partial = true;
	else
		read_vmload_segments(v);
}

static void svm_read_cs(struct vcpu_hw *v)
{
	seg_from_vmcb(&v->regs.seg[X86_CS], &vmcb_of(v)->cs);
}

/* SVM runs every mode natively and never asks for emulation; this serves a caller that
 * changed the segments anyway. */
static void svm_write_segments(struct vcpu_hw *v)
{
	struct vmcb *vmcb = vmcb_of(v);
	const struct x86_seg *s = v->regs.seg;

	seg_to_vmcb(&vmcb->es, &s[X86_ES]);
	seg_to_vmcb(&vmcb->cs, &s[X86_CS]);
	seg_to_vmcb(&vmcb->ss, &s[X86_SS]);
	seg_to_vmcb(&vmcb->ds, &s[X86_DS]);
	/* Partial: nothing changed FS or GS (a load asks for them first), which the CPU holds. */
	if (!v->regs.segs_partial) {
		vmload_set_edit(v);
		seg_to_vmcb(&vmcb->fs, &s[X86_FS]);
		seg_to_vmcb(&vmcb->gs, &s[X86_GS]);
	}
	vmcb->gdtr.base = v->regs.gdtr.base;
	vmcb->gdtr.limit = v->regs.gdtr.limit;
	vmcb->idtr.base = v->regs.idtr.base;
	vmcb->idtr.limit = v->regs.idtr.limit;
	vmcb->clean = 0;
}

static void svm_flush_tlb(struct vcpu_hw *v)
{
	/* Flush-by-ASID is not emulated by QEMU TCG; flushing everything is always correct. */
	vmcb_of(v)->tlb_control = TLB_FLUSH_ALL;
}

static void svm_set_cr2(struct vcpu_hw *v, u64 cr2)
{
	vmcb_of(v)->cr2 = cr2;
}

/* V_IRQ with the highest priority and TPR ignored: a virtual interrupt request that exists only
 * to make the CPU exit (VINTR) once the guest can take an interrupt; we inject the real one. */
#define VINTR_V_IRQ BIT(8)
#define VINTR_PRIO_MAX (0xfull << 16)
#define VINTR_IGN_TPR BIT(20)

/* The STI/MOV SS shadow covers one instruction: once Umbra has completed that instruction
 * (RIP moved since the exit: a HLT after STI, say), the shadow is over. */
static bool svm_in_shadow(const struct vcpu_hw *v)
{
	const struct vmcb *vmcb = vmcb_of((struct vcpu_hw *)v);
	return (vmcb->int_shadow & 1) && vmcb->rip == v->regs.rip;
}

static bool svm_irq_window_open(struct vcpu_hw *v)
{
	return (v->regs.rflags & RFLAGS_IF) && !svm_in_shadow(v);
}

/* VINTR for either wait: an interrupt's, or an NMI's once only the shadow or the IRET's
 * completion holds it (while the IRET has not come, its intercept will). */
static void set_vintr(struct vcpu_hw *v)
{
	struct vmcb *vmcb = vmcb_of(v);
	struct svm_soft *soft = soft_of(v);
	u64 bits = VINTR_V_IRQ | VINTR_PRIO_MAX | VINTR_IGN_TPR;
	bool on = soft->irq_win || (soft->nmi_win && !soft->nmi_masked);

	if (on) {
		vmcb->vintr |= bits;
		vmcb->misc1 |= I1_VINTR;
	} else {
		vmcb->vintr &= ~bits;
		vmcb->misc1 &= ~I1_VINTR;
	}
}

static void svm_request_irq_window(struct vcpu_hw *v, bool on)
{
	soft_of(v)->irq_win = on;
	set_vintr(v);
}

static bool svm_nmi_window_open(struct vcpu_hw *v)
{
	return !soft_of(v)->nmi_masked && !svm_in_shadow(v);
}

/* A shadow with IF=0 (MOV SS after CLI) has VINTR wait for IF: the NMI then comes at the next
 * exit at the latest (the slice's end). */
static void svm_request_nmi_window(struct vcpu_hw *v, bool on)
{
	soft_of(v)->nmi_win = on;
	set_vintr(v);
}

/* svm_in_shadow compares the VMCB's RIP, the emulated instruction's own until the entry
 * writes the new one. Entered with TF, the CPU traps after the next instruction: the step
 * MOV SS owes comes there, as on the CPU. */
static void svm_mov_ss_shadow(struct vcpu_hw *v)
{
	struct vmcb *vmcb = vmcb_of(v);

	vmcb->int_shadow |= 1;
	vmcb->rip = v->regs.rip;
}

/* NMI blocking around an entry that may inject: an injected NMI is in service from now on and
 * its handler's IRET is intercepted; an intercepted IRET with an NMI waiting runs with TF
 * (unless the guest steps itself: its own trap then exits there). */
static void nmi_entry(struct vcpu_hw *v, struct vmcb *vmcb)
{
	struct svm_soft *soft = soft_of(v);

	if (v->pending.valid && v->pending.type == VEVENT_NMI) {
		soft->nmi_masked = true;
		soft->iret_seen = false;
		vmcb->misc1 |= I1_IRET;
	} else if (soft->iret_seen && soft->nmi_win && !v->pending.valid &&
		   v->regs.rip == soft->iret_rip && !(v->regs.rflags & RFLAGS_TF)) {
		soft->step = true;
		soft->step_dr6 = vmcb->dr6;
		vmcb->rflags |= RFLAGS_TF;
	}
}

/* After an exit: the IRET intercepted at iret_rip has run once RIP is elsewhere. Umbra's step
 * over it ends in the #DB intercept after it, which is Umbra's alone (DR6 as it was; the
 * guest's TF is the one the IRET loaded); an exit before it has run keeps the guest's TF. */
static void nmi_exit(struct vcpu_hw *v, struct vmcb *vmcb, struct vexit *x)
{
	struct svm_soft *soft = soft_of(v);

	if (soft->step) {
		soft->step = false;
		if (v->regs.rip == soft->iret_rip) {
			v->regs.rflags &= ~(u64)RFLAGS_TF;
		} else if (x->reason == EXIT_EXCEPTION && x->vector == VEC_DB) {
			vmcb->dr6 = soft->step_dr6;
			*x = (struct vexit){ .reason = EXIT_IRQ_WINDOW, .raw_code = x->raw_code };
		}
	}
	if (soft->iret_seen && v->regs.rip != soft->iret_rip) {
		soft->nmi_masked = soft->iret_seen = false;
		set_vintr(v);
	}
	if (x->raw_code == VMEXIT_IRET) {
		soft->iret_seen = true;
		soft->iret_rip = v->regs.rip;
		vmcb->misc1 &= ~(u32)I1_IRET;
	}
}

/* SVM has no monitor trap flag: the debugger steps with RFLAGS.TF. */
static bool svm_single_step(struct vcpu_hw *v, bool on)
{
	(void)v;
	(void)on;
	return false;
}

static void svm_intercept_dr(struct vcpu_hw *v, bool on)
{
	struct vmcb *vmcb = vmcb_of(v);
	vmcb->dr_read = vmcb->dr_write = on ? DR_LAZY : 0;
}

static u64 svm_get_dr(struct vcpu_hw *v, int n)
{
	return n == 6 ? vmcb_of(v)->dr6 : vmcb_of(v)->dr7;
}

static void svm_set_dr(struct vcpu_hw *v, int n, u64 val)
{
	if (n == 6)
		vmcb_of(v)->dr6 = val;
	else
		vmcb_of(v)->dr7 = val;
}

static void svm_set_tsc_offset(struct vcpu_hw *v, u64 offset)
{
	vmcb_of(v)->tsc_offset = offset;
}

/* EVENTINJ: the common event word, the error code in the upper half. */
static u64 event_word(const struct vevent *e)
{
	return vevent_word(e) | ((u64)e->error_code << 32);
}

/* The DR6 bits this #DB intercept owes (svm_db.h); DR0-DR3 are the guest's in the CPU. */
static u64 db_cause(const struct vmcb *vmcb, u64 dr6_at_entry)
{
	const struct svm_db_state s = {
		.dr6 = vmcb->dr6,
		.dr6_at_entry = dr6_at_entry,
		.dr7 = vmcb->dr7,
		.rflags = vmcb->rflags,
		.rip = vmcb->rip,
		.shadow = vmcb->int_shadow & 1,
		.dr = { read_dr0(), read_dr1(), read_dr2(), read_dr3() },
	};
	return svm_db_cause(&s);
}

static void decode_exit(struct vmcb *vmcb, struct vexit *x, u64 dr6_at_entry)
{
	u32 code = (u32)vmcb->exit_code; /* VMEXIT_INVALID comes as 0x00000000ffffffff */
	const struct svm_exit_row *row = svm_exit_row(code);

	*x = (struct vexit){ .raw_code = vmcb->exit_code,
			     .raw_info1 = vmcb->exit_info1,
			     .raw_info2 = vmcb->exit_info2,
			     .reason = EXIT_OTHER };
	if (!row) {
		x->refused = "an exit code past the APM's list";
		return;
	}
	/* Without NRIP save the length of a mapped instruction is decoded (vcpu_skip): prefixes
	 * make any of them longer than its opcode (2e 0f a2 is a 3-byte CPUID). */
	if (virt_exit_row(x, row->action, row->reason, row->why)) {
		/* mapped, #UD or refused: nothing more to read */
	} else if (code < VMEXIT_CR0_WRITE + 16) {
		x->cr = code & 0xf;
		x->cr_write = code >= VMEXIT_CR0_WRITE;
	} else if (code == VMEXIT_NPF) {
		x->error_code = vmcb->exit_info1;
		x->addr = vmcb->exit_info2;
	} else if (code == VMEXIT_EXCP_BASE + 14) {
		x->reason = EXIT_PAGE_FAULT;
		x->error_code = vmcb->exit_info1;
		x->addr = vmcb->exit_info2;
	} else if (code == VMEXIT_SWINT) {
		x->vector = VEC_BP;
		x->swint = true;
	} else if (code >= VMEXIT_EXCP_BASE && code < VMEXIT_EXCP_BASE + 32) {
		x->vector = (u8)(code - VMEXIT_EXCP_BASE);
		x->has_error = virt_exc_has_error(x->vector);
		x->error_code = vmcb->exit_info1;
		if (x->vector == VEC_DB)
			x->dr6_set = db_cause(vmcb, dr6_at_entry);
	} else if (code == VMEXIT_INVD || code == VMEXIT_WBINVD || code == VMEXIT_RDPMC) {
		x->insn = code == VMEXIT_INVD	  ? VINSN_INVD
			  : code == VMEXIT_WBINVD ? VINSN_WBINVD
						  : VINSN_RDPMC;
	} else if (code == VMEXIT_MSR) {
		x->msr_write = vmcb->exit_info1 & 1;
	} else if (code == VMEXIT_IOIO) {
		u64 i = vmcb->exit_info1;
		x->io_in = i & 1;
		x->io_string = i & BIT(2);
		x->io_rep = i & BIT(3);
		x->io_size = (i & BIT(4)) ? 1 : (i & BIT(5)) ? 2 : 4;
		x->port = (u16)(i >> 16);
		/* exit_info2 holds the next RIP for IOIO even without NRIP save. */
		x->insn_len = (u32)(vmcb->exit_info2 - vmcb->rip);
	}
	/* With NRIP save the hardware knows the length of every instruction-driven exit. */
	if ((caps.features & SVM_FEAT_NRIPS) && vmcb->nrip > vmcb->rip &&
	    vmcb->nrip - vmcb->rip <= 15 && x->reason != EXIT_PAGE_FAULT &&
	    x->reason != EXIT_EXCEPTION && x->reason != EXIT_INTR && x->reason != EXIT_NMI &&
	    x->reason != EXIT_SHUTDOWN && x->reason != EXIT_NESTED_FAULT)
		x->insn_len = (u32)(vmcb->nrip - vmcb->rip);
	/* Decode assists name a MOV CR's register (EXITINFO1 bit 63; not for CLTS, LMSW, SMSW). */
	if (x->reason == EXIT_CR_ACCESS && (caps.features & SVM_FEAT_DECODE) &&
	    (vmcb->exit_info1 >> 63) && x->insn_len) {
		x->cr_mov = true;
		x->cr_gpr = vmcb->exit_info1 & 0xf;
	}
}

/* audit=1: the rule of VMRUN's (svm_check.h) this VMCB breaks, which a lenient emulator
 * might let through, or NULL. */
static const char *entry_check(const struct vcpu_hw *v, const struct vmcb *vmcb)
{
	struct svm_check_state s = {
		.efer = vmcb->efer,
		.cr0 = vmcb->cr0,
		.cr3 = vmcb->cr3,
		.cr4 = vmcb->cr4,
		.dr6 = vmcb->dr6,
		.dr7 = vmcb->dr7,
		.cs_attr = vmcb->cs.attr,
		.misc2 = vmcb->misc2,
		.asid = vmcb->asid,
		.event_inj = vmcb->event_inj,
		.iopm_pa = vmcb->iopm_pa,
		.msrpm_pa = vmcb->msrpm_pa,
		.np = npt_on(vmcb),
		.cr4_mbz = caps.cr4_mbz,
		.efer_mbz = caps.efer_mbz,
		.maxphyaddr = caps.maxphyaddr,
	};
	/* Without nested paging CR3 is Umbra's own shadow root, in its memory. */
	if (!s.np)
		memcpy(s.pdpte, phys_to_virt(v->root_hpa & ~0x1full), sizeof(s.pdpte));
	return svm_check(&s);
}

static void svm_vcpu_run(struct vcpu_hw *v, struct vexit *x)
{
	struct vmcb *vmcb = vmcb_of(v);

	if (!svm_in_shadow(v))
		vmcb->int_shadow &= ~1ull;
	vmcb->rax = v->regs.gpr[X86_RAX];
	vmcb->rsp = v->regs.gpr[X86_RSP];
	vmcb->rip = v->regs.rip;
	vmcb->rflags = v->regs.rflags;
	nmi_entry(v, vmcb);
	vmcb->exceptions = virt_exc_bitmap(&v->pending, npt_on(vmcb), v->exc_debug);
	/* QEMU's TCG reports INT3 as INT n, not as #BP: a debugger needs both. */
	if (v->exc_debug & BIT(3))
		vmcb->misc1 |= I1_INTN;
	else
		vmcb->misc1 &= ~(u32)I1_INTN;
	/* External interrupts too: V_IRQ delivery, which avoids QEMU 7.2's second delivery of an
	 * EVENTINJ interrupt, is not taken by Bochs (docs/testing.md). */
	u64 injected = v->pending.valid ? event_word(&v->pending) : 0;
	vmcb->event_inj = injected;
	v->pending.valid = false;
	if (npt_on(vmcb))
		vmcb->g_pat = v->pat; /* the guest's PAT combines with the nested table's types */
	if (v->tlb_flush || v->asid == caps.nasid - 1) {
		vmcb->tlb_control = TLB_FLUSH_ALL;
		v->tlb_flush = false;
	}
	const char *broken = v->check_entry ? entry_check(v, vmcb) : NULL;
	if (broken) {
		*x = (struct vexit){ .reason = EXIT_INVALID, .refused = broken };
		return;
	}

	/* Bochs' VMRUN does not load CR2 from the VMCB (hardware and QEMU do): put the guest's
	 * value in the real register too, so the guest reads its own CR2 on every platform. */
	write_cr2(vmcb->cr2);
	u64 dr6_at_entry = vmcb->dr6;
	/* VMRUN switches DEBUGCTL only with LBR virtualization (neither emulator has it): the
	 * guest's is loaded by hand around it. The host never sets TF, so BTF means nothing to
	 * it meanwhile; its own value is 0. A CPU without the MSR keeps the guest's copy only. */
	bool debugctl = v->debugctl && wrmsr_safe(MSR_DEBUGCTL, v->debugctl);
	struct percpu *pc = this_cpu();
	struct svm_soft *soft = soft_of(v);
	u64 flags = (vmcb->int_shadow & 1) ? SVM_SWITCH_SHADOW : 0;
	if (pc->vmload_owner != v)
		flags |= SVM_SWITCH_VMLOAD;
	svm_world_switch(v->arch_pa, v->regs.gpr, flags, &soft->gs_base, (u64)pc);
	pc->vmload_owner = v;
	soft->vmcb_behind = true;
	if (debugctl)
		wrmsr(MSR_DEBUGCTL, 0);

	vmcb->tlb_control = 0;
	v->regs.gpr[X86_RAX] = vmcb->rax;
	v->regs.gpr[X86_RSP] = vmcb->rsp;
	v->regs.rip = vmcb->rip;
	v->regs.rflags = vmcb->rflags;
	v->regs.cpl = vmcb->cpl;
	if (npt_on(vmcb)) {
		/* The guest loads CR3 and takes its page faults without us. */
		v->regs.cr3 = vmcb->cr3;
		v->regs.cr2 = vmcb->cr2;
	}
	decode_exit(vmcb, x, dr6_at_entry);
	nmi_exit(v, vmcb, x);

	/* An event cut short by this exit (a #PF while delivering an interrupt, say) must be
	 * delivered again once the exit is handled. */
	u64 ii = vmcb->exit_int_info;
	/* While the #PF intercept is on, every #PF the guest sees is one Umbra injected: a #PF
	 * in EXITINTINFO that this VMRUN did not inject is stale. Bochs reports the last
	 * injected event for an exit during an INT n's delivery (it does not record INT n). */
	if ((ii & VEVENT_WORD_VALID) && (ii & 0x7ff) == (14 | (VEVENT_EXCEPTION << 8)) &&
	    (vmcb->exceptions & BIT(14)) && (injected & 0x7ff) != (ii & 0x7ff))
		ii = 0;
	if (ii & VEVENT_WORD_VALID) {
		v->pending = vevent_from_word((u32)ii, (u32)(ii >> 32));
		x->vectoring = true;
		/* INT n is re-executed, not re-injected (EVENTINJ would push the VMCB's RIP,
		 * which still points at it). So are INT3 and INTO, which AMD reports as
		 * exceptions #BP and #OF: nothing else raises those two. Unless this entry
		 * injected the event itself: then RIP is already past the instruction (the gdb
		 * stub hands the guest its own INT3 and INT n that way), and it goes again. */
		u8 t = v->pending.type, vec = v->pending.vector;
		if ((t == VEVENT_SOFT_INT ||
		     (t == VEVENT_EXCEPTION && (vec == VEC_BP || vec == VEC_OF))) &&
		    (injected & 0x7ff) != (ii & 0x7ff))
			v->pending.valid = false;
	}
	/* A physical interrupt made us exit: take it now (the host runs with IF clear). */
	if (x->reason == EXIT_INTR)
		__asm__ volatile("sti; nop; cli" ::: "memory");
}

static bool svm_tdp_supported(void)
{
	return caps.features & SVM_FEAT_NP;
}

/* The IOPM is the page after the VMCB (svm_vcpu_create). */
static void svm_pass_ports(struct vcpu_hw *v, u16 first, u32 n, bool pass)
{
	virt_port_bitmap(phys_to_virt(v->arch_pa + PAGE_SIZE), first, n, pass);
}

/* Nested entries are x86-64 page-table entries; QEMU TCG faults on them without U. A device
 * leaf's PCD|PWT select the host PAT's entry 3 (UC), which the combination with the guest's
 * type cannot make cacheable (APM 15.25.8). */
static const struct tdp_format npt_format = {
	.present = BIT(0),
	.write = BIT(1),
	.user = BIT(2),
	.large = BIT(7),
	.leaf_uc = BIT(4) | BIT(3),
};

static void svm_tdp_enable(struct vcpu_hw *v, u64 root_hpa)
{
	struct vmcb *vmcb = vmcb_of(v);

	vmcb->np_enable |= NP_ENABLE;
	vmcb->n_cr3 = root_hpa;
	vmcb->g_pat = v->pat;
	/* CR0 and CR4 writes still exit: vmm/ validates them and keeps the walker's mode. */
	vmcb->cr_read &= (u16)~CR_BIT_CR3;
	vmcb->cr_write &= (u16)~CR_BIT_CR3;
	vmcb->misc1 &= ~(u32)I1_INVLPG;
}

const struct virt_backend svm_backend = {
	.name = "svm",
	.probe = svm_probe,
	.cpu_enable = svm_cpu_enable,
	.vcpu_create = svm_vcpu_create,
	.vcpu_destroy = svm_vcpu_destroy,
	.vcpu_run = svm_vcpu_run,
	.vcpu_put = svm_vcpu_put,
	.update_paging = svm_update_paging,
	.set_root = svm_set_root,
	.read_segments = svm_read_segments,
	.read_segments_lazy = svm_read_segments_lazy,
	.read_cs = svm_read_cs,
	.write_segments = svm_write_segments,
	.flush_tlb = svm_flush_tlb,
	.set_cr2 = svm_set_cr2,
	.irq_window_open = svm_irq_window_open,
	.request_irq_window = svm_request_irq_window,
	.nmi_window_open = svm_nmi_window_open,
	.request_nmi_window = svm_request_nmi_window,
	.mov_ss_shadow = svm_mov_ss_shadow,
	.set_tsc_offset = svm_set_tsc_offset,
	.pass_ports = svm_pass_ports,
	.intercept_dr = svm_intercept_dr,
	.single_step = svm_single_step,
	.get_dr = svm_get_dr,
	.set_dr = svm_set_dr,
	.tdp_supported = svm_tdp_supported,
	.tdp_format = &npt_format,
	.tdp_enable = svm_tdp_enable,
};
