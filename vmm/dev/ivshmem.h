/* SPDX-License-Identifier: GPL-2.0-only */
/* The ivshmem PCI function's registers (BAR0) as QEMU's ivshmem-doorbell has them, INTx mode. */
#ifndef VMM_DEV_IVSHMEM_H
#define VMM_DEV_IVSHMEM_H

#include "lib/types.h"

/*
 * BAR0 is 256 bytes of 32-bit registers: the interrupt mask (read-write), the interrupt status
 * (read clears it; a write sets it, as QEMU's does), the guest's own peer number (read-only) and
 * the doorbell (write-only: peer << 16 | vector). Every other offset reads 0 and ignores writes;
 * a narrower access reads or writes the low bytes of its register (offset rounded down to 4).
 * INTA is asserted while status & mask is non-zero. BAR2 is the shared memory itself, mapped
 * into the guest; the model never sees it.
 */
#define IVSHMEM_VENDOR 0x1af4u
#define IVSHMEM_DEVICE 0x1110u
#define IVSHMEM_CLASS_REV 0x05000001u /* memory controller, "other"; revision 1 */
#define IVSHMEM_BAR0_SIZE 256u

enum { IVSHMEM_INTR_MASK = 0x00, IVSHMEM_INTR_STATUS = 0x04, IVSHMEM_IVPOSITION = 0x08,
       IVSHMEM_DOORBELL = 0x0c };

struct ivshmem {
	u32 mask;
	u32 status;
	u32 ivposition;
	/* The doorbell register was written: ring peer's vector (the host checks both). */
	void (*ring)(void *ctx, u16 peer, u16 vector);
	void *ctx;
};

/* Power-on: mask and status clear. */
void ivshmem_reset(struct ivshmem *d, u32 ivposition, void (*ring)(void *, u16, u16), void *ctx);
u32 ivshmem_read(struct ivshmem *d, u64 off, unsigned len);
void ivshmem_write(struct ivshmem *d, u64 off, unsigned len, u32 val);
/* An interrupt arrived for this guest (a peer rang it): status bit 0, as QEMU's INTx mode. */
void ivshmem_notify(struct ivshmem *d);
bool ivshmem_intx(const struct ivshmem *d);

#endif
