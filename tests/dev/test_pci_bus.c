/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of the guest's PCI bus (vmm/dev/pci_bus.c): what the guest sees, BARs, decode, bad writes. */
#include "tests/unit/harness.h"
#include <string.h>
#include "vmm/dev/pci_bus.h"

#define RAM_END (64ull << 20)
#define EDU_BDF PCI_BDF(2, 1, 0) /* behind a bridge on the host: must still show */
#define NIC_BDF PCI_BDF(0, 3, 1) /* a function 1 given alone */

/* Two host functions' configuration spaces and what the bus did to the guest's windows. */
struct fake {
	u32 cfg[2][64];
	u32 host_writes;
	u16 vndr_from, vndr_to; /* host writes allowed there (vendor capabilities) */
	u32 vndr_writes;
	struct {
		unsigned dev;
		u64 at, size;
		bool io;
	} maps[16];
	unsigned nmaps, nunmaps;
	u64 last_unmap;
};

static struct fake fk;

static u32 (*space(u16 bdf))[64]
{
	return bdf == EDU_BDF ? &fk.cfg[0] : bdf == NIC_BDF ? &fk.cfg[1] : NULL;
}

static u32 f_read(void *ctx, u16 bdf, u16 off)
{
	(void)ctx;
	return space(bdf) ? (*space(bdf))[off / 4] : 0xffffffffu;
}

static void f_write(void *ctx, u16 bdf, u16 off, u32 v)
{
	(void)ctx;
	assert_non_null(space(bdf));
	/* The only host registers the guest reaches: the command register and, where a test
	 * says so, a vendor-specific capability's body. */
	if (off != PCI_COMMAND) {
		assert_true(off >= fk.vndr_from && off < fk.vndr_to);
		fk.vndr_writes++;
	}
	(*space(bdf))[off / 4] = v;
	fk.host_writes++;
}

static void f_map(void *ctx, unsigned dev, const struct pci_bus_bar *bar)
{
	(void)ctx;
	assert_true(fk.nmaps < 16);
	fk.maps[fk.nmaps++] =
		(typeof(fk.maps[0])){ dev, bar->at, bar->size, bar->kind == PCI_BAR_IO };
}

static void f_unmap(void *ctx, unsigned dev, const struct pci_bus_bar *bar)
{
	(void)ctx, (void)dev;
	fk.nunmaps++;
	fk.last_unmap = bar->at;
}

static const struct pci_bus_ops ops = {
	.cfg_read = f_read, .cfg_write = f_write, .map = f_map, .unmap = f_unmap
};

/* edu: one 1 MiB memory BAR; the "NIC": an I/O BAR, a 64-bit prefetchable BAR of 16 KiB, a
 * 128-byte memory BAR and one the firmware never placed. Both have capabilities (status bit 4,
 * pointer 0x40) and an expansion ROM, which the guest must not see. */
static void setup(struct pci_bus *b)
{
	memset(&fk, 0, sizeof(fk));
	fk.cfg[0][0] = 0x11e81234;
	fk.cfg[0][1] = 0x00100000 | 0x0006 | 0x0100; /* caps; mem, master, SERR# on */
	fk.cfg[0][2] = 0x00ff0010;
	fk.cfg[0][0x2c / 4] = 0x11001af4;
	fk.cfg[0][0x30 / 4] = 0xfeb00000;
	fk.cfg[0][0x34 / 4] = 0x40;
	fk.cfg[0][0x3c / 4] = 0x0100; /* pin A */
	fk.cfg[1][0] = 0x10d38086;
	fk.cfg[1][1] = 0x00100000;
	fk.cfg[1][2] = 0x02000000;
	fk.cfg[1][0x34 / 4] = 0x40;
	pci_bus_init(b, &ops, NULL, "g", RAM_END, 1ull << 40);
	struct pci_bar edu[PCI_MAX_BARS] = { { 0xfea00000, 1 << 20, PCI_BAR_MEM32, false } };
	struct pci_bar nic[PCI_MAX_BARS] = {
		{ 0xc000, 0x20, PCI_BAR_IO, false },
		{ 0x800000000ull, 0x4000, PCI_BAR_MEM64, true },
		{ 0 },
		{ 0xfeb10000, 0x80, PCI_BAR_MEM32, false },
		{ 0, 0x1000, PCI_BAR_MEM32, false },
	};
	assert_int_equal(pci_bus_add(b, EDU_BDF, edu), 1);
	assert_int_equal(pci_bus_add(b, NIC_BDF, nic), 2);
	pci_bus_reset(b);
}

static u32 cfg_rd(struct pci_bus *b, unsigned dev, unsigned fn, u16 reg, unsigned size)
{
	pci_bus_write(b, 0xcf8, 4, BIT(31) | dev << 11 | fn << 8 | (reg & 0xfc));
	return pci_bus_read(b, (u16)(0xcfc + (reg & 3)), size);
}

static void cfg_wr(struct pci_bus *b, unsigned dev, u16 reg, unsigned size, u32 val)
{
	pci_bus_write(b, 0xcf8, 4, BIT(31) | dev << 11 | (reg & 0xfc));
	pci_bus_write(b, (u16)(0xcfc + (reg & 3)), size, val);
}

static void test_enumeration(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	assert_int_equal(cfg_rd(&b, 0, 0, 0, 4), PCI_BUS_HB_ID);
	assert_int_equal(cfg_rd(&b, 0, 0, 8, 4) >> 8, 0x060000);
	assert_int_equal(cfg_rd(&b, 1, 0, 0, 4), 0x11e81234); /* host 02:01.0 as 00:01.0 */
	assert_int_equal(cfg_rd(&b, 1, 0, 8, 4), 0x00ff0010);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x2c, 4), 0x11001af4);
	assert_int_equal(cfg_rd(&b, 2, 0, 0, 4), 0x10d38086); /* host 00:03.1 as 00:02.0 */
	assert_int_equal(cfg_rd(&b, 2, 0, 0x0c, 4), 0);	      /* header type 0, one function */
	/* Nobody else: more devices, other functions, other buses, the enable bit clear. */
	assert_int_equal(cfg_rd(&b, 3, 0, 0, 4), 0xffffffffu);
	assert_int_equal(cfg_rd(&b, 31, 0, 0, 4), 0xffffffffu);
	assert_int_equal(cfg_rd(&b, 1, 1, 0, 4), 0xffffffffu);
	assert_int_equal(cfg_rd(&b, 0, 3, 0, 2), 0xffff);
	pci_bus_write(&b, 0xcf8, 4, BIT(31) | 2u << 16 | 1u << 11); /* the host's own 02:01.0 */
	assert_int_equal(pci_bus_read(&b, 0xcfc, 4), 0xffffffffu);
	pci_bus_write(&b, 0xcf8, 4, 1u << 11);
	assert_int_equal(pci_bus_read(&b, 0xcfc, 4), 0xffffffffu);
	/* 0xCF8 keeps the enable bit, bus, device, function and dword register. */
	pci_bus_write(&b, 0xcf8, 4, 0xffffffffu);
	assert_int_equal(pci_bus_read(&b, 0xcf8, 4), 0x80fffffcu);
	assert_int_equal(pci_bus_read(&b, 0xcf8, 1), 0xff); /* only dwords reach it */
}

