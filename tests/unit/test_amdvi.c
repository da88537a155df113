/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for the AMD-Vi driver: device entries and I/O page tables walked as the hardware would, commands, the event log, a register block. */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/harness.h"
#include "arch/x86/amdvi.h"
#include "tests/unit/dma_check.h"
#include "tests/unit/fake_pages.h"

#define mem fake_mem

static int setup(void **state)
{
	(void)state;
	fake_pages_reset();
	return 0;
}

/*
 * The walk an IOMMU makes for a request without a PASID through the host ("v1") tables,
 * written from the spec (AMD IOMMU 48882 rev 3, 2.2.2 device table entry, 2.2.3 I/O page
 * tables) and not from the builder: 0 and *hpa, or why the access does not translate.
 */
enum why {
	NO_TRANSLATION_INFO = 1, /* V=1 TV=0: aborted */
	TRANSLATION_OFF,	 /* Mode 0: untranslated, rights from IR/IW */
	BAD_MODE,		 /* Mode 7 */
	NO_RIGHTS,		 /* IR/IW clear in the entry or on the way: IO_PAGE_FAULT PE */
	BEYOND_MODE,		 /* an address the levels do not reach */
	NOT_PRESENT,		 /* IO_PAGE_FAULT, PR clear */
	BAD_NEXT_LEVEL,		 /* a next level not below the entry's own */
	NO_TABLE,		 /* a pointer to no table: what the unit reads is garbage */
	LARGE_PAGE,		 /* the builder never makes them */
};

static int walk(struct amdvi_dte dte, u64 iova, bool write, u64 *hpa)
{
	const u64 right = write ? 1ull << 62 : 1ull << 61, addr = 0x000ffffffffff000ull;
	u64 q0 = dte.q[0];
	if (!(q0 & 1)) {
		*hpa = iova; /* DTE.V=0: the access goes through untranslated */
		return 0;
	}
	if (!(q0 & 2))
		return NO_TRANSLATION_INFO;
	u32 mode = (q0 >> 9) & 7;
	if (mode == 0)
		return TRANSLATION_OFF;
	if (mode == 7)
		return BAD_MODE;
	if (!(q0 & right))
		return NO_RIGHTS;
	if (mode < 6 && iova >> (12 + 9 * mode))
		return BEYOND_MODE;
	u64 table = q0 & addr;
	for (u32 level = mode;;) {
		if (!fake_page_live(table))
			return NO_TABLE;
		u64 e = ((const u64 *)fake_p2v(NULL,
					       table))[(iova >> (12 + 9 * (level - 1))) & 511];
		if (!(e & 1))
			return NOT_PRESENT;
		if (!(e & right))
			return NO_RIGHTS;
		u32 next = (e >> 9) & 7;
		if (next == 0 || next == 7) {
			if (level != 1 || next == 7)
				return LARGE_PAGE;
			*hpa = (e & addr) | (iova & 0xfff);
			return 0;
		}
		if (next >= level)
			return BAD_NEXT_LEVEL;
		/* Skipped levels stand for index bits that must be zero. */
		for (u32 l = level - 1; l > next; l--)
			if ((iova >> (12 + 9 * (l - 1))) & 511)
				return NOT_PRESENT;
		table = e & addr;
		level = next;
	}
}

static int walk_dte(const void *dte, u64 iova, bool write, u64 *hpa)
{
	return walk(*(const struct amdvi_dte *)dte, iova, write, hpa);
}

static u32 mismatches(struct amdvi_dte dte)
{
	return dma_mismatches(walk_dte, &dte);
}

static void build(struct iommu_pt *d, u8 levels)
{
	dma_build(d, &amdvi_pt_format, levels);
}

