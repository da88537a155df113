/* SPDX-License-Identifier: GPL-2.0-only */
/* KVM's paravirtual EOI: a guest that has registered a flag word EOIs an edge interrupt by clearing it, without an exit. */
#ifndef VMM_PV_EOI_H
#define VMM_PV_EOI_H

#include "lib/types.h"

struct vcpu;

#define MSR_KVM_PV_EOI_EN 0x4b564d04u
#define KVM_FEATURE_PV_EOI (1u << 6) /* in KVM_CPUID_FEATURES EAX */

/* The MSR: bit 0 enables, bits 63:2 are the flag word's guest-physical address. false means
 * #GP (bit 1 set; enabled with a word not wholly in the guest's RAM), as KVM answers. */
bool pv_eoi_msr_write(struct vcpu *v, u64 val);
u64 pv_eoi_msr_read(const struct vcpu *v);
/* Before Umbra looks at or changes the vCPU's local APIC: if the flag was set at the last
 * entry, the guest's clearing it was its EOI, done now; a flag still set is taken back. */
void pv_eoi_settle(struct vcpu *v);
/* At entry, after interrupt delivery: sets the flag when the guest may EOI its highest
 * in-service interrupt lazily (edge-triggered, nothing waiting in the IRR; KVM's rule). */
void pv_eoi_arm(struct vcpu *v);
/* INIT or reset: off, the flag taken back if set. */
void pv_eoi_reset(struct vcpu *v);

#endif
