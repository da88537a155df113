/* SPDX-License-Identifier: GPL-2.0-only */
/* Control registers and EFER as the guest sees them; every paging change resets the MMU context. */
#include "vmm/cr.h"
#include "vmm/vcpu.h"
#include "arch/x86/regs.h"
#include "arch/x86/emulate.h"
#include "lib/printf.h"
#include "vmm/cpuid.h"
#include "vmm/gmem.h"

/*
 * With nested paging the CPU walks the guest's PAE tables itself, and QEMU TCG's nested walk
 * sets the accessed bit of the PDPTEs, which the shadow MMU's walker (written for PDPTE
 * registers loaded at CR3 time, where bit 5 is reserved) would refuse to load. The walker only
 * serves the emulator and the hypercalls there: it loads them with that bit hidden, and guest
 * memory is left as it was. The guest's other vCPUs keep running on this memory meanwhile, so
 * both the hiding and the restoring are one locked AND/OR each on the entry: a store of theirs
 * in between keeps its bits (a plain read-modify-write here would write the old entry back).
 */
static unsigned pdpte_a_hide(struct vcpu *v, u64 cr0, u64 cr4, u64 efer, u64 cr3, u64 **e)
{
	unsigned hidden = 0;

	if (!(cr0 & CR0_PG) || !(cr4 & CR4_PAE) || (efer & EFER_LMA))
		return 0;
	*e = memslots_ptr(&v->vm->mem, cr3 & 0xffffffe0ull, 32);
	for (unsigned i = 0; *e && i < 4; i++)
		if (__atomic_fetch_and(&(*e)[i], ~(u64)PTE_A, __ATOMIC_SEQ_CST) & PTE_A)
			hidden |= 1u << i;
	return hidden;
}

static void pdpte_a_restore(u64 *e, unsigned hidden)
{
	for (unsigned i = 0; i < 4; i++)
		if (hidden & (1u << i))
			__atomic_fetch_or(&e[i], (u64)PTE_A, __ATOMIC_SEQ_CST);
}

static int mmu_apply(struct vcpu *v, u64 cr0, u64 cr4, u64 efer, u64 cr3, bool new_cr3)
{
	return new_cr3 ? mmu_new_cr3(&v->mmu, cr3)
		       : mmu_reset_context(&v->mmu, cr0, cr4, efer, cr3);
}

/* Nested paging's context change, with the PDPTEs' A bits hidden around it (out of line: the
 * shadow-paging CR3 load below stays short). */
static __attribute__((noinline)) int mmu_context_hiding(struct vcpu *v, u64 cr0, u64 cr4, u64 efer,
							u64 cr3, bool new_cr3)
{
	u64 *e = NULL;
	unsigned hidden = pdpte_a_hide(v, cr0, cr4, efer, cr3, &e);
	int r = mmu_apply(v, cr0, cr4, efer, cr3, new_cr3);
	if (hidden)
		pdpte_a_restore(e, hidden);
	return r;
}

static inline int mmu_context(struct vcpu *v, u64 cr0, u64 cr4, u64 efer, u64 cr3, bool new_cr3)
{
	if (v->vm->tdp_on)
		return mmu_context_hiding(v, cr0, cr4, efer, cr3, new_cr3);
	return mmu_apply(v, cr0, cr4, efer, cr3, new_cr3);
}

/* A backend that cannot run what the guest asked ends the guest, with its reason. */
static bool paging_applied(struct vcpu *v, int (*apply)(struct vcpu_hw *, const char **))
{
	const char *why = NULL;
	if (apply(&v->hw, &why) == 0)
		return true;
	vm_end(v->vm, VM_END_FATAL, 0, why);
	return false;
}

bool vcpu_update_paging(struct vcpu *v)
{
	return paging_applied(v, virt->update_paging);
}

bool vcpu_set_root(struct vcpu *v)
{
	return paging_applied(v, virt->set_root);
}

void vcpu_follow_cr3(struct vcpu *v)
{
	const struct x86_emu_ctx *r = &v->hw.regs;
	if (v->mmu.cr3 != r->cr3)
		mmu_context(v, r->cr0, r->cr4, r->efer, r->cr3, true); /* bad PDPTEs: the CPU's */
}

