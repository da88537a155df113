/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for arch/x86/pci.c: the bus walk and BAR sizing on synthetic configuration spaces. */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/harness.h"
#include "arch/x86/pci.h"

/* A made-up machine: functions with 4 KiB configuration spaces; BARs keep only their
 * writable address bits (size - 1 reads back as zero), like hardware. */
#define MAX_FAKE 300
struct fake_fn {
	u16 bdf;
	u8 cs[4096];
	u64 bar_size[PCI_MAX_BARS]; /* 0: unimplemented; the flag bits stay as set */
};
static struct fake_fn *fake;
static int nfake;
static int sized_while_decoding; /* all-ones written to a BAR with decode on */
static int cmd_writes;
static struct pci_list list;

static struct fake_fn *fn_at(u16 bdf)
{
	for (int i = 0; i < nfake; i++)
		if (fake[i].bdf == bdf)
			return &fake[i];
	return NULL;
}

static u32 get32(const u8 *p)
{
	u32 v;
	memcpy(&v, p, 4);
	return v;
}
static void put32(u8 *p, u32 v)
{
	memcpy(p, &v, 4);
}

static u32 fake_read(void *ctx, u16 bdf, u16 off)
{
	(void)ctx;
	assert_true(off % 4 == 0 && off < 4096);
	struct fake_fn *f = fn_at(bdf);
	return f ? get32(f->cs + off) : 0xffffffff;
}

static void fake_write(void *ctx, u16 bdf, u16 off, u32 v)
{
	(void)ctx;
	assert_true(off % 4 == 0 && off < 4096);
	struct fake_fn *f = fn_at(bdf);
	if (!f)
		return;
	if (off == PCI_COMMAND) {
		cmd_writes++;
		assert_int_equal(v >> 16, 0); /* status bits are RW1C: never written back */
		put32(f->cs + off, (get32(f->cs + off) & 0xffff0000) | (v & 0xffff));
		return;
	}
	u8 ht = f->cs[PCI_HEADER_TYPE] & 0x7f;
	int nbars = ht == 0 ? 6 : ht == 1 ? 2 : 0;
	if (off >= PCI_BAR0 && off < PCI_BAR0 + 4 * nbars) {
		int i = (off - PCI_BAR0) / 4;
		u32 old = get32(f->cs + off);
		bool upper = i > 0 && (get32(f->cs + off - 4) & 7) == 4 && f->bar_size[i - 1];
		if (v == 0xffffffff && (get32(f->cs + PCI_COMMAND) & (PCI_CMD_IO | PCI_CMD_MEM)) &&
		    (f->cs[0x0b] != 0x06 || f->cs[0x0a] != 0x00))
			sized_while_decoding++;
		if (upper) {
			u64 mask = ~(f->bar_size[i - 1] - 1);
			put32(f->cs + off, v & (u32)(mask >> 32));
		} else if (f->bar_size[i]) {
			u32 flags = old & ((old & 1) ? 3 : 0xf);
			u32 mask = (u32) ~(f->bar_size[i] - 1) & ((old & 1) ? 0xffff : 0xffffffff);
			put32(f->cs + off, (v & mask & ~((old & 1) ? 3u : 0xfu)) | flags);
		}
		return;
	}
	put32(f->cs + off, v); /* bus numbers and the rest: plain storage */
}

static const struct pci_cfg cfg = { fake_read, fake_write, NULL };

static struct fake_fn *add(u8 bus, u8 dev, u8 fn, u16 vendor, u16 device, u32 class, u8 ht)
{
	assert_true(nfake < MAX_FAKE);
	struct fake_fn *f = &fake[nfake++];
	memset(f, 0, sizeof(*f));
	f->bdf = PCI_BDF(bus, dev, fn);
	put32(f->cs, (u32)device << 16 | vendor);
	put32(f->cs + PCI_CLASS_REV, class << 8 | 1);
	f->cs[PCI_HEADER_TYPE] = ht;
	put32(f->cs + PCI_COMMAND, PCI_CMD_IO | PCI_CMD_MEM | PCI_CMD_MASTER | 0x00100000u);
	return f;
}

static void bar(struct fake_fn *f, int i, u64 base, u64 size, u32 flags)
{
	put32(f->cs + PCI_BAR0 + 4 * i, (u32)base | flags);
	f->bar_size[i] = size;
	if ((flags & 7) == 4)
		put32(f->cs + PCI_BAR0 + 4 * (i + 1), (u32)(base >> 32));
}