static void test_widths(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	assert_int_equal(cfg_rd(&b, 1, 0, 0, 1), 0x34);
	assert_int_equal(cfg_rd(&b, 1, 0, 1, 1), 0x12);
	assert_int_equal(cfg_rd(&b, 1, 0, 2, 2), 0x11e8);
	assert_int_equal(cfg_rd(&b, 1, 0, 3, 1), 0x11);
	assert_int_equal(cfg_rd(&b, 1, 0, 0xb, 1), 0x00); /* class byte */
	/* A word at 0xCFF: its second byte is past the data port. */
	assert_int_equal(cfg_rd(&b, 1, 0, 3, 2), 0xff11);
	/* A byte write to the command register's low byte leaves the rest. */
	cfg_wr(&b, 1, PCI_COMMAND, 1, PCI_CMD_MEM);
	assert_int_equal(cfg_rd(&b, 1, 0, PCI_COMMAND, 2), PCI_CMD_MEM);
	cfg_wr(&b, 1, PCI_COMMAND + 1, 1, PCI_CMD_INTX_DISABLE >> 8);
	assert_int_equal(cfg_rd(&b, 1, 0, PCI_COMMAND, 2), PCI_CMD_MEM | PCI_CMD_INTX_DISABLE);
}

static void test_bar_sizing(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	/* Umbra's placement: in the hole above RAM, naturally aligned, pages apart. */
	assert_int_equal(cfg_rd(&b, 1, 0, 0x10, 4), PCI_BUS_HOLE_BASE);
	assert_int_equal(cfg_rd(&b, 2, 0, 0x10, 4), 0xc000 | 1); /* the host's ports */
	assert_int_equal(cfg_rd(&b, 2, 0, 0x14, 4), (PCI_BUS_HOLE_BASE + 0x100000) | 0xc);
	assert_int_equal(cfg_rd(&b, 2, 0, 0x18, 4), 0); /* the 64-bit BAR's upper half */
	assert_int_equal(cfg_rd(&b, 2, 0, 0x1c, 4), PCI_BUS_HOLE_BASE + 0x104000);
	assert_int_equal(cfg_rd(&b, 2, 0, 0x20, 4), 0); /* never placed by firmware */
	/* Sizing: all ones in, the size mask out, as the host BAR would give. */
	cfg_wr(&b, 1, 0x10, 4, 0xffffffffu);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x10, 4), 0xfff00000u);
	cfg_wr(&b, 2, 0x10, 4, 0xffffffffu);
	assert_int_equal(cfg_rd(&b, 2, 0, 0x10, 4), 0xffffffe1u);
	cfg_wr(&b, 2, 0x14, 4, 0xffffffffu);
	cfg_wr(&b, 2, 0x18, 4, 0xffffffffu);
	assert_int_equal(cfg_rd(&b, 2, 0, 0x14, 4), 0xffffc00cu);
	assert_int_equal(cfg_rd(&b, 2, 0, 0x18, 4), 0xffffffffu);
	cfg_wr(&b, 2, 0x1c, 4, 0xffffffffu);
	assert_int_equal(cfg_rd(&b, 2, 0, 0x1c, 4), 0xffffff80u);
	cfg_wr(&b, 2, 0x20, 4, 0xffffffffu);
	assert_int_equal(cfg_rd(&b, 2, 0, 0x20, 4), 0);
	/* The expansion ROM is hidden: it sizes as nothing. */
	cfg_wr(&b, 1, 0x30, 4, 0xffffffffu);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x30, 4), 0);
	/* Nothing of this reached the host, nor mapped anything: decode is off. */
	assert_int_equal(fk.cfg[0][4], 0);
	assert_int_equal(fk.nmaps, 0);
}

static void test_read_only(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	u32 writes = fk.host_writes;
	cfg_wr(&b, 1, 0x00, 4, 0);
	cfg_wr(&b, 1, 0x08, 4, 0xffffffffu);
	cfg_wr(&b, 1, 0x2c, 4, 0);
	cfg_wr(&b, 1, 0x34, 1, 0x50);
	cfg_wr(&b, 1, 0x0c, 4, 0xffffffffu);
	cfg_wr(&b, 1, 0x40, 4, 0xffffffffu);
	cfg_wr(&b, 1, 0x06, 2, 0xffff); /* status alone: RW1C on the host, not the guest's */
	cfg_wr(&b, 0, 0x04, 4, 0);	/* the host bridge */
	cfg_wr(&b, 0, 0x10, 4, 0xffffffffu);
	assert_int_equal(fk.host_writes, writes);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x00, 4), 0x11e81234);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x08, 4), 0x00ff0010);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x2c, 4), 0x11001af4);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x0c, 4), 0);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x40, 4), 0);
	assert_int_equal(cfg_rd(&b, 0, 0, 0x04, 2), PCI_CMD_IO | PCI_CMD_MEM);
	assert_int_equal(cfg_rd(&b, 0, 0, 0x10, 4), 0);
	/* Capabilities hidden: no pointer, no status bit; INTx not offered. */
	assert_int_equal(cfg_rd(&b, 1, 0, 0x34, 4), 0);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x06, 2) & PCI_STATUS_CAPS, 0);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x3d, 1), 0);
	cfg_wr(&b, 1, 0x3c, 4, 0xffffffffu); /* the interrupt line is the OS's scratch byte */
	assert_int_equal(cfg_rd(&b, 1, 0, 0x3c, 4), 0xff);
	/* Writes to functions that are not there go nowhere. */
	cfg_wr(&b, 5, 0x04, 4, 0xffff);
	pci_bus_write(&b, 0xcf8, 4, BIT(31) | 1u << 11 | 1u << 8 | 4);
	pci_bus_write(&b, 0xcfc, 4, 0xffff);
	assert_int_equal(fk.host_writes, writes);
	assert_int_equal(fk.nmaps, 0);
}