static void test_translates_exactly(void **state)
{
	(void)state;
	for (u8 levels = 3; levels <= 4; levels++) {
		struct iommu_pt d;
		build(&d, levels);
		struct amdvi_dte dte = amdvi_dte_domain(&d);
		assert_int_equal(dte.q[1] & 0xffff, 7);
		assert_int_equal((dte.q[0] >> 9) & 7, levels);
		assert_int_equal(dte.q[2], 0); /* IV clear: interrupts not remapped */
		assert_int_equal(mismatches(dte), 0);
		assert_int_equal(d.table_pages, fake_live);
		iommu_pt_free(&d, &mem, &amdvi_pt_format);
		assert_int_equal(fake_live, 0);
	}
}

static void test_mutations_caught(void **state)
{
	(void)state;
	struct iommu_pt d;
	build(&d, 4);
	const struct amdvi_dte good = amdvi_dte_domain(&d);
	struct amdvi_dte dte = good;
	dte.q[0] &= ~1ull; /* V=0: DMA would pass untranslated */
	assert_true(mismatches(dte) > 0);
	dte = good;
	dte.q[0] &= ~2ull; /* TV=0 */
	assert_true(mismatches(dte) > 0);
	dte = good;
	dte.q[0] = (dte.q[0] & ~(7ull << 9)) | 3ull << 9; /* 3 levels over a 4-level table */
	assert_true(mismatches(dte) > 0);
	dte = good;
	dte.q[0] &= ~(1ull << 62); /* no write right in the entry */
	assert_true(mismatches(dte) > 0);
	u64 *top = fake_p2v(NULL, d.root);
	u64 *l3 = fake_p2v(NULL, top[0] & AMDVI_ADDR_MASK);
	u64 *l2 = fake_p2v(NULL, l3[0] & AMDVI_ADDR_MASK);
	u64 *l1 = fake_p2v(NULL, l2[0] & AMDVI_ADDR_MASK);
	/* A read-only leaf, a moved leaf, a leaf not present, the unmapped first page made
	 * readable, a directory entry not present, one whose next level skips a level. */
	const u64 keep = l1[5];
	l1[5] &= ~AMDVI_PTE_IW;
	assert_true(mismatches(good) > 0);
	l1[5] = keep + 4096;
	assert_true(mismatches(good) > 0);
	l1[5] = keep & ~AMDVI_PTE_PR;
	assert_true(mismatches(good) > 0);
	l1[5] = keep;
	l1[0] = 0x5000 | AMDVI_PTE_IR | AMDVI_PTE_PR;
	assert_true(mismatches(good) > 0);
	l1[0] = 0;
	const u64 mid = l2[3];
	l2[3] &= ~AMDVI_PTE_PR;
	assert_true(mismatches(good) > 0);
	l2[3] = mid;
	const u64 dir = l3[0];
	l3[0] = (dir & ~(7ull << 9)) | 1ull << 9;
	assert_true(mismatches(good) > 0);
	l3[0] = (dir & ~(7ull << 9)) | 3ull << 9; /* next level not below its own */
	assert_true(mismatches(good) > 0);
	l3[0] = dir;
	assert_int_equal(mismatches(good), 0);
	iommu_pt_free(&d, &mem, &amdvi_pt_format);
	/* A 3-level domain pointed at by an entry saying 4 levels. */
	build(&d, 3);
	dte = amdvi_dte_domain(&d);
	dte.q[0] = (dte.q[0] & ~(7ull << 9)) | 4ull << 9;
	assert_true(mismatches(dte) > 0);
	iommu_pt_free(&d, &mem, &amdvi_pt_format);
}

