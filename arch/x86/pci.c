/* SPDX-License-Identifier: GPL-2.0-only */
/* The host PCI walk over any configuration-space accessor: functions, bridges, BARs, requester IDs. */
#include "arch/x86/pci.h"
#include "lib/printf.h"
#include "lib/string.h"

struct mcfg_entry {
	u64 base;
	u16 segment;
	u8 start_bus, end_bus;
	u32 reserved;
} PACKED;

#define MCFG_ENTRIES_AT 44 /* the SDT header and 8 reserved bytes */

int pci_parse_mcfg(const struct acpi_header *mcfg, struct pci_ecam *out)
{
	memset(out, 0, sizeof(*out));
	u32 len = mcfg->length;
	if (len < MCFG_ENTRIES_AT || (len - MCFG_ENTRIES_AT) % sizeof(struct mcfg_entry))
		return FMT_ERROR(out, PCI_ERR_MCFG,
				 "pci: MCFG length %u is not 44 + a multiple of 16", len);
	const u8 *p = (const u8 *)mcfg + MCFG_ENTRIES_AT;
	for (u32 off = MCFG_ENTRIES_AT; off < len;
	     off += sizeof(struct mcfg_entry), p += sizeof(struct mcfg_entry)) {
		struct mcfg_entry e;
		memcpy(&e, p, sizeof(e));
		if (e.segment)
			continue;
		if (e.end_bus < e.start_bus)
			return FMT_ERROR(out, PCI_ERR_MCFG, "pci: MCFG buses %u-%u are reversed",
					 e.start_bus, e.end_bus);
		/* Each bus takes 1 MiB of the window, starting at the bus number's own offset. */
		if (e.base & 0xfffff || !e.base)
			return FMT_ERROR(out, PCI_ERR_MCFG,
					 "pci: MCFG ECAM base 0x%llx is not 1 MiB aligned",
					 (unsigned long long)e.base);
		out->base = e.base;
		out->start_bus = e.start_bus;
		out->end_bus = e.end_bus;
		return 0;
	}
	return FMT_ERROR(out, PCI_ERR_MCFG, "pci: MCFG has no window for segment 0");
}

static u32 rd(const struct pci_cfg *c, u16 bdf, u16 off)
{
	return c->read(c->ctx, bdf, off);
}

static void wr(const struct pci_cfg *c, u16 bdf, u16 off, u32 v)
{
	c->write(c->ctx, bdf, off, v);
}

/* The PCIe capability's device/port type, or -1; the list is bounded against loops. */
static s8 pcie_type(const struct pci_cfg *c, u16 bdf)
{
	if (!((rd(c, bdf, PCI_COMMAND) >> 16) & PCI_STATUS_CAPS))
		return -1;
	u8 ptr = (u8)rd(c, bdf, PCI_CAP_PTR) & 0xfc;
	for (int n = 0; n < 48 && ptr >= 0x40; n++) {
		u32 cap = rd(c, bdf, ptr);
		if ((cap & 0xff) == PCI_CAP_PCIE)
			return (s8)((cap >> 20) & 0xf);
		ptr = (u8)(cap >> 8) & 0xfc;
	}
	return -1;
}

/* The lowest set bit of what the BAR kept of the all-ones written: its size. */
static u64 bar_size(u64 readback)
{
	return readback & ~(readback - 1);
}

