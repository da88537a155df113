/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest memory as the guest's own code would see it: by virtual address, through its paging. */
#ifndef VMM_GMEM_H
#define VMM_GMEM_H

#include "lib/types.h"
#include "arch/x86/emulate.h"

struct vcpu;

/* The emulator's memory operations for a vCPU (ctx->opaque is the struct vcpu). */
extern const struct x86_emu_ops gmem_emu_ops;

/* Copies between a guest-virtual buffer and the host, page by page, with the guest's rights
 * at its current CPL (user = the access is checked as a user-mode one). 0, or -1 on a fault. */
int gmem_read_virt(struct vcpu *v, u64 gva, void *buf, u64 len, bool user);
int gmem_write_virt(struct vcpu *v, u64 gva, const void *buf, u64 len, bool user);

/* The 4 bytes at CS:RIP (code size mode), read as the CPU fetched them, if they are RAM on one
 * page within CS's limit (true); false otherwise, faults included: the caller then decodes the
 * slow way, which reports them. */
bool gmem_code_at_rip(struct vcpu *v, enum x86_mode mode, u8 code[4]);

/* The debugger's view (gdb stub, monitor): RAM mapped at gva, read or written regardless of the
 * page's rights; 0, or -1 if any byte is unmapped or not RAM (nothing is then written). */
int gmem_debug_access(struct vcpu *v, u64 gva, void *buf, u64 len, bool write);

#endif