static void test_blocked_and_rights(void **state)
{
	(void)state;
	u64 empty = mem.alloc(NULL);
	struct amdvi_dte b = amdvi_dte_blocked(empty);
	/* Every access faults at the entry's rights, which the unit logs; none passes. */
	const u64 probes[] = { 0, 0x1000, 0x200000, 0xfee00000, 0x100000000ull, ~0xfffull };
	for (u32 p = 0; p < sizeof(probes) / sizeof(probes[0]); p++)
		for (int w = 0; w < 2; w++) {
			u64 hpa;
			assert_int_equal(walk(b, probes[p], w, &hpa), NO_RIGHTS);
		}
	assert_int_equal(b.q[1] | b.q[2] | b.q[3], 0); /* domain 0, no SA/SE suppression */
	/* Even with rights the table is empty. */
	b.q[0] |= AMDVI_DTE_IR | AMDVI_DTE_IW;
	u64 hpa;
	assert_int_equal(walk(b, 0x1000, true, &hpa), NOT_PRESENT);
	assert_int_equal(walk(b, 0x200000, false, &hpa), BEYOND_MODE);
	mem.free(NULL, empty);

	/* A read-only leaf: reads go through, writes fault at its rights. */
	struct iommu_pt d;
	assert_int_equal(iommu_pt_init(&d, &mem, 3, 1), 0);
	assert_int_equal(
		iommu_pt_map(&d, &mem, &amdvi_pt_format, 0x2000, 0x9000, 0x1000, AMDVI_PTE_IR), 0);
	struct amdvi_dte dte = amdvi_dte_domain(&d);
	assert_int_equal(walk(dte, 0x2010, false, &hpa), 0);
	assert_int_equal(hpa, 0x9010);
	assert_int_equal(walk(dte, 0x2010, true, &hpa), NO_RIGHTS);
	iommu_pt_free(&d, &mem, &amdvi_pt_format);
	assert_int_equal(fake_live, 0);
	/* The device table: 128 entries a page, a power of two of pages, at most 512. */
	assert_int_equal(amdvi_devtab_pages(0), 1);
	assert_int_equal(amdvi_devtab_pages(127), 1);
	assert_int_equal(amdvi_devtab_pages(128), 2);
	assert_int_equal(amdvi_devtab_pages(0x1ff), 4);
	assert_int_equal(amdvi_devtab_pages(0x200), 8);
	assert_int_equal(amdvi_devtab_pages(0xffff), 512);
}

static void test_commands(void **state)
{
	(void)state;
	/* Layouts from 2.4: opcode in bits 63:60 of the first quadword. */
	struct amdvi_rec c = amdvi_cmd_wait(0x123456789a8ull, 42);
	assert_int_equal(c.lo, 1ull << 60 | 0x123456789a8ull | 1);
	assert_int_equal(c.hi, 42);
	c = amdvi_cmd_inv_dte(0x0228);
	assert_int_equal(c.lo, 2ull << 60 | 0x0228);
	assert_int_equal(c.hi, 0);
	c = amdvi_cmd_inv_domain(5);
	assert_int_equal(c.lo, 3ull << 60 | 5ull << 32);
	assert_int_equal(c.hi, 0x7ffffffffffff000ull | 3); /* S, PDE, every address */
	c = amdvi_cmd_inv_all();
	assert_int_equal(c.lo, 8ull << 60);
	assert_int_equal(c.hi, 0);

	/* The ring: 255 of 256 slots fill, the last stays empty; the tail wraps to 0. */
	static struct amdvi_rec ring[AMDVI_RING_ENTRIES];
	memset(ring, 0, sizeof(ring));
	u32 tail = 0;
	for (u32 i = 0; i < AMDVI_RING_ENTRIES - 1; i++)
		assert_true(amdvi_ring_put(ring, &tail, 0, (struct amdvi_rec){ i, 0 }));
	assert_int_equal(tail, 0xff0);
	assert_false(amdvi_ring_put(ring, &tail, 0, (struct amdvi_rec){ 999, 0 }));
	assert_int_equal(tail, 0xff0);
	assert_true(amdvi_ring_put(ring, &tail, 0x100, (struct amdvi_rec){ 255, 0 }));
	assert_int_equal(tail, 0);
	assert_int_equal(ring[255].lo, 255);
	assert_true(amdvi_ring_put(ring, &tail, 0x100, (struct amdvi_rec){ 256, 0 }));
	assert_int_equal(tail, 0x10);
	assert_int_equal(ring[0].lo, 256);
	assert_int_equal(ring[1].lo, 1);
	tail = 0xf0;
	assert_false(amdvi_ring_put(ring, &tail, 0x100, (struct amdvi_rec){ 7, 0 }));
}

