/* SPDX-License-Identifier: GPL-2.0-only */
/* What exit handlers do to a vCPU: skip the instruction, inject, change paging, end. */
#ifndef VMM_VCPU_H
#define VMM_VCPU_H

#include "vmm/vm.h"

/* Moves RIP past the exiting instruction (decoding it when the hardware gave no length).
 * False if it could not be decoded: the handler then ends the guest. */
bool vcpu_skip(struct vcpu *v, const struct vexit *x);
/* The same at a hypercall exit: its unprefixed VMCALL/VMMCALL is recognised from the bytes at
 * RIP, read as vcpu_decode_cr reads them, without the general decoder. */
bool vcpu_skip_hypercall(struct vcpu *v, const struct vexit *x);
void vcpu_inject(struct vcpu *v, u8 vector, bool has_error, u32 error_code);
void vcpu_inject_pf(struct vcpu *v, u32 error_code, u64 cr2);
/* A fault the decoder or emulator reported (#PF with its address). */
void vcpu_inject_fault(struct vcpu *v, const struct x86_fault *f);
static inline void vcpu_inject_gp(struct vcpu *v)
{
	vcpu_inject(v, VEC_GP, true, 0);
}
static inline void vcpu_inject_ud(struct vcpu *v)
{
	vcpu_inject(v, VEC_UD, false, 0);
}
/* Decodes the instruction at RIP (segments read first). 0, or <0 after injecting a fetch fault
 * (-1) or when it cannot be decoded (-2). */
int vcpu_decode(struct vcpu *v, struct x86_insn *insn);
/* The same at a CR access exit: MOV CR's common form skips the general decoder. The decoded
 * instruction (in buf, or kept by the vCPU for the next time), or NULL as vcpu_decode's <0. */
const struct x86_insn *vcpu_decode_cr(struct vcpu *v, struct x86_insn *buf);

/* The guest touched a debug register: from now on its DR0-DR3 and DR6 are switched with it
 * and MOV DR runs natively. Call on the vCPU's CPU. */
void vcpu_dr_activate(struct vcpu *v);
/* The debugger takes (own) or gives back the debug registers: while it has them the CPU runs
 * with its DR0-DR3 (dr) and DR7 (dr7), and the guest's own stay aside, read and written by its
 * MOV DR (emulated, vcpu_emulate_mov_dr) and given back unchanged. Call on the vCPU's CPU. */
void vcpu_dr_debugger(struct vcpu *v, bool own, const u64 dr[4], u64 dr7);
void vcpu_emulate_mov_dr(struct vcpu *v);
/* Injects #DB as the CPU would deliver it: DR6 gains dr6_set (breakpoint hits B0-B3 replace the
 * old ones), and DR7.GD is cleared. Call on the vCPU's CPU. */
void vcpu_inject_db(struct vcpu *v, u64 dr6_set);
/* Puts its DR0-DR3 and DR6 into this CPU (unless there already), and keeps them while the CPU
 * runs others: around each turn of a vCPU whose debug registers are switched (vmm/run.c). */
void vcpu_dr_load(struct vcpu *v);
void vcpu_dr_save(struct vcpu *v);

/* HLT done (RIP past it): the vCPU waits for an interrupt, or the guest ends if none can come. */
void vcpu_halt(struct vcpu *v);

#endif