static void test_command(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	/* Reset turned the host's decode and bus mastering off, and kept its other bits. */
	assert_int_equal(fk.cfg[0][1] & 0xffff, 0x0100);
	cfg_wr(&b, 1, PCI_COMMAND, 2, 0xffff);
	assert_int_equal(cfg_rd(&b, 1, 0, PCI_COMMAND, 2), PCI_BUS_CMD_PASS);
	assert_int_equal(fk.cfg[0][1], 0x0100 | PCI_BUS_CMD_PASS); /* status half written 0 */
	assert_int_equal(fk.nmaps, 1);
	assert_int_equal(fk.maps[0].dev, 1);
	assert_int_equal(fk.maps[0].at, PCI_BUS_HOLE_BASE);
	assert_int_equal(fk.maps[0].size, 1 << 20);
	u64 host;
	assert_true(pci_bus_decodes(&b, false, PCI_BUS_HOLE_BASE + 8, 4, &host));
	assert_int_equal(host, 0xfea00008);
	assert_false(pci_bus_decodes(&b, false, PCI_BUS_HOLE_BASE + 0xffffe, 4, &host));
	assert_false(pci_bus_decodes(&b, true, PCI_BUS_HOLE_BASE, 4, &host));
	cfg_wr(&b, 1, PCI_COMMAND, 2, PCI_CMD_MASTER);
	assert_int_equal(fk.nunmaps, 1);
	assert_int_equal(fk.cfg[0][1], 0x0100 | PCI_CMD_MASTER);
	assert_false(pci_bus_decodes(&b, false, PCI_BUS_HOLE_BASE + 8, 4, &host));
	/* I/O decode on the NIC: its port BAR decodes, its memory BARs do not. */
	cfg_wr(&b, 2, PCI_COMMAND, 2, PCI_CMD_IO);
	assert_int_equal(fk.nmaps, 2);
	assert_true(fk.maps[1].io);
	assert_true(pci_bus_decodes(&b, true, 0xc01f, 1, &host));
	assert_int_equal(host, 0xc01f);
	assert_false(pci_bus_decodes(&b, true, 0xc01f, 2, &host));
}

static void test_bar_move(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	cfg_wr(&b, 1, PCI_COMMAND, 2, PCI_CMD_MEM);
	cfg_wr(&b, 2, PCI_COMMAND, 2, PCI_CMD_MEM | PCI_CMD_IO);
	unsigned maps = fk.nmaps;
	assert_int_equal(maps, 4);
	/* A move while decoding: the old window goes, the new one comes. */
	cfg_wr(&b, 1, 0x10, 4, 0xd0000000u);
	assert_int_equal(fk.nunmaps, 1);
	assert_int_equal(fk.last_unmap, PCI_BUS_HOLE_BASE);
	assert_int_equal(fk.nmaps, maps + 1);
	assert_int_equal(fk.maps[maps].at, 0xd0000000u);
	/* The 64-bit BAR moves above 4 GiB in two writes, each a move. */
	cfg_wr(&b, 2, 0x14, 4, 0);
	cfg_wr(&b, 2, 0x18, 4, 0x10);
	assert_int_equal(fk.maps[fk.nmaps - 1].at, 0x1000000000ull);
	u64 host;
	assert_true(pci_bus_decodes(&b, false, 0x1000000010ull, 8, &host));
	assert_int_equal(host, 0x800000010ull);
}

/* Guest RAM above 4 GiB is RAM too: a 64-bit BAR moved over it does not decode there. */
static void test_ram_above_4g(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	b.ram_high_end = 8ull << 30;
	cfg_wr(&b, 2, PCI_COMMAND, 2, PCI_CMD_MEM);
	u64 host;
	cfg_wr(&b, 2, 0x14, 4, 0x40000000u);
	assert_int_equal(b.refused, 0);
	cfg_wr(&b, 2, 0x18, 4, 1); /* 5 GiB: inside [4 GiB, 8 GiB) */
	assert_int_equal(b.refused, 1);
	assert_false(pci_bus_decodes(&b, false, 0x140000000ull, 4, &host));
	cfg_wr(&b, 2, 0x18, 4, 2); /* 9 GiB: above the guest's RAM */
	assert_true(pci_bus_decodes(&b, false, 0x240000000ull, 4, &host));
	assert_int_equal(b.refused, 1);
}

