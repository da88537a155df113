/* SPDX-License-Identifier: GPL-2.0-only */
/* Fixed-width types and small compiler helpers shared by every layer (freestanding and host). */
#ifndef LIB_TYPES_H
#define LIB_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + ((a)-1)) & ~((__typeof__(x))(a)-1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a)-1))
#define BIT(n) (1ull << (n))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define UNUSED __attribute__((unused))
#define PACKED __attribute__((packed))
#define NORETURN __attribute__((noreturn))
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#define PAGE_SHIFT 12
#define PAGE_SIZE 4096ull
#define PAGE_MASK (~(PAGE_SIZE - 1))

#endif
