/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for the VT-d driver: page tables and context entries walked as the hardware would, the fault decoder, a register block. */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/harness.h"
#include "arch/x86/vtd.h"
#include "tests/unit/dma_check.h"
#include "tests/unit/fake_pages.h"

#define mem fake_mem
#define live fake_live
#define limit fake_limit

static int setup(void **state)
{
	(void)state;
	fake_pages_reset();
	return 0;
}

/*
 * The walk a unit makes for an untranslated request in legacy mode, written from the spec
 * (VT-d 3.4.2, 3.6, 9.3, 9.8) and not from the builder: 0 and *hpa, or the fault reason.
 */
#define SLEVELS(aw) ((aw) + 2)
static int walk(struct vtd_entry ce, u64 gpa, bool write, u64 *hpa)
{
	if (!(ce.lo & 1))
		return 2;
	u32 aw = ce.hi & 7;
	if (aw != 1 && aw != 2)
		return 3;
	u32 levels = SLEVELS(aw);
	if (gpa >> (12 + 9 * levels))
		return 4;
	u64 pa = ce.lo & 0xfffffffffffff000ull;
	for (u32 level = levels; level >= 1; level--) {
		if (!fake_page_live(pa))
			return 7; /* a table pointer to no table: what the unit reads is garbage */
		u64 e = ((const u64 *)fake_p2v(NULL, pa))[(gpa >> (12 + 9 * (level - 1))) & 511];
		if (write ? !(e & 2) : !(e & 1))
			return write ? 5 : 6;
		if (e & 0x80)
			return 12; /* the builder never makes superpages */
		pa = e & 0x000ffffffffff000ull;
	}
	*hpa = pa | (gpa & 0xfff);
	return 0;
}

static int walk_ce(const void *ce, u64 gpa, bool write, u64 *hpa)
{
	return walk(*(const struct vtd_entry *)ce, gpa, write, hpa);
}

/* Wrong translations, and probes beyond what the levels reach that fault for another reason. */
static u32 mismatches(struct vtd_entry ce, u32 levels)
{
	u32 bad = dma_mismatches(walk_ce, &ce);
	for (u32 p = 0; p < DMA_PROBES; p++) {
		u64 hpa;
		if (dma_probes[p] >> (12 + 9 * levels))
			bad += walk(ce, dma_probes[p], false, &hpa) != 4;
	}
	return bad;
}

static void build(struct iommu_pt *d, u8 levels)
{
	dma_build(d, &vtd_sl_format, levels);
}

static void test_translates_exactly(void **state)
{
	(void)state;
	for (u8 levels = 3; levels <= 4; levels++) {
		struct iommu_pt d;
		build(&d, levels);
		struct vtd_entry ce = vtd_context_entry(&d);
		assert_int_equal((ce.hi >> 8) & 0xffff, 7);
		assert_int_equal(mismatches(ce, levels), 0);
		assert_int_equal(d.table_pages, live);
		iommu_pt_free(&d, &mem, &vtd_sl_format);
		assert_int_equal(live, 0);
	}
}

static void test_mutations_caught(void **state)
{
	(void)state;
	struct iommu_pt d;
	build(&d, 4);
	const struct vtd_entry good = vtd_context_entry(&d);
	struct vtd_entry ce = good;
	ce.lo &= ~VTD_PRESENT;
	assert_true(mismatches(ce, 4) > 0);
	ce = good;
	ce.hi = (ce.hi & ~7ull) | 1; /* 3 levels over a 4-level table */
	assert_true(mismatches(ce, 4) > 0);
	/* A read-only page, a dropped middle entry, a leaf pointing one page off. */
	u64 *top = fake_p2v(NULL, d.root);
	u64 *l3 = fake_p2v(NULL, top[0] & VTD_ADDR_MASK);
	u64 *l2 = fake_p2v(NULL, l3[0] & VTD_ADDR_MASK);
	u64 *l1 = fake_p2v(NULL, l2[0] & VTD_ADDR_MASK);
	const u64 keep = l1[5];
	l1[5] &= ~VTD_SL_W;
	assert_true(mismatches(good, 4) > 0);
	l1[5] = keep + 4096;
	assert_true(mismatches(good, 4) > 0);
	l1[5] = keep;
	l1[0] = 0x5000 | VTD_SL_R; /* the unmapped first page made readable */
	assert_true(mismatches(good, 4) > 0);
	l1[0] = 0;
	const u64 mid = l2[3];
	l2[3] = 0;
	assert_true(mismatches(good, 4) > 0);
	l2[3] = mid;
	assert_int_equal(mismatches(good, 4), 0);
	iommu_pt_free(&d, &mem, &vtd_sl_format);
	/* A 3-level domain pointed at by a context entry saying 4 levels. */
	build(&d, 3);
	ce = vtd_context_entry(&d);
	ce.hi = (ce.hi & ~7ull) | 2;
	assert_true(mismatches(ce, 3) > 0);
	iommu_pt_free(&d, &mem, &vtd_sl_format);
}