/* An MMU context change failed: a bad PDPTE faults the instruction, no memory ends the guest. */
static bool context_ok(struct vcpu *v, int r, const char *what)
{
	if (r == MMU_EBADPDPTE) {
		vcpu_inject_gp(v);
		return false;
	}
	if (r < 0) {
		vm_end(v->vm, VM_END_FATAL, 0, what);
		return false;
	}
	return true;
}

static bool reset_paging(struct vcpu *v, u64 cr0, u64 cr4, u64 efer, u64 cr3)
{
	if (!context_ok(v, mmu_context(v, cr0, cr4, efer, cr3, false),
			"out of memory resetting the MMU context"))
		return false;
	v->hw.regs.cr0 = cr0;
	v->hw.regs.cr4 = cr4;
	v->hw.regs.efer = efer;
	v->hw.regs.cr3 = cr3;
	vcpu_update_paging(v);
	return true;
}

bool vcpu_set_cr0(struct vcpu *v, u64 val)
{
	struct x86_emu_ctx *r = &v->hw.regs;
	u64 efer = r->efer;

	val |= CR0_ET; /* hardwired on every CPU since the 486 */
	if ((val >> 32) || ((val & CR0_PG) && !(val & CR0_PE)) ||
	    ((val & CR0_NW) && !(val & CR0_CD))) {
		vcpu_inject_gp(v);
		return false;
	}
	if ((val & CR0_PG) && !(r->cr0 & CR0_PG) && (efer & EFER_LME)) {
		/* Entering long mode: needs PAE, and CS must not be a 64-bit segment yet. */
		if (!(r->cr4 & CR4_PAE)) {
			vcpu_inject_gp(v);
			return false;
		}
		efer |= EFER_LMA;
	}
	if (!(val & CR0_PG) && (r->cr0 & CR0_PG) && (efer & EFER_LMA)) {
		virt->read_segments(&v->hw);
		if (r->seg[X86_CS].attr & X86_SEG_L) {
			vcpu_inject_gp(v); /* cannot leave long mode from 64-bit code */
			return false;
		}
		efer &= ~(u64)EFER_LMA;
	}
	u64 paging_bits = CR0_PG | CR0_WP | CR0_PE;
	if ((val ^ r->cr0) & paging_bits || efer != r->efer)
		return reset_paging(v, val, r->cr4, efer, r->cr3);
	r->cr0 = val;
	vcpu_update_paging(v);
	return true;
}

bool vcpu_set_cr4(struct vcpu *v, u64 val)
{
	struct x86_emu_ctx *r = &v->hw.regs;

	if (val & ~cpuid_cr4_allowed(&v->vm->cpuid)) {
		vcpu_inject_gp(v);
		return false;
	}
	if ((r->efer & EFER_LMA) && !(val & CR4_PAE)) {
		vcpu_inject_gp(v); /* PAE cannot be turned off in long mode */
		return false;
	}
	u64 paging_bits = CR4_PAE | CR4_PSE | CR4_PGE | CR4_SMEP | CR4_SMAP;
	if ((val ^ r->cr4) & paging_bits)
		return reset_paging(v, r->cr0, val, r->efer, r->cr3);
	r->cr4 = val;
	vcpu_update_paging(v);
	return true;
}

bool vcpu_set_cr3(struct vcpu *v, u64 val)
{
	struct x86_emu_ctx *r = &v->hw.regs;

	/* Bits above MAXPHYADDR (and bit 63 without PCID) are reserved in long mode. */
	if ((r->efer & EFER_LMA) && (val >> cpuid_maxphyaddr(&v->vm->cpuid))) {
		vcpu_inject_gp(v);
		return false;
	}
	if (!(r->efer & EFER_LMA))
		val &= 0xffffffffull;
	if (!context_ok(v, mmu_context(v, r->cr0, r->cr4, r->efer, val, true),
			"out of memory on a CR3 load"))
		return false;
	r->cr3 = val;
	if (v->vm->tdp_on)
		vcpu_update_paging(v); /* a PV CR3 load: the CPU runs on the guest's CR3 */
	return true;
}

bool vcpu_set_efer(struct vcpu *v, u64 val)
{
	struct x86_emu_ctx *r = &v->hw.regs;
	u64 allowed = EFER_SCE | EFER_LME | EFER_LMA | (cpuid_guest_nx(v) ? EFER_NXE : 0);

	if (val & ~allowed) {
		vcpu_inject_gp(v);
		return false;
	}
	/* LMA is the CPU's to set; changing LME while paging is on is illegal. */
	val = (val & ~(u64)EFER_LMA) | (r->efer & EFER_LMA);
	if ((r->cr0 & CR0_PG) && ((val ^ r->efer) & EFER_LME)) {
		vcpu_inject_gp(v);
		return false;
	}
	if ((val ^ r->efer) & EFER_NXE)
		return reset_paging(v, r->cr0, r->cr4, val, r->cr3);
	r->efer = val;
	vcpu_update_paging(v);
	return true;
}

