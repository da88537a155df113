/* SPDX-License-Identifier: GPL-2.0-only */
/* Attack guest (stop): STOP_GUEST hammered at guests being started, running and ending elsewhere. */
/* Stopper role (default; caps=stats,stop): from its first instruction it calls STOP_GUEST on
 * guests first..first+count-1 (module order = guest id) again and again, last one first, while
 * they start, run and end on another CPU; every call returns 0 (stopping a guest that is already
 * stopped is not an error), its own id and a missing one -EINVAL. Then each target must make no
 * more exits. Two stoppers may race on the same targets: each target must end exactly once
 * ("guest T: stopped by guest S" and its report once each, summary guests_stopped = count),
 * which tests/attack/cases.sh checks in the log.
 * Target roles (`-- role=spin|block|yield`, started with expect=stop): spin with interrupts
 * off, sleep in the BLOCK hypercall for an hour, or YIELD in a loop: never end by themselves. */
#include "tests/attack/attack.h"

const char guest_name[] = GUEST_NAME;

#define ROUNDS 200

static void target(void)
{
	if (atk_arg_flag("role=block")) {
		for (;;)
			umbra_hypercall4(UMBRA_HC_BLOCK, 0, 800, 0,
					 0); /* 800 * 2^32 ns: 57 minutes */
	}
	if (atk_arg_flag("role=yield")) {
		for (;;)
			umbra_hypercall(UMBRA_HC_YIELD, 0, 0);
	}
	for (;;)
		asm volatile("pause");
}

static void stopper(void)
{
	ulong first = atk_arg_num("first", 1), count = atk_arg_num("count", 1);
	ulong bad = 0, mark = checks_failed;
	long last = 0;
	for (int round = 0; round < ROUNDS; round++) {
		for (ulong i = count; i-- > 0;) {
			long r = umbra_hypercall4(UMBRA_HC_STOP_GUEST, first + i, 0, 0, 0);
			if (r != 0)
				bad++, last = r;
		}
	}
	CHECK(bad == 0, "%lu of %u STOP_GUEST calls failed (the last with %ld)", bad,
	      ROUNDS * (unsigned)count, last);
	case_end("stop-hammer (STOP_GUEST on starting/running/ending guests: 0 every time)", mark);

	struct umbra_vcpu_info vi;
	mark = checks_failed;
	CHECK(umbra_hypercall4(UMBRA_HC_VCPU_INFO, (ulong)&vi, 0, 0, 0) == 0, "VCPU_INFO failed");
	CHECK(umbra_hypercall4(UMBRA_HC_STOP_GUEST, vi.guest_id, 0, 0, 0) == -UMBRA_EINVAL,
	      "STOP_GUEST of itself did not return -EINVAL");
	CHECK(umbra_hypercall4(UMBRA_HC_STOP_GUEST, vi.nr_guests, 0, 0, 0) == -UMBRA_EINVAL,
	      "STOP_GUEST of guest %u (one past the last) did not return -EINVAL", vi.nr_guests);
	CHECK(umbra_hypercall4(UMBRA_HC_STOP_GUEST, ~0ul, 0, 0, 0) == -UMBRA_EINVAL,
	      "STOP_GUEST of guest ~0 did not return -EINVAL");
	case_end("stop-bad-ids (itself, one past the last, ~0: -EINVAL)", mark);

	/* Stopped for good: no target makes an exit across 20 ms. */
	static struct umbra_stats s0[8], s1[8];
	mark = checks_failed;
	for (ulong i = 0; i < count && i < 8; i++)
		CHECK(umbra_hypercall4(UMBRA_HC_STATS_OF, first + i, (ulong)&s0[i], sizeof(s0[i]),
				       0) == (long)sizeof(s0[i]),
		      "STATS_OF %lu failed", first + i);
	umbra_hypercall4(UMBRA_HC_BLOCK, 20000000, 0, 0, 0);
	for (ulong i = 0; i < count && i < 8; i++) {
		umbra_hypercall4(UMBRA_HC_STATS_OF, first + i, (ulong)&s1[i], sizeof(s1[i]), 0);
		CHECK(s1[i].exits_total == s0[i].exits_total,
		      "guest %lu still runs: %llu exits, then "
		      "%llu",
		      first + i, (unsigned long long)s0[i].exits_total,
		      (unsigned long long)s1[i].exits_total);
	}
	case_end("stop-final (the stopped guests make no more exits)", mark);
}

void test_main(void)
{
	if (!on_umbra) {
		skip_note("stop (STOP_GUEST)");
		return;
	}
	if (atk_arg_flag("role=spin") || atk_arg_flag("role=block") || atk_arg_flag("role=yield"))
		target();
	stopper();
	kprintf("cases: stop 3\n");
}