static void test_unclaimable(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	cfg_wr(&b, 1, PCI_COMMAND, 2, PCI_CMD_MEM);
	cfg_wr(&b, 2, PCI_COMMAND, 2, PCI_CMD_MEM | PCI_CMD_IO);
	u64 host;
	static const struct {
		unsigned dev;
		u16 reg;
		u32 val;
		u64 host;
	} bad[] = {
		{ 1, 0x10, 0x00100000, 0xfea00000 },		       /* over the guest's RAM */
		{ 1, 0x10, 0x03f00000, 0xfea00000 },		       /* its last MiB */
		{ 1, 0x10, 0xfee00000, 0xfea00000 },		       /* the local APIC */
		{ 1, 0x10, 0xfec00000, 0xfea00000 },		       /* the I/O APIC */
		{ 1, 0x10, PCI_BUS_HOLE_BASE + 0x100000, 0xfea00000 }, /* the NIC's 64-bit BAR */
		{ 2, 0x1c, PCI_BUS_HOLE_BASE + 0x80, 0xfeb10000 },     /* inside the edu's BAR */
		{ 2, 0x1c, PCI_BUS_ECAM_BASE + 0x8000, 0xfeb10000 },   /* the ECAM window */
		{ 1, 0x10, PCI_BUS_ECAM_BASE, 0xfea00000 },	       /* the whole of it */
		{ 2, 0x10, 0x3e0, 0xc000 }, /* ports: over the board's COM1 */
		{ 2, 0x10, 0xce0, 0xc000 }, /* over the configuration ports */
	};
	for (unsigned k = 0; k < ARRAY_SIZE(bad); k++) {
		setup(&b);
		cfg_wr(&b, 1, PCI_COMMAND, 2, PCI_CMD_MEM);
		cfg_wr(&b, 2, PCI_COMMAND, 2, PCI_CMD_MEM | PCI_CMD_IO);
		unsigned maps = fk.nmaps;
		cfg_wr(&b, bad[k].dev, bad[k].reg, 4, bad[k].val);
		assert_int_equal(fk.nmaps, maps); /* nothing new decodes */
		assert_int_equal(b.refused, 1);
		/* The register holds it, as hardware's would. */
		assert_int_equal(cfg_rd(&b, bad[k].dev, 0, bad[k].reg, 4) & ~0xfu,
				 bad[k].val & ~0xfu);
		/* Whatever answers there (RAM, an APIC, the BAR that was there first), the
		 * moved BAR does not. */
		bool io = bad[k].reg == 0x10 && bad[k].dev == 2;
		assert_false(pci_bus_decodes(&b, io, bad[k].val, 1, &host) && host == bad[k].host);
		/* Told once: toggling decode at the same place says nothing more. */
		cfg_wr(&b, bad[k].dev, PCI_COMMAND, 2, 0);
		cfg_wr(&b, bad[k].dev, PCI_COMMAND, 2, PCI_CMD_MEM | PCI_CMD_IO);
		assert_int_equal(b.refused, 1);
	}
	/* Put back somewhere claimable, it decodes again. */
	cfg_wr(&b, 2, 0x10, 4, 0x2000);
	assert_true(pci_bus_decodes(&b, true, 0x2000, 4, &host));
	assert_int_equal(host, 0xc000);
	/* The edu's BAR where the NIC's was, while it still is: refused; the NIC moves; then
	 * the edu's is claimed at its next decode. */
	setup(&b);
	cfg_wr(&b, 2, PCI_COMMAND, 2, PCI_CMD_MEM);
	cfg_wr(&b, 1, 0x10, 4, PCI_BUS_HOLE_BASE + 0x100000);
	cfg_wr(&b, 1, PCI_COMMAND, 2, PCI_CMD_MEM);
	assert_int_equal(b.refused, 1);
	assert_true(pci_bus_decodes(&b, false, PCI_BUS_HOLE_BASE + 0x100000, 4, &host));
	assert_int_equal(host, 0x800000000ull);
	cfg_wr(&b, 2, 0x14, 4, 0xe0000000u);
	cfg_wr(&b, 2, 0x1c, 4, 0xe0010000u); /* its small BAR was in the way too */
	cfg_wr(&b, 1, PCI_COMMAND, 2, 0);
	cfg_wr(&b, 1, PCI_COMMAND, 2, PCI_CMD_MEM);
	assert_true(pci_bus_decodes(&b, false, PCI_BUS_HOLE_BASE + 0x100000, 4, &host));
	assert_int_equal(host, 0xfea00000);
}

static void test_reset(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	cfg_wr(&b, 1, PCI_COMMAND, 2, PCI_CMD_MEM | PCI_CMD_MASTER);
	cfg_wr(&b, 1, 0x10, 4, 0xd0000000u);
	pci_bus_reset(&b);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x10, 4), PCI_BUS_HOLE_BASE);
	assert_int_equal(cfg_rd(&b, 1, 0, PCI_COMMAND, 2), 0);
	assert_int_equal(fk.cfg[0][1] & 0xffff, 0x0100); /* bus mastering off on the host */
	assert_int_equal(fk.last_unmap, 0xd0000000u);
	u64 host;
	assert_false(pci_bus_decodes(&b, false, 0xd0000000u, 4, &host));
	/* A full bus takes no more; a BAR with no room left is not placed. */
	struct pci_bar big[PCI_MAX_BARS] = { { 0x80000000, 1ull << 30, PCI_BAR_MEM32, false } };
	for (unsigned i = 2; i < PCI_BUS_FUNCS; i++)
		assert_int_equal(pci_bus_add(&b, EDU_BDF, big), (int)i + 1);
	assert_int_equal(pci_bus_add(&b, EDU_BDF, big), -1);
	assert_int_equal(b.fn[2].bar[0].placed, 0);
}

/* A guest's end: the host functions stop decoding and mastering (INTx off too) and the status
 * half is written as zero (RW1C); the guest's view stays until its reset. */
static void test_quiesce(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	cfg_wr(&b, 1, PCI_COMMAND, 2, PCI_CMD_MEM | PCI_CMD_MASTER);
	cfg_wr(&b, 2, PCI_COMMAND, 2, PCI_CMD_IO | PCI_CMD_MASTER);
	fk.cfg[0][1] |= 0x80000000u; /* a parity error latched in the status */
	pci_bus_quiesce(&b);
	assert_int_equal(fk.cfg[0][1], 0x0100 | PCI_CMD_INTX_DISABLE);
	assert_int_equal(fk.cfg[1][1], PCI_CMD_INTX_DISABLE);
	assert_int_equal(cfg_rd(&b, 1, 0, PCI_COMMAND, 2), PCI_CMD_MEM | PCI_CMD_MASTER);
}

/* A host function's INTx: INTA on the bus's line once routed (no pin before); taken only while
 * the function's status shows it asserted, then masked at the function (INTx disable on the
 * host, the guest's command register unchanged) and asserted for the guest until the EOI, which
 * unmasks it; the guest's own INTx disable hides it meanwhile; a reset forgets it. */