static void bridge_buses(struct fake_fn *f, u8 pri, u8 sec, u8 sub)
{
	put32(f->cs + PCI_BUS_NUMBERS, (u32)sub << 16 | (u32)sec << 8 | pri);
}

/* A PCIe capability of the given port type, behind an unrelated capability. */
static void pcie_cap(struct fake_fn *f, u8 type)
{
	f->cs[PCI_CAP_PTR] = 0x40;
	f->cs[0x40] = 0x05; /* MSI */
	f->cs[0x41] = 0x60;
	put32(f->cs + 0x60, (u32)(0x0002 | type << 4) << 16 | PCI_CAP_PCIE);
}

static int setup(void **state)
{
	(void)state;
	fake = calloc(MAX_FAKE, sizeof(*fake));
	nfake = 0;
	sized_while_decoding = 0;
	cmd_writes = 0;
	return fake ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(fake);
	return 0;
}

static const struct pci_func *found(u8 bus, u8 dev, u8 fn)
{
	int i = pci_find(&list, PCI_BDF(bus, dev, fn));
	assert_true(i >= 0);
	return &list.f[i];
}

static void test_bars_sized_with_decode_off(void **state)
{
	(void)state;
	struct fake_fn *hb = add(0, 0, 0, 0x8086, 0x29c0, 0x060000, 0);
	struct fake_fn *ep = add(0, 3, 0, 0x1234, 0x11e8, 0x00ff00, 0);
	bar(ep, 0, 0xfea00000, 0x100000, 0);		 /* mem32 */
	bar(ep, 1, 0xc040, 0x20, 1);			 /* io */
	bar(ep, 2, 0x8000000000ull, 0x40000000ull, 0xc); /* mem64 prefetchable, 1 GiB */
	bar(ep, 5, 0xfeb00000, 0x1000, 0);
	u32 cmd_before = get32(ep->cs + PCI_COMMAND);
	u32 hb_cmd = get32(hb->cs + PCI_COMMAND);
	pci_enumerate(&cfg, &list);

	assert_int_equal(list.count, 2);
	assert_int_equal(sized_while_decoding, 0);
	assert_int_equal(get32(ep->cs + PCI_COMMAND), cmd_before); /* decode back on */
	assert_int_equal(get32(hb->cs + PCI_COMMAND), hb_cmd);
	assert_int_equal(cmd_writes, 2); /* off and on again for the endpoint only */
	const struct pci_func *f = found(0, 3, 0);
	assert_int_equal(f->vendor, 0x1234);
	assert_int_equal(f->device, 0x11e8);
	assert_int_equal(f->class, 0x00ff00);
	assert_int_equal(f->rid, PCI_BDF(0, 3, 0));
	assert_int_equal(f->bar[0].kind, PCI_BAR_MEM32);
	assert_int_equal(f->bar[0].base, 0xfea00000);
	assert_int_equal(f->bar[0].size, 0x100000);
	assert_int_equal(f->bar[1].kind, PCI_BAR_IO);
	assert_int_equal(f->bar[1].base, 0xc040);
	assert_int_equal(f->bar[1].size, 0x20);
	assert_int_equal(f->bar[2].kind, PCI_BAR_MEM64);
	assert_true(f->bar[2].prefetch);
	assert_int_equal(f->bar[2].base, 0x8000000000ull);
	assert_int_equal(f->bar[2].size, 0x40000000ull);
	assert_int_equal(f->bar[3].kind, PCI_BAR_NONE); /* the upper half */
	assert_int_equal(f->bar[4].kind, PCI_BAR_NONE); /* unimplemented */
	assert_int_equal(f->bar[5].size, 0x1000);
	/* Every BAR holds its address again. */
	assert_int_equal(get32(ep->cs + PCI_BAR0), 0xfea00000);
	assert_int_equal(get32(ep->cs + PCI_BAR0 + 8), 0xc);
	assert_int_equal(get32(ep->cs + PCI_BAR0 + 12), 0x80);
	assert_true(pci_is_host_bridge(found(0, 0, 0)));
}

