/* SPDX-License-Identifier: GPL-2.0-only */
/* IPIs between a guest's vCPUs: delivery by mode, the kick out of guest mode, AP start-up. */
#include "vmm/ipi.h"
#include "arch/x86/lapic.h"
#include "arch/x86/percpu.h"
#include "arch/x86/regs.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "vmm/flat32.h"
#include "vmm/pv_eoi.h"
#include "vmm/vm.h"

void ipi_kick(struct vcpu *v)
{
	if (v->cpu != (u32)this_cpu_index())
		lapic_send_fixed(percpus[v->cpu].apic_id, KICK_VECTOR);
}

/* INIT: the vCPU stops wherever it was and waits for a SIPI, its APIC back at power-on. The
 * BSP's INIT would reset the whole machine, which the board does not model: dropped. */
bool ipi_init_signal(struct vcpu *t)
{
	if (t->id == 0) {
		kdebug("guest %s: INIT to the BSP dropped\n", t->vm->name);
		return false;
	}
	pv_eoi_reset(t);
	vlapic_init_signal(&t->vlapic);
	t->halted = t->blocking = false;
	t->nmi_pending = false;
	t->irq_vector = 0;
	t->timer_deadline = 0;
	t->hw.pending.valid = false;
	__atomic_store_n(&t->power, VCPU_WAIT_SIPI, __ATOMIC_RELEASE);
	return true;
}

/* Its own CPU builds the control structure from these registers (vmm/sched.c). */
static void start(struct vcpu *t)
{
	__atomic_store_n(&t->power, VCPU_STARTING, __ATOMIC_RELEASE);
}

/* SIPI: real mode at CS = vector << 8, IP = 0, as after INIT on hardware. Ignored unless the
 * vCPU waits for one. */
static bool sipi(struct vcpu *t, u8 vector)
{
	struct x86_emu_ctx *r = &t->hw.regs;
	void *opaque = r->opaque;

	if (t->power != VCPU_WAIT_SIPI)
		return false;
	memset(r, 0, sizeof(*r));
	r->opaque = opaque;
	r->rflags = 0x2;
	r->cr0 = CR0_ET | CR0_CD | CR0_NW;
	for (int s = 0; s < X86_NR_SREGS; s++)
		r->seg[s] = (struct x86_seg){ .base = 0, .limit = 0xffff, .sel = 0, .attr = 0x93 };
	r->seg[X86_CS] = (struct x86_seg){
		.base = (u64)vector << 12, .limit = 0xffff, .sel = (u16)(vector << 8), .attr = 0x9b
	};
	start(t);
	return true;
}

void vcpu_start_flat32(struct vcpu *t, u32 eip, u32 esp, u32 arg)
{
	flat32_state(&t->hw.regs, eip, t->id, arg);
	t->hw.regs.gpr[X86_RSP] = esp;
	start(t);
}

void ipi_send(void *ctx, u32 lo, u32 dest)
{
	struct vcpu *src = ctx;
	struct vm *vm = src->vm;
	u32 mode = vlapic_icr_mode(lo);

	for (u32 i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *t = &vm->vcpus[i];
		if (!vlapic_ipi_reaches(&src->vlapic, &t->vlapic, lo, dest))
			continue;
		switch (mode) {
		case VLAPIC_DM_FIXED:
		case VLAPIC_DM_LOWEST:
			vlapic_set_irq(&t->vlapic, (u8)lo, false);
			break;
		case VLAPIC_DM_NMI:
			t->nmi_pending = true;
			break;
		case VLAPIC_DM_INIT:
			/* INIT level de-assert only synchronised arbitration IDs on old CPUs. */
			if ((lo & VLAPIC_ICR_TRIGGER_LEVEL) && !(lo & VLAPIC_ICR_LEVEL_ASSERT))
				continue;
			if (!ipi_init_signal(t))
				continue;
			break;
		case VLAPIC_DM_SIPI:
			if (!sipi(t, (u8)lo))
				continue;
			break;
		default: /* SMI and the reserved modes: nothing here takes them */
			continue;
		}
		vm->ipis++;
		if (t != src)
			ipi_kick(t);
		if (mode == VLAPIC_DM_LOWEST)
			break; /* one of them: the first, as an arbitration may pick */
	}
}
