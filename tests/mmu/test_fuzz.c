/* SPDX-License-Identifier: GPL-2.0-only */
/* Scenario 10 under ASan+UBSan (shorter runs, every mode and the nocache and tiny-pool variants)
 * and scenario 11: each mutation knob must make the differential test fail. */
#include "tests/mmu/common.h"
#include "tests/mmu/fuzz.h"

static struct fuzz_result last; /* of the last run_expect */

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
	struct fuzz_opts o = {
		.ops = 100000, .seed = 14, .incremental = true, .cross_check = true
	};

	run_expect(&o, false);
}

static void test_fuzz_tiny_pool(void **st UNUSED)
{
	struct fuzz_opts o = { .ops = 60000, .seed = 13, .pool_pages = 24 };

	run_expect(&o, false);
	/* 4 vCPUs in the smallest pool they may have: their roots take 16 pages, and the pages
	 * left sit in one vCPU's cache or another's (each takes them from its siblings). */
	o.vcpus = 4;
	o.ops = 40000;
	run_expect(&o, false);
	assert_true(last.reclaimed > 1000);
}

/* 2, 3 and 4 vCPUs of one guest interleaved, each with its own TLB, sanitized. */
static void test_fuzz_smp(void **st UNUSED)
{
	for (unsigned n = 2; n <= 4; n++) {
		struct fuzz_opts o = { .ops = 60000, .seed = 30 + n, .vcpus = n };

		run_expect(&o, false);
		/* The TLBs served accesses, guests shot entries down on other vCPUs, and stale
		 * entries were used as the architecture allows. */
		assert_true(last.tlb_hits > 100 && last.shootdowns > 500 &&
			    last.tlb_checks > o.ops);
		assert_true(last.unsyncs > 100 && last.stale_hits > 0);
	}
}

/* Who must catch a knob: the audit (the comparison alone when there is none), the comparison
 * in every run (the audit cannot see TLBs or the guest's view), either of them (whichever
 * sees it first; the comparison alone when there is no audit), or only the audit (the MMU goes
 * on to trip over its own structures, so no run without it). */
enum catcher { BY_AUDIT, BY_COMPARE, BY_EITHER, BY_AUDIT_ONLY };

/* Each run with the full audit, with the incremental one (cross-checked: it must not miss what
 * the full one sees) and, unless BY_AUDIT_ONLY, with none. The knob's seed and vCPU count are
 * used (default seed 21, 2 vCPUs). */
static void mutation_of(const struct fuzz_opts *knob, enum catcher by)
{
	unsigned audit;

	for (audit = by == BY_AUDIT_ONLY ? 1 : 0; audit < 3; audit++) {
		struct fuzz_opts o = *knob;
		struct fuzz_result r;

		o.ops = 200000;
		o.seed = knob->seed ? knob->seed : 21;
		o.no_audit = !audit;
		o.quiet = true;
		o.incremental = o.cross_check = audit == 2;
		fuzz_run(&o, &r);
		fuzz_report(&o, &r);
		/* A knob caught either way may let a stale TLB write a shadowed table behind the
		 * MMU's back: the incremental audit follows only changes made through the MMU,
		 * the cross-check's full audit sees it. */
		if (by != BY_EITHER)
			assert_int_equal(r.incremental_missed, 0);
		if (!audit || by == BY_COMPARE)
			assert_true(r.mismatches > 0);
		else if (by == BY_EITHER)
			assert_true(r.mismatches + r.audit_errors > 0);
		else
			assert_true(r.audit_errors > 0);
	}
}

/* Each knob with 2 vCPUs and with 4 (interleaved, each with its own TLB). */
static void mutation(const struct fuzz_opts *knob, enum catcher by)
{
	struct fuzz_opts o = *knob;

	mutation_of(&o, by);
	o.vcpus = 4;
	mutation_of(&o, by);
}

static void test_mutation_skip_wp_on_shadow(void **st UNUSED)
{
	mutation(&(struct fuzz_opts){ .mut.skip_wp_on_shadow = true }, BY_AUDIT);
}

