/* SPDX-License-Identifier: GPL-2.0-only */
/* Exit dispatch: one handler per vendor-neutral reason; each decodes, checks, acts, finishes. */
#include "vmm/exit.h"
#include "arch/x86/cpu.h"
#include "arch/x86/emulate.h"
#include "arch/x86/regs.h"
#include "lib/printf.h"
#include "pv/hypercall.h"
#include "vmm/bootprof.h"
#include "vmm/cpuid.h"
#include "vmm/debug_hook.h"
#include "vmm/gmem.h"
#include "vmm/console.h"
#include "vmm/irq.h"
#include "vmm/msr.h"
#include "vmm/options.h"
#include "vmm/pv_eoi.h"
#include "vmm/realmode.h"
#include "vmm/vcpu.h"
#include "vmm/board.h"
#include "vmm/reset.h"
#include "vmm/cr.h"

static void audit_after_fault(struct vcpu *v)
{
	char buf[160];
	unsigned errors = mmu_audit_incremental(&v->vm->mmu, buf, sizeof(buf));
	if (!errors)
		return;
	if (!v->vm->audit_errors)
		kprintf("[%s] MMU AUDIT: %u errors: %s\n", v->vm->name, errors, buf);
	v->vm->audit_errors += errors;
}

/* The instruction at RIP touched a write-protected guest page table (or MMIO): emulate it. */
static void emulate_access(struct vcpu *v, const struct vexit *x, const struct mmu_outcome *o)
{
	struct x86_insn insn;
	struct x86_emu_result res;

	if (x->vectoring) {
		/* The access was the CPU's own, delivering an event (pushing its frame onto a
		 * stack that shares a page with a page table, say): the instruction at RIP has
		 * not run and must not be emulated. Let the page be written natively and deliver
		 * the event again. */
		if (o->mmio) {
			console_flush(v->vm);
			kprintf("[%s] event delivery touched device memory at 0x%lx\n", v->vm->name,
				o->gpa);
			vm_end(v->vm, VM_END_FATAL, 0, "event delivery into device memory");
			return;
		}
		mmu_unshadow_gfn(&v->vm->mmu, o->gpa >> PAGE_SHIFT);
		return;
	}
	virt->read_segments_lazy(&v->hw);
	/* Under TF a REP string traps after every iteration: run one per exit. */
	v->hw.regs.max_reps = (v->hw.regs.rflags & RFLAGS_TF) ? 1 : 0;
	int r = x86_emulate_at_rip(&v->hw.regs, &gmem_emu_ops, &insn, &res);
	switch (r) {
	case X86_EMU_OK:
		if (res.seg_loaded)
			virt->write_segments(&v->hw);
		if (res.mov_ss) {
			virt->mov_ss_shadow(&v->hw);
			v->step_held = true;
		}
		v->step_iteration = res.rep_incomplete && res.reps;
		return;
	case X86_EMU_RETRY:
		return;
	case X86_EMU_FAULT:
		vcpu_inject_fault(v, &res.fault);
		return;
	default:
		if (o->mmio) {
			/* An instruction the emulator does not take (one 64-bit mode lacks, an
			 * SSE form beyond the moves...): the #UD, counted in the report, never
			 * an end. */
			v->vm->mmio_ud++;
			vcpu_inject_fault(v, &(struct x86_fault){ .vector = VEC_UD });
			return;
		}
		/* Not an instruction we emulate: stop shadowing the frame so the write runs
		 * natively, as the MMU would after a flood. */
		mmu_unshadow_gfn(&v->vm->mmu, o->gpa >> PAGE_SHIFT);
		v->vm->unemulated++;
		return;
	}
}

static void handle_page_fault(struct vcpu *v, const struct vexit *x)
{
	struct mmu_outcome o;
	u32 ec = (u32)x->error_code;

	if (v->hw.regs.rflags & RFLAGS_AC)
		ec |= MMU_ACCESS_AC;
	if (mmu_topup(&v->mmu) < 0 || mmu_page_fault(&v->mmu, x->addr, ec, &o) < 0) {
		vm_end(v->vm, VM_END_FATAL, 0, "out of shadow memory on a page fault");
		return;
	}
	switch (o.kind) {
	case MMU_FIXED:
		break;
	case MMU_INJECT:
		vcpu_inject_pf(v, o.error_code, o.cr2);
		break;
	case MMU_EMULATE:
		emulate_access(v, x, &o);
		break;
	}
	if (options.audit)
		audit_after_fault(v);
}