/* An event log entry laid out as 2.5 says. */
static struct amdvi_rec event(u8 code, u16 rid, u16 did, u16 flags, u64 addr)
{
	return (struct amdvi_rec){
		(u64)code << 60 | (u64)(flags & 0xfff) << 48 | (u64)did << 32 | rid, addr
	};
}

static void test_event_decode(void **state)
{
	(void)state;
	struct amdvi_event e;
	amdvi_event_decode(
		event(2, 0x0028, 3, AMDVI_EVF_PR | AMDVI_EVF_RW | AMDVI_EVF_PE, 0x12345678), &e);
	assert_int_equal(e.code, AMDVI_EVT_IO_PAGE_FAULT);
	assert_int_equal(e.rid, 0x0028);
	assert_int_equal(e.did, 3);
	assert_true(e.write);
	assert_int_equal(e.addr, 0x12345678);
	assert_true(amdvi_event_is_dma(e.code));
	amdvi_event_decode(event(2, 0x0210, 1, AMDVI_EVF_PR, 0xfee00000), &e);
	assert_false(e.write);
	assert_int_equal(e.rid, 0x0210);
	/* ILLEGAL_DEV_TABLE_ENTRY: a requester, no domain. */
	amdvi_event_decode(event(1, 0x0100, 0x77, AMDVI_EVF_RW, 0x10000020), &e);
	assert_int_equal(e.code, AMDVI_EVT_ILLEGAL_DTE);
	assert_int_equal(e.did, 0);
	assert_true(amdvi_event_is_dma(e.code));
	assert_string_equal(amdvi_event_name(e.code), "ILLEGAL_DEV_TABLE_ENTRY");
	/* What QEMU's model writes for an IO_PAGE_FAULT (later QEMUs; 7.2 writes none): the access's
	 * rights where GN/NX are, I set, PR and RW clear; the direction is not told. */
	amdvi_event_decode(event(2, 0x0028, 0, 2 | AMDVI_EVF_I, 0x1000), &e);
	assert_int_equal(e.code, AMDVI_EVT_IO_PAGE_FAULT);
	assert_true(e.flags & AMDVI_EVF_I);
	assert_false(e.flags & AMDVI_EVF_PR);
	amdvi_event_decode(event(5, 0, 0, 0, 0x10002000), &e);
	assert_false(amdvi_event_is_dma(e.code));
	assert_string_equal(amdvi_event_name(e.code), "ILLEGAL_COMMAND_ERROR");
	assert_string_equal(amdvi_event_name(2), "IO_PAGE_FAULT");
	assert_string_equal(amdvi_event_name(0), "other");
	assert_string_equal(amdvi_event_name(15), "other");
	assert_false(amdvi_event_is_dma(0));
}

/* A register block of 16 KiB. */
static u64 regs[AMDVI_REGS_SPAN / 8] __attribute__((aligned(4096)));
#define R64(off) (*(volatile u64 *)((u8 *)regs + (off)))
#define R32(off) (*(volatile u32 *)((u8 *)regs + (off)))
#define CAP_IOMMU (3u << 16 | AMDVI_CAP_ID)

/* The hardware's side: the run bits follow the control register; the commands between head
 * and tail are carried out (COMPLETION_WAIT stores, invalidations counted by kind). */
