/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the PV test guests: result checks, the test address space, ring 3, timer vectors. */
#ifndef PVTEST_H
#define PVTEST_H

#include "tests/guests/lib/guest.h"
#include "pv/guest/pv_ops.h"

#define E(x) (-(long)UMBRA_##x)
#define HC(nr, a0, a1, a2, a3) \
	pv_hypercall(UMBRA_HC_##nr, (ulong)(a0), (ulong)(a1), (ulong)(a2), (ulong)(a3))

/* Counts one case and checks a return value. */
extern unsigned long pvt_cases;
void expect_ret(const char *what, long got, long want);
#define EXPECT(what, got, want) expect_ret(what, (long)(got), (long)(want))
#define EXPECT_TRUE(what, cond) expect_ret(what, !!(cond), 1)

/* The address space the conformance and user guests run in: RAM identity-mapped and
 * user-accessible except page 0 (so NULL faults), plus at TEST_VA a supervisor-only page,
 * then a user page, then a hole (never mapped). */
#define SUP_PAGE (TEST_VA)
#define USER_PAGE (TEST_VA + PAGE_SIZE)
#define HOLE (TEST_VA + 2 * PAGE_SIZE)
extern struct aspace pvt_as;
extern ulong sup_page_pa, user_page_pa;
void pvt_space_init(enum pmode mode);
unsigned pvt_pte_bytes(void); /* entry size of the mode in force */

/* Runs fn at CPL 3 (it may use everything in the identity map) and returns its value. */
ulong run_user(ulong (*fn)(void));

/* Vectors the timer tests use; each stub counts its own arrivals. */
#define VEC_A 0x40
#define VEC_B 0x41
extern volatile ulong irq_count_a, irq_count_b;
void irq_install(void);

/* Prints the case count and ends: on Umbra by the EXIT hypercall, natively by the port. */
__attribute__((noreturn)) void pvt_finish(void);

struct umbra_stats stats_now(void);
uint64_t time_now_ns(void); /* TIME hypercall (Umbra only) */
#endif