/* Nested paging: guest memory not mapped yet, or device memory to emulate. */
static void handle_nested_fault(struct vcpu *v, const struct vexit *x)
{
	switch (tdp_fault(&v->vm->tdp, x->addr)) {
	case TDP_FILLED:
	case TDP_MAPPED:
		return;
	case TDP_MMIO: {
		struct mmu_outcome o = { .kind = MMU_EMULATE, .gpa = x->addr, .mmio = true };
		emulate_access(v, x, &o);
		return;
	}
	case TDP_ENOMEM:
		vm_end(v->vm, VM_END_FATAL, 0, "out of memory for the nested page table");
		return;
	case TDP_EBROKEN:
		kprintf("[%s] nested fault again at mapped gpa 0x%lx (error 0x%lx)\n", v->vm->name,
			x->addr, x->error_code);
		vm_end(v->vm, VM_END_FATAL, 0, "nested fault loop");
		return;
	}
}

static void handle_invlpg(struct vcpu *v, const struct vexit *x)
{
	struct x86_insn insn;

	(void)x;
	if (vcpu_decode(v, &insn) < 0)
		return;
	if (insn.kind != X86_K_INVLPG) {
		vm_end(v->vm, VM_END_FATAL, 0, "INVLPG exit at another instruction");
		return;
	}
	mmu_invlpg(&v->mmu, insn.mem.linear);
	v->hw.regs.rip = x86_next_rip(&v->hw.regs, &insn);
}

/* Iterations of INS/OUTS done per exit: a long REP re-enters the guest in between, as an
 * interrupt would, so a guest cannot hold the CPU with one instruction. */
#define STRING_IO_BATCH 256

static void string_io(struct vcpu *v, const struct vexit *x)
{
	struct x86_emu_ctx *r = &v->hw.regs;
	struct x86_insn insn;
	struct x86_fault f;

	if (vcpu_decode(v, &insn) < 0)
		return;
	if (insn.kind != X86_K_INS && insn.kind != X86_K_OUTS) {
		vm_end(v->vm, VM_END_FATAL, 0, "string I/O exit at another instruction");
		return;
	}
	u64 amask = insn.addrsize == 8 ? ~0ull : insn.addrsize == 4 ? 0xffffffffull : 0xffffull;
	bool in = insn.kind == X86_K_INS;
	unsigned reg = in ? X86_RDI : X86_RSI;
	/* INS always writes ES:rDI; OUTS reads DS:rSI unless overridden. */
	unsigned seg = in ? X86_ES : insn.seg_override != X86_REG_NONE ? insn.seg_override : X86_DS;
	if (seg >= X86_FS)
		x86_segments_wanted(r, &gmem_emu_ops);
	u64 step = (r->rflags & RFLAGS_DF) ? -(u64)insn.io_size : insn.io_size;
	u64 count = insn.rep ? r->gpr[X86_RCX] & amask : 1;

	/* Under TF a REP string traps after every iteration: one per exit. */
	unsigned batch = (r->rflags & RFLAGS_TF) ? 1 : STRING_IO_BATCH;
	for (unsigned i = 0; i < batch && count; i++) {
		u64 linear = r->seg[seg].base + (r->gpr[reg] & amask);
		if (insn.mode != X86_MODE_64)
			linear = (u32)linear;
		u32 val = 0;
		int acc;
		if (in) {
			val = board_pio_in(v, x->port, insn.io_size);
			acc = gmem_emu_ops.write(r, linear, &val, insn.io_size, &f);
		} else {
			acc = gmem_emu_ops.read(r, linear, &val, insn.io_size, &f);
			if (acc == X86_ACC_OK)
				board_pio_out(v, x->port, insn.io_size, val);
		}
		if (acc == X86_ACC_FAULT) {
			vcpu_inject_pf(v, f.error_code, f.addr);
			return;
		}
		if (acc != X86_ACC_OK) {
			vm_end(v->vm, VM_END_FATAL, 0, "string I/O to memory Umbra cannot reach");
			return;
		}
		r->gpr[reg] = (r->gpr[reg] & ~amask) | ((r->gpr[reg] + step) & amask);
		count--;
		if (insn.rep)
			r->gpr[X86_RCX] = (r->gpr[X86_RCX] & ~amask) | (count & amask);
		if (vm_ended(v->vm))
			return; /* the result port ended the guest */
	}
	if (!count)
		r->rip = x86_next_rip(r, &insn);
	else
		v->step_iteration = true;
}

