/* SPDX-License-Identifier: GPL-2.0-only */
/* The MSI-X capability and table of an assigned function as its guest sees them: virtual entries, host programming. */
#include "vmm/dev/pci_msix.h"
#include "vmm/dev/pci_msi.h" /* pci_msi_decode: an entry's message is an MSI message */
#include "lib/printf.h"

#define PAGE 0x1000ull

static u64 table_len(const struct pci_msix *m)
{
	return (u64)m->host_n * MSIX_ENTRY_SIZE;
}
static u64 pba_len(const struct pci_msix *m)
{
	return (u64)(m->host_n + 63) / 64 * 8;
}

/* A region of the BAR: a memory BAR the bus has, the region inside it. */
static bool region_ok(const struct pci_bus_fn *f, unsigned bar, u64 off, u64 len)
{
	if (bar >= PCI_MAX_BARS)
		return false;
	const struct pci_bus_bar *r = &f->bar[bar];
	return (r->kind == PCI_BAR_MEM32 || r->kind == PCI_BAR_MEM64) && r->host && off < r->size &&
	       len <= r->size - off;
}

void pci_msix_find(struct pci_bus *b, struct pci_bus_fn *f)
{
	struct pci_msix *m = &f->msix;
	u16 bdf = f->host_bdf;
	u8 off = pci_fn_cap_find(b, bdf, PCI_CAP_MSIX);
	if (!off || off > 0x100 - 12)
		return;
	u32 hdr = b->ops->cfg_read(b->ctx, bdf, off);
	u32 table = b->ops->cfg_read(b->ctx, bdf, off + 4u);
	u32 pba = b->ops->cfg_read(b->ctx, bdf, off + 8u);
	m->host_n = (u16)((hdr >> 16 & MSIX_QSIZE) + 1);
	m->table_bar = table & MSIX_BIR;
	m->table_off = table & ~MSIX_BIR;
	m->pba_bar = pba & MSIX_BIR;
	m->pba_off = pba & ~MSIX_BIR;
	if (!region_ok(f, m->table_bar, m->table_off, table_len(m)) ||
	    !region_ok(f, m->pba_bar, m->pba_off, pba_len(m))) {
		kprintf("guest %s: PCI %02x:%02x.%x: its MSI-X table or pending bits lie outside its memory BARs: MSI-X hidden\n",
			b->name, PCI_BUS(bdf), PCI_DEV(bdf), PCI_FN(bdf));
		return;
	}
	m->off = off;
	pci_msix_offer(f, m->host_n);
}

void pci_msix_offer(struct pci_bus_fn *f, unsigned n)
{
	struct pci_msix *m = &f->msix;
	if (n > PCI_MSIX_MAX)
		n = PCI_MSIX_MAX;
	if (n > m->host_n)
		n = m->host_n;
	if (!n)
		m->off = 0;
	msix_reset(&m->x, m->table, n);
}

bool pci_msix_claims(const struct pci_msix *m, u16 reg)
{
	return m->off && reg >= m->off && reg < m->off + 12u;
}

u32 pci_msix_read(const struct pci_bus_fn *f, u16 reg)
{
	const struct pci_msix *m = &f->msix;
	switch (reg - m->off) {
	case 0:
		return PCI_CAP_MSIX | (u32)(m->x.ctrl | (m->x.n - 1)) << 16; /* next: pci_bus */
	case 4:
		return m->table_off | m->table_bar;
	default:
		return m->pba_off | m->pba_bar;
	}
}

static u64 host_entry(const struct pci_bus_fn *f, unsigned v)
{
	return f->bar[f->msix.table_bar].host + f->msix.table_off + (u64)v * MSIX_ENTRY_SIZE;
}

/* The host's Message Control: the guest's enable and function mask. */
static void host_ctrl(struct pci_bus *b, struct pci_bus_fn *f, u16 ctrl)
{
	struct pci_msix *m = &f->msix;
	u32 cap = b->ops->cfg_read(b->ctx, f->host_bdf, m->off);
	cap &= ~((u32)(MSIX_ENABLE | MSIX_MASKALL) << 16);
	b->ops->cfg_write(b->ctx, f->host_bdf, m->off, cap | (u32)ctrl << 16);
	m->host_on = ctrl & MSIX_ENABLE;
}

/* Host entry v follows the guest's: Umbra's vector at the CPU that runs the vCPU its message
 * names (vCPU 0's for a message that is no interrupt: its arrival is dropped and counted, as a
 * chipset drops a write that decodes to no APIC), masked as the guest's entry is. */