static void test_rights_and_refusals(void **state)
{
	(void)state;
	struct iommu_pt d;
	assert_int_equal(iommu_pt_init(&d, &mem, 5, 1), -1);
	assert_int_equal(iommu_pt_init(&d, &mem, 2, 1), -1);
	assert_int_equal(iommu_pt_init(&d, &mem, 3, 1), 0);
	assert_int_equal(iommu_pt_map(&d, &mem, &vtd_sl_format, 0x2000, 0x9000, 0x1000, VTD_SL_R),
			 0);
	struct vtd_entry ce = vtd_context_entry(&d);
	u64 hpa;
	assert_int_equal(walk(ce, 0x2010, false, &hpa), 0);
	assert_int_equal(hpa, 0x9010);
	assert_int_equal(walk(ce, 0x2010, true, &hpa), 5);
	/* Unaligned, or past what 3 levels reach (2^39): refused, nothing mapped. */
	assert_int_equal(iommu_pt_map(&d, &mem, &vtd_sl_format, 0x3004, 0xa000, 0x1000, VTD_SL_R),
			 -1);
	assert_int_equal(iommu_pt_map(&d, &mem, &vtd_sl_format, 0x3000, 0xa000, 0x800, VTD_SL_R),
			 -1);
	assert_int_equal(
		iommu_pt_map(&d, &mem, &vtd_sl_format, 0x7ffffff000ull, 0xa000, 0x2000, VTD_SL_R),
		-1);
	assert_int_equal(d.mapped, 0x1000);
	iommu_pt_free(&d, &mem, &vtd_sl_format);
	/* Out of table pages part way: -1, and freeing takes back what was built. */
	limit = 3;
	assert_int_equal(iommu_pt_init(&d, &mem, 4, 1), 0);
	assert_int_equal(
		iommu_pt_map(&d, &mem, &vtd_sl_format, 0, 0x100000, 0x400000, VTD_SL_R | VTD_SL_W),
		-1);
	iommu_pt_free(&d, &mem, &vtd_sl_format);
	assert_int_equal(live, 0);
	/* SAGAW: 4 levels preferred, 3 taken, neither refused. */
	assert_int_equal(vtd_levels(4ull << 8), 4);
	assert_int_equal(vtd_levels(6ull << 8), 4);
	assert_int_equal(vtd_levels(2ull << 8), 3);
	assert_int_equal(vtd_levels(9ull << 8), 0);
	struct vtd_entry re = vtd_root_entry(0x123000);
	assert_int_equal(re.lo, 0x123001);
	assert_int_equal(re.hi, 0);
}

static struct vtd_entry record(u16 sid, u8 reason, bool read, u64 addr, bool f)
{
	return (struct vtd_entry){ addr, (u64)f << 63 | (u64)read << 62 | (u64)reason << 32 | sid };
}

static void test_fault_decode(void **state)
{
	(void)state;
	struct vtd_fault f;
	assert_true(vtd_fault_decode(record(0x0508, 6, true, 0x12345678, true), &f));
	assert_int_equal(f.sid, 0x0508);
	assert_int_equal(f.reason, 6);
	assert_true(f.read);
	assert_int_equal(f.addr, 0x12345000);
	assert_true(vtd_fault_decode(record(0x0210, 2, false, 0xfee00000, true), &f));
	assert_false(f.read);
	assert_int_equal(f.sid, 0x0210);
	assert_int_equal(f.reason, 2);
	assert_false(vtd_fault_decode(record(0x0508, 6, true, 0x1000, false), &f));
	assert_string_equal(vtd_fault_reason(5), "write to a page not writable");
	assert_string_equal(vtd_fault_reason(2), "context entry not present");
	assert_string_equal(vtd_fault_reason(0), "other");
	assert_string_equal(vtd_fault_reason(0xff), "other");
}

