/* SPDX-License-Identifier: GPL-2.0-only */
/* Spinlocks and a few atomics on GCC builtins (work freestanding and on the host). */
#ifndef LIB_SPINLOCK_H
#define LIB_SPINLOCK_H

#include "lib/types.h"

typedef struct {
	volatile u32 locked;
} spinlock_t;
#define SPINLOCK_INIT \
	{ \
		0 \
	}

static inline void cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

static inline void spin_lock(spinlock_t *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			cpu_relax();
}

/* spin_lock, saying how long it waited: 0 if the lock was free, else the pause iterations. */
static inline u64 spin_lock_spins(spinlock_t *l)
{
	u64 spins = 0;
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED)) {
			cpu_relax();
			spins++;
		}
	return spins;
}

static inline bool spin_trylock(spinlock_t *l)
{
	return !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
}

static inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#endif
