/* SPDX-License-Identifier: GPL-2.0-only */
/* The SVM world switch's interface (svm_entry.S): its flags, for C and assembly. */
#ifndef ARCH_X86_SVM_ENTRY_H
#define ARCH_X86_SVM_ENTRY_H

#define SVM_SWITCH_SHADOW 1 /* the guest enters inside an STI/MOV SS shadow */
#define SVM_SWITCH_VMLOAD 2 /* the CPU does not hold the guest's VMLOAD set: load it first */

#ifndef __ASSEMBLY__
#include "lib/types.h"

/* Runs the guest once. Between exits the guest's GS base waits in *guest_gs_base and the
 * CPU's is host_gs_base (the per-CPU pointer). */
void svm_world_switch(u64 vmcb_pa, u64 *gpr, u64 flags, u64 *guest_gs_base, u64 host_gs_base);
#endif

#endif