static void program(struct pci_bus *b, unsigned d, unsigned v)
{
	struct pci_bus_fn *f = &b->fn[d];
	struct pci_msix *m = &f->msix;
	const struct msix_entry *e = &m->table[v];
	u64 ga = msix_addr(&m->x, v), addr;
	struct pci_msi_msg msg = { 0 };
	u32 data;
	const char *why = pci_msi_decode(ga, e->data, &msg);
	u64 key = (ga << 16 | (e->data & 0xffff)) + 1;
	if (why && (m->x.ctrl & MSIX_ENABLE) && !msix_masked(&m->x, v) && m->warned[v] != key) {
		m->warned[v] = key;
		kprintf("guest %s: PCI 00:%02x.0 MSI-X entry %u address 0x%llx data 0x%x: %s: dropped when it arrives\n",
			b->name, d + 1, v, (unsigned long long)ga, e->data, why);
	}
	u64 hpa = host_entry(f, v);
	bool masked = e->ctrl & MSIX_ENTRY_MASKED;
	if (!b->ops->msi_route ||
	    !b->ops->msi_route(b->ctx, m->host_vector[v], &msg, &addr, &data)) {
		b->ops->bar_write(b->ctx, hpa + MSIX_VECTOR_CTRL, MSIX_ENTRY_MASKED);
		return;
	}
	if (masked)
		b->ops->bar_write(b->ctx, hpa + MSIX_VECTOR_CTRL, MSIX_ENTRY_MASKED);
	if (addr != m->host_addr[v]) {
		if (!why)
			kinfo("guest %s: PCI 00:%02x.0 MSI-X entry %u vector 0x%x: host vector 0x%x to APIC ID %llu\n",
			      b->name, d + 1, v, msg.vector, m->host_vector[v],
			      (unsigned long long)(addr >> 12 & 0xff));
		b->ops->bar_write(b->ctx, hpa + MSIX_ADDR_LO, (u32)addr);
		b->ops->bar_write(b->ctx, hpa + MSIX_ADDR_HI, (u32)(addr >> 32));
		b->ops->bar_write(b->ctx, hpa + MSIX_DATA, data);
		m->host_addr[v] = addr;
	}
	if (!masked)
		b->ops->bar_write(b->ctx, hpa + MSIX_VECTOR_CTRL, 0);
}

static void send(struct pci_bus *b, const struct pci_msix *m, unsigned v)
{
	b->ops->msi_send(b->ctx, msix_addr(&m->x, v), m->table[v].data);
}

static void send_pending(struct pci_bus *b, unsigned d)
{
	struct pci_msix *m = &b->fn[d].msix;
	for (int v; (v = msix_take_pending(&m->x)) >= 0;)
		send(b, m, (unsigned)v);
}

void pci_msix_write(struct pci_bus *b, unsigned d, u16 reg, u32 val, unsigned bytes)
{
	struct pci_bus_fn *f = &b->fn[d];
	struct pci_msix *m = &f->msix;
	if (reg != m->off) {
		m->x.bad++; /* the table's and the PBA's place are read-only */
		return;
	}
	if (!(bytes & 8)) {
		if (bytes & 3)
			m->x.bad++; /* only the ID and next pointer: read-only */
		return;		    /* the table size too, as on hardware */
	}
	bool was_on = m->x.ctrl & MSIX_ENABLE;
	msix_set_ctrl(&m->x, (u16)(val >> 16));
	if (m->x.ctrl & MSIX_ENABLE) {
		/* The entries first, so the host sends nothing stale once it is on. */
		if (!was_on)
			for (unsigned v = 0; v < m->x.n; v++)
				program(b, d, v);
		host_ctrl(b, f, m->x.ctrl);
		send_pending(b, d);
	} else if (m->host_on) {
		host_ctrl(b, f, 0);
	}
}

bool pci_msix_traps(const struct pci_msix *m, unsigned bar, u64 off)
{
	if (!m->off)
		return false;
	u64 page = off & ~(PAGE - 1);
	bool t = bar == m->table_bar && page < m->table_off + table_len(m) &&
		 m->table_off < page + PAGE;
	bool p = bar == m->pba_bar && page < m->pba_off + pba_len(m) && m->pba_off < page + PAGE;
	return t || p;
}

bool pci_msix_access(struct pci_bus *b, unsigned d, unsigned bar, u64 off, unsigned len, u64 *val,
		     bool write)
{
	struct pci_bus_fn *f = &b->fn[d];
	struct pci_msix *m = &f->msix;
	if (!m->off)
		return false;
	if (bar == m->table_bar && off >= m->table_off && off - m->table_off < table_len(m)) {
		u64 at = off - m->table_off;
		if (!write) {
			*val = msix_table_read(&m->x, at, len);
			return true;
		}
		int v = msix_table_write(&m->x, at, len, *val);
		if (v >= 0) {
			program(b, d, (unsigned)v);
			send_pending(b, d);
		}
		return true;
	}
	if (bar != m->pba_bar || off < m->pba_off || off - m->pba_off >= pba_len(m))
		return false;
	u64 at = off - m->pba_off;
	if (write) {
		m->x.bad++; /* the pending bits are read-only */
		return true;
	}
	/* The device's own bits: what waits behind a masked host entry. */
	u64 hpa = f->bar[m->pba_bar].host + m->pba_off;
	u64 host = at < 8 ? b->ops->bar_read(b->ctx, hpa) | (u64)b->ops->bar_read(b->ctx, hpa + 4)
								    << 32
			  : 0;
	*val = msix_pba_read(&m->x, at, len, host);
	return true;
}

bool pci_msix_arrived(struct pci_bus *b, unsigned d, unsigned v)
{
	struct pci_msix *m = &b->fn[d].msix;
	if (!(m->x.ctrl & MSIX_ENABLE) || v >= m->x.n)
		return false;
	if (msix_fire(&m->x, v))
		send(b, m, v);
	return true;
}

void pci_msix_host_off(struct pci_bus *b, struct pci_bus_fn *f)
{
	if (f->msix.off)
		host_ctrl(b, f, 0);
}

void pci_msix_reset(struct pci_bus *b, struct pci_bus_fn *f)
{
	struct pci_msix *m = &f->msix;
	if (!m->off)
		return;
	msix_reset(&m->x, m->table, m->x.n);
	for (unsigned v = 0; v < PCI_MSIX_MAX; v++)
		m->host_addr[v] = m->warned[v] = 0;
	pci_msix_host_off(b, f);
}
