/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for boot/lowmem.c: the AP trampoline's page from BIOS and UEFI memory maps. */
#include <string.h>
#include "tests/unit/harness.h"
#include "boot/lowmem.h"
#include "boot/mb2.h"

static struct boot_info bi;

static void map(const struct mb2_mmap_entry *e, u32 n)
{
	memset(&bi, 0, sizeof(bi));
	if (n)
		memcpy(bi.mmap, e, n * sizeof(*e));
	bi.nmmap = n;
}

static void test_bios_map(void **state)
{
	(void)state;
	/* SeaBIOS: 639 KiB of low RAM, the EBDA and the BIOS area reserved. */
	static const struct mb2_mmap_entry e[] = {
		{ 0, 0x9fc00, MB2_MMAP_AVAILABLE },
		{ 0x9fc00, 0x400, MB2_MMAP_RESERVED },
		{ 0xf0000, 0x10000, MB2_MMAP_RESERVED },
		{ 0x100000, 0x7ee0000, MB2_MMAP_AVAILABLE },
	};
	map(e, 4);
	assert_int_equal(lowmem_pick_page(&bi, NULL, 0), 0x1000); /* never page 0 */
	/* Busy ranges (kernel, boot information, modules) are stepped over, even partly. */
	struct lowmem_range busy[2] = { { 0x1000, 0x1001 }, { 0x1fff, 0x5000 } };
	assert_int_equal(lowmem_pick_page(&bi, busy, 2), 0x5000);
	/* A range ending exactly at a page's start does not touch it. */
	struct lowmem_range edge = { 0, 0x2000 };
	assert_int_equal(lowmem_pick_page(&bi, &edge, 1), 0x2000);
}

static void test_uefi_map(void **state)
{
	(void)state;
	/* Firmware keeps pages of its own low: reserved, runtime, and RAM that is not page-whole. */
	static const struct mb2_mmap_entry e[] = {
		{ 0x0, 0x3000, MB2_MMAP_RESERVED },
		{ 0x3000, 0x800, MB2_MMAP_AVAILABLE }, /* half a page only */
		{ 0x3800, 0x800, MB2_MMAP_RESERVED },
		{ 0x4000, 0x3000, MB2_MMAP_AVAILABLE },
		{ 0x5000, 0x1000, MB2_MMAP_NVS }, /* overlaps RAM: the reserved view wins */
		{ 0x7000, 0x1000, MB2_MMAP_AVAILABLE },
		{ 0x100000, 0x1000000, MB2_MMAP_AVAILABLE },
	};
	map(e, 7);
	assert_int_equal(lowmem_pick_page(&bi, NULL, 0), 0x4000);
	struct lowmem_range busy = { 0x4000, 0x5000 };
	assert_int_equal(lowmem_pick_page(&bi, &busy, 1), 0x6000);
	/* A page spread over two adjacent available entries is not wholly in either. */
	static const struct mb2_mmap_entry split[] = {
		{ 0x1000, 0x800, MB2_MMAP_AVAILABLE },
		{ 0x1800, 0x800, MB2_MMAP_AVAILABLE },
		{ 0x9000, 0x1000, MB2_MMAP_AVAILABLE },
	};
	map(split, 3);
	assert_int_equal(lowmem_pick_page(&bi, NULL, 0), 0x9000);
}

static void test_none_free(void **state)
{
	(void)state;
	/* Nothing below 1 MiB is RAM (or only page 0 is): no trampoline page, no SMP. */
	static const struct mb2_mmap_entry e[] = {
		{ 0x0, 0x1000, MB2_MMAP_AVAILABLE },
		{ 0x1000, 0xff000, MB2_MMAP_RESERVED },
		{ 0x100000, 0x1000000, MB2_MMAP_AVAILABLE },
	};
	map(e, 3);
	assert_int_equal(lowmem_pick_page(&bi, NULL, 0), 0);
	map(NULL, 0);
	assert_int_equal(lowmem_pick_page(&bi, NULL, 0), 0);
	/* RAM just above the limit does not count; the last page below it does. */
	static const struct mb2_mmap_entry top[] = {
		{ 0xff000, 0x2000, MB2_MMAP_AVAILABLE },
	};
	map(top, 1);
	assert_int_equal(lowmem_pick_page(&bi, NULL, 0), 0xff000);
	struct lowmem_range busy = { 0xff000, 0x100000 };
	assert_int_equal(lowmem_pick_page(&bi, &busy, 1), 0);
	/* An entry whose end wraps the address space still covers low pages. */
	static const struct mb2_mmap_entry wrap[] = {
		{ 0x2000, ~0ull, MB2_MMAP_AVAILABLE },
	};
	map(wrap, 1);
	assert_int_equal(lowmem_pick_page(&bi, NULL, 0), 0x2000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bios_map),
		cmocka_unit_test(test_uefi_map),
		cmocka_unit_test(test_none_free),
	};
	return cmocka_run_group_tests_name("lowmem", tests, NULL, NULL);
}