static void handle_io(struct vcpu *v, const struct vexit *x)
{
	u64 *rax = &v->hw.regs.gpr[X86_RAX];

	if (x->io_string) {
		string_io(v, x);
		return;
	}
	if (!vcpu_skip(v, x))
		return;
	if (x->io_in) {
		u32 val = board_pio_in(v, x->port, x->io_size);
		if (x->io_size == 4)
			*rax = val; /* a 32-bit result zero-extends into RAX */
		else if (x->io_size == 2)
			*rax = (*rax & ~0xffffull) | (val & 0xffff);
		else
			*rax = (*rax & ~0xffull) | (val & 0xff);
	} else {
		board_pio_out(v, x->port, x->io_size, (u32)*rax);
	}
}

static void handle_msr(struct vcpu *v, const struct vexit *x)
{
	struct x86_emu_ctx *r = &v->hw.regs;
	u32 msr = (u32)r->gpr[X86_RCX];
	bool ok;

	if (x->msr_write) {
		u64 val = (r->gpr[X86_RDX] << 32) | (u32)r->gpr[X86_RAX];
		ok = msr_write(v, msr, val);
	} else {
		u64 val;
		ok = msr_read(v, msr, &val);
		if (ok) {
			r->gpr[X86_RAX] = (u32)val;
			r->gpr[X86_RDX] = val >> 32;
		}
	}
	if (!ok) {
		if (!v->hw.pending.valid) /* unless the write itself already raised a fault */
			vcpu_inject_gp(v);
		return;
	}
	vcpu_skip(v, x);
}

static void handle_cpuid(struct vcpu *v, const struct vexit *x)
{
	u32 out[4];
	u64 *g = v->hw.regs.gpr;

	cpuid_guest(v, (u32)g[X86_RAX], (u32)g[X86_RCX], out);
	g[X86_RAX] = out[0];
	g[X86_RBX] = out[1];
	g[X86_RCX] = out[2];
	g[X86_RDX] = out[3];
	vcpu_skip(v, x);
}

/* A single-step trap is a debug exception, and a debug exception ends a halt (SDM: HLT; a VM
 * entry into the HLT state with BS pending delivers the #DB): a HLT run with TF takes its trap
 * at once, past the HLT, and the vCPU never waits. The debugger's own step does wait: gdb sees
 * the step end when the vCPU wakes. */
static void handle_hlt(struct vcpu *v, const struct vexit *x, u64 rflags)
{
	if (!vcpu_skip(v, x))
		return;
	if (!v->debug_step && virt_step_owed(rflags, v->hw.debugctl))
		return;
	vcpu_halt(v);
}

/* #BP and INT n are intercepted only for the gdb stub: one of its breakpoints stops the guest;
 * anything else is the guest's own, caught before it completed (RIP still at it) and given
 * to it as the instruction would have: a trap (#BP) or software interrupt past it. */
static void guest_int3(struct vcpu *v, const struct vexit *x)
{
	u8 op[2] = { 0xcc, 0 };

	virt->read_segments(&v->hw);
	u64 linear = v->hw.regs.seg[X86_CS].base + v->hw.regs.rip;
	if (!(v->hw.regs.efer & EFER_LMA))
		linear = (u32)linear;
	if (x->swint && gmem_debug_access(v, linear, op, 2, false) < 0 &&
	    gmem_debug_access(v, linear, op, 1, false) < 0) {
		vm_end(v->vm, VM_END_FATAL, 0, "INT n at an address that cannot be read");
		return;
	}
	if (op[0] == 0xcc && debug_exit(v, 3, 0))
		return;
	u64 rip = v->hw.regs.rip + (op[0] == 0xcc ? 1 : 2);
	v->hw.regs.rip = (v->hw.regs.efer & EFER_LMA) ? rip : (u32)rip;
	if (op[0] == 0xcc)
		vcpu_inject(v, VEC_BP, false, 0);
	else /* SVM delivers INT n from EVENTINJ with the RIP it holds: past the instruction */
		v->hw.pending = (struct vevent){
			.valid = true, .type = VEVENT_SOFT_INT, .vector = op[1], .insn_len = 2
		};
}

