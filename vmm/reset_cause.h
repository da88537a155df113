/* SPDX-License-Identifier: GPL-2.0-only */
/* Why a guest was reset, which struct vm counts, and how many restarts it may make. */
#ifndef VMM_RESET_CAUSE_H
#define VMM_RESET_CAUSE_H

/* How a guest asked to be reset, for its report: X(NAME, what the report says). */
#define VM_RESET_LIST(X) \
	X(KBC, "8042") /* the keyboard controller's reset line (0xFE to port 0x64) */ \
	X(RCR, "cf9")  /* port 0xCF9, which the FADT's reset register names */ \
	X(TRIPLE_FAULT, "triple-fault")
#define VM_RESET_ENUM_(name, text) VM_RESET_##name,
enum vm_reset { VM_RESET_LIST(VM_RESET_ENUM_) VM_RESET_CAUSES };
#undef VM_RESET_ENUM_

/* Restarts a guest may make before a reboot ends it as a reboot loop (reboots=N). */
#define VM_REBOOTS_DEFAULT 8

#endif
