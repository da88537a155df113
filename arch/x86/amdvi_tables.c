/* SPDX-License-Identifier: GPL-2.0-only */
/* AMD-Vi's in-memory formats: device table entries, host I/O page tables, commands, event log entries. */
#include "arch/x86/amdvi.h"

#define DTES_PER_PAGE (4096 / sizeof(struct amdvi_dte))
#define DEVTAB_MAX_PAGES 512 /* 65536 requester IDs */

u32 amdvi_devtab_pages(u16 last)
{
	u32 need = ((u32)last + DTES_PER_PAGE) / DTES_PER_PAGE, pages = 1;
	while (pages < need)
		pages <<= 1;
	return pages < DEVTAB_MAX_PAGES ? pages : DEVTAB_MAX_PAGES;
}

static u64 pt_dir(u32 level)
{
	/* Rights are ANDed down the walk: a directory grants both, the leaf decides. */
	return AMDVI_PTE_NEXT(level - 1) | AMDVI_PTE_IR | AMDVI_PTE_IW | AMDVI_PTE_PR;
}

const struct iommu_pt_format amdvi_pt_format = {
	.present = AMDVI_PTE_PR,
	.dir = pt_dir,
	.leaf_rights = AMDVI_PTE_IR | AMDVI_PTE_IW,
	.leaf = AMDVI_PTE_PR, /* next level 0: a 4 KiB page */
};

struct amdvi_dte amdvi_dte_domain(const struct iommu_pt *d)
{
	/* IR/IW here are ANDed with the tables', which decide. IV stays 0: interrupts are not
	 * remapped, as under VT-d without interrupt remapping. */
	return (struct amdvi_dte){ { (d->root & AMDVI_ADDR_MASK) | AMDVI_DTE_MODE(d->levels) |
					     AMDVI_DTE_IR | AMDVI_DTE_IW | AMDVI_DTE_TV |
					     AMDVI_DTE_V,
				     d->did, 0, 0 } };
}

struct amdvi_dte amdvi_dte_blocked(u64 empty_table)
{
	/*
	 * V=0 would let the requester's DMA through untranslated (2.2.2.1), so an entry nobody
	 * owns is valid and blocks. V=1 TV=0 (no translation information) and V=1 TV=1 Mode=0
	 * IR=IW=0 (translation off, no rights) abort the access too, but QEMU's model aborts
	 * both without even finding a fault. This entry translates, through a one-level table
	 * that is empty, with no rights in the entry: a permission or not-present fault, which
	 * the spec logs as IO_PAGE_FAULT (SA and SE, which would suppress it, stay clear) and
	 * QEMU's model finds as a page fault too. Domain 0 is no guest's.
	 */
	return (struct amdvi_dte){ { (empty_table & AMDVI_ADDR_MASK) | AMDVI_DTE_MODE(1) |
					     AMDVI_DTE_TV | AMDVI_DTE_V,
				     0, 0, 0 } };
}

static struct amdvi_rec command(u32 op, u64 lo, u64 hi)
{
	return (struct amdvi_rec){ lo | (u64)op << 60, hi };
}

struct amdvi_rec amdvi_cmd_wait(u64 store_pa, u64 data)
{
	/* Store address bits 51:3 in place; the data is the second quadword. */
	return command(AMDVI_CMD_COMPLETION_WAIT,
		       (store_pa & 0x000ffffffffffff8ull) | AMDVI_WAIT_STORE, data);
}

struct amdvi_rec amdvi_cmd_inv_dte(u16 rid)
{
	return command(AMDVI_CMD_INV_DEVTAB_ENTRY, rid, 0);
}

struct amdvi_rec amdvi_cmd_inv_domain(u16 did)
{
	/* Domain ID in bits 47:32, PASID 0; S with every address bit set: the whole domain. */
	return command(AMDVI_CMD_INV_IOMMU_PAGES, (u64)did << 32,
		       AMDVI_INV_ALL_PAGES | AMDVI_INV_PDE | AMDVI_INV_S);
}

struct amdvi_rec amdvi_cmd_inv_all(void)
{
	return command(AMDVI_CMD_INV_IOMMU_ALL, 0, 0);
}

bool amdvi_ring_put(struct amdvi_rec *ring, u32 *tail, u32 head, struct amdvi_rec c)
{
	u32 next = (*tail + sizeof(c)) % (AMDVI_RING_ENTRIES * sizeof(c));
	if (next == head)
		return false; /* one slot stays empty: head == tail means empty */
	ring[*tail / sizeof(c)] = c;
	*tail = next;
	return true;
}

void amdvi_event_decode(struct amdvi_rec rec, struct amdvi_event *e)
{
	/* Device ID in bits 15:0, domain ID 47:32 (IO_PAGE_FAULT, PAGE_TAB_HARDWARE_ERROR), flags
	 * 59:48, code 63:60; the address is the second quadword. */
	*e = (struct amdvi_event){ .code = (u8)(rec.lo >> 60),
				   .rid = (u16)rec.lo,
				   .flags = (u16)(rec.lo >> 48) & 0xfff,
				   .addr = rec.hi };
	if (e->code == AMDVI_EVT_IO_PAGE_FAULT || e->code == AMDVI_EVT_PAGETAB_HW_ERROR)
		e->did = (u16)(rec.lo >> 32);
	e->write = (e->flags & AMDVI_EVF_RW) != 0;
}

const char *amdvi_event_name(u8 code)
{
	static const char *const names[AMDVI_EVT_CODES] = {
		[AMDVI_EVT_ILLEGAL_DTE] = "ILLEGAL_DEV_TABLE_ENTRY",
		[AMDVI_EVT_IO_PAGE_FAULT] = "IO_PAGE_FAULT",
		[AMDVI_EVT_DEVTAB_HW_ERROR] = "DEV_TAB_HARDWARE_ERROR",
		[AMDVI_EVT_PAGETAB_HW_ERROR] = "PAGE_TAB_HARDWARE_ERROR",
		[AMDVI_EVT_ILLEGAL_COMMAND] = "ILLEGAL_COMMAND_ERROR",
		[AMDVI_EVT_COMMAND_HW_ERROR] = "COMMAND_HARDWARE_ERROR",
		[0x7] = "IOTLB_INV_TIMEOUT",
		[0x8] = "INVALID_DEVICE_REQUEST",
	};
	return code < AMDVI_EVT_CODES && names[code] ? names[code] : "other";
}

bool amdvi_event_is_dma(u8 code)
{
	return code >= AMDVI_EVT_ILLEGAL_DTE && code <= AMDVI_EVT_PAGETAB_HW_ERROR;
}