static void test_intx(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	assert_int_equal(cfg_rd(&b, 1, 0, PCI_INTERRUPT_LINE, 2), 0);
	assert_false(pci_bus_intx_take(&b, 1)); /* not routed */
	pci_bus_intx_route(&b, 1);
	pci_bus_intx_route(&b, 3); /* no such device: nothing */
	pci_bus_reset(&b);
	assert_int_equal(cfg_rd(&b, 1, 0, PCI_INTERRUPT_LINE, 2), 0x100 | PCI_BUS_INTX_IRQ);
	assert_int_equal(cfg_rd(&b, 2, 0, PCI_INTERRUPT_LINE, 2), 0);
	cfg_wr(&b, 1, PCI_COMMAND, 2, PCI_CMD_MEM);
	assert_false(pci_bus_intx_take(&b, 1)); /* status clear: another's */
	assert_false(pci_bus_intx(&b));
	fk.cfg[0][1] |= (u32)PCI_STATUS_INTX << 16;
	assert_true(pci_bus_intx_take(&b, 1));
	assert_false(pci_bus_intx_take(&b, 1)); /* masked already */
	assert_int_equal(fk.cfg[0][1] & 0xffff, 0x0100 | PCI_CMD_MEM | PCI_CMD_INTX_DISABLE);
	assert_int_equal(cfg_rd(&b, 1, 0, PCI_COMMAND, 2), PCI_CMD_MEM);
	assert_true(pci_bus_intx(&b));
	cfg_wr(&b, 1, PCI_COMMAND, 2, PCI_CMD_MEM | PCI_CMD_INTX_DISABLE);
	assert_false(pci_bus_intx(&b));
	cfg_wr(&b, 1, PCI_COMMAND, 2, PCI_CMD_MEM);
	assert_true(pci_bus_intx(&b));
	assert_int_equal(fk.cfg[0][1] & 0xffff, 0x0100 | PCI_CMD_MEM | PCI_CMD_INTX_DISABLE);
	assert_true(pci_bus_intx_eoi(&b));
	assert_false(pci_bus_intx_eoi(&b));
	assert_false(pci_bus_intx(&b));
	assert_int_equal(fk.cfg[0][1] & 0xffff, 0x0100 | PCI_CMD_MEM);
	/* Still asserting after the EOI: taken again. (The status is read-only on a device; the
	 * fake's command writes clear it.) */
	fk.cfg[0][1] |= (u32)PCI_STATUS_INTX << 16;
	assert_true(pci_bus_intx_take(&b, 1));
	pci_bus_reset(&b);
	assert_false(pci_bus_intx(&b));
	assert_int_equal(fk.cfg[0][1] & 0xffff, 0x0100);
	assert_false(pci_bus_intx_take(&b, 0));
	assert_false(pci_bus_intx_take(&b, 9));
}

/* I/O BARs: at the host's ports when free and above the legacy ports, else from 0x1000. */
static void test_io_placement(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	struct pci_bar two[PCI_MAX_BARS] = { { 0xc010, 0x10, PCI_BAR_IO, false }, /* in the NIC's */
					     { 0x300, 0x8, PCI_BAR_IO, false },	  /* legacy */
					     { 0xd000, 0x100, PCI_BAR_IO, false } };
	assert_int_equal(pci_bus_add(&b, EDU_BDF, two), 3);
	assert_int_equal(b.fn[2].bar[0].placed, PCI_BUS_IO_BASE);
	assert_int_equal(b.fn[2].bar[1].placed, PCI_BUS_IO_BASE + 0x10);
	assert_int_equal(b.fn[2].bar[2].placed, 0xd000);
}

/* A function of Umbra's own: its identity, decode on from reset, a register BAR given to its
 * model, a memory BAR at its fixed place backed by host memory, INTA and its disable bit. */
struct model {
	bool intx;
	u32 reg[4];
	unsigned reads, writes;
};

static bool m_intx(void *ctx)
{
	return ((struct model *)ctx)->intx;
}

static u32 m_read(void *ctx, unsigned bar, u64 off, unsigned len)
{
	struct model *m = ctx;
	assert_int_equal(bar, 0);
	assert_true(off < 16 && len <= 4);
	m->reads++;
	return m->reg[off / 4];
}

static void m_write(void *ctx, unsigned bar, u64 off, unsigned len, u32 val)
{
	struct model *m = ctx;
	assert_int_equal(bar, 0);
	assert_true(off < 16 && len <= 4);
	m->writes++;
	m->reg[off / 4] = val;
}

static const struct pci_vfn_ops m_ops = { .intx = m_intx, .read = m_read, .write = m_write };

