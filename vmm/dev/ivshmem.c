/* SPDX-License-Identifier: GPL-2.0-only */
/* The ivshmem function's registers: interrupt mask and status, peer number, doorbell, MSI-X. */
#include "vmm/dev/ivshmem.h"
#include "lib/string.h"

void ivshmem_reset(struct ivshmem *d, u32 ivposition, void (*ring)(void *, u16, u16),
		   void (*msi)(void *, u64, u32), void *ctx)
{
	*d = (struct ivshmem){ .ivposition = ivposition, .ring = ring, .msi = msi, .ctx = ctx };
	msix_reset(&d->msix, d->table, IVSHMEM_VECTORS);
}

static u32 low_bytes(u32 val, unsigned len)
{
	return len >= 4 ? val : val & ((1u << (8 * len)) - 1);
}

static void send(struct ivshmem *d, unsigned v)
{
	d->msi(d->ctx, msix_addr(&d->msix, v), d->table[v].data);
}

/* What waited while masked goes once it no longer is. */
static void send_pending(struct ivshmem *d)
{
	for (int v; (v = msix_take_pending(&d->msix)) >= 0;)
		send(d, (unsigned)v);
}

u32 ivshmem_read(struct ivshmem *d, unsigned bar, u64 off, unsigned len)
{
	u32 val = 0;
	if (bar == 1) {
		if (off >= IVSHMEM_PBA)
			return (u32)msix_pba_read(&d->msix, off - IVSHMEM_PBA, len, 0);
		return (u32)msix_table_read(&d->msix, off, len);
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
		if (off < IVSHMEM_PBA && msix_table_write(&d->msix, off, len, val) >= 0)
			send_pending(d);
		else if (off >= IVSHMEM_PBA)
			d->msix.bad++; /* the pending bits are read-only */
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
		return PCI_CAP_MSIX | (u32)(d->msix.ctrl | (IVSHMEM_VECTORS - 1)) << 16;
	case 4:
		return 1; /* the table at BAR1 + 0 */
	case 8:
		return IVSHMEM_PBA | 1; /* the pending bits at BAR1 + 0x800 */
	default:
		return 0;
	}
}

void ivshmem_cap_write(struct ivshmem *d, u16 reg, u32 val, unsigned bytes)
{
	if (reg != IVSHMEM_MSIX_CAP || !(bytes & 8))
		return;
	msix_set_ctrl(&d->msix, (u16)(val >> 16));
	send_pending(d);
}

void ivshmem_notify(struct ivshmem *d, unsigned vector)
{
	if (!(d->msix.ctrl & MSIX_ENABLE)) {
		d->status |= 1;
		return;
	}
	if (msix_fire(&d->msix, vector))
		send(d, vector);
}

bool ivshmem_intx(const struct ivshmem *d)
{
	return !(d->msix.ctrl & MSIX_ENABLE) && (d->status & d->mask) != 0;
}
