/* SPDX-License-Identifier: GPL-2.0-only */
/* The MSI capability of an assigned function as its guest sees it: virtual message, host programming. */
#include "vmm/dev/pci_msi.h"
#include "lib/printf.h"

#define MSI_MME (7u << 4) /* Multiple Message Enable */
#define MSI_ADDR_BASE 0xfee00000u

/* Offsets in the capability: address, [upper address,] data, [mask, pending]. */
static u16 data_off(const struct pci_msi *m)
{
	return m->is64 ? 0xc : 0x8;
}
static u16 mask_off(const struct pci_msi *m)
{
	return data_off(m) + 4;
}
static u16 cap_len(const struct pci_msi *m)
{
	return mask_off(m) + (m->maskable ? 8 : 0);
}

void pci_msi_find(struct pci_bus *b, struct pci_bus_fn *f)
{
	struct pci_msi *m = &f->msi;
	u8 ptr = pci_fn_cap_find(b, f->host_bdf, PCI_CAP_MSI);
	if (!ptr)
		return;
	u32 cap = b->ops->cfg_read(b->ctx, f->host_bdf, ptr);
	m->off = ptr;
	m->is64 = cap >> 16 & PCI_MSI_64BIT;
	m->maskable = cap >> 16 & PCI_MSI_MASKABLE;
	if (m->off + cap_len(m) > 0x100)
		m->off = 0; /* runs past configuration space: not usable */
}

bool pci_msi_claims(const struct pci_msi *m, u16 reg)
{
	return m->off && reg >= m->off && reg < m->off + cap_len(m);
}

static u32 ctrl(const struct pci_msi *m)
{
	return (m->is64 ? PCI_MSI_64BIT : 0) | (m->maskable ? PCI_MSI_MASKABLE : 0) |
	       (m->enable ? PCI_MSI_ENABLE : 0);
}

u32 pci_msi_read(struct pci_bus *b, const struct pci_bus_fn *f, u16 reg)
{
	const struct pci_msi *m = &f->msi;
	u16 at = reg - m->off;
	if (at == 0)
		return PCI_CAP_MSI | ctrl(m) << 16; /* next: the bus's (pci_bus.c) */
	if (at == 4)
		return m->addr_lo;
	if (m->is64 && at == 8)
		return m->addr_hi;
	if (at == data_off(m))
		return m->data;
	if (at == mask_off(m))
		return m->masked;
	return b->ops->cfg_read(b->ctx, f->host_bdf, reg) & 1; /* pending: the device's */
}

static void host_ctrl(struct pci_bus *b, struct pci_bus_fn *f, bool on)
{
	struct pci_msi *m = &f->msi;
	u32 cap = b->ops->cfg_read(b->ctx, f->host_bdf, m->off);
	cap &= ~((PCI_MSI_ENABLE | MSI_MME) << 16);
	b->ops->cfg_write(b->ctx, f->host_bdf, m->off, cap | (on ? PCI_MSI_ENABLE << 16 : 0));
	m->host_on = on;
}

void pci_msi_host_off(struct pci_bus *b, struct pci_bus_fn *f)
{
	if (f->msi.off)
		host_ctrl(b, f, false);
}

const char *pci_msi_decode(u64 addr, u32 data, struct pci_msi_msg *out)
{
	if ((addr & ~0xfffffull) != MSI_ADDR_BASE)
		return "its address is outside 0xFEExxxxx";
	u32 mode = data >> 8 & 7;
	if (mode > 1)
		return "its delivery mode is neither fixed nor lowest priority";
	if ((data & 0xff) < 16)
		return "its vector is below 16";
	*out = (struct pci_msi_msg){ .vector = (u8)data,
				     .dest = (u8)(addr >> 12),
				     .logical = addr & BIT(2),
				     .lowest = mode == 1 };
	return NULL;
}

