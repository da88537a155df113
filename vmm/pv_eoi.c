/* SPDX-License-Identifier: GPL-2.0-only */
/* KVM's paravirtual EOI, offered with the KVM clock: most of a Linux guest's EOI writes, one x2APIC MSR exit each, become a cleared bit that Umbra notices at the next exit. */
#include "vmm/pv_eoi.h"
#include "mmu/mmu.h"
#include "vmm/vm.h"

#define ENABLE 1ull
#define FLAG 1u /* bit 0 of the guest's word: "EOI by clearing me" */

static u64 flag_gpa(const struct vcpu *v)
{
	return v->pv_eoi_msr & ~ENABLE;
}

/* One byte, as KVM writes it: the guest's word is its own per-CPU variable, and the flag's
 * byte is all Umbra may touch of it. Through the MMU, in case the page is shadowed. */
static void put_flag(struct vcpu *v, u8 val)
{
	mmu_write(&v->vm->mmu, flag_gpa(v), 1, val);
}

bool pv_eoi_msr_write(struct vcpu *v, u64 val)
{
	if (val & 2)
		return false;
	if ((val & ENABLE) && !memslots_ptr(&v->vm->mem, val & ~ENABLE, 4))
		return false;
	pv_eoi_settle(v); /* an EOI the old word holds is the guest's, done before it moves */
	v->pv_eoi_msr = val;
	return true;
}

u64 pv_eoi_msr_read(const struct vcpu *v)
{
	return v->pv_eoi_msr;
}

void pv_eoi_settle(struct vcpu *v)
{
	if (!v->pv_eoi_armed)
		return;
	v->pv_eoi_armed = false;
	const u8 *flag = memslots_ptr(&v->vm->mem, flag_gpa(v), 1);
	if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) & FLAG) {
		put_flag(v, 0); /* not EOIed yet: Umbra's view is the APIC's again */
		return;
	}
	vlapic_eoi(&v->vlapic);
	v->pv_eoi_taken++;
}

void pv_eoi_arm(struct vcpu *v)
{
	if (!(v->pv_eoi_msr & ENABLE) || v->pv_eoi_armed || vlapic_lazy_eoi_vector(&v->vlapic) < 0)
		return;
	put_flag(v, FLAG);
	v->pv_eoi_armed = true;
	v->pv_eoi_offered++;
}

void pv_eoi_reset(struct vcpu *v)
{
	if (v->pv_eoi_armed)
		put_flag(v, 0);
	v->pv_eoi_armed = false;
	v->pv_eoi_msr = 0;
}