static u32 inv_all, inv_dte[0x10000], inv_dom[0x10000], waits;
static bool processes = true;
static void hardware(volatile u8 *r)
{
	(void)r;
	u64 ctl = R64(AMDVI_REG_CONTROL);
	bool on = ctl & AMDVI_CTL_IOMMU_EN, cmd = on && (ctl & AMDVI_CTL_CMDBUF_EN);
	R32(AMDVI_REG_STATUS) = (R32(AMDVI_REG_STATUS) & 7) | (cmd ? AMDVI_STS_CMD_RUN : 0) |
				(on && (ctl & AMDVI_CTL_EVTLOG_EN) ? AMDVI_STS_EVT_RUN : 0);
	if (!cmd || !processes)
		return;
	const struct amdvi_rec *ring = fake_p2v(NULL, R64(AMDVI_REG_CMDBUF) & AMDVI_ADDR_MASK);
	assert_int_equal(R64(AMDVI_REG_CMDBUF) >> 56, 8);
	u32 head = (u32)R64(AMDVI_REG_CMD_HEAD), tail = (u32)R64(AMDVI_REG_CMD_TAIL);
	for (; head != tail; head = (head + 16) % 4096) {
		struct amdvi_rec c = ring[head / 16];
		switch (AMDVI_CMD_OP(c)) {
		case AMDVI_CMD_COMPLETION_WAIT:
			assert_true(c.lo & AMDVI_WAIT_STORE);
			*(u64 *)fake_p2v(NULL, c.lo & 0x000ffffffffffff8ull) = c.hi;
			waits++;
			break;
		case AMDVI_CMD_INV_DEVTAB_ENTRY:
			inv_dte[(u16)c.lo]++;
			break;
		case AMDVI_CMD_INV_IOMMU_PAGES:
			inv_dom[(u16)(c.lo >> 32)]++;
			break;
		case AMDVI_CMD_INV_IOMMU_ALL:
			inv_all++;
			break;
		default:
			fail_msg("command 0x%x", AMDVI_CMD_OP(c));
		}
	}
	R64(AMDVI_REG_CMD_HEAD) = head;
}

static void reset_regs(u64 efr)
{
	memset(regs, 0, sizeof(regs));
	R64(AMDVI_REG_EFR) = efr;
	inv_all = waits = 0;
	memset(inv_dte, 0, sizeof(inv_dte));
	memset(inv_dom, 0, sizeof(inv_dom));
	processes = true;
}

static void test_dead_unit(void **state)
{
	(void)state;
	struct amdvi_unit u;
	/* Registers that never change: the command buffer never runs. */
	reset_regs(AMDVI_EFR_IA);
	assert_int_equal(amdvi_unit_init(&u, regs, 0xfed80000, CAP_IOMMU | AMDVI_CAP_EFRSUP, 0xff,
					 &mem, NULL),
			 -1);
	assert_error_has(u.error, "CmdBufRun");
	assert_false(u.on);
	assert_int_equal(R64(AMDVI_REG_CONTROL), 0); /* left off */
	assert_int_equal(fake_live, 0);		     /* and its tables given back */
	assert_int_equal(amdvi_poll_events(&u, NULL, NULL), 0);
	assert_int_equal(amdvi_attach(&u, 0x28, NULL), -1);
	/* Runs but never carries out a command: the COMPLETION_WAIT store never comes. */
	reset_regs(AMDVI_EFR_IA);
	processes = false;
	assert_int_equal(amdvi_unit_init(&u, regs, 0xfed80000, CAP_IOMMU | AMDVI_CAP_EFRSUP, 0xff,
					 &mem, hardware),
			 -1);
	assert_error_has(u.error, "COMPLETION_WAIT never stored");
	assert_int_equal(R64(AMDVI_REG_CONTROL), 0);
	assert_int_equal(fake_live, 0);
	/* Stuck running with the unit off. */
	reset_regs(0);
	R32(AMDVI_REG_STATUS) = AMDVI_STS_CMD_RUN;
	assert_int_equal(amdvi_unit_init(&u, regs, 0xfed80000, CAP_IOMMU, 0xff, &mem, NULL), -1);
	assert_error_has(u.error, "never stopped");
	/* All ones, a capability that is not an IOMMU's, no memory. */
	memset(regs, 0xff, sizeof(regs));
	assert_int_equal(amdvi_unit_init(&u, regs, 0xfed80000, CAP_IOMMU, 0xff, &mem, hardware),
			 -1);
	assert_error_has(u.error, "all ones");
	reset_regs(0);
	assert_int_equal(amdvi_unit_init(&u, regs, 0xfed80000, 0x00010009, 0xff, &mem, hardware),
			 -1);
	assert_error_has(u.error, "not an IOMMU");
	fake_limit = 3;
	assert_int_equal(amdvi_unit_init(&u, regs, 0xfed80000, CAP_IOMMU, 0xff, &mem, hardware),
			 -1);
	assert_error_has(u.error, "no memory");
	assert_int_equal(fake_live, 0);
}