static void handle_exception(struct vcpu *v, const struct vexit *x)
{
	struct x86_insn insn;

	if (x->vector == VEC_UD) {
		/* The other vendor's hypercall instruction arrives as #UD: honour it. */
		int r = vcpu_decode(v, &insn);
		if (r == -1)
			return;
		if (r == 0 && (insn.kind == X86_K_VMCALL || insn.kind == X86_K_VMMCALL)) {
			v->exits[EXIT_HYPERCALL]++;
			pv_hypercall(v);
			if (!vm_ended(v->vm))
				v->hw.regs.rip = x86_next_rip(&v->hw.regs, &insn);
			return;
		}
	}
	if (x->vector == VEC_MC) {
		vm_end(v->vm, VM_END_FATAL, 0, "machine check");
		return;
	}
	if (x->vector == VEC_DB) {
		/* The monitor trap flag is only ever the debugger's: nothing for the guest. */
		if (!debug_exit(v, 1, x->mtf ? DR6_BS : x->dr6_set) && !x->mtf)
			vcpu_inject_db(v, x->dr6_set);
		return;
	}
	if (x->vector == VEC_BP) {
		guest_int3(v, x);
		return;
	}
	/* Anything else intercepted belongs to the guest. */
	vcpu_inject(v, x->vector, x->has_error, (u32)x->error_code);
}

/* Its first MOV DR: the guest gets its own debug registers, and the instruction runs again
 * natively (RIP has not moved). */
static void handle_dr_access(struct vcpu *v, const struct vexit *x)
{
	(void)x;
	if (v->debug_dr_own)
		vcpu_emulate_mov_dr(v);
	else
		vcpu_dr_activate(v);
}

/* Instructions that must not reach the CPU as the guest wrote them. INVD would drop dirty
 * cache lines of other guests' memory: it runs as WBINVD's no-op here (caches are coherent).
 * No performance counters are modelled, so RDPMC faults as with an invalid counter. */
static void handle_insn(struct vcpu *v, const struct vexit *x)
{
	switch (x->insn) {
	case VINSN_INVD:
	case VINSN_WBINVD:
		vcpu_skip(v, x);
		return;
	default:
		vcpu_inject_gp(v);
		return;
	}
}

static void handle_rdtscp(struct vcpu *v, const struct vexit *x)
{
	u64 tsc = rdtsc() + v->tsc_offset;
	v->hw.regs.gpr[X86_RAX] = (u32)tsc;
	v->hw.regs.gpr[X86_RDX] = tsc >> 32;
	v->hw.regs.gpr[X86_RCX] = (u32)v->hw.tsc_aux;
	vcpu_skip(v, x);
}

static void handle_hypercall(struct vcpu *v, const struct vexit *x)
{
	pv_hypercall(v);
	if (!vm_ended(v->vm))
		vcpu_skip_hypercall(v, x);
}

/* An instruction Umbra completed (RIP moved past it, nothing injected), or one iteration of a
 * REP string it ran, with RFLAGS.TF set at its start owes the guest the single-step trap the
 * CPU would have raised after it, unless DEBUGCTL.BTF asks for traps on branches only (none of
 * those is a branch). The debugger's step over a HLT ends when the vCPU wakes, not here. */
static void single_step_trap(struct vcpu *v, const struct vexit *x, u64 rip, u64 rflags)
{
	bool iteration = v->step_iteration, held = v->step_held;

	v->step_iteration = v->step_held = false;
	/* Most exits: no trap flag, no debugger step. */
	if (!(rflags & RFLAGS_TF) && !v->debug_step)
		return;
	if ((v->hw.regs.rip == rip && !iteration) || v->hw.pending.valid || vm_ended(v->vm) ||
	    (x->reason == EXIT_HLT && v->debug_step))
		return;
	/* The debugger's step (by TF or the monitor trap flag) ends with this instruction. */
	if (v->debug_step) {
		debug_exit(v, 1, DR6_BS);
		return;
	}
	if (virt_step_owed(rflags, v->hw.debugctl) && !held)
		vcpu_inject_db(v, DR6_BS);
}

