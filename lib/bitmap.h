/* SPDX-License-Identifier: GPL-2.0-only */
/* Bitmaps over arrays of u64 words (bit n lives in word n / 64). */
#ifndef LIB_BITMAP_H
#define LIB_BITMAP_H

#include "lib/types.h"

#define BITMAP_WORDS(nbits) (((nbits) + 63) / 64)

static inline void bitmap_set(u64 *map, size_t bit)
{
	map[bit / 64] |= BIT(bit % 64);
}

static inline void bitmap_clear(u64 *map, size_t bit)
{
	map[bit / 64] &= ~BIT(bit % 64);
}

static inline bool bitmap_test(const u64 *map, size_t bit)
{
	return (map[bit / 64] >> (bit % 64)) & 1;
}

/* First clear bit at index >= start and < nbits, or nbits when every bit is set. */
static inline size_t bitmap_find_next_zero(const u64 *map, size_t nbits, size_t start)
{
	size_t bit = start;
	while (bit < nbits) {
		u64 w = ~map[bit / 64] & (~0ull << (bit % 64));
		if (w) {
			bit = ALIGN_DOWN(bit, 64) + (size_t)__builtin_ctzll(w);
			return bit < nbits ? bit : nbits;
		}
		bit = ALIGN_DOWN(bit, 64) + 64;
	}
	return nbits;
}

static inline size_t bitmap_find_first_zero(const u64 *map, size_t nbits)
{
	return bitmap_find_next_zero(map, nbits, 0);
}

#endif