struct seen {
	u32 n;
	struct amdvi_event e[8];
};

static void report(void *ctx, const struct amdvi_event *e)
{
	struct seen *s = ctx;
	s->e[s->n++ % 8] = *e;
}

static void test_unit(void **state)
{
	(void)state;
	struct amdvi_unit u;
	reset_regs(AMDVI_EFR_IA);
	assert_int_equal(amdvi_unit_init(&u, regs, 0xfed80000, CAP_IOMMU | AMDVI_CAP_EFRSUP, 0x1ff,
					 &mem, hardware),
			 0);
	assert_true(u.on);
	assert_int_equal(u.levels, 4);
	/* Requester IDs up to 01:ff.7: 4 pages, every entry blocking. */
	assert_int_equal(u.devtab_pages, 4);
	assert_int_equal(u.last, 0x1ff);
	assert_int_equal(R64(AMDVI_REG_DEVTAB), u.devtab_pa | 3);
	assert_int_equal(R64(AMDVI_REG_CMDBUF), u.cmd_pa | 8ull << 56);
	assert_int_equal(R64(AMDVI_REG_EVTLOG), u.evt_pa | 8ull << 56);
	assert_int_equal(R64(AMDVI_REG_CONTROL), AMDVI_CTL_IOMMU_EN | AMDVI_CTL_COHERENT |
							 AMDVI_CTL_EVTLOG_EN | AMDVI_CTL_CMDBUF_EN);
	assert_int_equal(R64(AMDVI_REG_EXCL_BASE), 0);
	const struct amdvi_dte *dt = fake_p2v(NULL, u.devtab_pa);
	for (u32 rid = 0; rid <= u.last; rid++) {
		u64 hpa;
		assert_int_equal(walk(dt[rid], 0x1000, true, &hpa), NO_RIGHTS);
		assert_int_equal(walk(dt[rid], 0x1000, false, &hpa), NO_RIGHTS);
	}
	assert_int_equal(inv_all, 1);
	assert_int_equal(waits, 1);

	struct iommu_pt d;
	build(&d, 4);
	assert_int_equal(amdvi_attach(&u, 0x0028, &d), 0);
	assert_int_equal(inv_dte[0x28], 1);
	assert_int_equal(inv_dom[7], 1);
	assert_int_equal(waits, 2);
	assert_int_equal(mismatches(dt[0x28]), 0);
	for (u32 rid = 0; rid <= u.last; rid++) {
		u64 hpa;
		assert_true(rid == 0x28 || walk(dt[rid], 0x2000, false, &hpa) == NO_RIGHTS);
	}
	assert_int_equal(amdvi_attach(&u, 0x0028, &d), -1);
	assert_error_has(u.error, "already has a domain");
	assert_int_equal(amdvi_attach(&u, 0x0200, &d), -1);
	assert_error_has(u.error, "beyond its device table");
	assert_int_equal(waits, 2); /* refusals issue nothing */
	amdvi_detach(&u, 0x0028);
	u64 hpa;
	assert_int_equal(walk(dt[0x28], 0x2000, false, &hpa), NO_RIGHTS);
	assert_int_equal(inv_dte[0x28], 2);
	assert_int_equal(inv_dom[7], 2);
	assert_int_equal(waits, 3);

	/* Events: two logged, then two more across the log's end, then an overflow. The status
	 * bits init wrote 1 to (to clear them) read as clear, as on hardware. */
	assert_int_equal(R32(AMDVI_REG_STATUS) & 7, 7);
	R32(AMDVI_REG_STATUS) &= ~7u;
	struct amdvi_rec *log = fake_p2v(NULL, u.evt_pa);
	log[0] = event(2, 0x0028, 7, AMDVI_EVF_PR | AMDVI_EVF_RW | AMDVI_EVF_PE, 0x7000);
	log[1] = event(1, 0x0100, 0, 0, u.devtab_pa + 0x100 * 32);
	R64(AMDVI_REG_EVT_TAIL) = 0x20;
	struct seen seen = { 0 };
	assert_int_equal(amdvi_poll_events(&u, report, &seen), 2);
	assert_int_equal(seen.e[0].rid, 0x28);
	assert_true(seen.e[0].write);
	assert_int_equal(seen.e[0].addr, 0x7000);
	assert_int_equal(seen.e[1].code, AMDVI_EVT_ILLEGAL_DTE);
	assert_int_equal(R64(AMDVI_REG_EVT_HEAD), 0x20);
	assert_int_equal(u.events[AMDVI_EVT_IO_PAGE_FAULT], 1);
	assert_int_equal(u.events[AMDVI_EVT_ILLEGAL_DTE], 1);
	assert_int_equal(amdvi_poll_events(&u, report, &seen), 0); /* nothing new */
	u.evt_head = 0xff0;
	log[255] = event(2, 0x0030, 0, AMDVI_EVF_PR, 0x9000);
	log[0] = event(2, 0x0031, 0, AMDVI_EVF_PR, 0xa000);
	R64(AMDVI_REG_EVT_TAIL) = 0x10;
	R32(AMDVI_REG_STATUS) = AMDVI_STS_EVT_OVERFLOW | AMDVI_STS_EVT_RUN | AMDVI_STS_CMD_RUN;
	seen.n = 0;
	assert_int_equal(amdvi_poll_events(&u, report, &seen), 2);
	assert_int_equal(seen.e[0].rid, 0x30);
	assert_int_equal(seen.e[1].rid, 0x31);
	assert_false(seen.e[1].write);
	assert_int_equal(R64(AMDVI_REG_EVT_HEAD), 0x10);
	assert_int_equal(u.lost, 1);
	/* The overflow written 1 to clear it (the block keeps what was written), logging on again. */
	assert_int_equal(R32(AMDVI_REG_STATUS), AMDVI_STS_EVT_OVERFLOW);
	assert_true(R64(AMDVI_REG_CONTROL) & AMDVI_CTL_EVTLOG_EN);
	iommu_pt_free(&d, &mem, &amdvi_pt_format);
}

