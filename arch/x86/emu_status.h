/* SPDX-License-Identifier: GPL-2.0-only */
/* What an emulation step returns: shared by the emulator and the segment-load checks it calls. */
#ifndef ARCH_X86_EMU_STATUS_H
#define ARCH_X86_EMU_STATUS_H

enum x86_emu_status {
	X86_EMU_OK = 0,	   /* registers, flags and RIP updated in ctx */
	X86_EMU_UNHANDLED, /* nothing changed: the caller unshadows the frame and retries natively */
	X86_EMU_FAULT, /* res->fault to inject; RIP unchanged (string ops keep finished iterations) */
	X86_EMU_RETRY, /* a LOCKed update lost a race: nothing changed, resume the guest as is */
};

#endif
