/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the PV test guests: result checks, the test address space, ring 3, timer vectors. */
#include "tests/pvguests/pvtest.h"

unsigned long pvt_cases;
struct aspace pvt_as;
ulong sup_page_pa, user_page_pa;
volatile ulong irq_count_a, irq_count_b;

/* The library's ring-3 round trip (entry.S): runs ip at CPL 3 until it traps. */
ulong user_call(ulong ip, ulong sp, ulong ax, ulong bx, ulong cx);
extern char irq_stub_a[], irq_stub_b[];

void expect_ret(const char *what, long got, long want)
{
	pvt_cases++;
	CHECK(got == want, "%s: got %ld, expected %ld", what, got, want);
}

unsigned pvt_pte_bytes(void)
{
	return pvt_as.bytes;
}

void pvt_space_init(enum pmode mode)
{
	void *ents[5];
	struct aspace *as = &pvt_as;

	as_init(as, mode);
	/* Page 0's large page becomes a table of 4K pages, so page 0 alone can go. */
	int l = pt_walk(as, 0, ents);
	if (l > 1) {
		ulong pt = page_alloc(), size = level_size(as, l);
		pte_set(as, ents[l], pt | table_flags(as, l));
		for (ulong pa = 0; pa < size; pa += PAGE_SIZE)
			map_page(as, pa, pa, 1, PTE_P | PTE_W);
	}
	map_page(as, 0, 0, 1, 0);
	/* Everything user-accessible: ring-3 test code runs straight from the image. */
	for (uint64_t va = PAGE_SIZE; va < ram_bytes; va += level_size(as, l)) {
		l = pt_walk(as, va, ents);
		if (!l)
			fail("identity map has a hole at %lx", (ulong)va);
		pte_set(as, ents[l], pte_get(as, ents[l]) | PTE_U);
	}
	sup_page_pa = page_alloc();
	user_page_pa = page_alloc();
	map_page(as, SUP_PAGE, sup_page_pa, 1, PTE_P | PTE_W);
	map_page(as, USER_PAGE, user_page_pa, 1, PTE_P | PTE_W | PTE_U);
	as_activate(as);
}

static ulong (*user_fn)(void);
static char user_stack[8192] __attribute__((aligned(16)));

static void __attribute__((noreturn, used)) user_entry(void)
{
	ulong r = user_fn();
	asm volatile("int $0x80" : : "a"(r) : "memory");
	__builtin_unreachable();
}

ulong run_user(ulong (*fn)(void))
{
	user_fn = fn;
	ulong r =
		user_call((ulong)user_entry, (ulong)user_stack + sizeof(user_stack) - 16, 0, 0, 0);
	if (last_fault.vector != 0x80)
		fail("ring-3 code took exception %lu at %lx (cr2 %lx)", last_fault.vector,
		     last_fault.ip, last_fault.cr2);
	return r;
}

/* The library keeps its IDT private: find it with SIDT and add interrupt gates. */
static void set_gate(int vec, ulong handler)
{
	struct __attribute__((packed)) {
		uint16_t limit;
		ulong base;
	} idtr;
	asm volatile("sidt %0" : "=m"(idtr));
#ifdef __x86_64__
	uint32_t *g = (uint32_t *)(idtr.base + 16 * vec);
	g[0] = (0x18u << 16) | (handler & 0xffff);
	g[1] = (handler & 0xffff0000u) | 0x8e00u;
	g[2] = (uint32_t)(handler >> 32);
	g[3] = 0;
#else
	uint32_t *g = (uint32_t *)(idtr.base + 8 * vec);
	g[0] = (0x08u << 16) | (handler & 0xffff);
	g[1] = (handler & 0xffff0000u) | 0x8e00u;
#endif
}

void irq_install(void)
{
	set_gate(VEC_A, (ulong)irq_stub_a);
	set_gate(VEC_B, (ulong)irq_stub_b);
}

struct umbra_stats stats_now(void)
{
	struct umbra_stats s;
	if (umbra_stats(&s))
		fail("STATS failed");
	/* Exit reasons come before the MMU counters: a different count moves them. */
	if (s.size != sizeof(s) || s.reasons != UMBRA_EXIT_REASONS)
		fail("ABI mismatch: Umbra's struct umbra_stats has %u bytes and %u exit reasons, this "
		     "guest's %u and %u (built against another pv/abi.h)",
		     s.size, s.reasons, (unsigned)sizeof(s), (unsigned)UMBRA_EXIT_REASONS);
	return s;
}

uint64_t time_now_ns(void)
{
	struct umbra_time t = { 0, 0 };
	long r = HC(TIME, &t, 0, 0, 0);
	if (r)
		fail("TIME failed: %ld", r);
	return t.monotonic_ns;
}

__attribute__((noreturn)) void pvt_finish(void)
{
	kprintf("cases: %s %lu\n", guest_name, pvt_cases);
	if (!pv_on_umbra || checks_failed)
		finish();
	kprintf("RESULT: PASS\n");
	HC(EXIT, UMBRA_RESULT_PASS, 0, 0, 0);
	fail("EXIT hypercall returned");
}
