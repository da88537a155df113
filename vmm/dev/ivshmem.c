/* SPDX-License-Identifier: GPL-2.0-only */
/* The ivshmem function's register file: interrupt mask and status, peer number, doorbell. */
#include "vmm/dev/ivshmem.h"

void ivshmem_reset(struct ivshmem *d, u32 ivposition, void (*ring)(void *, u16, u16), void *ctx)
{
	*d = (struct ivshmem){ .ivposition = ivposition, .ring = ring, .ctx = ctx };
}

static u32 low_bytes(u32 val, unsigned len)
{
	return len >= 4 ? val : val & ((1u << (8 * len)) - 1);
}

u32 ivshmem_read(struct ivshmem *d, u64 off, unsigned len)
{
	u32 val;
	switch (off & ~3ull) {
	case IVSHMEM_INTR_MASK:
		val = d->mask;
		break;
	case IVSHMEM_INTR_STATUS:
		/* Reading acknowledges: the driver's handler reads it once per interrupt. */
		val = d->status;
		d->status = 0;
		break;
	case IVSHMEM_IVPOSITION:
		val = d->ivposition;
		break;
	default:
		val = 0;
	}
	return low_bytes(val, len);
}

void ivshmem_write(struct ivshmem *d, u64 off, unsigned len, u32 val)
{
	val = low_bytes(val, len);
	switch (off & ~3ull) {
	case IVSHMEM_INTR_MASK:
		d->mask = val;
		break;
	case IVSHMEM_INTR_STATUS:
		d->status = val;
		break;
	case IVSHMEM_DOORBELL:
		d->ring(d->ctx, (u16)(val >> 16), (u16)val);
		break;
	default:
		break;
	}
}

void ivshmem_notify(struct ivshmem *d)
{
	d->status |= 1;
}

bool ivshmem_intx(const struct ivshmem *d)
{
	return (d->status & d->mask) != 0;
}