static u64 read_cr(struct vcpu *v, unsigned cr)
{
	switch (cr) {
	case 0:
		return v->hw.regs.cr0;
	case 2:
		return v->hw.regs.cr2;
	case 3:
		return v->hw.regs.cr3;
	case 4:
		return v->hw.regs.cr4;
	case 8:
		return vlapic_cr8(&v->vlapic);
	default:
		return 0;
	}
}

void vcpu_cr_access(struct vcpu *v, const struct vexit *x)
{
	struct x86_insn buf;
	const struct x86_insn *in = &buf;
	struct x86_emu_result res;
	u64 val;
	bool ok = true;

	if (x->cr_mov) {
		virt->read_cs(&v->hw); /* the mode: the operand's width, RIP's wrap-around */
		x86_insn_mov_cr(&v->hw.regs, x->cr_write, x->cr, x->cr_gpr, (u8)x->insn_len, &buf);
	} else if (!(in = vcpu_decode_cr(v, &buf))) {
		return;
	}
	struct x86_emu_ctx *r = &v->hw.regs;
	unsigned width = in->mode == X86_MODE_64 ? 8 : 4;

	/* CR8 exists in 64-bit mode only (CPUID announces no AMD legacy alias): it is the local
	 * APIC's TPR, intercepted on both vendors so the two never disagree. */
	if ((in->kind == X86_K_MOV_TO_CR || in->kind == X86_K_MOV_FROM_CR) && in->cr == 8 &&
	    in->mode != X86_MODE_64) {
		vcpu_inject_ud(v);
		return;
	}
	switch (in->kind) {
	case X86_K_MOV_TO_CR:
		val = x86_get_reg(r, in->gpr, width, false);
		if (in->cr == 8) {
			ok = !(val >> 4); /* bits 63:4 are reserved */
			if (ok) {
				vlapic_set_cr8(&v->vlapic, val);
				vm_devices_touched(v->vm);
			} else
				vcpu_inject_gp(v);
		} else if (in->cr == 0)
			ok = vcpu_set_cr0(v, val);
		else if (in->cr == 3)
			ok = vcpu_set_cr3(v, val);
		else if (in->cr == 4)
			ok = vcpu_set_cr4(v, val);
		else
			ok = false, vcpu_inject_ud(v);
		break;
	case X86_K_MOV_FROM_CR:
		if ((in->cr > 4 && in->cr != 8) || in->cr == 1) {
			vcpu_inject_ud(v);
			return;
		}
		x86_set_reg(r, in->gpr, width, false, read_cr(v, in->cr));
		break;
	case X86_K_CLTS:
		ok = vcpu_set_cr0(v, r->cr0 & ~(u64)CR0_TS);
		break;
	case X86_K_LMSW:
		if (x86_read_rm(r, &gmem_emu_ops, in, 2, &val, &res) != X86_EMU_OK) {
			if (res.status == X86_EMU_FAULT)
				vcpu_inject_fault(v, &res.fault);
			return;
		}
		/* LMSW sets PE but cannot clear it, and touches only MP, EM, TS. */
		ok = vcpu_set_cr0(v, (r->cr0 & ~0xeull) | (val & 0xf) | (r->cr0 & CR0_PE));
		break;
	case X86_K_SMSW:
		/* Any CPL may run it (no UMIP here): 16 bits to memory, the operand size to a
		 * register. SVM's CR0 read intercept catches it. */
		if (x86_write_rm(r, &gmem_emu_ops, in, in->has_mem ? 2 : in->opsize, r->cr0,
				 &res) != X86_EMU_OK) {
			if (res.status == X86_EMU_FAULT)
				vcpu_inject_fault(v, &res.fault);
			return;
		}
		break;
	default:
		/* Nothing else exits as a CR access; should a CPU disagree, only this guest ends. */
		vm_end(v->vm, VM_END_FATAL, 0, "unexpected instruction at a CR access exit");
		return;
	}
	if (ok)
		r->rip = x86_next_rip(r, in);
}
