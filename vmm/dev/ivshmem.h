/* SPDX-License-Identifier: GPL-2.0-only */
/* The ivshmem PCI function's registers (BAR0) and MSI-X (BAR1), as QEMU's ivshmem-doorbell has them. */
#ifndef VMM_DEV_IVSHMEM_H
#define VMM_DEV_IVSHMEM_H

#include "lib/types.h"
#include "vmm/dev/msix.h"

/*
 * BAR0 is 256 bytes of 32-bit registers: the interrupt mask (read-write), the interrupt status
 * (read clears it; a write sets it, as QEMU's does), the guest's own peer number (read-only) and
 * the doorbell (write-only: peer << 16 | vector). Every other offset reads 0 and ignores writes;
 * a narrower access reads or writes the low bytes of its register (offset rounded down to 4).
 * BAR1 holds the MSI-X table (one entry per doorbell vector, at 0) and its pending bits (at
 * 0x800); BAR2 is the shared memory itself, mapped into the guest (the model never sees it).
 *
 * A doorbell that arrives (ivshmem_notify) is vector v's MSI-X message while MSI-X is enabled:
 * sent if neither its entry nor the function is masked, else its pending bit is set until they
 * are unmasked (PCI 3.0, 6.8.3.5). With MSI-X off it is INTx: status bit 0, and INTA asserted
 * while status & mask is non-zero.
 */
#define IVSHMEM_VENDOR 0x1af4u
#define IVSHMEM_DEVICE 0x1110u
#define IVSHMEM_CLASS_REV 0x05000001u /* memory controller, "other"; revision 1 */
#define IVSHMEM_BAR0_SIZE 256u
#define IVSHMEM_BAR1_SIZE 4096u
#define IVSHMEM_VECTORS 16u
#define IVSHMEM_PBA 0x800u

enum {
	IVSHMEM_INTR_MASK = 0x00,
	IVSHMEM_INTR_STATUS = 0x04,
	IVSHMEM_IVPOSITION = 0x08,
	IVSHMEM_DOORBELL = 0x0c
};

/* The MSI-X capability in its configuration space (at IVSHMEM_MSIX_CAP, alone in the list):
 * Message Control's enable and function mask are the guest's, the rest reads as built. */
#define IVSHMEM_MSIX_CAP 0x40u

struct ivshmem {
	u32 mask;
	u32 status;
	u32 ivposition;
	struct msix msix; /* its table and pending bits (vmm/dev/msix.c) */
	struct msix_entry table[IVSHMEM_VECTORS];
	/* The doorbell register was written: ring peer's vector (the host checks both). */
	void (*ring)(void *ctx, u16 peer, u16 vector);
	/* Send an MSI-X message (the host decodes and delivers it). */
	void (*msi)(void *ctx, u64 addr, u32 data);
	void *ctx;
};

/* Power-on: mask, status, MSI-X off, every entry masked (as PCI requires at reset). */
void ivshmem_reset(struct ivshmem *d, u32 ivposition, void (*ring)(void *, u16, u16),
		   void (*msi)(void *, u64, u32), void *ctx);
/* BAR0 (bar 0) and BAR1 (bar 1) accesses of 1-4 bytes. */
u32 ivshmem_read(struct ivshmem *d, unsigned bar, u64 off, unsigned len);
void ivshmem_write(struct ivshmem *d, unsigned bar, u64 off, unsigned len, u32 val);
/* The capability's dwords (reg from IVSHMEM_MSIX_CAP, dword-aligned); bytes: which the guest
 * wrote (bit i: byte i), val the dword merged. */
u32 ivshmem_cap_read(const struct ivshmem *d, u16 reg);
void ivshmem_cap_write(struct ivshmem *d, u16 reg, u32 val, unsigned bytes);
/* A peer rang this guest's doorbell vector. */
void ivshmem_notify(struct ivshmem *d, unsigned vector);
bool ivshmem_intx(const struct ivshmem *d);

#endif
