/* SPDX-License-Identifier: GPL-2.0-only */
/* Memory and string primitives for the freestanding kernel (gcc also emits calls to mem*). */
#define LIB_STRING_IMPL /* the definitions below, not the builtins */
#include "lib/string.h"

/*
 * gcc may recognise a byte loop as memset/memcpy and emit a call back into
 * the very function being defined; string instructions keep these leaf
 * functions self-contained.
 */
#if !defined(__x86_64__)
#error "lib/string.c uses x86-64 string instructions"
#endif

/* Eight bytes per iteration, then the tail: the exit path clears and copies small structs
 * (a decoded instruction, a fault), where a byte-wise REP costs one iteration per byte. */
void *memset(void *dst, int c, size_t n)
{
	void *d = dst;
	size_t q = n / 8, r = n % 8;
	u64 v = 0x0101010101010101ull * (u8)c;
	__asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(v) : "memory");
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(r) : "a"(v) : "memory");
	return dst;
}

void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;
	size_t q = n / 8, r = n % 8;
	__asm__ volatile("rep movsq" : "+D"(d), "+S"(src), "+c"(q) : : "memory");
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(r) : : "memory");
	return dst;
}

/*
 * The overlapping case copies backwards in C rather than with std/rep movsb:
 * an NMI arriving while DF=1 would run C code against the ABI. The attribute
 * stops gcc from turning the loop into a call to memmove itself.
 */
__attribute__((optimize("no-tree-loop-distribute-patterns"))) void *
memmove(void *dst, const void *src, size_t n)
{
	if ((uintptr_t)dst <= (uintptr_t)src || (uintptr_t)dst >= (uintptr_t)src + n)
		return memcpy(dst, src, n);
	u8 *d = dst;
	const u8 *s = src;
	while (n--)
		d[n] = s[n];
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const u8 *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x < *y ? -1 : 1;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	return strncmp(a, b, (size_t)-1);
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (u8)*a < (u8)*b ? -1 : 1;
		if (!*a)
			break;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}
