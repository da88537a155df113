/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest's PCI bus: filtered configuration space of its functions, virtual BARs and their decode. */
#include "vmm/dev/pci_bus.h"
#include "lib/printf.h"
#include "lib/string.h"

#define CFG_ENABLE BIT(31)
#define CFG_DATA 0xcfc
#define LAPIC_PAGE 0xfee00000ull
#define IOAPIC_PAGE 0xfec00000ull
#define PAGE 0x1000ull

void pci_bus_init(struct pci_bus *b, const struct pci_bus_ops *ops, void *ctx, const char *name,
		  u64 ram_end, u64 phys_end)
{
	memset(b, 0, sizeof(*b));
	b->ops = ops;
	b->ctx = ctx;
	b->name = name;
	b->ram_end = ram_end;
	b->phys_end = phys_end;
	b->mem_next = PCI_BUS_HOLE_BASE;
	b->io_next = PCI_BUS_IO_BASE;
}

/* Umbra's placement: naturally aligned (memory to a page at least, so no two BARs share one),
 * one after the other; 0 when the window is full. */
static u64 place(u64 *next, u64 end, u64 size, u64 align)
{
	u64 at = ALIGN_UP(*next, align);
	if (at >= end || size > end - at)
		return 0;
	*next = at + size;
	return at;
}