static void test_virtual_function(void **state)
{
	(void)state;
	struct pci_bus b;
	struct model m = { .reg = { 0x11, 0x22, 0x33, 0x44 } };
	struct pci_vfn vf = { .id = 0x11101af4,
			      .class_rev = 0x05000001,
			      .subsystem = 0x11001af4,
			      .reset_cmd = PCI_CMD_MEM,
			      .ops = &m_ops,
			      .ctx = &m };
	struct pci_bar bars[PCI_MAX_BARS] = {
		[0] = { 0, 0x100, PCI_BAR_MEM32, false },
		[2] = { 0x7000000, 0x10000, PCI_BAR_MEM64, true },
	};
	u64 fixed[PCI_MAX_BARS] = { [2] = PCI_BUS_FIXED_BASE };
	setup(&b);
	assert_int_equal(pci_bus_add_virtual(&b, &vf, bars, fixed), 3);
	unsigned writes = fk.host_writes;
	fk.nmaps = 0;
	pci_bus_reset(&b);
	assert_int_equal(fk.host_writes, writes + 2); /* the two host functions' only */
	assert_int_equal(cfg_rd(&b, 3, 0, PCI_VENDOR_ID, 4), 0x11101af4);
	assert_int_equal(cfg_rd(&b, 3, 0, PCI_CLASS_REV, 4), 0x05000001);
	assert_int_equal(cfg_rd(&b, 3, 0, PCI_SUBSYSTEM, 4), 0x11001af4);
	assert_int_equal(cfg_rd(&b, 3, 0, PCI_COMMAND, 4), PCI_CMD_MEM);
	assert_int_equal(cfg_rd(&b, 3, 0, PCI_INTERRUPT_LINE, 2), 0x100 | PCI_BUS_INTX_IRQ);
	assert_int_equal(cfg_rd(&b, 3, 0, 0x34, 4), 0); /* no capabilities */
	/* Decoding from reset: BAR2 where it was fixed, BAR0 placed in the hole below it. */
	assert_int_equal(cfg_rd(&b, 3, 0, 0x18, 4), (u32)PCI_BUS_FIXED_BASE | 0xc);
	assert_int_equal(cfg_rd(&b, 3, 0, 0x1c, 4), 0);
	u32 bar0 = cfg_rd(&b, 3, 0, 0x10, 4);
	assert_true(bar0 >= PCI_BUS_HOLE_BASE && bar0 < PCI_BUS_FIXED_BASE && !(bar0 & 0xfff));
	assert_int_equal(fk.nmaps, 2);
	u64 host;
	assert_true(pci_bus_decodes(&b, false, PCI_BUS_FIXED_BASE + 0x10, 4, &host));
	assert_int_equal(host, 0x7000010);
	/* The registers go to the model, never to a host address. */
	assert_false(pci_bus_decodes(&b, false, bar0 + 4, 4, &host));
	u32 val = 0;
	assert_true(pci_bus_vfn_access(&b, bar0 + 4, 4, &val, false));
	assert_int_equal(val, 0x22);
	val = 0x99;
	assert_true(pci_bus_vfn_access(&b, bar0 + 8, 4, &val, true));
	assert_int_equal(m.reg[2], 0x99);
	assert_false(pci_bus_vfn_access(&b, PCI_BUS_FIXED_BASE, 4, &val, false)); /* memory */
	assert_false(pci_bus_vfn_access(&b, 0xc0000000u, 4, &val, false));	  /* edu's */
	/* INTA: the status bit follows the model; the disable bit keeps it off the line. */
	assert_false(pci_bus_intx(&b));
	m.intx = true;
	assert_int_equal(cfg_rd(&b, 3, 0, PCI_COMMAND, 4) >> 16, PCI_STATUS_INTX);
	assert_true(pci_bus_intx(&b));
	cfg_wr(&b, 3, PCI_COMMAND, 2, PCI_CMD_MEM | PCI_CMD_INTX_DISABLE);
	assert_false(pci_bus_intx(&b));
	assert_int_equal(cfg_rd(&b, 3, 0, PCI_COMMAND, 4) >> 16, PCI_STATUS_INTX);
	/* Decode off: neither BAR answers; the model saw only the accesses above. */
	cfg_wr(&b, 3, PCI_COMMAND, 2, 0);
	assert_false(pci_bus_vfn_access(&b, bar0 + 4, 4, &val, false));
	assert_false(pci_bus_decodes(&b, false, PCI_BUS_FIXED_BASE, 4, &host));
	assert_int_equal(m.reads, 1);
	assert_int_equal(m.writes, 1);
	assert_int_equal(fk.host_writes, writes + 2);
	/* Quiescing the bus reaches the two host functions alone (host_bdf 0 is no device). */
	pci_bus_quiesce(&b);
	assert_int_equal(fk.host_writes, writes + 4);
}

/* A function of Umbra's own with a capability list: the status bit, the pointer, and every
 * dword from it on read and written through the model (which bytes the guest wrote, too). */
static struct {
	u16 reg;
	u32 val;
	unsigned bytes, writes;
} capw;
static u32 c_read(void *ctx, u16 reg)
{
	(void)ctx;
	return 0xcafe0000u | reg;
}
static void c_write(void *ctx, u16 reg, u32 val, unsigned bytes)
{
	(void)ctx;
	capw.reg = reg, capw.val = val, capw.bytes = bytes, capw.writes++;
}

static void test_virtual_capabilities(void **state)
{
	(void)state;
	struct pci_bus b;
	struct model m = { 0 };
	static const struct pci_vfn_ops ops_caps = { .intx = m_intx,
						     .read = m_read,
						     .write = m_write,
						     .cap_read = c_read,
						     .cap_write = c_write };
	struct pci_vfn vf = { .id = 0x11101af4, .cap = 0x40, .ops = &ops_caps, .ctx = &m };
	struct pci_bar bars[PCI_MAX_BARS] = { [0] = { 0, 0x100, PCI_BAR_MEM32, false } };
	setup(&b);
	assert_int_equal(pci_bus_add_virtual(&b, &vf, bars, NULL), 3);
	pci_bus_reset(&b);
	assert_int_equal(cfg_rd(&b, 3, 0, PCI_COMMAND, 4) >> 16, PCI_STATUS_CAPS);
	assert_int_equal(cfg_rd(&b, 3, 0, PCI_CAP_PTR, 1), 0x40);
	assert_int_equal(cfg_rd(&b, 3, 0, 0x44, 4), 0xcafe0044u);
	assert_int_equal(cfg_rd(&b, 3, 0, 0x3c, 4) & 0xff00, 0x100); /* below the list: header */
	cfg_wr(&b, 3, 0x42, 2, 0x8000);
	assert_int_equal(capw.writes, 1);
	assert_int_equal(capw.reg, 0x40);
	assert_int_equal(capw.bytes, 0xc);
	assert_int_equal(capw.val >> 16, 0x8000);
	cfg_wr(&b, 3, 0x34, 1, 0x80); /* the pointer is read-only */
	assert_int_equal(cfg_rd(&b, 3, 0, PCI_CAP_PTR, 1), 0x40);
	assert_int_equal(capw.writes, 1);
}

/* ---- ECAM ---- */
static u64 ecam_off(unsigned dev, unsigned fn, u16 reg)
{
	return PCI_BUS_ECAM_BASE + (dev << 15 | fn << 12 | reg);
}

static u64 ecam_rd(struct pci_bus *b, unsigned dev, unsigned fn, u16 reg, unsigned len)
{
	u64 v = 0x5a5a5a5a5a5a5a5aull;
	assert_true(pci_bus_ecam_access(b, ecam_off(dev, fn, reg), len, &v, false));
	return v;
}

static void ecam_wr(struct pci_bus *b, unsigned dev, u16 reg, unsigned len, u64 val)
{
	assert_true(pci_bus_ecam_access(b, ecam_off(dev, 0, reg), len, &val, true));
}

/* The bus of setup with a function of Umbra's own that has a capability list, at 00:03.0. */
static struct model ecam_model;
static const struct pci_vfn_ops ecam_caps_ops = {
	.intx = m_intx, .read = m_read, .write = m_write, .cap_read = c_read, .cap_write = c_write
};
static const struct pci_vfn ecam_vf = { .id = 0x11101af4,
					.class_rev = 0x05000001,
					.cap = 0x40,
					.reset_cmd = PCI_CMD_MEM,
					.ops = &ecam_caps_ops,
					.ctx = &ecam_model };

