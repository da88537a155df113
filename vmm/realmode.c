/* SPDX-License-Identifier: GPL-2.0-only */
/* Real-mode guests on a backend that runs them in virtual-8086 mode: emulation and IVT delivery. */
#include "vmm/realmode.h"
#include "arch/x86/realmode.h"
#include "arch/x86/regs.h"
#include "lib/printf.h"
#include "vmm/console.h"
#include "vmm/gmem.h"
#include "vmm/msr.h"
#include "vmm/vcpu.h"
#include "vmm/board.h"
#include "vmm/cr.h"

static int rm_write_cr(struct x86_emu_ctx *ctx, unsigned cr, u64 val)
{
	struct vcpu *v = ctx->opaque;
	bool ok = true;

	switch (cr) {
	case 0:
		ok = vcpu_set_cr0(v, val);
		break;
	case 2:
		ctx->cr2 = val;
		virt->set_cr2(&v->hw, val);
		break;
	case 3:
		ok = vcpu_set_cr3(v, val);
		break;
	case 4:
		ok = vcpu_set_cr4(v, val);
		break;
	default:
		vcpu_inject_ud(v);
		ok = false;
		break;
	}
	return ok ? 0 : -1;
}

static int rm_io(struct x86_emu_ctx *ctx, u16 port, unsigned size, bool in, u32 *val)
{
	struct vcpu *v = ctx->opaque;

	if (in)
		*val = board_pio_in(v, port, size);
	else
		board_pio_out(v, port, size, *val);
	return 0;
}

static int rm_halt(struct x86_emu_ctx *ctx)
{
	vcpu_halt(ctx->opaque);
	return 0;
}

/* As the MSR exit does: the policy's #GP for what it refuses. */
static int rm_msr(struct x86_emu_ctx *ctx, u32 msr, bool write, u64 *val)
{
	struct vcpu *v = ctx->opaque;

	if (write ? msr_write(v, msr, *val) : msr_read(v, msr, val))
		return 0;
	if (!v->hw.pending.valid)
		vcpu_inject_gp(v);
	return -1;
}

static const struct x86_sys_ops rm_sys_ops = {
	.write_cr = rm_write_cr,
	.io = rm_io,
	.halt = rm_halt,
	.msr = rm_msr,
};

static void stop(struct vcpu *v, const char *what, const char *why)
{
	const struct x86_emu_ctx *r = &v->hw.regs;
	u8 b[4] = { 0 };

	gmem_debug_access(v, (u32)(r->seg[X86_CS].base + r->rip), b, sizeof(b), false);
	console_flush(v->vm);
	kprintf("[%s] %s mode: %s at %04x:%04lx (bytes %02x %02x %02x %02x)\n", v->vm->name,
		(r->cr0 & CR0_PE) ? "protected" : "real", what, r->seg[X86_CS].sel, r->rip, b[0],
		b[1], b[2], b[3]);
	vm_end(v->vm, VM_END_FATAL, 0, why);
}

/* The pending event through the IVT. A fault on the way (the table's limit, the stack)
 * combines with it as on hardware: #DF, then a triple fault. */
static void deliver(struct vcpu *v)
{
	struct vevent e = v->hw.pending;
	u64 ip = v->hw.regs.rip;
	struct x86_fault f;

	if (e.type == VEVENT_SOFT_INT || e.type == VEVENT_SOFT_EXC ||
	    e.type == VEVENT_PRIV_SOFT_EXC)
		ip += e.insn_len; /* RIP is still on the INT instruction */
	int rc = x86_realmode_deliver(&v->hw.regs, &gmem_emu_ops, e.vector, ip, &f);
	if (rc == X86_EMU_OK) {
		v->hw.pending.valid = false;
		virt->write_segments(&v->hw);
	} else if (rc == X86_EMU_FAULT) {
		vcpu_inject_fault(v, &f);
	} else {
		stop(v, "interrupt vector table or stack outside RAM",
		     "real-mode event delivery failed");
	}
}

/*
 * STI opened interrupts, or MOV SS / POP SS started its shadow: the CPU takes none before the
 * next instruction is done ("sti; hlt" waits for one, "sti; ret" returns first, "mov ss; mov
 * sp" switches stacks whole). The emulated instruction left the CPU no shadow, so the next
 * instruction is emulated here too; one the emulator does not know runs natively (and an
 * interrupt may then come one instruction early).
 */
static void sti_shadow(struct vcpu *v)
{
	struct x86_emu_result res;
	struct x86_insn insn;

	if (vm_ended(v->vm) || v->hw.pending.valid)
		return;
	switch (x86_emulate_sys(&v->hw.regs, &gmem_emu_ops, &rm_sys_ops, false, &insn, &res)) {
	case X86_EMU_OK:
		virt->write_segments(&v->hw);
		return;
	case X86_EMU_FAULT:
		vcpu_inject_fault(v, &res.fault);
		return;
	default:
		return;
	}
}

void realmode_exit(struct vcpu *v, const struct vexit *x)
{
	struct x86_emu_ctx *r = &v->hw.regs;
	struct x86_emu_result res;
	struct x86_insn insn;

	virt->read_segments(&v->hw);
	if (v->hw.pending.valid) {
		if (!(r->cr0 & CR0_PE)) {
			deliver(v);
			return;
		}
		/* The guest's mode switch faulted before its segments were valid again. */
		stop(v, "an event before the segments are valid", "event during a mode switch");
		return;
	}
	bool if_was = r->rflags & RFLAGS_IF;
	switch (x86_emulate_sys(r, &gmem_emu_ops, &rm_sys_ops, x->emulate_gp, &insn, &res)) {
	case X86_EMU_OK:
		virt->write_segments(&v->hw);
		if ((!if_was && (r->rflags & RFLAGS_IF) && insn.map == 0 && insn.opcode == 0xfb) ||
		    res.mov_ss)
			sti_shadow(v);
		return;
	case X86_EMU_RETRY: /* the fault is injected already */
		return;
	case X86_EMU_FAULT:
		vcpu_inject_fault(v, &res.fault);
		return;
	default:
		stop(v, "cannot emulate the instruction", "instruction Umbra cannot emulate");
		return;
	}
}