static void test_no_invalidate_all(void **state)
{
	(void)state;
	struct amdvi_unit u;
	/* EFR says IA, but the capability says there is no EFR: it is not read, and each entry
	 * of the table and domain 0 are invalidated one by one, through the ring's end. */
	reset_regs(AMDVI_EFR_IA);
	assert_int_equal(amdvi_unit_init(&u, regs, 0xfed80000, CAP_IOMMU, 0x3ff, &mem, hardware),
			 0);
	assert_int_equal(u.efr, 0);
	assert_int_equal(inv_all, 0);
	for (u32 rid = 0; rid <= 0x3ff; rid++)
		assert_int_equal(inv_dte[rid], 1);
	assert_int_equal(inv_dte[0x400], 0);
	assert_int_equal(inv_dom[0], 1);
	assert_int_equal(waits, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_translates_exactly, setup),
		cmocka_unit_test_setup(test_mutations_caught, setup),
		cmocka_unit_test_setup(test_blocked_and_rights, setup),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_event_decode),
		cmocka_unit_test_setup(test_dead_unit, setup),
		cmocka_unit_test_setup(test_unit, setup),
		cmocka_unit_test_setup(test_no_invalidate_all, setup),
	};
	return cmocka_run_group_tests_name("amdvi", tests, NULL, NULL);
}