static void ecam_setup(struct pci_bus *b)
{
	struct pci_bar bars[PCI_MAX_BARS] = { [0] = { 0, 0x100, PCI_BAR_MEM32, false } };
	setup(b);
	assert_int_equal(pci_bus_add_virtual(b, &ecam_vf, bars, NULL), 3);
	pci_bus_reset(b);
	cfg_wr(b, 1, PCI_COMMAND, 2, PCI_CMD_MEM | PCI_CMD_MASTER);
}

/* Every register of every device and function of bus 0, at every width inside a dword, reads
 * the same through ECAM as through 0xCF8/0xCFC; extended space reads zero where a function is
 * and all ones where none is. */
static void test_ecam_agrees(void **state)
{
	(void)state;
	struct pci_bus b;
	ecam_setup(&b);
	unsigned present = 0;
	for (unsigned dev = 0; dev < 32; dev++)
		for (unsigned fn = 0; fn < 8; fn++) {
			bool here = fn == 0 && dev <= 3;
			present += here && ecam_rd(&b, dev, fn, 0, 4) != 0xffffffffu;
			for (u16 reg = 0; reg < 0x100; reg++)
				for (unsigned len = 1; len <= 4; len <<= 1) {
					if ((reg & 3) + len > 4)
						continue;
					assert_int_equal(ecam_rd(&b, dev, fn, reg, len),
							 cfg_rd(&b, dev, fn, reg, len));
				}
			for (u16 reg = 0x100; reg < 0x1000; reg += 4)
				assert_int_equal(ecam_rd(&b, dev, fn, reg, 4),
						 here ? 0 : 0xffffffffu);
			assert_int_equal(ecam_rd(&b, dev, fn, 0xffe, 2), here ? 0 : 0xffff);
		}
	assert_int_equal(present, 4);
	/* Some of what was compared is not trivially alike: identities, a BAR, the command
	 * register, the model's capability. */
	assert_int_equal(ecam_rd(&b, 2, 0, 0, 4), 0x10d38086);
	assert_int_equal(ecam_rd(&b, 1, 0, 0x10, 4), PCI_BUS_HOLE_BASE);
	assert_int_equal(ecam_rd(&b, 1, 0, PCI_COMMAND, 2), PCI_CMD_MEM | PCI_CMD_MASTER);
	assert_int_equal(ecam_rd(&b, 3, 0, 0x46, 2), 0xcafe);
}

/* Writes through ECAM are the writes of mechanism #1: BAR sizing, decode, byte merging; and an
 * ECAM access leaves 0xCF8's latched address alone. */
static void test_ecam_writes(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	ecam_wr(&b, 1, 0x10, 4, 0xffffffffu);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x10, 4), 0xfff00000u);
	assert_int_equal(ecam_rd(&b, 1, 0, 0x10, 4), 0xfff00000u);
	ecam_wr(&b, 1, 0x10, 4, 0xd0000000u);
	ecam_wr(&b, 1, PCI_COMMAND, 1, PCI_CMD_MEM);
	assert_int_equal(fk.nmaps, 1);
	assert_int_equal(fk.maps[0].at, 0xd0000000u);
	assert_int_equal(fk.cfg[0][1] & PCI_BUS_CMD_PASS, PCI_CMD_MEM);
	ecam_wr(&b, 1, PCI_COMMAND + 1, 1, PCI_CMD_INTX_DISABLE >> 8);
	assert_int_equal(cfg_rd(&b, 1, 0, PCI_COMMAND, 2), PCI_CMD_MEM | PCI_CMD_INTX_DISABLE);
	ecam_wr(&b, 2, 0x3d, 1, 0x7); /* the pin is read-only... */
	ecam_wr(&b, 2, 0x3c, 1, 0x9); /* ...the line is the OS's */
	assert_int_equal(cfg_rd(&b, 2, 0, 0x3c, 4), 0x9);
	pci_bus_write(&b, 0xcf8, 4, BIT(31) | 2u << 11);
	ecam_wr(&b, 1, 0x3c, 1, 0x5);
	assert_int_equal(ecam_rd(&b, 1, 0, 0, 4), 0x11e81234);
	assert_int_equal(pci_bus_read(&b, 0xcf8, 4), BIT(31) | 2u << 11);
	assert_int_equal(pci_bus_read(&b, 0xcfc, 4), 0x10d38086);
}

/* What a root complex refuses: widths other than 1, 2 and 4, an access across a dword,
 * functions that are not there, extended space; reads all ones (zero for extended space of a
 * present function), and no write lands anywhere. Outside the window, or with no bus, the
 * access is not the bus's at all. */