/* A register block: CAP with 4-level SAGAW, 3 fault records at 0x400, IOTLB registers at 0x200. */
#define CAP_TEST (4ull << 8 | 0x40ull << 24 | 2ull << 40)
#define ECAP_TEST (0x20ull << 8)
static u64 regs[512] __attribute__((aligned(4096)));

#define R64(off) (*(volatile u64 *)((u8 *)regs + (off)))
#define R32(off) (*(volatile u32 *)((u8 *)regs + (off)))

/* The hardware's side: latches commands into status, completes invalidations; counts its
 * answers, so a test sees which commands were given. */
static u32 answers, invalidations;
static void hardware(volatile u8 *r)
{
	(void)r;
	answers++;
	u32 cmd = R32(VTD_REG_GCMD);
	R32(VTD_REG_GSTS) = (cmd & VTD_GCMD_TE) | (R32(VTD_REG_GSTS) & ~VTD_GSTS_TES) |
			    (cmd & VTD_GCMD_SRTP ? VTD_GSTS_RTPS : 0);
	invalidations += (R64(VTD_REG_CCMD) & VTD_CCMD_ICC) != 0;
	R64(VTD_REG_CCMD) &= ~VTD_CCMD_ICC;
	invalidations += (R64(0x208) & VTD_IOTLB_IVT) != 0;
	R64(0x208) &= ~VTD_IOTLB_IVT;
}

/* Latches commands and the context-cache invalidation, never completes an IOTLB one. */
static void half_dead(volatile u8 *r)
{
	hardware(r);
	R64(0x208) |= VTD_IOTLB_IVT;
}

static void test_dead_unit(void **state)
{
	(void)state;
	struct vtd_unit u;
	memset(regs, 0, sizeof(regs));
	R64(VTD_REG_CAP) = CAP_TEST;
	R64(VTD_REG_ECAP) = ECAP_TEST;
	assert_int_equal(vtd_unit_init(&u, regs, 0xfed90000, &mem, NULL), -1);
	assert_error_has(u.error, "never latched");
	assert_false(u.on);
	assert_int_equal(vtd_poll_faults(&u, NULL, NULL), 0);
	memset(regs, 0xff, sizeof(regs));
	assert_int_equal(vtd_unit_init(&u, regs, 0xfed90000, &mem, NULL), -1);
	assert_error_has(u.error, "all ones");
	memset(regs, 0, sizeof(regs));
	R64(VTD_REG_CAP) = CAP_TEST & ~(0x1full << 8);
	assert_int_equal(vtd_unit_init(&u, regs, 0xfed90000, &mem, NULL), -1);
	assert_error_has(u.error, "SAGAW");
	assert_int_equal(vtd_regs_span(CAP_TEST, ECAP_TEST), 0x430);
	memset(regs, 0, sizeof(regs));
	R64(VTD_REG_CAP) = CAP_TEST;
	R64(VTD_REG_ECAP) = ECAP_TEST | 1;
	assert_int_equal(vtd_unit_init(&u, regs, 0xfed90000, &mem, half_dead), -1);
	assert_error_has(u.error, "IOTLB invalidation never completed");
	assert_false(R32(VTD_REG_GSTS) & VTD_GSTS_TES);
	assert_int_equal(live, 0); /* a unit left off gives its root table back */
}

static void report(void *ctx, const struct vtd_fault *f)
{
	struct vtd_fault *seen = ctx;
	while (seen->sid)
		seen++;
	*seen = *f;
}

