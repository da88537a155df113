/* SPDX-License-Identifier: GPL-2.0-only */
/* The small operations every exit handler shares: inject, decode, skip, debug registers, HLT. */
#include "vmm/vcpu.h"
#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/tsc.h"
#include "arch/x86/percpu.h"
#include "arch/x86/regs.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "vmm/irq.h"
#include "vmm/gmem.h"
#include "vmm/vm.h"
#include "vmm/reset.h"
#include "vmm/console.h"

/* Exception classes for the double-fault rules (SDM vol. 3 table 6-5, APM 8.2.9). */
enum exc_class { EXC_BENIGN, EXC_CONTRIBUTORY, EXC_PAGE_FAULT };

static enum exc_class exc_class(u8 vector)
{
	if (vector == VEC_PF)
		return EXC_PAGE_FAULT;
	if (vector == VEC_DE || (vector >= VEC_TS && vector <= VEC_GP))
		return EXC_CONTRIBUTORY;
	return EXC_BENIGN;
}

void vcpu_inject(struct vcpu *v, u8 vector, bool has_error, u32 error_code)
{
	struct vevent *p = &v->hw.pending;

	/* A fault while the CPU delivered an interrupt (its gate or stack not present) replaces
	 * it, as on hardware: the interrupt stays in service at its controller until the
	 * guest's EOI and is not delivered again. Interrupts still waiting in a controller are
	 * untouched: they follow the exception once the guest's window opens. */
	if (p->valid && p->type == VEVENT_EXCEPTION) {
		/* A fault while the CPU delivered another exception. */
		if (p->vector == VEC_DF) {
			vm_triple_fault(v, "fault while delivering #DF");
			return;
		}
		enum exc_class first = exc_class(p->vector), second = exc_class(vector);
		if ((first == EXC_CONTRIBUTORY && second == EXC_CONTRIBUTORY) ||
		    (first == EXC_PAGE_FAULT && second != EXC_BENIGN)) {
			vector = 8;
			has_error = true;
			error_code = 0;
		}
		/* Otherwise the two are handled serially: the second is delivered, and the first
		 * comes again when its instruction restarts. */
	}
	*p = (struct vevent){ .valid = true,
			      .type = VEVENT_EXCEPTION,
			      .vector = vector,
			      .has_error = has_error,
			      .error_code = error_code };
}

void vcpu_inject_pf(struct vcpu *v, u32 error_code, u64 cr2)
{
	v->hw.regs.cr2 = cr2;
	virt->set_cr2(&v->hw, cr2);
	vcpu_inject(v, VEC_PF, true, error_code);
}

void vcpu_inject_fault(struct vcpu *v, const struct x86_fault *f)
{
	if (f->vector == VEC_PF)
		vcpu_inject_pf(v, f->error_code, f->addr);
	else
		vcpu_inject(v, f->vector, f->has_error, f->error_code);
}

typedef int decoder_fn(const struct x86_emu_ctx *, const struct x86_emu_ops *, struct x86_insn *,
		       struct x86_fault *);

static int decode_with(struct vcpu *v, struct x86_insn *insn, decoder_fn *decoder)
{
	struct x86_fault f;

	virt->read_segments_lazy(&v->hw);
	int r = decoder(&v->hw.regs, &gmem_emu_ops, insn, &f);
	if (r == X86_DEC_OK)
		return 0;
	if (r == X86_DEC_FAULT) {
		vcpu_inject_fault(v, &f);
		return -1;
	}
	return -2;
}

int vcpu_decode(struct vcpu *v, struct x86_insn *insn)
{
	return decode_with(v, insn, x86_decode);
}

const struct x86_insn *vcpu_decode_cr(struct vcpu *v, struct x86_insn *buf)
{
	/* Every kernel's CR3 load is 3 or 4 bytes: read that much at RIP and take the plain form
	 * straight from it; anything else (or bytes across a page) the decoder fetches itself. */
	struct cr_memo *m = &v->memo.cr;
	u8 b[4];
	u32 code;

	virt->read_cs(&v->hw);
	u8 mode = (u8)x86_ctx_mode(&v->hw.regs);
	if (!gmem_code_at_rip(v, mode, b))
		return decode_with(v, buf, x86_decode_cr) < 0 ? NULL : buf;
	/* The form's decode depends on the code size and the bytes alone: a kernel's CR3 loads
	 * repeat one instruction, decoded once. */
	memcpy(&code, b, sizeof(code));
	if (m->valid && m->mode == mode && m->code == code)
		return &m->insn;
	if (!x86_decode_mov_cr_bytes(&v->hw.regs, b, sizeof(b), &m->insn)) {
		m->valid = false;
		return decode_with(v, buf, x86_decode_cr) < 0 ? NULL : buf;
	}
	m->valid = true;
	m->mode = mode;
	m->code = code;
	return &m->insn;
}

