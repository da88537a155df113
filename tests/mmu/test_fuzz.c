/* Scenario 10 under ASan+UBSan (shorter runs, every mode and the nocache and tiny-pool variants)
 * and scenario 11: each mutation knob must make the differential test fail. */
#include "tests/mmu/common.h"
#include "tests/mmu/fuzz.h"

static struct fuzz_result last;	/* of the last run_expect */

static void run_expect(const struct fuzz_opts *o, bool should_fail)
{
	fuzz_run(o, &last);
	fuzz_report(o, &last);
	assert_int_equal(last.incremental_missed, 0);
	if (should_fail)
		assert_true(last.mismatches + last.audit_errors > 0);
	else
		assert_true(last.mismatches == 0 && last.audit_errors == 0 && last.ops == o->ops);
}

static void test_fuzz_asan(void **st UNUSED)
{
	struct fuzz_opts o = { .ops = 300000, .seed = 11 };

	run_expect(&o, false);
	/* The run went through out-of-sync tables and served stale entries the reference
	 * accepted (the TLB model is exercised, not only present). */
	assert_true(last.unsyncs > 1000 && last.resyncs > 1000 && last.stale_hits > 10);
}

static void test_fuzz_nocache(void **st UNUSED)
{
	struct fuzz_opts o = { .ops = 60000, .seed = 12, .nocache = true };

	run_expect(&o, false);
}

/* The incremental audit after every op, checked against the full one after every op. */
static void test_fuzz_incremental(void **st UNUSED)
{
	struct fuzz_opts o = { .ops = 100000, .seed = 14, .incremental = true, .cross_check = true };

	run_expect(&o, false);
}

static void test_fuzz_tiny_pool(void **st UNUSED)
{
	struct fuzz_opts o = { .ops = 60000, .seed = 13, .pool_pages = 24 };

	run_expect(&o, false);
}

/* The knob must be caught by the full audit, by the incremental audit (before the full one
 * would be), and, without an audit, by the comparison alone. A knob the audit cannot see
 * (audit_sees false) must be caught by the comparison in every run. */
static void mutation(const struct fuzz_opts *knob, bool audit_sees)
{
	unsigned audit;

	for (audit = 0; audit < 3; audit++) {
		struct fuzz_opts o = *knob;
		struct fuzz_result r;

		o.ops = 200000;
		o.seed = 21;
		o.no_audit = !audit;
		o.quiet = true;
		o.incremental = o.cross_check = audit == 2;
		fuzz_run(&o, &r);
		fuzz_report(&o, &r);
		assert_int_equal(r.incremental_missed, 0);
		assert_true(audit && audit_sees ? r.audit_errors > 0 : r.mismatches > 0);
	}
}

static void test_mutation_skip_wp_on_shadow(void **st UNUSED)
{
	mutation(&(struct fuzz_opts){ .skip_wp_on_shadow = true }, true);
}

static void test_mutation_skip_zap_on_write(void **st UNUSED)
{
	mutation(&(struct fuzz_opts){ .skip_zap_on_write = true }, true);
}

/* Flushes that leave out-of-sync pages as they are: legal for the audit (the pages are still
 * out of sync), not for the guest, which must see its entries after a flush. */
static void test_mutation_skip_resync(void **st UNUSED)
{
	mutation(&(struct fuzz_opts){ .skip_resync = true }, false);
}

/* A resync that write-protects the table again but leaves its entries stale: the audit checks
 * every entry of a page coming back in sync. */
static void test_mutation_stale_resync(void **st UNUSED)
{
	mutation(&(struct fuzz_opts){ .stale_resync = true }, true);
}

/* With out-of-sync shadows off, every guest page-table store traps, as before them. */
static void test_fuzz_no_unsync(void **st UNUSED)
{
	struct fuzz_opts o = { .ops = 60000, .seed = 15, .no_unsync = true };

	run_expect(&o, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuzz_asan),
		cmocka_unit_test(test_fuzz_nocache),
		cmocka_unit_test(test_fuzz_incremental),
		cmocka_unit_test(test_fuzz_tiny_pool),
		cmocka_unit_test(test_mutation_skip_wp_on_shadow),
		cmocka_unit_test(test_mutation_skip_zap_on_write),
		cmocka_unit_test(test_mutation_skip_resync),
		cmocka_unit_test(test_mutation_stale_resync),
		cmocka_unit_test(test_fuzz_no_unsync),
	};

	return cmocka_run_group_tests_name("mmu-fuzz", tests, NULL, NULL);
}
