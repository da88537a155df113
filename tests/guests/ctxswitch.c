/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest test: context switches among 10 address spaces with distinct mappings of one range. */
/* Under Umbra the second round must take no new shadow faults: the shadow roots are cached. */
#include "tests/guests/lib/guest.h"

const char guest_name[] = GUEST_NAME;

#define NSPACES 10
#define NPAGES 8

static struct aspace kernel, spaces[NSPACES];
static ulong frames[NSPACES][NPAGES];
static struct umbra_stats st[3];
static unsigned long cases;

/* Both rounds run exactly this code and touch exactly these pages. */
static void round_trip(uint32_t round, struct umbra_stats *scratch)
{
	for (int s = 0; s < NSPACES; s++) {
		write_cr3(spaces[s].root);
		for (int p = 0; p < NPAGES; p++) {
			volatile uint32_t *m =
				(volatile uint32_t *)(TEST_VA + (ulong)p * PAGE_SIZE);
			uint32_t tag = round << 16 | (uint32_t)s << 8 | (uint32_t)p;
			CHECK(m[0] == marker_of(frames[s][p]),
			      "round %u space %d page %d: marker %x, expected %x", round, s, p,
			      m[0], marker_of(frames[s][p]));
			m[2] = tag;
			CHECK(m[2] == tag && *phys32(frames[s][p] + 8) == tag,
			      "round %u space %d page %d: write did not reach its frame", round, s,
			      p);
			cases++;
		}
		scratch->size = 0; /* the stats buffer is written in every space in both rounds */
	}
}

void test_main(void)
{
	as_init(&kernel, GUEST_MODE);
	for (int s = 0; s < NSPACES; s++) {
		as_clone_kernel(&spaces[s], &kernel);
		for (int p = 0; p < NPAGES; p++) {
			frames[s][p] = page_alloc();
			frame_mark(frames[s][p]);
			map_page(&spaces[s], TEST_VA + (ulong)p * PAGE_SIZE, frames[s][p], 1,
				 PTE_P | PTE_W);
		}
	}
	as_activate(&spaces[0]);
	round_trip(1, &st[2]);
	int measure = on_umbra && !umbra_stats(&st[0]);
	round_trip(2, &st[2]);
	if (measure && !umbra_stats(&st[1])) {
		uint64_t d = st[1].mmu.faults_fixed - st[0].mmu.faults_fixed;
		kprintf("round 2: %llu new shadow faults (total %llu), root cache hits %llu misses %llu\n",
			(unsigned long long)d, (unsigned long long)st[1].mmu.faults_fixed,
			(unsigned long long)st[1].mmu.root_cache_hits,
			(unsigned long long)st[1].mmu.root_cache_misses);
		CHECK(d == 0,
		      "second round of context switches took %llu shadow faults, expected 0",
		      (unsigned long long)d);
	} else if (!on_umbra) {
		skip_note("second-round shadow-fault check");
	} else {
		check_failed("statistics hypercall failed");
	}
	as_activate(&kernel);
	kprintf("cases: %s %d spaces x %d pages x 2 rounds = %lu accesses\n",
		pmode_name[kernel.mode], NSPACES, NPAGES, cases);
}
