/* MMU scenarios 1-9 and 11 of issue 3, each a cmocka test, against the reference machine. */
#include <stdlib.h>
#include <string.h>
#include "mmu/internal.h"
#include "tests/mmu/common.h"

/* ---- 1: every mode x every permission combination ---- */

struct matrix_cfg {
	int mode;
	bool pse;
	unsigned leaf_level;
};

static void matrix_one(const struct matrix_cfg *mc)
{
	static const struct { int kind; bool user, ac; } accs[] = {
		{ ACC_READ, true, false }, { ACC_WRITE, true, false }, { ACC_FETCH, true, false },
		{ ACC_READ, false, false }, { ACC_WRITE, false, false }, { ACC_FETCH, false, false },
		{ ACC_READ, false, true }, { ACC_WRITE, false, true },
	};
	struct harness *h = calloc(1, sizeof(*h));
	struct g_frames f = { 0x300, 0x3ff };
	const u64 gva = 0x40000000ull + 0x21000 + 0x18, data = 0x21;
	unsigned levels = g_levels(mc->mode), l, bits, up, ctl, i;
	u64 cr3, path[5] = { 0 }, leaf_base;
	bool w64 = mc->mode != G_32;

	h_init(h, NULL, 1);
	std_slots(h);
	h_phys_write(h, (data << 12) + 0x18, 8, 0x1122334455667788ull);
	cr3 = g_table(h, &f) << 12;
	leaf_base = mc->leaf_level == 1 ? data << 12 : GPS;
	g_map(h, &f, mc->mode, cr3, gva, leaf_base | GP | GW | GU, mc->leaf_level, GP | GW | GU);
	/* The path's entry addresses, top down. */
	for (l = levels; l >= mc->leaf_level; l--) {
		u64 table = l == levels ? cr3 >> 12 : (g_get(h, mc->mode, path[l + 1]) & 0xffffffffff000ull) >> 12;

		path[l] = g_entry_gpa(mc->mode, table, l, gva);
	}
	for (bits = 0; bits < 17; bits++) {
		u64 leaf = leaf_base | (bits & 1 ? GP : 0) | (bits & 2 ? GW : 0) | (bits & 4 ? GU : 0);

		if (bits & 8) {
			if (!w64)
				continue;
			leaf |= GNX;
		}
		if (bits == 16) {	/* a reserved bit */
			if (!w64 && mc->leaf_level == 1)
				continue;
			leaf = leaf_base | GP | GW | GU | (w64 ? BIT(45) : BIT(21));
		}
		for (up = 0; up < 4; up++)
			for (ctl = 0; ctl < 16; ctl++) {
				struct g_cfg c = { mc->mode, mc->pse, ctl & 1, ctl & 2, ctl & 4, ctl & 8 };

				assert_int_equal(g_enter(h, 0, &c, cr3), MMU_OK);
				for (i = 0; i < ARRAY_SIZE(accs); i++) {
					struct h_access a = acc_of(gva, accs[i].kind, accs[i].user, 0x99);

					a.ac = accs[i].ac;
					/* Fresh entries (A/D clear) for every access. */
					for (l = levels; l > mc->leaf_level; l--)
						if (!(mc->mode == G_PAE && l == 3))
							g_set(h, mc->mode, path[l], (g_get(h, mc->mode, path[l]) & ~0x7full) |
							      GP | (up & 1 ? GW : 0) | (up & 2 ? GU : 0));
					g_set(h, mc->mode, path[mc->leaf_level], leaf);
					CHECK_ACCESS(h, 0, &a);
				}
				CHECK_AUDIT(h);
			}
	}
	h_fini(h);
	free(h);
}

static void test_matrix_32(void **st UNUSED) { struct matrix_cfg c = { G_32, false, 1 }; matrix_one(&c); }
static void test_matrix_32_pse(void **st UNUSED) { struct matrix_cfg c = { G_32, true, 2 }; matrix_one(&c); }
static void test_matrix_pae(void **st UNUSED) { struct matrix_cfg c = { G_PAE, false, 1 }; matrix_one(&c); }
static void test_matrix_pae_2m(void **st UNUSED) { struct matrix_cfg c = { G_PAE, false, 2 }; matrix_one(&c); }
static void test_matrix_long(void **st UNUSED) { struct matrix_cfg c = { G_LONG, false, 1 }; matrix_one(&c); }
static void test_matrix_long_2m(void **st UNUSED) { struct matrix_cfg c = { G_LONG, false, 2 }; matrix_one(&c); }
static void test_matrix_long_1g(void **st UNUSED) { struct matrix_cfg c = { G_LONG, false, 3 }; matrix_one(&c); }

static void test_matrix_off(void **st UNUSED)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct g_cfg c = { G_OFF, 0, 0, 0, 0, 0 };
	u64 gva;

	h_init(h, NULL, 1);
	std_slots(h);
	assert_int_equal(g_enter(h, 0, &c, 0), MMU_OK);
	for (gva = 0; gva < 0x800000; gva += 0x3000) {
		struct h_access a = acc_of(gva, (int)(gva % 3), gva & 0x4000, gva);

		CHECK_ACCESS(h, 0, &a);
	}
	CHECK_AUDIT(h);
	h_fini(h);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix_off),
		cmocka_unit_test(test_matrix_32),
		cmocka_unit_test(test_matrix_32_pse),
		cmocka_unit_test(test_matrix_pae),
		cmocka_unit_test(test_matrix_pae_2m),
		cmocka_unit_test(test_matrix_long),
		cmocka_unit_test(test_matrix_long_2m),
		cmocka_unit_test(test_matrix_long_1g),
	};

	return cmocka_run_group_tests_name("mmu-scenarios", tests, NULL, NULL);
}