bool vcpu_skip(struct vcpu *v, const struct vexit *x)
{
	struct x86_insn insn;

	if (x->insn_len) {
		u64 rip = v->hw.regs.rip + x->insn_len;
		v->hw.regs.rip = (v->hw.regs.efer & EFER_LMA) ? rip : (u32)rip;
		return true;
	}
	if (vcpu_decode(v, &insn) < 0)
		return false;
	v->hw.regs.rip = x86_next_rip(&v->hw.regs, &insn);
	return true;
}

bool vcpu_skip_hypercall(struct vcpu *v, const struct vexit *x)
{
	u8 b[4];

	if (x->insn_len)
		return vcpu_skip(v, x);
	virt->read_cs(&v->hw);
	enum x86_mode mode = x86_ctx_mode(&v->hw.regs);
	unsigned len = gmem_code_at_rip(v, mode, b) ? x86_hypercall_len(b, sizeof(b)) : 0;
	if (!len)
		return vcpu_skip(v, x); /* a prefix, a fault, code across a page: the decoder's */
	v->hw.regs.rip = (v->hw.regs.rip + len) & x86_mask(mode);
	return true;
}

void vcpu_print_regs(const struct vcpu *v, const char *prefix)
{
	const struct x86_emu_ctx *r = &v->hw.regs;
	static const char *const names[] = {
		"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
		"r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"
	};

	for (int i = 0; i < 16; i += 4)
		kprintf("%s   %-3s=%016lx %-3s=%016lx %-3s=%016lx %-3s=%016lx\n", prefix, names[i],
			r->gpr[i], names[i + 1], r->gpr[i + 1], names[i + 2], r->gpr[i + 2],
			names[i + 3], r->gpr[i + 3]);
	kprintf("%s   cr0=0x%lx cr2=0x%lx cr3=0x%lx cr4=0x%lx efer=0x%lx shadow_root=0x%lx%s\n",
		prefix, r->cr0, r->cr2, r->cr3, r->cr4, r->efer, v->hw.root_hpa,
		v->hw.root_pae ? " (pae)" : "");
}

void vcpu_dump(struct vcpu *v)
{
	const struct x86_emu_ctx *r = &v->hw.regs;
	char prefix[VM_NAME_LEN + 2];

	virt->read_segments(&v->hw);
	kprintf("[%s] vcpu%u state: rip=0x%lx rflags=0x%lx cpl=%d cs=0x%x(attr 0x%x)\n",
		v->vm->name, v->id, r->rip, r->rflags, r->cpl, r->seg[X86_CS].sel,
		r->seg[X86_CS].attr);
	fmt_snprintf(prefix, sizeof(prefix), "[%s]", v->vm->name);
	vcpu_print_regs(v, prefix);
}

/* Puts v's DR0-DR3 and DR6 into this CPU unless they are there already. */
void vcpu_dr_load(struct vcpu *v)
{
	struct percpu *pc = this_cpu();

	if (pc->dr_owner == v)
		return;
	const u64 *dr = v->debug_dr_own ? v->debug_dr : v->dr;
	write_dr0(dr[0]);
	write_dr1(dr[1]);
	write_dr2(dr[2]);
	write_dr3(dr[3]);
	if (virt->dr6_live)
		write_dr6(v->dr6);
	pc->dr_owner = v;
}

/* Keeps them while the CPU runs others (which may load theirs). */
void vcpu_dr_save(struct vcpu *v)
{
	if (v->debug_dr_own)
		return; /* the CPU holds the debugger's; the guest's are kept aside */
	v->dr[0] = read_dr0();
	v->dr[1] = read_dr1();
	v->dr[2] = read_dr2();
	v->dr[3] = read_dr3();
	if (virt->dr6_live)
		v->dr6 = read_dr6();
}

void vcpu_dr_activate(struct vcpu *v)
{
	if (!v->dr_active) {
		v->dr_active = true;
		virt->intercept_dr(&v->hw, v->debug_dr_own);
	}
	vcpu_dr_load(v);
}