/* Exits whose handlers reach no device but through board_mmio_* or CR8 (which say so
 * themselves): after them a vCPU's interrupts stay as they were. A hypercall says so for itself
 * (pv_hypercall: all but the MMU calls and VERSION). Any other exit (I/O, MSRs, host
 * interrupts, HLT...) may change them, for every vCPU of the guest. */
static bool exit_leaves_devices(unsigned reason)
{
	return reason == EXIT_CR_ACCESS || reason == EXIT_PAGE_FAULT ||
	       reason == EXIT_NESTED_FAULT || reason == EXIT_INVLPG || reason == EXIT_CPUID ||
	       reason == EXIT_HYPERCALL;
}

void exit_handle(struct vcpu *v, const struct vexit *x)
{
	u64 rip = v->hw.regs.rip, rflags = v->hw.regs.rflags;

	/* An event that emulation delivers (real mode's IVT) is no instruction: it owes no trap. */
	if (x->reason == EXIT_EMULATE && v->hw.pending.valid)
		rflags &= ~(u64)RFLAGS_TF;
	bootprof_exit(v, x);
	if (!exit_leaves_devices(x->reason)) {
		vm_devices_touched(v->vm);
		pv_eoi_settle(v); /* the handler may read or change the local APIC */
	}
	v->exits[x->reason < EXIT_REASONS ? x->reason : EXIT_OTHER]++;
	v->exits_total++;
	/* log=debug traces each guest's first exits: enough to see a bring-up go wrong. */
	if (log_level >= LOG_DEBUG && v->exits_total <= 64)
		kprintf("[%s] exit %lu: reason %u code 0x%lx info1 0x%lx info2 0x%lx rip 0x%lx\n",
			v->vm->name, v->exits_total, x->reason, x->raw_code, x->raw_info1,
			x->raw_info2, v->hw.regs.rip);

	switch (x->reason) {
	case EXIT_PAGE_FAULT:
		handle_page_fault(v, x);
		break;
	case EXIT_NESTED_FAULT:
		handle_nested_fault(v, x);
		break;
	case EXIT_CR_ACCESS:
		vcpu_cr_access(v, x);
		break;
	case EXIT_INVLPG:
		handle_invlpg(v, x);
		break;
	case EXIT_HYPERCALL:
		handle_hypercall(v, x);
		break;
	case EXIT_IO:
		handle_io(v, x);
		break;
	case EXIT_MSR:
		handle_msr(v, x);
		break;
	case EXIT_CPUID:
		handle_cpuid(v, x);
		break;
	case EXIT_HLT:
		handle_hlt(v, x, rflags);
		break;
	case EXIT_RDTSCP:
		handle_rdtscp(v, x);
		break;
	case EXIT_DR_ACCESS:
		handle_dr_access(v, x);
		break;
	case EXIT_INSN:
		handle_insn(v, x);
		break;
	case EXIT_EXCEPTION:
		handle_exception(v, x);
		break;
	case EXIT_EMULATE:
		realmode_exit(v, x);
		break;
	case EXIT_INTR:
	case EXIT_PREEMPT:
	case EXIT_NMI:
	case EXIT_IRQ_WINDOW: /* the next entry injects */
		break;
	case EXIT_SHUTDOWN:
		vm_triple_fault(v, "triple fault");
		break;
	case EXIT_INVALID:
		/* The backend's own entry checks (audit=1) name the rule; the CPU's refusal does
		 * not always. */
		if (x->refused) {
			console_flush(v->vm);
			kprintf("[%s] %s entry check: %s (rip 0x%lx)\n", v->vm->name, virt->name,
				x->refused, v->hw.regs.rip);
		}
		vm_end(v->vm, VM_END_FATAL, 0,
		       x->refused ? x->refused
				  : "the CPU refused the guest state (invalid VMCB/VMCS)");
		break;
	default:
		/* Only an exit the backend's list refuses comes here (vmx_exits.h, svm_exits.h):
		 * one Umbra never enables, or cannot complete. */
		console_flush(v->vm);
		kprintf("[%s] %s exit 0x%lx refused: %s (info1 0x%lx info2 0x%lx rip 0x%lx)\n",
			v->vm->name, virt->name, x->raw_code,
			x->refused ? x->refused : "no row in the backend's list", x->raw_info1,
			x->raw_info2, v->hw.regs.rip);
		vm_end(v->vm, VM_END_FATAL, 0, "exit refused");
		break;
	}
	single_step_trap(v, x, rip, rflags);
}