/* Sizes BAR i (and its upper half for a 64-bit one); returns how many BAR slots it took. */
static int size_bar(const struct pci_cfg *c, u16 bdf, int i, struct pci_bar *b)
{
	u16 off = (u16)(PCI_BAR0 + 4 * i);
	u32 orig = rd(c, bdf, off);
	wr(c, bdf, off, 0xffffffff);
	u32 got = rd(c, bdf, off);
	wr(c, bdf, off, orig);
	memset(b, 0, sizeof(*b));
	if (orig & 1) {
		u32 mask = got & ~3u;
		/* An I/O BAR may implement only 16 address bits; the upper half reads as zero. */
		if (mask && !(mask & 0xffff0000))
			mask |= 0xffff0000;
		if (!mask)
			return 1;
		b->kind = PCI_BAR_IO;
		b->base = orig & ~3u;
		b->size = bar_size(mask);
		return 1;
	}
	b->prefetch = orig & BIT(3);
	u64 base = orig & ~0xfu, mask = got & ~0xfu;
	int used = 1;
	b->kind = PCI_BAR_MEM32;
	if (((orig >> 1) & 3) == 2 && i + 1 < PCI_MAX_BARS) {
		u16 hi = (u16)(off + 4);
		u32 orig_hi = rd(c, bdf, hi);
		wr(c, bdf, hi, 0xffffffff);
		u32 got_hi = rd(c, bdf, hi);
		wr(c, bdf, hi, orig_hi);
		base |= (u64)orig_hi << 32;
		mask |= (u64)got_hi << 32;
		used = 2;
		b->kind = PCI_BAR_MEM64;
	}
	if (!mask) {
		memset(b, 0, sizeof(*b));
		return used;
	}
	b->base = base;
	b->size = bar_size(mask);
	return used;
}

static void read_bars(const struct pci_cfg *c, struct pci_func *f)
{
	int n = f->header_type == 0 ? 6 : f->header_type == 1 ? 2 : 0;
	if (!n)
		return;
	u32 cmd = rd(c, f->bdf, PCI_COMMAND) & 0xffff;
	/* Decode off while a BAR holds all ones, or the device would answer at a bogus address.
	 * Host bridges stay on: on some chipsets that would cut the CPU off from memory (Linux
	 * keeps them decoding too). The status half is written as zero: its bits are RW1C. */
	bool off = !pci_is_host_bridge(f) && (cmd & (PCI_CMD_IO | PCI_CMD_MEM));
	if (off)
		wr(c, f->bdf, PCI_COMMAND, cmd & ~(u32)(PCI_CMD_IO | PCI_CMD_MEM));
	for (int i = 0; i < n;)
		i += size_bar(c, f->bdf, i, &f->bar[i]);
	if (off)
		wr(c, f->bdf, PCI_COMMAND, cmd);
}

/* The requester ID the function's DMA reaches the IOMMU with: a PCIe-to-PCI bridge claims
 * its children's transactions as (secondary bus, 0, 0), a conventional bridge as its own ID;
 * the one nearest the root is what arrives. */
static u16 requester_id(const struct pci_list *l, const struct pci_func *f)
{
	u16 rid = f->bdf;
	for (int p = f->parent, n = 0; p >= 0 && n < PCI_MAX_FUNCS; p = l->f[p].parent, n++) {
		const struct pci_func *b = &l->f[p];
		if (b->pcie_type == PCIE_TYPE_PCI_BRIDGE)
			rid = PCI_BDF(b->sec_bus, 0, 0);
		else if (b->pcie_type < 0)
			rid = b->bdf;
	}
	return rid;
}

static void add_func(const struct pci_cfg *c, struct pci_list *l, u16 bdf, u32 id, s16 parent)
{
	if (l->count == PCI_MAX_FUNCS) {
		l->dropped++;
		return;
	}
	struct pci_func *f = &l->f[l->count++];
	memset(f, 0, sizeof(*f));
	f->bdf = bdf;
	f->vendor = (u16)id;
	f->device = (u16)(id >> 16);
	f->class = rd(c, bdf, PCI_CLASS_REV) >> 8;
	f->header_type = (u8)(rd(c, bdf, PCI_HEADER_TYPE & ~3) >> 16) & 0x7f;
	f->parent = parent;
	f->pcie_type = pcie_type(c, bdf);
	if (f->header_type == 1) {
		u32 buses = rd(c, bdf, PCI_BUS_NUMBERS);
		f->sec_bus = (u8)(buses >> 8);
		f->sub_bus = (u8)(buses >> 16);
	}
	read_bars(c, f);
}