static u64 guest_addr(const struct pci_msi *m)
{
	return (u64)(m->is64 ? m->addr_hi : 0) << 32 | m->addr_lo;
}

bool pci_msi_message(const struct pci_msi *m, struct pci_msi_msg *out)
{
	return m->off && m->enable && !m->masked && !pci_msi_decode(guest_addr(m), m->data, out);
}

bool pci_msi_may_arrive(const struct pci_bus *b)
{
	for (u32 d = 0; d < b->n; d++)
		if (b->fn[d].msi.host_on || b->fn[d].msix.host_on)
			return true;
	return false;
}

/* The host function follows the guest's message: on to Umbra's vector for the vCPU's CPU while
 * the guest's is an interrupt and enabled, else off. */
static void update(struct pci_bus *b, unsigned d)
{
	struct pci_bus_fn *f = &b->fn[d];
	struct pci_msi *m = &f->msi;
	struct pci_msi_msg msg;
	u64 addr;
	u32 data;
	if (!m->enable) {
		host_ctrl(b, f, false);
		return;
	}
	const char *why = pci_msi_decode(guest_addr(m), m->data, &msg);
	if (why) {
		u64 key = (guest_addr(m) << 16 | (m->data & 0xffff)) + 1;
		if (m->warned != key) {
			m->warned = key;
			kprintf("guest %s: PCI 00:%02x.0 MSI address 0x%llx data 0x%x: %s: no interrupt\n",
				b->name, d + 1, (unsigned long long)guest_addr(m), m->data, why);
		}
		host_ctrl(b, f, false);
		return;
	}
	if (!b->ops->msi_route || !b->ops->msi_route(b->ctx, m->host_vector, &msg, &addr, &data)) {
		host_ctrl(b, f, false);
		return;
	}
	/* Said when the target CPU changes (a guest moves its MSI rarely: at boot, on affinity). */
	if (addr != m->host_addr)
		kinfo("guest %s: PCI 00:%02x.0 MSI vector 0x%x: host vector 0x%x to APIC ID %llu\n",
		      b->name, d + 1, msg.vector, m->host_vector,
		      (unsigned long long)(addr >> 12 & 0xff));
	u16 bdf = f->host_bdf;
	m->host_addr = addr;
	b->ops->cfg_write(b->ctx, bdf, m->off + 4, (u32)addr);
	if (m->is64)
		b->ops->cfg_write(b->ctx, bdf, m->off + 8, (u32)(addr >> 32));
	/* The upper half of the data dword is reserved (extended data, off): written 0. */
	b->ops->cfg_write(b->ctx, bdf, m->off + data_off(m), data & 0xffff);
	if (m->maskable)
		b->ops->cfg_write(b->ctx, bdf, m->off + mask_off(m), m->masked);
	if (!m->host_on)
		host_ctrl(b, f, true);
}

void pci_msi_write(struct pci_bus *b, unsigned d, u16 reg, u32 val, unsigned bytes)
{
	struct pci_msi *m = &b->fn[d].msi;
	u16 at = reg - m->off;
	if (at == 0) {
		if (!(bytes & 4))
			return; /* the ID and next pointer are read-only */
		m->enable = val >> 16 & PCI_MSI_ENABLE;
	} else if (at == 4) {
		m->addr_lo = val & ~3u;
	} else if (m->is64 && at == 8) {
		m->addr_hi = val;
	} else if (at == data_off(m)) {
		m->data = val & 0xffff;
	} else if (m->maskable && at == mask_off(m)) {
		m->masked = val & 1;
	} else {
		return; /* pending bits are read-only */
	}
	update(b, d);
}

void pci_msi_reset(struct pci_bus *b, struct pci_bus_fn *f)
{
	struct pci_msi *m = &f->msi;
	m->enable = m->masked = false;
	m->addr_lo = m->addr_hi = m->data = 0;
	m->warned = 0;
	pci_msi_host_off(b, f);
}
