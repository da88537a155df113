/* SPDX-License-Identifier: GPL-2.0-only */
/* Remote TLB flushes: a vCPU's flush request, the kick out of guest mode, and the wait for it. */
#ifndef VMM_REMOTE_FLUSH_H
#define VMM_REMOTE_FLUSH_H

#include "lib/types.h"

struct vcpu;
struct vm;

/* Under vm->lock: v flushes its whole TLB before it next runs guest code. A vCPU in guest
 * mode on another CPU is kicked out of it, and vm_unlock waits until it has left. */
void remote_flush_request(struct vcpu *v);
/* Under vm->lock, before it is dropped: every vCPU kicked by remote_flush_request has left
 * guest mode (it flushes before it enters again). Takes no lock: leaving guest mode needs none. */
void remote_flush_wait(struct vm *vm);
/* On the vCPU's own CPU, interrupts off, just before the world switch: publishes that it is in
 * guest mode, then looks for requests. False (mode back to outside) if one came since the
 * lock was dropped: the caller goes round again under the lock (a root may be gone). */
bool remote_flush_enter_guest(struct vcpu *v);
/* Just after the world switch, before anything else: no longer in guest mode. */
void remote_flush_exit_guest(struct vcpu *v);

#endif
