/* SPDX-License-Identifier: GPL-2.0-only */
/* The IDT and Umbra's own exception handling: every exception is dumped and fails the run. */
#ifndef ARCH_X86_TRAPS_H
#define ARCH_X86_TRAPS_H

#include "lib/types.h"

struct trap_frame {
	u64 r15, r14, r13, r12, r11, r10, r9, r8;
	u64 rbp, rdi, rsi, rdx, rcx, rbx, rax;
	u64 vector, error_code;
	u64 rip, cs, rflags, rsp, ss;
};

void idt_init(void);
void idt_load(void);
void trap_handler(struct trap_frame *f);
/* Prints return addresses by walking the frame-pointer chain from rbp. */
void backtrace_from(u64 rbp);

#endif