void vcpu_dr_debugger(struct vcpu *v, bool own, const u64 dr[4], u64 dr7)
{
	if (own && !v->debug_dr_own) {
		vcpu_dr_activate(v);
		vcpu_dr_save(v);
		v->guest_dr6 = virt->get_dr(&v->hw, 6);
		v->guest_dr7 = virt->get_dr(&v->hw, 7);
		virt->set_dr(&v->hw, 6, DR6_INIT);
	} else if (!own && v->debug_dr_own) {
		virt->set_dr(&v->hw, 6, v->guest_dr6);
		virt->set_dr(&v->hw, 7, v->guest_dr7);
	}
	v->debug_dr_own = own;
	if (own) {
		for (int i = 0; i < 4; i++)
			v->debug_dr[i] = dr[i];
		virt->set_dr(&v->hw, 7, dr7);
	}
	v->dr_active = true;
	virt->intercept_dr(&v->hw, own);
	this_cpu()->dr_owner = NULL; /* loaded again before the next entry */
}

/* MOV to or from a debug register while the debugger holds them: done on the guest's copies.
 * Decoded here (0F 21/23 /r, a REX prefix in 64-bit mode): the exit gives no operands on every
 * CPU. Faults as the instruction would: #GP above CPL 0, #UD for DR8+ and for DR4/5 with
 * CR4.DE. */
void vcpu_emulate_mov_dr(struct vcpu *v)
{
	struct x86_emu_ctx *r = &v->hw.regs;
	bool lm = r->efer & EFER_LMA;
	u8 b[4] = { 0 }, rex = 0;
	unsigned i = 0;

	virt->read_segments(&v->hw);
	u64 linear = r->seg[X86_CS].base + r->rip;
	if (gmem_debug_access(v, lm ? linear : (u32)linear, b, 4, false) < 0 &&
	    gmem_debug_access(v, lm ? linear : (u32)linear, b, 3, false) < 0) {
		vm_end(v->vm, VM_END_FATAL, 0, "MOV DR at an address that cannot be read");
		return;
	}
	if (lm && (b[0] & 0xf0) == 0x40)
		rex = b[i++];
	if (b[i] != 0x0f || (b[i + 1] != 0x21 && b[i + 1] != 0x23)) {
		vm_end(v->vm, VM_END_FATAL, 0, "debug-register exit at another instruction");
		return;
	}
	bool write = b[i + 1] == 0x23;
	u8 modrm = b[i + 2];
	unsigned dr = ((modrm >> 3) & 7) | (rex & 4 ? 8 : 0), gpr = (modrm & 7) | (rex & 1 ? 8 : 0);
	if (r->cpl) {
		vcpu_inject_gp(v);
		return;
	}
	if (dr == 4 || dr == 5)
		dr = (r->cr4 & CR4_DE) ? 8 : dr + 2;
	if (dr >= 8) {
		vcpu_inject_ud(v);
		return;
	}
	u64 *slot = dr < 4 ? &v->dr[dr] : dr == 6 ? &v->guest_dr6 : &v->guest_dr7;
	if (write)
		*slot = lm ? r->gpr[gpr] : (u32)r->gpr[gpr];
	else
		r->gpr[gpr] = lm ? *slot : (u32)*slot;
	u64 rip = r->rip + i + 3;
	r->rip = lm ? rip : (u32)rip;
}

void vcpu_inject_db(struct vcpu *v, u64 dr6_set)
{
	vcpu_dr_activate(v);
	virt->set_dr(&v->hw, 6, virt_dr6_on_db(virt->get_dr(&v->hw, 6), dr6_set));
	/* The CPU clears GD as it enters the handler, so that the handler's own MOV DR does not
	 * fault again; an injected #DB does not, so it is done here. */
	virt->set_dr(&v->hw, 7, virt->get_dr(&v->hw, 7) & ~DR7_GD);
	vcpu_inject(v, VEC_DB, false, 0);
}

void vcpu_halt(struct vcpu *v)
{
	/* With IF=1 the vCPU waits for an interrupt (the CPU runs others meanwhile). With IF=0
	 * only an NMI could wake it: in a guest with one vCPU none is ever sent, so the guest has
	 * ended; with several, another may send one (or INIT). So has one that waits with no
	 * interrupt source armed: nothing would ever wake it. */
	if (((v->hw.regs.rflags & RFLAGS_IF) && irq_may_arrive(v, rdtsc())) ||
	    v->vm->nr_vcpus > 1) {
		v->halted = true;
		return;
	}
	console_flush(v->vm);
	vm_end(v->vm, VM_END_HALT, 0,
	       (v->hw.regs.rflags & RFLAGS_IF) ? "HLT with nothing that could wake it"
					       : "HLT with interrupts off");
}
