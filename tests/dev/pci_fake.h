/* SPDX-License-Identifier: GPL-2.0-only */
/* One host function's configuration space behind a test's guest PCI bus, and the guest's accesses through 0xCF8/0xCFC. */
#ifndef TESTS_DEV_PCI_FAKE_H
#define TESTS_DEV_PCI_FAKE_H

#include "vmm/dev/pci_bus.h"

#define BDF PCI_BDF(3, 0, 0)

static u32 fake_cfg[64];

static u32 f_read(void *ctx, u16 bdf, u16 off)
{
	(void)ctx;
	return bdf == BDF ? fake_cfg[off / 4] : 0xffffffffu;
}

static void f_write(void *ctx, u16 bdf, u16 off, u32 v)
{
	(void)ctx;
	assert_int_equal(bdf, BDF);
	assert_int_equal(off & 3, 0);
	fake_cfg[off / 4] = v;
}

static void f_map(void *ctx, unsigned dev, const struct pci_bus_bar *bar)
{
	(void)ctx, (void)dev, (void)bar;
}

/* The guest's configuration access to 00:01.0 at reg, of the width left in its dword. */
static u32 rd(struct pci_bus *b, u16 reg)
{
	pci_bus_write(b, 0xcf8, 4, BIT(31) | 1u << 11 | (reg & 0xfc));
	return pci_bus_read(b, (u16)(0xcfc + (reg & 3)), 4 - (reg & 3));
}

static void wr(struct pci_bus *b, u16 reg, unsigned size, u32 val)
{
	pci_bus_write(b, 0xcf8, 4, BIT(31) | 1u << 11 | (reg & 0xfc));
	pci_bus_write(b, (u16)(0xcfc + (reg & 3)), size, val);
}

#endif
