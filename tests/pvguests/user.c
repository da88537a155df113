/* SPDX-License-Identifier: GPL-2.0-only */
/* Ring-3 cases: pv_mod_ops works from guest user mode, every privileged call is refused. */
#include "tests/pvguests/pvtest.h"

static struct {
	ulong nr, a0, a1, a2, a3;
} ureq;

static ulong u_hypercall(void)
{
	return (ulong)pv_hypercall(ureq.nr, ureq.a0, ureq.a1, ureq.a2, ureq.a3);
}

long user_hc(ulong nr, ulong a0, ulong a1, ulong a2, ulong a3)
{
	ureq.nr = nr, ureq.a0 = a0, ureq.a1 = a1, ureq.a2 = a2, ureq.a3 = a3;
	return (long)run_user(u_hypercall);
}
#define UHC(nr, a0, a1, a2, a3) \
	user_hc(UMBRA_HC_##nr, (ulong)(a0), (ulong)(a1), (ulong)(a2), (ulong)(a3))

static const char umsg[] = "pv-user: hello from ring 3 via pv_mod_ops\n";
static uint64_t ut0, ut1;

static ulong u_console(void)
{
	return (ulong)pv_mod_ops.console_write(umsg, sizeof(umsg) - 1);
}
static ulong u_yield(void)
{
	return (ulong)pv_mod_ops.yield();
}
static ulong u_time(void)
{
	ut0 = pv_mod_ops.time_ns();
	for (volatile int i = 0; i < 20000; i++)
		;
	ut1 = pv_mod_ops.time_ns();
	return 0;
}
static ulong u_cpl(void)
{
	ulong cs;
	asm volatile("mov %%cs, %0" : "=r"(cs));
	return cs & 3;
}

/* Restricted calls from CPL 3 succeed on user pages and fail (EFAULT) on supervisor-only ones
 * without touching them. */
static void restricted_buffers(void)
{
	static char ubuf[64] = "pv-user: console write from ring 3\n";
	volatile uint32_t *sup = (volatile uint32_t *)SUP_PAGE;
	for (int i = 0; i < 64; i++)
		sup[i] = 0x5eed0000u + i;
	EXPECT("cpl3 version", UHC(VERSION, 0, 0, 0, 0), UMBRA_ABI_VERSION);
	EXPECT("cpl3 console user page", UHC(CONSOLE_WRITE, ubuf, 35, 0, 0), 35);
	EXPECT("cpl3 console sup page", UHC(CONSOLE_WRITE, SUP_PAGE, 16, 0, 0), E(EFAULT));
	EXPECT("cpl3 console_read sup page", UHC(CONSOLE_READ, SUP_PAGE, 16, 0, 0), E(EFAULT));
	EXPECT("cpl3 stats sup page", UHC(STATS, SUP_PAGE, sizeof(struct umbra_stats), 0, 0),
	       E(EFAULT));
	EXPECT("cpl3 time sup page", UHC(TIME, SUP_PAGE, 0, 0, 0), E(EFAULT));
	EXPECT("cpl3 vcpu_info sup page", UHC(VCPU_INFO, SUP_PAGE, 0, 0, 0), E(EFAULT));
	/* This guest has no shared region (tests/shm has the cases of one that does). */
	EXPECT("cpl3 shm_info, no region", UHC(SHM_INFO, 0, ubuf, 0, 0), E(ENOENT));
	EXPECT("cpl3 shm_ring, no region", UHC(SHM_RING, 0, 0, 0, 0), E(ENOENT));
	struct umbra_time t = { 0, 0 };
	EXPECT("cpl3 time user page", UHC(TIME, &t, 0, 0, 0), 0);
	EXPECT_TRUE("cpl3 time tsc_hz", t.tsc_hz == pv_tsc_hz);
	int same = 1;
	for (int i = 0; i < 64; i++)
		same &= sup[i] == 0x5eed0000u + (uint32_t)i;
	EXPECT_TRUE("supervisor page unchanged by refused ring-3 calls", same);
}

/* Every P and C call from CPL 3: -EPERM, and what it would have changed is unchanged. */
static void privileged_refused(void)
{
	uint64_t *pte = pt_entry(&pvt_as, USER_PAGE, 1, 0);
	uint64_t before = pte_get(&pvt_as, pte);
	ulong other = page_alloc();
	frame_mark(other);
	struct umbra_mmu_update u = { (ulong)pte, other | PTE_P | PTE_W | PTE_U };
	struct aspace as2;
	as_clone_kernel(&as2, &pvt_as);
	struct umbra_mmu_op o[2] = { { UMBRA_MMUOP_NEW_CR3, 0, as2.root },
				     { UMBRA_MMUOP_FLUSH_ALL, 0, 0 } };
	static struct umbra_stats st;
	for (unsigned i = 0; i < sizeof(st) / 4; i++)
		((uint32_t *)&st)[i] = 0xabababab;
	ulong cr3 = read_cr3(), ia = irq_count_a;

	EXPECT("cpl3 exit", UHC(EXIT, UMBRA_RESULT_FAIL, 0, 0, 0), E(EPERM));
	EXPECT("cpl3 block", UHC(BLOCK, 1000000, 0, 0, 0), E(EPERM));
	EXPECT("cpl3 timer_set", UHC(TIMER_SET, VEC_A, 1000000, 0, 0), E(EPERM));
	EXPECT("cpl3 mmu_update", UHC(MMU_UPDATE, &u, 1, 0, 0), E(EPERM));
	EXPECT("cpl3 mmu_op", UHC(MMU_OP, o, 2, 0, 0), E(EPERM));
	EXPECT("cpl3 shm_bind", UHC(SHM_BIND, 0, 0, VEC_A, 0), E(EPERM));
	EXPECT("cpl3 stats_of", UHC(STATS_OF, 0, &st, sizeof(st), 0), E(EPERM));
	EXPECT("cpl3 stop_guest", UHC(STOP_GUEST, 1, 0, 0, 0), E(EPERM));
	/* A privileged call with bad arguments is refused for its class, not its arguments. */
	EXPECT("cpl3 mmu_update NULL", UHC(MMU_UPDATE, 0, 1, 0, 0), E(EPERM));
	EXPECT("cpl3 timer_set bad vector", UHC(TIMER_SET, 3, 0, 0, 0), E(EPERM));
	EXPECT_TRUE("entry unchanged", pte_get(&pvt_as, pte) == before);
	expect_maps(USER_PAGE, user_page_pa, "user page after refused MMU_UPDATE");
	pvt_cases++;
	EXPECT_TRUE("cr3 unchanged", read_cr3() == cr3);
	EXPECT_TRUE("stats_of buffer unchanged",
		    st.size == 0xababababu && st.exits_total == 0xababababababababull);
	EXPECT("timer not armed: block times out", HC(BLOCK, 3000000, 0, 0, 0), 0);
	EXPECT_TRUE("no interrupt arrived", irq_count_a == ia);
}

void user_tests(void)
{
	EXPECT("running at cpl 3", run_user(u_cpl), 3);
	EXPECT("pv_mod_ops yield", run_user(u_yield), 0);
	run_user(u_time);
	EXPECT_TRUE("pv_mod_ops time advances", ut1 > ut0);
	if (!pv_on_umbra) {
		skip_note("ring-3 console and hypercall privilege checks");
		return;
	}
	frame_mark(user_page_pa);
	EXPECT("pv_mod_ops console", run_user(u_console), sizeof(umsg) - 1);
	restricted_buffers();
	privileged_refused();
}
