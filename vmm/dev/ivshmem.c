/* SPDX-License-Identifier: GPL-2.0-only */
/* The ivshmem function's registers: interrupt mask and status, peer number, doorbell, MSI-X. */
#include "vmm/dev/ivshmem.h"
#include "lib/string.h"

void ivshmem_reset(struct ivshmem *d, u32 ivposition, void (*ring)(void *, u16, u16),
		   void (*msi)(void *, u64, u32), void *ctx)
{
	*d = (struct ivshmem){ .ivposition = ivposition, .ring = ring, .msi = msi, .ctx = ctx };
	for (unsigned i = 0; i < IVSHMEM_VECTORS; i++)
		d->table[i].ctrl = MSIX_ENTRY_MASKED;
}

static u32 low_bytes(u32 val, unsigned len)
{
	return len >= 4 ? val : val & ((1u << (8 * len)) - 1);
}

static bool masked(const struct ivshmem *d, unsigned v)
{
	return (d->msix_ctrl & MSIX_MASKALL) || (d->table[v].ctrl & MSIX_ENTRY_MASKED);
}

static void send(struct ivshmem *d, unsigned v)
{
	const struct ivshmem_msix *e = &d->table[v];
	d->msi(d->ctx, (u64)e->addr_hi << 32 | e->addr_lo, e->data);
}

/* What waited while masked goes once it no longer is. */
static void send_pending(struct ivshmem *d)
{
	if (!(d->msix_ctrl & MSIX_ENABLE))
		return;
	for (unsigned v = 0; v < IVSHMEM_VECTORS; v++)
		if ((d->pba & BIT(v)) && !masked(d, v)) {
			d->pba &= ~BIT(v);
			send(d, v);
		}
}

/* The MSI-X table and pending bits: 32-bit fields; the pending bits are read-only. */
static u32 *msix_field(struct ivshmem *d, u64 off)
{
	if (off < IVSHMEM_VECTORS * sizeof(struct ivshmem_msix))
		return &((u32 *)d->table)[off / 4];
	return NULL;
}

u32 ivshmem_read(struct ivshmem *d, unsigned bar, u64 off, unsigned len)
{
	u32 val = 0;
	if (bar == 1) {
		u32 *f = msix_field(d, off);
		val = f ? *f : off / 4 == IVSHMEM_PBA / 4 ? d->pba : 0;
		return low_bytes(val >> (8 * (off & 3)), len);
	}
	if (bar != 0)
		return 0;
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
		break;
	}
	return low_bytes(val, len);
}

void ivshmem_write(struct ivshmem *d, unsigned bar, u64 off, unsigned len, u32 val)
{
	if (bar == 1) {
		u32 *f = msix_field(d, off);
		if (!f || len != 4 || (off & 3))
			return;         /* PBA, or not a whole field: dropped */
		*f = val;
		send_pending(d);
		return;
	}
	if (bar != 0)
		return;
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

u32 ivshmem_cap_read(const struct ivshmem *d, u16 reg)
{
	switch (reg - IVSHMEM_MSIX_CAP) {
	case 0:
		return PCI_CAP_MSIX | (u32)(d->msix_ctrl | (IVSHMEM_VECTORS - 1)) << 16;
	case 4:
		return 1;                       /* the table at BAR1 + 0 */
	case 8:
		return IVSHMEM_PBA | 1;         /* the pending bits at BAR1 + 0x800 */
	default:
		return 0;
	}
}

void ivshmem_cap_write(struct ivshmem *d, u16 reg, u32 val, unsigned bytes)
{
	if (reg != IVSHMEM_MSIX_CAP || !(bytes & 8))
		return;
	d->msix_ctrl = (u16)(val >> 16) & (MSIX_ENABLE | MSIX_MASKALL);
	send_pending(d);
}

void ivshmem_notify(struct ivshmem *d, unsigned vector)
{
	if (!(d->msix_ctrl & MSIX_ENABLE)) {
		d->status |= 1;
		return;
	}
	if (vector >= IVSHMEM_VECTORS)
		return;
	if (masked(d, vector))
		d->pba |= BIT(vector);
	else
		send(d, vector);
}

bool ivshmem_intx(const struct ivshmem *d)
{
	return !(d->msix_ctrl & MSIX_ENABLE) && (d->status & d->mask) != 0;
}
