/* SPDX-License-Identifier: GPL-2.0-only */
/* docs/abi.md against pv/abi.h and pv/classes.c: every call and error, its number and class. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/harness.h"
#include "pv/abi.h"
#include "pv/classes.h"

struct row {
	char cells[6][160];
	int ncells;
};

/* Reads the table whose header row starts with `first` from docs/abi.md. */
static int read_table(const char *first, struct row *rows, int max)
{
	FILE *f = fopen("docs/abi.md", "r");
	char line[512];
	int n = 0;
	bool in = false;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && n < max) {
		if (!in) {
			in = !strncmp(line, first, strlen(first));
			continue;
		}
		if (line[0] != '|')
			break;
		if (!strncmp(line, "| ---", 5))
			continue;
		struct row *r = &rows[n++];
		r->ncells = 0;
		/* Split on '|' that is not escaped as "\|". */
		char *p = line + 1, *cell = p;
		for (; *p && r->ncells < 6; p++) {
			if (*p == '|' && p[-1] != '\\') {
				*p = 0;
				while (*cell == ' ')
					cell++;
				size_t len = strlen(cell);
				while (len && cell[len - 1] == ' ')
					cell[--len] = 0;
				size_t keep = len < sizeof(r->cells[0]) - 1
						      ? len
						      : sizeof(r->cells[0]) - 1;
				memcpy(r->cells[r->ncells], cell, keep);
				r->cells[r->ncells++][keep] = 0;
				cell = p + 1;
			}
		}
	}
	fclose(f);
	return n;
}

static const char *class_letter(enum hc_class c)
{
	return c == HC_RESTRICTED    ? "R"
	       : c == HC_PRIVILEGED  ? "P"
	       : c == HC_CROSS_GUEST ? "C"
				     : "-";
}

static void test_calls_match(void **state)
{
	(void)state;
	struct row rows[64];
	int n = read_table("| nr | name | class", rows, 64);
	int expected = 0;

#define COUNT(nr, name, k, cap) expected++;
	UMBRA_HYPERCALLS(COUNT)
	assert_int_equal(n, expected);

	int i = 0;
#define CHECK_ROW(nr, name, k, cap) \
	do { \
		char num[8]; \
		snprintf(num, sizeof(num), "%d", nr); \
		assert_string_equal(rows[i].cells[0], num); \
		assert_string_equal(rows[i].cells[1], #name); \
		/* The class cell is the letter, then (for C) the capability's name. */ \
		assert_int_equal(rows[i].cells[2][0], #k[0]); \
		assert_string_equal(class_letter(hc_classes[nr].cls), #k); \
		i++; \
	} while (0);
	UMBRA_HYPERCALLS(CHECK_ROW)
}

static void test_classes_cover_every_call(void **state)
{
	(void)state;
	bool listed[UMBRA_HC_COUNT] = { false };
#define MARK(nr, name, k, cap) listed[nr] = true;
	UMBRA_HYPERCALLS(MARK)
	for (int nr = 0; nr < UMBRA_HC_COUNT; nr++)
		assert_int_equal(listed[nr], hc_classes[nr].cls != HC_NONE);
	assert_int_equal(hc_classes[0].cls, HC_NONE); /* 0 is never a call */
	assert_int_equal(hc_classes[UMBRA_HC_STATS_OF].cap, UMBRA_CAP_STATS);
	assert_int_equal(hc_classes[UMBRA_HC_STOP_GUEST].cap, UMBRA_CAP_STOP);
}

static void test_errors_match(void **state)
{
	(void)state;
#define ERR_ROW(code, name) { code, #name },
	static const struct {
		int code;
		const char *name;
	} errs[] = { UMBRA_ERRORS(ERR_ROW) };
#undef ERR_ROW
	struct row rows[16];
	int n = read_table("| code | name |", rows, 16);

	assert_int_equal(n, (int)(sizeof(errs) / sizeof(errs[0])));
	for (int i = 0; i < n; i++) {
		assert_int_equal(atoi(rows[i].cells[0]), errs[i].code);
		assert_string_equal(rows[i].cells[1], errs[i].name);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calls_match),
		cmocka_unit_test(test_classes_cover_every_call),
		cmocka_unit_test(test_errors_match),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