static void test_mutation_skip_zap_on_write(void **st UNUSED)
{
	mutation(&(struct fuzz_opts){ .mut.skip_zap_on_write = true }, BY_AUDIT);
}

/* Flushes that leave out-of-sync pages as they are: legal for the audit (the pages are still
 * out of sync), not for the guest, which must see its entries after a flush. */
static void test_mutation_skip_resync(void **st UNUSED)
{
	mutation(&(struct fuzz_opts){ .mut.skip_resync = true }, BY_COMPARE);
}

/* A resync that write-protects the table again but leaves its entries stale: the audit checks
 * every entry of a page coming back in sync. */
static void test_mutation_stale_resync(void **st UNUSED)
{
	mutation(&(struct fuzz_opts){ .mut.stale_resync = true }, BY_AUDIT);
}

/* Rights taken from a shared shadow entry but only one vCPU told to flush: another vCPU's TLB
 * keeps a translation its guest has shot down (the TLB sweep sees it), or writes through a
 * stale one into a table now write-protected (the audit sees the shadow left behind). */
static void test_mutation_flush_one_vcpu(void **st UNUSED)
{
	mutation(&(struct fuzz_opts){ .mut.flush_one_vcpu = true }, BY_EITHER);
}

/* A CR3 load that keeps the old root: the audit checks each vCPU's root against its own CR3
 * and mode, the comparison sees the old address space. */
static void test_mutation_keep_root_on_cr3(void **st UNUSED)
{
	mutation(&(struct fuzz_opts){ .mut.keep_root_on_cr3 = true }, BY_AUDIT);
}

/* A shadow page zapped while it is another vCPU's root, that vCPU not told to reload: it runs
 * on an emptied, unhashed page, which only the audit can see before the MMU trips over it. */
static void test_mutation_skip_root_reload(void **st UNUSED)
{
	mutation(&(struct fuzz_opts){ .mut.skip_root_reload = true }, BY_AUDIT_ONLY);
}

/* Shadow entries cleared or replaced without spte_gen moving: a vCPU's fetch memo keeps a
 * translation the shadow no longer has, which only the audit compares. */
static void test_mutation_skip_spte_gen(void **st UNUSED)
{
	mutation(&(struct fuzz_opts){ .mut.skip_spte_gen = true }, BY_AUDIT_ONLY);
}

/* A hypercall's read through the shadow that takes a table out of sync for the guest's: it gives
 * what the guest's tables no longer say (the fuzz compares each read with a walk). */
static void test_mutation_read_unsync(void **st UNUSED)
{
	mutation(&(struct fuzz_opts){ .mut.read_unsync = true }, BY_COMPARE);
}

/* A PV flush that resyncs but leaves the vCPU's own TLB: an entry another vCPU's fault narrowed
 * (without a flush, as an out-of-sync entry may be) stays wide in this vCPU's TLB after the
 * guest flushed. The fuzz's two-vCPU entry races reach it (scenario 15 shows it directly). */
static void test_mutation_skip_pv_flush(void **st UNUSED)
{
	mutation_of(&(struct fuzz_opts){ .mut.skip_pv_flush = true, .seed = 2 }, BY_COMPARE);
	mutation_of(&(struct fuzz_opts){ .mut.skip_pv_flush = true, .seed = 1, .vcpus = 4 },
		    BY_COMPARE);
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
		cmocka_unit_test(test_fuzz_smp),
		cmocka_unit_test(test_mutation_skip_wp_on_shadow),
		cmocka_unit_test(test_mutation_skip_zap_on_write),
		cmocka_unit_test(test_mutation_skip_resync),
		cmocka_unit_test(test_mutation_stale_resync),
		cmocka_unit_test(test_mutation_flush_one_vcpu),
		cmocka_unit_test(test_mutation_keep_root_on_cr3),
		cmocka_unit_test(test_mutation_skip_root_reload),
		cmocka_unit_test(test_mutation_skip_pv_flush),
		cmocka_unit_test(test_mutation_skip_spte_gen),
		cmocka_unit_test(test_mutation_read_unsync),
		cmocka_unit_test(test_fuzz_no_unsync),
	};

	return cmocka_run_group_tests_name("mmu-fuzz", tests, NULL, NULL);
}