static void test_unit(void **state)
{
	(void)state;
	struct vtd_unit u;
	memset(regs, 0, sizeof(regs));
	R64(VTD_REG_CAP) = CAP_TEST;
	R64(VTD_REG_ECAP) = ECAP_TEST | 1; /* coherent: no clflush on the fake memory */
	invalidations = 0;
	assert_int_equal(vtd_unit_init(&u, regs, 0xfed90000, &mem, hardware), 0);
	assert_true(u.on);
	assert_int_equal(invalidations, 2);
	assert_int_equal(R64(VTD_REG_RTADDR), u.root_pa);
	assert_int_equal(R32(VTD_REG_FECTL), VTD_FECTL_IM);
	assert_true(R32(VTD_REG_GSTS) & VTD_GSTS_TES);
	struct iommu_pt d;
	build(&d, 4);
	invalidations = 0;
	assert_int_equal(vtd_attach(&u, &mem, 0x0508, &d), 0);
	assert_int_equal(invalidations, 2);
	assert_true(u.root[5].lo & VTD_PRESENT);
	const struct vtd_entry *ctx = fake_p2v(NULL, u.root[5].lo & VTD_ADDR_MASK);
	struct vtd_entry want = vtd_context_entry(&d);
	assert_int_equal(ctx[8].lo, want.lo);
	assert_int_equal(ctx[8].hi, want.hi);
	assert_int_equal(mismatches(ctx[8], 4), 0);
	/* Every other requester ID of the bus has no context entry: its DMA faults. */
	for (u32 i = 0; i < 256; i++)
		assert_true(i == 8 || !(ctx[i].lo & VTD_PRESENT));
	for (u32 b = 0; b < 256; b++)
		assert_true(b == 5 || !(u.root[b].lo & VTD_PRESENT));
	assert_int_equal(vtd_attach(&u, &mem, 0x0508, &d), -1);
	assert_error_has(u.error, "already has a context entry");
	struct iommu_pt shallow = d, far = d;
	shallow.levels = 3;
	assert_int_equal(vtd_attach(&u, &mem, 0x0509, &shallow), -1);
	far.did = 16; /* CAP.ND 0: domain IDs 0-15 */
	assert_int_equal(vtd_attach(&u, &mem, 0x0509, &far), -1);
	assert_error_has(u.error, "CAP.ND");
	vtd_detach(&u, &mem, 0x0508);
	assert_false(ctx[8].lo & VTD_PRESENT);
	assert_int_equal(invalidations, 4); /* after the attach and the detach; refusals none */

	/* Faults: records 1 and 2 pending from FRI 1, record 0 empty, and an overflow. */
	R32(VTD_REG_FSTS) = VTD_FSTS_PPF | VTD_FSTS_PFO | 1 << 8;
	struct vtd_entry r1 = record(0x0508, 5, false, 0x7000, true);
	struct vtd_entry r2 = record(0x0210, 2, true, 0x9000, true);
	memcpy((u8 *)regs + 0x410, &r1, 16);
	memcpy((u8 *)regs + 0x420, &r2, 16);
	struct vtd_fault seen[4];
	memset(seen, 0, sizeof(seen));
	assert_int_equal(vtd_poll_faults(&u, report, seen), 2);
	assert_int_equal(seen[0].sid, 0x0508);
	assert_false(seen[0].read);
	assert_int_equal(seen[0].addr, 0x7000);
	assert_int_equal(seen[1].sid, 0x0210);
	assert_true(seen[1].read);
	assert_int_equal(seen[2].sid, 0);
	/* Each F written 1 (to clear it), PFO written 1, the overflow counted. */
	assert_int_equal(R32(0x41c), 1u << 31);
	assert_int_equal(R32(0x42c), 1u << 31);
	assert_int_equal(R32(0x40c), 0);
	assert_int_equal(R32(VTD_REG_FSTS), VTD_FSTS_PFO);
	assert_int_equal(u.lost, 1);
	/* Nothing pending: one register read, nothing reported. */
	R32(VTD_REG_FSTS) = 0;
	assert_int_equal(vtd_poll_faults(&u, report, seen), 0);
	iommu_pt_free(&d, &mem, &vtd_sl_format);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_translates_exactly, setup),
		cmocka_unit_test_setup(test_mutations_caught, setup),
		cmocka_unit_test_setup(test_rights_and_refusals, setup),
		cmocka_unit_test(test_fault_decode),
		cmocka_unit_test_setup(test_dead_unit, setup),
		cmocka_unit_test_setup(test_unit, setup),
	};
	return cmocka_run_group_tests_name("vtd", tests, NULL, NULL);
}