void pci_enumerate(const struct pci_cfg *c, struct pci_list *l)
{
	memset(l, 0, sizeof(*l));
	/* Breadth first, each bus once: a bus number the firmware gave two bridges, or a bridge
	 * pointing back up, cannot make the walk loop. */
	u8 queue[256];
	s16 queue_parent[256];
	u8 seen[256 / 8] = { 0 };
	u32 head = 0, tail = 0;
	queue[tail] = 0;
	queue_parent[tail++] = -1;
	seen[0] = 1;
	while (head < tail) {
		u8 bus = queue[head];
		s16 parent = queue_parent[head++];
		for (u8 dev = 0; dev < 32; dev++) {
			for (u8 fn = 0; fn < 8; fn++) {
				u16 bdf = PCI_BDF(bus, dev, fn);
				u32 id = rd(c, bdf, PCI_VENDOR_ID);
				if ((u16)id == 0xffff || (u16)id == 0) {
					if (fn == 0)
						break; /* no function 0: no device */
					continue;
				}
				u32 before = l->count;
				add_func(c, l, bdf, id, parent);
				bool multi = (rd(c, bdf, PCI_HEADER_TYPE & ~3) >> 16) & 0x80;
				if (l->count != before) {
					const struct pci_func *f = &l->f[before];
					if (f->header_type == 1) {
						u8 s = f->sec_bus;
						if (s <= bus || f->sub_bus < s ||
						    (seen[s / 8] & (1u << (s % 8)))) {
							l->bad_bridges++;
						} else {
							seen[s / 8] |= (u8)(1u << (s % 8));
							queue[tail] = s;
							queue_parent[tail++] = (s16)before;
						}
					}
				}
				if (fn == 0 && !multi)
					break;
			}
		}
	}
	for (u32 i = 0; i < l->count; i++)
		l->f[i].rid = requester_id(l, &l->f[i]);
}

int pci_find(const struct pci_list *l, u16 bdf)
{
	for (u32 i = 0; i < l->count; i++)
		if (l->f[i].bdf == bdf)
			return (int)i;
	return -1;
}

static const char *const bar_kind[] = { "none", "io", "mem32", "mem64" };

void pci_print(const struct pci_list *l)
{
	for (u32 i = 0; i < l->count; i++) {
		const struct pci_func *f = &l->f[i];
		char line[160];
		int n = fmt_snprintf(line, sizeof(line), "pci: %02x:%02x.%x %04x:%04x class %06x%s",
				     PCI_BUS(f->bdf), PCI_DEV(f->bdf), PCI_FN(f->bdf), f->vendor,
				     f->device, f->class,
				     pci_is_host_bridge(f) ? " host-bridge"
				     : pci_is_bridge(f)	   ? " bridge"
							   : "");
		if (f->header_type == 1 && n < (int)sizeof(line))
			n += fmt_snprintf(line + n, sizeof(line) - (size_t)n, " buses %02x-%02x",
					  f->sec_bus, f->sub_bus);
		if (f->rid != f->bdf && n < (int)sizeof(line))
			fmt_snprintf(line + n, sizeof(line) - (size_t)n, " dma-alias %02x:%02x.%x",
				     PCI_BUS(f->rid), PCI_DEV(f->rid), PCI_FN(f->rid));
		kinfo("%s\n", line);
		for (int b = 0; b < PCI_MAX_BARS; b++)
			if (f->bar[b].kind != PCI_BAR_NONE)
				kinfo("pci:   bar%d %s%s 0x%llx size 0x%llx\n", b,
				      bar_kind[f->bar[b].kind], f->bar[b].prefetch ? " pref" : "",
				      (unsigned long long)f->bar[b].base,
				      (unsigned long long)f->bar[b].size);
	}
	if (l->dropped)
		kprintf("pci: %u functions beyond %u not recorded\n", l->dropped, PCI_MAX_FUNCS);
	if (l->bad_bridges)
		kprintf("pci: %u bridges with a secondary bus out of order or seen twice: not followed\n",
			l->bad_bridges);
}
