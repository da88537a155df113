/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest test: computes for a while and passes, beside the guests that crash. */
/* LCG steps checked against a jump-ahead, then a prime sieve, with progress lines. */
#include "tests/guests/lib/guest.h"

const char guest_name[] = GUEST_NAME;

#define A 1664525u
#define C 1013904223u
#define SIEVE_N 1000000u

static uint8_t composite[SIEVE_N / 8 + 1];

/* x_n from x_0 in O(log n): composes the affine map x -> A x + C with itself. */
static uint32_t lcg_jump(uint32_t x, uint64_t n)
{
	uint32_t a = A, c = C, ra = 1, rc = 0;
	for (; n; n >>= 1) {
		if (n & 1)
			ra *= a, rc = rc * a + c;
		c = c * (a + 1), a *= a;
	}
	return ra * x + rc;
}

void test_main(void)
{
	uint32_t x = 42;
	const uint64_t steps = 4000000;
	for (uint64_t i = 1; i <= steps; i++) {
		x = x * A + C;
		if (i % 1000000 == 0) {
			kprintf("%s: %lu steps, x=%x\n", guest_name, (ulong)i, x);
			CHECK(x == lcg_jump(42, i), "LCG step %lu: %x, jump-ahead says %x",
			      (ulong)i, x, lcg_jump(42, i));
		}
	}
	unsigned primes = 0;
	for (uint32_t i = 2; i < SIEVE_N; i++) {
		if (composite[i / 8] & (1u << (i % 8)))
			continue;
		primes++;
		for (uint64_t j = (uint64_t)i * i; j < SIEVE_N; j += i)
			composite[j / 8] |= (uint8_t)(1u << (j % 8));
	}
	kprintf("%s: %u primes below %u\n", guest_name, primes, SIEVE_N);
	CHECK(primes == 78498, "sieve found %u primes, expected 78498", primes);
	kprintf("cases: 5 (4 LCG checkpoints, 1 sieve)\n");
}