static void test_ecam_bad_accesses(void **state)
{
	(void)state;
	struct pci_bus b;
	setup(&b);
	u64 v;
	assert_int_equal(ecam_rd(&b, 1, 0, 0, 8), ~0ull);
	assert_int_equal(ecam_rd(&b, 1, 0, 0, 3), ~0ull);
	assert_int_equal(ecam_rd(&b, 1, 0, 2, 4), ~0ull);
	assert_int_equal(ecam_rd(&b, 1, 0, 3, 2), ~0ull);
	assert_int_equal(ecam_rd(&b, 1, 0, 0x3, 1), 0x11); /* the same bytes, one at a time */
	assert_int_equal(ecam_rd(&b, 1, 0, 0x4, 1), 0);
	u32 writes = fk.host_writes;
	ecam_wr(&b, 1, 0x10, 8, ~0ull); /* would size BAR0 */
	ecam_wr(&b, 1, 0x12, 4, 0xffffffffu);
	ecam_wr(&b, 1, 0x03, 2, 0xffff); /* across into the command */
	ecam_wr(&b, 1, PCI_COMMAND, 3, 0xffffff);
	ecam_wr(&b, 1, 0x104, 4, 0xffffffffu); /* extended space */
	ecam_wr(&b, 1, 0xffc, 4, 0xffffffffu);
	assert_true(pci_bus_ecam_access(&b, ecam_off(1, 1, PCI_COMMAND), 2, &(u64){ PCI_CMD_MEM },
					true));	     /* 00:01.1 */
	ecam_wr(&b, 4, PCI_COMMAND, 2, PCI_CMD_MEM); /* 00:04.0 */
	ecam_wr(&b, 31, 0x10, 4, 0);
	ecam_wr(&b, 0, 0x10, 4, 0xffffffffu); /* the host bridge: read-only */
	assert_int_equal(fk.host_writes, writes);
	assert_int_equal(fk.nmaps, 0);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x10, 4), PCI_BUS_HOLE_BASE);
	assert_int_equal(cfg_rd(&b, 1, 0, PCI_COMMAND, 2), 0);
	assert_int_equal(ecam_rd(&b, 1, 0, 0x104, 4), 0);
	assert_int_equal(ecam_rd(&b, 0, 0, 0x10, 4), 0);
	assert_int_equal(ecam_rd(&b, 4, 0, 0, 2), 0xffff);
	/* Not the window's. */
	assert_false(pci_bus_ecam_access(&b, PCI_BUS_ECAM_BASE - 1, 1, &v, false));
	assert_false(pci_bus_ecam_access(&b, PCI_BUS_ECAM_BASE + PCI_BUS_ECAM_SIZE, 4, &v, false));
	/* Its last byte is, and a dword there would cross: all ones. */
	assert_int_equal(ecam_rd(&b, 31, 7, 0xfff, 1), 0xff);
	assert_int_equal(ecam_rd(&b, 31, 7, 0xffe, 4), ~0ull);
	struct pci_bus empty;
	pci_bus_init(&empty, &ops, NULL, "e", RAM_END, 1ull << 40);
	assert_false(pci_bus_ecam_access(&empty, PCI_BUS_ECAM_BASE, 4, &v, false));
}

/* Vendor-specific capabilities pass through between the virtualized ones, in the host's order:
 * host list 0x40 PM -> 0x50 vendor (16 bytes) -> 0x60 PCIe -> 0x70 vendor (14 bytes, its last
 * dword shared with hidden bytes) -> 0x80 vendor of length 2 (malformed: hidden) -> 0x90
 * vendor running past 0x100 (hidden) -> end. */
static void test_vendor_capabilities(void **state)
{
	(void)state;
	struct pci_bus b;
	memset(&fk, 0, sizeof(fk));
	u32 *c = fk.cfg[0];
	c[0] = 0x10011af4;
	c[1] = 0x00100000;
	c[0x34 / 4] = 0x40;
	c[0x40 / 4] = 0x5001;
	c[0x50 / 4] = 0x00106009, c[0x54 / 4] = 0x11111111, c[0x58 / 4] = 0x22222222;
	c[0x5c / 4] = 0x33333333;
	c[0x60 / 4] = 0x7010;
	c[0x70 / 4] = 0x000e8009, c[0x74 / 4] = 0x44444444, c[0x78 / 4] = 0x55555555;
	c[0x7c / 4] = 0xabcd6666;
	c[0x80 / 4] = 0x00029009;
	c[0x90 / 4] = 0x00800009;
	pci_bus_init(&b, &ops, NULL, "g", RAM_END, 1ull << 40);
	struct pci_bar edu[PCI_MAX_BARS] = { { 0xfea00000, 1 << 20, PCI_BAR_MEM32, false } };
	assert_int_equal(pci_bus_add(&b, EDU_BDF, edu), 1);
	pci_bus_reset(&b);
	assert_true(cfg_rd(&b, 1, 0, PCI_COMMAND, 4) >> 16 & PCI_STATUS_CAPS);
	assert_int_equal(cfg_rd(&b, 1, 0, PCI_CAP_PTR, 1), 0x50);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x50, 4), 0x00107009); /* next: 0x70, not PCIe */
	assert_int_equal(cfg_rd(&b, 1, 0, 0x58, 4), 0x22222222);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x5a, 2), 0x2222);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x70, 4), 0x000e0009); /* the last one */
	assert_int_equal(cfg_rd(&b, 1, 0, 0x7c, 4), 0x6666);	 /* hidden bytes read 0 */
	assert_int_equal(cfg_rd(&b, 1, 0, 0x40, 4), 0);		 /* PM, PCIe hidden */
	assert_int_equal(cfg_rd(&b, 1, 0, 0x60, 4), 0);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x80, 4), 0); /* malformed ones hidden */
	assert_int_equal(cfg_rd(&b, 1, 0, 0x90, 4), 0);
	/* The body takes writes, a byte merged with the host's others; the header, a dword
	 * shared with a hidden capability and the hidden ones do not. */
	fk.vndr_from = 0x54, fk.vndr_to = 0x7c;
	cfg_wr(&b, 1, 0x55, 1, 0xee);
	assert_int_equal(c[0x54 / 4], 0x1111ee11);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x54, 4), 0x1111ee11);
	cfg_wr(&b, 1, 0x78, 4, 0x12345678);
	assert_int_equal(c[0x78 / 4], 0x12345678);
	assert_int_equal(fk.vndr_writes, 2);
	cfg_wr(&b, 1, 0x50, 4, 0xffffffff);
	cfg_wr(&b, 1, 0x71, 1, 0x40);
	cfg_wr(&b, 1, 0x7c, 2, 0);
	cfg_wr(&b, 1, 0x60, 4, 0);
	cfg_wr(&b, 1, 0x84, 4, 0);
	assert_int_equal(fk.vndr_writes, 2);
	assert_int_equal(c[0x50 / 4], 0x00106009);
	assert_int_equal(c[0x7c / 4], 0xabcd6666);
	assert_int_equal(cfg_rd(&b, 1, 0, 0x50, 4), 0x00107009);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enumeration),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_bar_sizing),
		cmocka_unit_test(test_read_only),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_bar_move),
		cmocka_unit_test(test_unclaimable),
		cmocka_unit_test(test_ram_above_4g),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_io_placement),
		cmocka_unit_test(test_virtual_function),
		cmocka_unit_test(test_virtual_capabilities),
		cmocka_unit_test(test_quiesce),
		cmocka_unit_test(test_ecam_agrees),
		cmocka_unit_test(test_ecam_writes),
		cmocka_unit_test(test_ecam_bad_accesses),
		cmocka_unit_test(test_vendor_capabilities),
		cmocka_unit_test(test_intx),
	};
	return cmocka_run_group_tests_name("pci_bus", tests, NULL, NULL);
}