static void test_functions_and_multifunction(void **state)
{
	(void)state;
	add(0, 1, 0, 0x1af4, 0x1000, 0x020000, 0);
	add(0, 1, 3, 0x1af4, 0x1001, 0x010000, 0);    /* fn 0 not multi-function: not scanned */
	add(0, 2, 1, 0x1af4, 0x1002, 0x010000, 0x80); /* no function 0: no device */
	add(0, 4, 0, 0x8086, 0x2918, 0x060100, 0x80);
	add(0, 4, 7, 0x8086, 0x2930, 0x0c0500, 0);
	pci_enumerate(&cfg, &list);
	assert_int_equal(list.count, 3);
	assert_true(pci_find(&list, PCI_BDF(0, 1, 3)) < 0);
	assert_true(pci_find(&list, PCI_BDF(0, 2, 1)) < 0);
	found(0, 4, 7);
	assert_int_equal(found(0, 4, 7)->parent, -1);
}

static void test_bridges_and_requester_ids(void **state)
{
	(void)state;
	/* 00:1c.0 root port -> bus 1: 01:00.0 PCIe-to-PCI bridge -> bus 2: two devices.
	 * 00:1e.0 conventional PCI bridge -> bus 3: one device. */
	struct fake_fn *rp = add(0, 0x1c, 0, 0x8086, 0x29b8, 0x060400, 1);
	pcie_cap(rp, 4);
	bridge_buses(rp, 0, 1, 2);
	bar(rp, 0, 0xfe000000, 0x1000, 0);
	struct fake_fn *p2p = add(1, 0, 0, 0x1b36, 0x000e, 0x060400, 1);
	pcie_cap(p2p, PCIE_TYPE_PCI_BRIDGE);
	bridge_buses(p2p, 1, 2, 2);
	add(2, 1, 0, 0x8086, 0x100e, 0x020000, 0);
	add(2, 2, 0, 0x8086, 0x100e, 0x020000, 0);
	struct fake_fn *pci = add(0, 0x1e, 0, 0x8086, 0x244e, 0x060401, 1);
	bridge_buses(pci, 0, 3, 3);
	add(3, 5, 0, 0x1234, 0x5678, 0x078000, 0);
	struct fake_fn *ep = add(0, 2, 0, 0x1af4, 0x1041, 0x020000, 0);
	pcie_cap(ep, 0);
	pci_enumerate(&cfg, &list);

	assert_int_equal(list.count, 7);
	assert_int_equal(list.bad_bridges, 0);
	const struct pci_func *b = found(0, 0x1c, 0);
	assert_true(pci_is_bridge(b));
	assert_int_equal(b->pcie_type, 4);
	assert_int_equal(b->sec_bus, 1);
	assert_int_equal(b->sub_bus, 2);
	assert_int_equal(b->bar[0].size, 0x1000);
	assert_int_equal(b->rid, b->bdf);
	assert_int_equal(found(1, 0, 0)->rid, PCI_BDF(1, 0, 0));
	assert_int_equal(found(1, 0, 0)->parent, pci_find(&list, PCI_BDF(0, 0x1c, 0)));
	/* Both functions behind the PCIe-to-PCI bridge share the alias (secondary bus, 0, 0). */
	assert_int_equal(found(2, 1, 0)->rid, PCI_BDF(2, 0, 0));
	assert_int_equal(found(2, 2, 0)->rid, PCI_BDF(2, 0, 0));
	assert_int_equal(found(2, 2, 0)->parent, pci_find(&list, PCI_BDF(1, 0, 0)));
	/* Behind a conventional bridge the bridge's own ID arrives. */
	assert_int_equal(found(3, 5, 0)->rid, PCI_BDF(0, 0x1e, 0));
	assert_int_equal(found(0, 2, 0)->pcie_type, 0);
	assert_int_equal(found(0, 2, 0)->rid, PCI_BDF(0, 2, 0));
}