static bool overlaps(u64 a, u64 alen, u64 b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

/* An I/O range some BAR placed so far (functions up to and including fn[b->n]) holds. */
static bool io_placed(const struct pci_bus *b, u64 at, u64 size)
{
	for (u32 d = 0; d <= b->n && d < PCI_BUS_FUNCS; d++)
		for (unsigned i = 0; i < PCI_MAX_BARS; i++) {
			const struct pci_bus_bar *o = &b->fn[d].bar[i];
			if (o->kind == PCI_BAR_IO && o->placed &&
			    overlaps(at, size, o->placed, o->size))
				return true;
		}
	return false;
}

/* I/O BARs go where the host has them when they can, so their ports pass through the I/O
 * bitmap unchanged; else naturally aligned from PCI_BUS_IO_BASE. */
static u64 place_io(struct pci_bus *b, u64 host, u64 size)
{
	if (host >= PCI_BUS_IO_BASE && host + size <= PCI_BUS_IO_END && !io_placed(b, host, size))
		return host;
	for (u64 at = ALIGN_UP(b->io_next, size); at + size <= PCI_BUS_IO_END; at += size)
		if (!io_placed(b, at, size)) {
			b->io_next = at + size;
			return at;
		}
	return 0;
}

/* Records a vendor-specific capability, as many as fit; one whose length is below its own
 * header or runs past configuration space stays hidden. */
static bool vndr_take(void *fn, u8 off, u32 cap)
{
	struct pci_bus_fn *f = fn;
	u8 len = (u8)(cap >> 16);
	unsigned n = 0;
	if ((cap & 0xff) != PCI_CAP_VNDR || len < 3 || off + len > 0x100)
		return false;
	while (n < PCI_BUS_VNDR_MAX && f->vndr[n].len)
		n++;
	if (n < PCI_BUS_VNDR_MAX)
		f->vndr[n] = (struct pci_bus_vndr){ off, len };
	return false;
}

static int add_fn(struct pci_bus *b, u16 host_bdf, const struct pci_vfn *vfn,
		  const struct pci_bar *bars, const u64 *fixed)
{
	if (b->n == PCI_BUS_FUNCS)
		return -1;
	struct pci_bus_fn *f = &b->fn[b->n];
	memset(f, 0, sizeof(*f));
	f->host_bdf = host_bdf;
	f->vfn = vfn;
	for (unsigned i = 0; i < PCI_MAX_BARS; i++) {
		const struct pci_bar *h = &bars[i];
		struct pci_bus_bar *r = &f->bar[i];
		if (h->kind == PCI_BAR_NONE || (!vfn && !h->base) || !h->size)
			continue;
		r->kind = h->kind;
		r->prefetch = h->prefetch;
		r->size = h->size;
		r->host = h->base;
		r->slot = -1;
		if (fixed && fixed[i])
			r->placed = fixed[i];
		else if (h->kind == PCI_BAR_IO)
			r->placed = place_io(b, h->base, h->size);
		else
			r->placed = place(&b->mem_next, PCI_BUS_FIXED_BASE, h->size,
					  h->size > PAGE ? h->size : PAGE);
		if (!r->placed)
			kprintf("guest %s: PCI 00:%02x.0 BAR%u (0x%llx bytes): no room left to place it\n",
				b->name, b->n + 1, i, (unsigned long long)h->size);
	}
	if (!vfn) { /* a function of Umbra's own has its model's capabilities */
		pci_msi_find(b, f);
		pci_msix_find(b, f);
		pci_fn_cap_walk(b, host_bdf, vndr_take, f);
	}
	return (int)++b->n;
}

int pci_bus_add(struct pci_bus *b, u16 host_bdf, const struct pci_bar *bars)
{
	return add_fn(b, host_bdf, NULL, bars, NULL);
}

int pci_bus_add_virtual(struct pci_bus *b, const struct pci_vfn *vfn, const struct pci_bar *bars,
			const u64 *fixed)
{
	return add_fn(b, 0, vfn, bars, fixed);
}

bool pci_bus_intx(const struct pci_bus *b)
{
	for (u32 d = 0; d < b->n; d++) {
		const struct pci_bus_fn *f = &b->fn[d];
		if (f->cmd & PCI_CMD_INTX_DISABLE)
			continue;
		if (f->vfn ? f->vfn->ops->intx(f->vfn->ctx) : f->intx_masked)
			return true;
	}
	return false;
}

/* ---- decode ---- */
/* Why BAR r of f cannot decode at `at`, or NULL. */
static const char *unclaimable(const struct pci_bus *b, const struct pci_bus_bar *r, u64 at,
			       char *buf, size_t len)
{
	bool io = r->kind == PCI_BAR_IO;
	if (io && (at < PCI_BUS_IO_BASE || at + r->size > PCI_BUS_IO_END))
		return "outside ports 0x1000-0xffff";
	if (!io &&
	    (at < b->ram_end || (b->ram_high_end && overlaps(at, r->size, 1ull << 32,
							     b->ram_high_end - (1ull << 32)))))
		return "over the guest's RAM";
	if (!io && at + r->size > b->phys_end)
		return "beyond the guest's physical address width";
	if (!io && overlaps(at, r->size, LAPIC_PAGE, PAGE))
		return "over the local APIC";
	if (!io && overlaps(at, r->size, IOAPIC_PAGE, PAGE))
		return "over the I/O APIC";
	if (!io && overlaps(at, r->size, PCI_BUS_ECAM_BASE, PCI_BUS_ECAM_SIZE))
		return "over the ECAM window";
	for (u32 d = 0; d < b->n; d++)
		for (unsigned i = 0; i < PCI_MAX_BARS; i++) {
			const struct pci_bus_bar *o = &b->fn[d].bar[i];
			if (o == r || !o->live || (o->kind == PCI_BAR_IO) != io ||
			    !overlaps(at, r->size, o->at, o->size))
				continue;
			fmt_snprintf(buf, len, "over 00:%02x.0 BAR%u", d + 1, i);
			return buf;
		}
	return NULL;
}

/* What of f decodes follows its command register and BARs: a window that moved or was
 * switched off is unmapped first, then each one wanted is claimed if it can be. */
static void decode(struct pci_bus *b, unsigned d)
{
	struct pci_bus_fn *f = &b->fn[d];
	for (unsigned i = 0; i < PCI_MAX_BARS; i++) {
		struct pci_bus_bar *r = &f->bar[i];
		bool on = r->kind != PCI_BAR_NONE &&
			  (f->cmd & (r->kind == PCI_BAR_IO ? PCI_CMD_IO : PCI_CMD_MEM));
		if (r->live && (!on || r->at != r->guest)) {
			r->live = false;
			b->ops->unmap(b->ctx, d + 1, r);
		}
		if (!on || r->live)
			continue;
		char buf[24];
		const char *why = unclaimable(b, r, r->guest, buf, sizeof(buf));
		if (why) {
			if (r->warned_at != r->guest + 1) {
				r->warned_at = r->guest + 1;
				b->refused++;
				kprintf("guest %s: PCI 00:%02x.0 BAR%u at 0x%llx is %s: not decoded\n",
					b->name, d + 1, i, (unsigned long long)r->guest, why);
			}
			continue;
		}
		r->live = true;
		r->at = r->guest;
		b->ops->map(b->ctx, d + 1, r);
	}
}

/* The host's command register with the guest's pass-through bits, and INTx disabled while
 * Umbra masks it; the status half written as zero, since its bits are RW1C. */
static void host_command(struct pci_bus *b, const struct pci_bus_fn *f)
{
	if (f->vfn)
		return;
	u32 host = b->ops->cfg_read(b->ctx, f->host_bdf, PCI_COMMAND) & 0xffff;
	b->ops->cfg_write(b->ctx, f->host_bdf, PCI_COMMAND,
			  (host & ~(u32)PCI_BUS_CMD_PASS) | f->cmd |
				  (f->intx_masked ? PCI_CMD_INTX_DISABLE : 0));
}

void pci_bus_intx_route(struct pci_bus *b, unsigned dev)
{
	if (dev >= 1 && dev <= b->n && !b->fn[dev - 1].vfn)
		b->fn[dev - 1].intx_routed = true;
}

bool pci_bus_intx_take(struct pci_bus *b, unsigned dev)
{
	if (dev < 1 || dev > b->n)
		return false;
	struct pci_bus_fn *f = &b->fn[dev - 1];
	if (!f->intx_routed || f->intx_masked ||
	    !(b->ops->cfg_read(b->ctx, f->host_bdf, PCI_COMMAND) >> 16 & PCI_STATUS_INTX))
		return false;
	f->intx_masked = true;
	host_command(b, f);
	return true;
}

bool pci_bus_intx_eoi(struct pci_bus *b)
{
	bool any = false;
	for (u32 d = 0; d < b->n; d++) {
		struct pci_bus_fn *f = &b->fn[d];
		if (!f->intx_masked)
			continue;
		f->intx_masked = false;
		host_command(b, f);
		any = true;
	}
	return any;
}

void pci_bus_quiesce(struct pci_bus *b)
{
	for (u32 d = 0; d < b->n; d++) {
		if (b->fn[d].vfn)
			continue; /* Umbra's own: no DMA of a device to stop */
		u16 bdf = b->fn[d].host_bdf;
		u32 host = b->ops->cfg_read(b->ctx, bdf, PCI_COMMAND) & 0xffff;
		b->ops->cfg_write(b->ctx, bdf, PCI_COMMAND,
				  (host & ~(u32)PCI_BUS_CMD_PASS) | PCI_CMD_INTX_DISABLE);
		pci_msi_host_off(b, &b->fn[d]);
		pci_msix_host_off(b, &b->fn[d]);
	}
}

void pci_bus_reset(struct pci_bus *b)
{
	b->addr = 0;
	for (u32 d = 0; d < b->n; d++) {
		struct pci_bus_fn *f = &b->fn[d];
		f->cmd = f->vfn ? f->vfn->reset_cmd : 0;
		f->int_line = f->vfn || f->intx_routed ? PCI_BUS_INTX_IRQ : 0;
		f->intx_masked = false;
		pci_msi_reset(b, f);
		pci_msix_reset(b, f);
		for (unsigned i = 0; i < PCI_MAX_BARS; i++)
			f->bar[i].guest = f->bar[i].placed;
		decode(b, d);
		host_command(b, f);
	}
}

/* ---- configuration space ---- */
static u32 bar_read(const struct pci_bus_fn *f, unsigned i)
{
	if (i && f->bar[i - 1].kind == PCI_BAR_MEM64)
		return (u32)(f->bar[i - 1].guest >> 32);
	const struct pci_bus_bar *r = &f->bar[i];
	u32 flags = r->prefetch ? BIT(3) : 0;
	switch (r->kind) {
	case PCI_BAR_IO:
		return (u32)r->guest | 1;
	case PCI_BAR_MEM32:
		return (u32)r->guest | flags;
	case PCI_BAR_MEM64:
		return (u32)r->guest | flags | 4;
	default:
		return 0;
	}
}

/* The address bits a BAR keeps of what is written: those above its size, as hardware. */
static void bar_write(struct pci_bus_fn *f, unsigned i, u32 val)
{
	if (i && f->bar[i - 1].kind == PCI_BAR_MEM64) {
		struct pci_bus_bar *r = &f->bar[i - 1];
		r->guest = (((u64)val << 32) | (r->guest & 0xffffffffu)) & ~(r->size - 1);
		return;
	}
	struct pci_bus_bar *r = &f->bar[i];
	switch (r->kind) {
	case PCI_BAR_IO:
		r->guest = val & ~3u & ~(u32)(r->size - 1);
		break;
	case PCI_BAR_MEM32:
		r->guest = val & ~0xfu & ~(u32)(r->size - 1);
		break;
	case PCI_BAR_MEM64:
		r->guest = ((r->guest & ~0xffffffffull) | (val & ~0xfu)) & ~(r->size - 1);
		break;
	default:
		break;
	}
}

static u32 host_bridge_read(u16 reg)
{
	switch (reg) {
	case PCI_VENDOR_ID:
		return PCI_BUS_HB_ID;
	case PCI_COMMAND:
		return PCI_CMD_IO | PCI_CMD_MEM;
	case PCI_CLASS_REV:
		return PCI_BUS_HB_CLASS_REV;
	default:
		return 0;
	}
}

/* Umbra's own function: its identity, INTA on ISA IRQ 11 (as a BIOS routes it), the
 * capabilities its model has. */
static u32 vfn_read(const struct pci_bus_fn *f, u16 reg)
{
	const struct pci_vfn *vf = f->vfn;
	if (vf->cap && reg >= vf->cap)
		return vf->ops->cap_read(vf->ctx, reg);
	switch (reg) {
	case PCI_VENDOR_ID:
		return vf->id;
	case PCI_CLASS_REV:
		return vf->class_rev;
	case PCI_SUBSYSTEM:
		return vf->subsystem;
	case PCI_COMMAND:
		return (vf->ops->intx(vf->ctx) ? PCI_STATUS_INTX << 16 : 0) |
		       (vf->cap ? PCI_STATUS_CAPS << 16 : 0) | f->cmd;
	case PCI_INTERRUPT_LINE:
		return 1u << 8 | f->int_line;
	case PCI_CAP_PTR:
		return vf->cap;
	default:
		if (reg >= PCI_BAR0 && reg < PCI_BAR0 + 4 * PCI_MAX_BARS)
			return bar_read(f, (reg - PCI_BAR0) / 4);
		return 0;
	}
}

/* The list the guest sees holds the virtualized capabilities alone, in offset order: the
 * first after `after` (0: the head), 0 past the last. */
static u8 cap_next(const struct pci_bus_fn *f, u8 after)
{
	u8 caps[2 + PCI_BUS_VNDR_MAX] = { f->msi.off, f->msix.off }, best = 0;
	for (unsigned i = 0; i < PCI_BUS_VNDR_MAX; i++)
		caps[2 + i] = f->vndr[i].off;
	for (unsigned i = 0; i < ARRAY_SIZE(caps); i++)
		if (caps[i] > after && (!best || caps[i] < best))
			best = caps[i];
	return best;
}

/* The vendor-specific capability whose bytes the dword at reg overlaps, or NULL. */
static const struct pci_bus_vndr *vndr_at(const struct pci_bus_fn *f, u16 reg)
{
	for (unsigned i = 0; i < PCI_BUS_VNDR_MAX && f->vndr[i].len; i++)
		if (reg >= f->vndr[i].off && reg < f->vndr[i].off + f->vndr[i].len)
			return &f->vndr[i];
	return NULL;
}

/* A vendor-specific capability's dword: the host's, with the guest's next pointer in its
 * header and the bytes past its end (another, hidden, capability's) as zero. */
static u32 vndr_read(struct pci_bus *b, const struct pci_bus_fn *f, const struct pci_bus_vndr *v,
		     u16 reg)
{
	u32 val = b->ops->cfg_read(b->ctx, f->host_bdf, reg);
	if (reg == v->off)
		val = (val & ~0xff00u) | (u32)cap_next(f, v->off) << 8;
	unsigned left = v->off + v->len - reg;
	return left >= 4 ? val : val & ((1u << (8 * left)) - 1);
}

static u32 fn_read(struct pci_bus *b, const struct pci_bus_fn *f, u16 reg)
{
	if (f->vfn)
		return vfn_read(f, reg);
	switch (reg) {
	case PCI_VENDOR_ID:
	case PCI_CLASS_REV:
	case PCI_SUBSYSTEM:
		return b->ops->cfg_read(b->ctx, f->host_bdf, reg);
	case PCI_COMMAND: {
		u32 status =
			b->ops->cfg_read(b->ctx, f->host_bdf, reg) >> 16 & ~(u32)PCI_STATUS_CAPS;
		return (status | (cap_next(f, 0) ? PCI_STATUS_CAPS : 0)) << 16 | f->cmd;
	}
	case PCI_CAP_PTR:
		return cap_next(f, 0);
	case PCI_INTERRUPT_LINE:
		return (f->intx_routed ? 1u << 8 : 0) | f->int_line; /* INTA, or no pin */
	default:
		if (reg >= PCI_BAR0 && reg < PCI_BAR0 + 4 * PCI_MAX_BARS)
			return bar_read(f, (reg - PCI_BAR0) / 4);
		if (pci_msi_claims(&f->msi, reg))
			return pci_msi_read(b, f, reg) |
			       (reg == f->msi.off ? cap_next(f, (u8)reg) << 8 : 0);
		if (pci_msix_claims(&f->msix, reg))
			return pci_msix_read(f, reg) |
			       (reg == f->msix.off ? cap_next(f, (u8)reg) << 8 : 0);
		const struct pci_bus_vndr *v = vndr_at(f, reg);
		if (v)
			return vndr_read(b, f, v, reg);
		return 0; /* header type 0, ROM, capabilities, device-specific */
	}
}

/* bytes: which bytes of the dword the guest wrote (bit i: byte i); val is the dword merged. */
static void fn_write(struct pci_bus *b, unsigned d, u16 reg, u32 val, unsigned bytes)
{
	struct pci_bus_fn *f = &b->fn[d];
	if (reg == PCI_COMMAND) {
		if (!(bytes & 3))
			return; /* status only: its error bits are the host's */
		f->cmd = (u16)(val & PCI_BUS_CMD_PASS);
		host_command(b, f);
		decode(b, d);
	} else if (reg >= PCI_BAR0 && reg < PCI_BAR0 + 4 * PCI_MAX_BARS) {
		bar_write(f, (reg - PCI_BAR0) / 4, val);
		decode(b, d);
	} else if (reg == PCI_INTERRUPT_LINE && (bytes & 1)) {
		f->int_line = (u8)val;
	} else if (f->vfn && f->vfn->cap && reg >= f->vfn->cap) {
		f->vfn->ops->cap_write(f->vfn->ctx, reg, val, bytes);
	} else if (pci_msi_claims(&f->msi, reg)) {
		pci_msi_write(b, d, reg, val, bytes);
	} else if (pci_msix_claims(&f->msix, reg)) {
		pci_msix_write(b, d, reg, val, bytes);
	} else {
		/* A vendor-specific capability's body goes to the host, a whole dword of it at a
		 * time (val holds the host's other bytes); its header and a dword it shares with
		 * a hidden capability are read-only. */
		const struct pci_bus_vndr *v = vndr_at(f, reg);
		if (v && reg != v->off && reg + 4 <= v->off + v->len)
			b->ops->cfg_write(b->ctx, f->host_bdf, reg, val);
	}
}

/* The device addressed by 0xCF8: 0 for the host bridge, 1..n for a function, -1 for none. */
static int target(const struct pci_bus *b)
{
	u32 a = b->addr;
	if (!(a & CFG_ENABLE) || (a >> 16 & 0xff) || (a >> 8 & 7))
		return -1;
	u32 dev = a >> 11 & 0x1f;
	return dev <= b->n ? (int)dev : -1;
}

/* Extended space (from 0x100) shows no capability: it reads zero. */
static u32 dword_read(struct pci_bus *b, int dev, u16 reg)
{
	if (dev < 0)
		return 0xffffffffu;
	if (reg >= 0x100)
		return 0;
	return dev ? fn_read(b, &b->fn[dev - 1], reg) : host_bridge_read(reg);
}

/*
 * Configuration space as both doors reach it: n bytes (1 to 4) from byte sh of the dword at reg
 * of dev (-1: nobody, all ones). A write merges its bytes into the dword as read and hands the
 * function the mask of bytes written.
 */
static u32 cfg_access(struct pci_bus *b, int dev, u16 reg, unsigned sh, unsigned n, u32 val,
		      bool write)
{
	u32 mask = (n == 4 ? 0xffffffffu : (1u << (8 * n)) - 1) << (8 * sh);
	u32 cur = dword_read(b, dev, reg);
	/* The host bridge is read-only; nobody else is there; extended space holds nothing. */
	if (write && dev > 0 && reg < 0x100)
		fn_write(b, (unsigned)dev - 1, reg, (cur & ~mask) | ((val << (8 * sh)) & mask),
			 ((1u << n) - 1) << sh);
	return (cur & mask) >> (8 * sh);
}

u32 pci_bus_read(struct pci_bus *b, u16 port, unsigned size)
{
	if (port < CFG_DATA)
		return port == 0xcf8 && size == 4 ? b->addr : 0xffffffffu >> (32 - 8 * size);
	unsigned sh = port - CFG_DATA, n = size < 4 - sh ? size : 4 - sh;
	u32 val = cfg_access(b, target(b), (u16)(b->addr & 0xfc), sh, n, 0, false);
	/* Bytes past 0xCFF belong to no port here: they float high. */
	if (n < size)
		val |= 0xffffffffu << (8 * n);
	return size == 4 ? val : val & ((1u << (8 * size)) - 1);
}

void pci_bus_write(struct pci_bus *b, u16 port, unsigned size, u32 val)
{
	if (port < CFG_DATA) {
		if (port == 0xcf8 && size == 4)
			b->addr = val & 0x80fffffcu;
		return;
	}
	unsigned sh = port - CFG_DATA, n = size < 4 - sh ? size : 4 - sh;
	cfg_access(b, target(b), (u16)(b->addr & 0xfc), sh, n, val, true);
}

/* ECAM: bus 0 alone, so an offset is device << 15 | function << 12 | register. */
bool pci_bus_ecam_access(struct pci_bus *b, u64 addr, unsigned len, u64 *val, bool write)
{
	u64 off = addr - PCI_BUS_ECAM_BASE;
	if (!b->n || off >= PCI_BUS_ECAM_SIZE)
		return false;
	u32 dev = (u32)(off >> 15), sh = (u32)(off & 3);
	int d = (off >> 12 & 7) || dev > b->n ? -1 : (int)dev;
	/* One dword at most, as a root complex takes a configuration request. */
	if ((len != 1 && len != 2 && len != 4) || sh + len > 4) {
		if (!write)
			*val = ~0ull;
		return true;
	}
	u32 got = cfg_access(b, d, (u16)(off & 0xffc), sh, len, (u32)*val, write);
	if (!write)
		*val = got;
	return true;
}

/* The decoding BAR holding [addr, addr + len) of that kind, or NULL; *dev its function. */
static const struct pci_bus_bar *decoding(const struct pci_bus *b, bool io, u64 addr, unsigned len,
					  u32 *dev)
{
	for (u32 d = 0; d < b->n; d++)
		for (unsigned i = 0; i < PCI_MAX_BARS; i++) {
			const struct pci_bus_bar *r = &b->fn[d].bar[i];
			if (!r->live || (r->kind == PCI_BAR_IO) != io || addr - r->at >= r->size ||
			    len > r->size - (addr - r->at))
				continue;
			*dev = d;
			return r;
		}
	return NULL;
}

bool pci_bus_decodes(const struct pci_bus *b, bool io, u64 addr, unsigned len, u64 *host)
{
	u32 d;
	const struct pci_bus_bar *r = decoding(b, io, addr, len, &d);
	if (!r || !r->host)
		return false;
	*host = r->host + (addr - r->at);
	return true;
}

bool pci_bus_msix_access(struct pci_bus *b, u64 addr, unsigned len, u64 *val, bool write)
{
	u32 d;
	const struct pci_bus_bar *r = decoding(b, false, addr, len, &d);
	if (!r || b->fn[d].vfn)
		return false;
	return pci_msix_access(b, d, (unsigned)(r - b->fn[d].bar), addr - r->at, len, val, write);
}

bool pci_bus_vfn_access(struct pci_bus *b, u64 addr, unsigned len, u32 *val, bool write)
{
	u32 d;
	const struct pci_bus_bar *r = decoding(b, false, addr, len, &d);
	const struct pci_vfn *vf = r ? b->fn[d].vfn : NULL;
	if (!vf || r->host)
		return false;
	unsigned bar = (unsigned)(r - b->fn[d].bar);
	if (write)
		vf->ops->write(vf->ctx, bar, addr - r->at, len, *val);
	else
		*val = vf->ops->read(vf->ctx, bar, addr - r->at, len);
	return true;
}
