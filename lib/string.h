/* SPDX-License-Identifier: GPL-2.0-only */
/* Memory and string primitives with the standard C prototypes (libc provides them on the host). */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include "lib/types.h"

void *memset(void *dst, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);

#if !defined(UMBRA_HOST) && !defined(LIB_STRING_IMPL)
/* The kernel is built with -fno-builtin (its own loops must not turn into calls to
 * themselves): without these, every 4-byte copy and every clear of a small structure would be
 * a call. Sizes known at compile time become moves in place; others still call lib/string.c. */
#define memcpy(...) __builtin_memcpy(__VA_ARGS__)
#define memset(...) __builtin_memset(__VA_ARGS__)
#endif

/* A copy of 2, 4 or 8 naturally aligned bytes in one access, as the CPU makes it: guest memory
 * that another CPU may be rewriting meanwhile (a page-table entry under nested paging, an
 * operand) is never read or written half old, half new, as memcpy's byte tail would allow. Seen
 * under Bochs: a 4-byte PTE flipping between 0x109003 and 0xfec00003 read as 0x00100003, and a
 * hypercall's output written over the guest's code. Other sizes and alignments: memcpy. */
static inline void memcpy_whole(void *dst, const void *src, size_t n)
{
	bool aligned = !(((uintptr_t)dst | (uintptr_t)src) & (n - 1));

	switch (aligned ? n : 0) {
	case 2:
		*(volatile u16 *)dst = *(const volatile u16 *)src;
		return;
	case 4:
		*(volatile u32 *)dst = *(const volatile u32 *)src;
		return;
	case 8:
		*(volatile u64 *)dst = *(const volatile u64 *)src;
		return;
	default:
		memcpy(dst, src, n);
	}
}

/* The byte that makes the sum of a structure's bytes zero (the ACPI and MP table checksums). */
static inline u8 checksum8(const void *p, size_t len)
{
	u8 sum = 0;
	for (size_t i = 0; i < len; i++)
		sum += ((const u8 *)p)[i];
	return (u8)-sum;
}

#endif