static void test_bad_bridges_do_not_loop(void **state)
{
	(void)state;
	struct fake_fn *up = add(0, 1, 0, 0x8086, 0x1, 0x060400, 1);
	bridge_buses(up, 0, 0, 0); /* points at its own bus */
	struct fake_fn *a = add(0, 2, 0, 0x8086, 0x2, 0x060400, 1);
	bridge_buses(a, 0, 1, 1);
	struct fake_fn *b = add(0, 3, 0, 0x8086, 0x3, 0x060400, 1);
	bridge_buses(b, 0, 1, 1); /* the same bus as a's */
	struct fake_fn *back = add(1, 0, 0, 0x8086, 0x4, 0x060400, 1);
	bridge_buses(back, 1, 0, 5); /* back up to bus 0 */
	struct fake_fn *rev = add(0, 4, 0, 0x8086, 0x5, 0x060400, 1);
	bridge_buses(rev, 0, 6, 5); /* subordinate below secondary */
	/* A capability list that points at itself. */
	struct fake_fn *loop = add(0, 5, 0, 0x8086, 0x6, 0x020000, 0);
	loop->cs[PCI_CAP_PTR] = 0x40;
	loop->cs[0x40] = 0x05;
	loop->cs[0x41] = 0x40;
	pci_enumerate(&cfg, &list);
	assert_int_equal(list.count, 6);
	assert_int_equal(list.bad_bridges, 4);
	assert_int_equal(found(0, 5, 0)->pcie_type, -1);
	pci_print(&list);
}

static void test_too_many_functions(void **state)
{
	(void)state;
	struct fake_fn *br = add(0, 0, 0, 0x8086, 0x1, 0x060400, 0x81);
	bridge_buses(br, 0, 1, 1);
	for (u8 d = 0; d < 32; d++)
		for (u8 fn = 0; fn < 8; fn++)
			if (d || fn)
				add(0, d, fn, 0x8086, 0x100, 0x020000, fn ? 0 : 0x80);
	add(1, 0, 0, 0x8086, 0x200, 0x020000, 0);
	pci_enumerate(&cfg, &list);
	assert_int_equal(list.count, PCI_MAX_FUNCS);
	assert_int_equal(list.dropped, 1);
}

/* An MCFG image: header, 8 reserved bytes, then the given 16-byte windows. */
static u8 mcfg[256];

static const struct acpi_header *make_mcfg(u32 len, int n, const u64 *base, const u16 *seg,
					   const u8 *start, const u8 *end)
{
	memset(mcfg, 0, sizeof(mcfg));
	memcpy(mcfg, "MCFG", 4);
	put32(mcfg + 4, len);
	for (int i = 0; i < n; i++) {
		u8 *e = mcfg + 44 + 16 * i;
		memcpy(e, &base[i], 8);
		memcpy(e + 8, &seg[i], 2);
		e[10] = start[i];
		e[11] = end[i];
	}
	return (const struct acpi_header *)mcfg;
}

static void test_mcfg(void **state)
{
	(void)state;
	struct pci_ecam e;
	u64 base[2] = { 0xc0000000, 0xb0000000 };
	u16 seg[2] = { 1, 0 };
	u8 start[2] = { 0, 0 }, end[2] = { 0xff, 0x3f };
	assert_int_equal(pci_parse_mcfg(make_mcfg(76, 2, base, seg, start, end), &e), 0);
	assert_null(e.error);
	assert_int_equal(e.base, 0xb0000000); /* segment 0's window, not the first */
	assert_int_equal(e.end_bus, 0x3f);

	assert_int_equal(pci_parse_mcfg(make_mcfg(70, 2, base, seg, start, end), &e), PCI_ERR_MCFG);
	assert_error_has(e.error, "length 70 is not 44 + a multiple of 16");
	assert_int_equal(pci_parse_mcfg(make_mcfg(40, 0, base, seg, start, end), &e), PCI_ERR_MCFG);
	assert_int_equal(pci_parse_mcfg(make_mcfg(60, 1, base, seg, start, end), &e), PCI_ERR_MCFG);
	assert_error_has(e.error, "no window for segment 0");
	u8 rstart[2] = { 0, 9 }, rend[2] = { 0, 8 };
	assert_int_equal(pci_parse_mcfg(make_mcfg(76, 2, base, seg, rstart, rend), &e),
			 PCI_ERR_MCFG);
	assert_error_has(e.error, "buses 9-8 are reversed");
	u64 odd[2] = { 0, 0xb0080000 };
	assert_int_equal(pci_parse_mcfg(make_mcfg(76, 2, odd, seg, start, end), &e), PCI_ERR_MCFG);
	assert_error_has(e.error, "not 1 MiB aligned");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bars_sized_with_decode_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_functions_and_multifunction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bridges_and_requester_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_bridges_do_not_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_many_functions, setup, teardown),
		cmocka_unit_test(test_mcfg),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
