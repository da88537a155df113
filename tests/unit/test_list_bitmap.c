/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for lib/list.h and lib/bitmap.h. */
#include <string.h>
#include "tests/unit/harness.h"
#include "lib/bitmap.h"
#include "lib/list.h"

struct item {
	int v;
	struct list_head node;
};

static void collect(struct list_head *h, int *out, int *n)
{
	struct item *it;
	*n = 0;
	list_for_each_entry(it, h, node) out[(*n)++] = it->v;
}

static void test_list_order(void **state)
{
	(void)state;
	struct list_head h = LIST_HEAD_INIT(h);
	struct item a = { 1, { 0 } }, b = { 2, { 0 } }, c = { 3, { 0 } };
	int got[4], n;
	assert_true(list_empty(&h));
	list_add_tail(&a.node, &h);
	list_add_tail(&b.node, &h);
	list_add(&c.node, &h);
	assert_false(list_empty(&h));
	collect(&h, got, &n);
	assert_int_equal(n, 3);
	assert_int_equal(got[0], 3);
	assert_int_equal(got[1], 1);
	assert_int_equal(got[2], 2);
	list_del(&a.node);
	assert_true(list_empty(&a.node));
	list_del(&a.node); /* second del of a self-linked node is harmless */
	collect(&h, got, &n);
	assert_int_equal(n, 2);
	assert_int_equal(got[0], 3);
	assert_int_equal(got[1], 2);
}

static void test_list_safe_delete(void **state)
{
	(void)state;
	struct list_head h;
	struct item items[6], *it, *tmp;
	list_init(&h);
	for (int i = 0; i < 6; i++) {
		items[i].v = i;
		list_add_tail(&items[i].node, &h);
	}
	list_for_each_entry_safe(it, tmp, &h, node) if (it->v % 2 == 0) list_del(&it->node);
	int got[6], n;
	collect(&h, got, &n);
	assert_int_equal(n, 3);
	assert_int_equal(got[0], 1);
	assert_int_equal(got[1], 3);
	assert_int_equal(got[2], 5);
	list_for_each_entry_safe(it, tmp, &h, node) list_del(&it->node);
	assert_true(list_empty(&h));
}

static void test_bitmap_basic(void **state)
{
	(void)state;
	u64 map[BITMAP_WORDS(130)];
	assert_int_equal(BITMAP_WORDS(130), 3);
	memset(map, 0, sizeof(map));
	bitmap_set(map, 0);
	bitmap_set(map, 63);
	bitmap_set(map, 64);
	bitmap_set(map, 129);
	assert_true(bitmap_test(map, 63));
	assert_true(bitmap_test(map, 64));
	assert_false(bitmap_test(map, 65));
	assert_int_equal(map[0], 0x8000000000000001ull);
	assert_int_equal(map[2], 2);
	bitmap_clear(map, 63);
	assert_false(bitmap_test(map, 63));
	assert_true(bitmap_test(map, 0));
	assert_int_equal(bitmap_find_first_zero(map, 130), 1);
	assert_int_equal(bitmap_find_next_zero(map, 130, 64), 65);
}

static void test_bitmap_find_zero(void **state)
{
	(void)state;
	u64 map[3];
	memset(map, 0xff, sizeof(map));
	assert_int_equal(bitmap_find_first_zero(map, 192), 192);
	bitmap_clear(map, 150);
	assert_int_equal(bitmap_find_first_zero(map, 192), 150);
	assert_int_equal(bitmap_find_next_zero(map, 192, 150), 150);
	assert_int_equal(bitmap_find_next_zero(map, 192, 151), 192);
	/* A clear bit beyond nbits is not reported. */
	assert_int_equal(bitmap_find_first_zero(map, 140), 140);
	assert_int_equal(bitmap_find_next_zero(map, 192, 500), 192);
	map[0] = 0;
	assert_int_equal(bitmap_find_first_zero(map, 0), 0);
	assert_int_equal(bitmap_find_next_zero(map, 64, 10), 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_order),
		cmocka_unit_test(test_list_safe_delete),
		cmocka_unit_test(test_bitmap_basic),
		cmocka_unit_test(test_bitmap_find_zero),
	};
	return cmocka_run_group_tests_name("list_bitmap", tests, NULL, NULL);
}
