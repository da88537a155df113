/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 kernel: one paging mode (GUEST_MODE): a reduced permission matrix, page-table writes,
 * large pages, and 200 address spaces built, checked and torn down. */
#include "tests/mb1/mb1.h"

const char guest_name[] = "paging";

#define NFRAMES 8
#define NSPACES 200

static struct aspace as;
static ulong frames[NFRAMES];
static unsigned long cases;

static int has_nx(void)
{
	return as.mode != PM_32 && cpu.nx;
}

/* Supervisor and user read/write for each W/U/NX on the leaf, with CR0.WP=1. */
static void matrix(void)
{
	ulong va = TEST_VA;
	void *e = map_page(&as, va, frames[0], 1, PTE_P);
	for (unsigned bits = 0; bits < 8; bits++) {
		int w = bits & 1, u = bits & 2, nx = bits & 4;
		if (nx && !has_nx())
			continue;
		pte_set(&as, e,
			frames[0] | PTE_P | (w ? PTE_W : 0) | (u ? PTE_U : 0) | (nx ? PTE_NX : 0));
		invlpg(va);
		uint32_t v;
		/* Supervisor: reads always, writes only with W (WP=1); fetch not with NX. */
		CHECK(!probe_read(va, &v) && v == marker_of(frames[0]), "sup read bits %u", bits);
		int f = probe_write(va + 8, bits);
		CHECK(f == !w && (!f || last_fault.error == (PF_P | PF_W)),
		      "sup write bits %u: %d err %lx", bits, f, last_fault.error);
		f = user_read(va, &v);
		CHECK(f == !u && (!f || last_fault.error == (PF_P | PF_U)),
		      "user read bits %u: %d err %lx", bits, f, last_fault.error);
		f = user_write(va + 12, bits);
		CHECK(f == !(u && w) && (!f || last_fault.error == (PF_P | PF_W | PF_U)),
		      "user write bits %u: %d err %lx", bits, f, last_fault.error);
		cases += 4;
	}
	/* The parent's rights count too (the walk ANDs them), and invlpg of the address drops
	 * what was cached from the parent. */
	void *pde = pt_entry(&as, va, 2, 0);
	uint64_t pv = pte_get(&as, pde);
	pte_set(&as, e, frames[0] | PTE_P | PTE_W | PTE_U);
	pte_set(&as, pde, pv & ~PTE_U);
	invlpg(va);
	uint32_t v;
	int f = user_read(va, &v);
	CHECK(f && last_fault.error == (PF_P | PF_U), "user read under a supervisor pde: %d", f);
	CHECK(!probe_read(va, &v), "supervisor read under a supervisor pde");
	pte_set(&as, pde, pv & ~PTE_W);
	invlpg(va);
	f = probe_write(va + 8, 1);
	CHECK(f && last_fault.error == (PF_P | PF_W), "supervisor write under a read-only pde: %d",
	      f);
	f = user_write(va + 8, 1);
	CHECK(f && last_fault.error == (PF_P | PF_W | PF_U), "user write under a read-only pde: %d",
	      f);
	pte_set(&as, pde, pv);
	invlpg(va);
	cases += 4;
	/* CR0.WP=0: supervisor writes ignore W. */
	pte_set(&as, e, frames[0] | PTE_P);
	invlpg(va);
	set_cr0_bits(0, CR0_WP);
	CHECK(!probe_write(va + 8, 2), "supervisor write to a read-only page with wp=0");
	set_cr0_bits(CR0_WP, 0);
	cases++;
	/* An address bit at MAXPHYADDR is reserved: #PF with RSVD (8-byte entries only). */
	unsigned maxphy =
		cpuid(0x80000000u, 0).a >= 0x80000008u ? cpuid(0x80000008u, 0).a & 0xff : 36;
	if (as.bytes == 8 && maxphy < 52) {
		pte_set(&as, e, frames[0] | (1ull << maxphy) | PTE_P | PTE_W);
		invlpg(va);
		f = probe_read(va, &v);
		/* Hardware sets P with RSVD (SDM 4.7); QEMU 7.2's TCG reports RSVD alone here. */
		if (tcg_native() && last_fault.error == PF_RSVD)
			last_fault.error |= PF_P;
		CHECK(f && last_fault.vector == 14 && last_fault.error == (PF_P | PF_RSVD),
		      "address bit %u set: fault %d vector %lu error %lx", maxphy, f,
		      last_fault.vector, last_fault.error);
		cases++;
	}
	/* Not present: the error code has no P bit, and CR2 is the address. */
	pte_set(&as, e, 0);
	invlpg(va);
	expect_maps(va, 0, "not present");
	cases++;
	kprintf("matrix: %s, rights on the leaf and its parent, wp, reserved address bits: ok\n",
		has_nx() ? "W/U/NX" : "W/U");
}

/* Remaps through plain stores to the page table, the way a kernel does. */
static void ptwrites(void)
{
	ulong va = TEST_VA + 0x10000;
	void *e = map_page(&as, va, frames[1], 1, PTE_P | PTE_W);
	expect_maps(va, frames[1], "first mapping");
	/* Accessed on the read, dirty only after a write. */
	CHECK((pte_get(&as, e) & (PTE_A | PTE_D)) == PTE_A, "A/D after a read: %llx",
	      (unsigned long long)pte_get(&as, e));
	CHECK(!probe_write(va + 4, 7) && (pte_get(&as, e) & PTE_D), "D after a write");
	for (unsigned i = 2; i < NFRAMES; i++) {
		pte_set(&as, e, frames[i] | PTE_P | PTE_W);
		invlpg(va);
		expect_maps(va, frames[i], "remapped");
		cases++;
	}
	/* A write-protect, then a flush by CR3 reload instead of invlpg. */
	pte_set(&as, e, frames[2] | PTE_P);
	write_cr3(read_cr3());
	CHECK(probe_write(va, 0) && last_fault.error == (PF_P | PF_W),
	      "write-protected by CR3 reload");
	pte_set(&as, e, 0);
	write_cr3(read_cr3());
	expect_maps(va, 0, "unmapped");
	kprintf("page-table writes: accessed and dirty bits, remap, protect, unmap: ok\n");
}

/* A 2 MiB or 4 MiB page (and 1 GiB where offered) over the test frames, each seen through it. */
static void large(void)
{
	for (int level = 2; level <= as.levels && level <= 3; level++) {
		if (!large_level_ok(&as, level))
			continue;
		ulong size = level_size(&as, level), base = frames[0] & ~(size - 1);
		ulong va = ALIGN_UP(TEST_VA + 4 * size, size);
		map_page(&as, va, base, level, PTE_P | PTE_W);
		invlpg(va);
		for (unsigned i = 0; i < NFRAMES; i++, cases++)
			if ((frames[i] & ~(size - 1)) == base)
				expect_maps(va + (frames[i] - base), frames[i], "large page");
		pte_set(&as, pt_entry(&as, va, level, 0), 0);
		invlpg(va);
		expect_maps(va + (frames[0] - base), 0, "large page unmapped");
	}
	kprintf("large pages: ok\n");
}

/* Address spaces built from the kernel's, each mapping the frames in its own rotation. */
static void spaces(void)
{
	static struct aspace sp[4];
	for (unsigned n = 0; n < NSPACES; n++) {
		struct aspace *s = &sp[n % 4];
		as_clone_kernel(s, &as);
		for (unsigned i = 0; i < NFRAMES; i++)
			map_page(s, TEST_VA + i * PAGE_SIZE, frames[(i + n) % NFRAMES], 1,
				 PTE_P | PTE_W);
		as_activate(s);
		for (unsigned i = 0; i < NFRAMES; i += 3)
			expect_maps(TEST_VA + i * PAGE_SIZE, frames[(i + n) % NFRAMES], "space");
		*phys32(frames[n % NFRAMES] + 16) = n;
		as_activate(&as);
		/* Torn down: the test region's entries cleared, so stale shadows must go. */
		for (unsigned i = 0; i < NFRAMES; i++)
			pte_set(s, pt_entry(s, TEST_VA + i * PAGE_SIZE, 1, 0), 0);
		cases++;
	}
	/* An old root again, now empty below the kernel part. */
	as_activate(&sp[1]);
	expect_maps(TEST_VA, 0, "torn-down space");
	as_activate(&as);
	kprintf("address spaces: %u built, checked, torn down\n", NSPACES);
}

void test_main(void)
{
	as_init(&as, GUEST_MODE);
	for (unsigned i = 0; i < NFRAMES; i++) {
		frames[i] = page_alloc();
		frame_mark(frames[i]);
	}
	ulong ucode = page_alloc(), ustack = page_alloc();
	map_page(&as, USER_VA, ucode, 1, PTE_P | PTE_U);
	map_page(&as, USER_VA + PAGE_SIZE, ustack, 1, PTE_P | PTE_W | PTE_U);
	user_setup(USER_VA, ucode, USER_VA + PAGE_SIZE);
	if (has_nx())
		set_efer_bits(EFER_NXE, 0);
	as_activate(&as);
	set_cr0_bits(CR0_WP, 0);
	kprintf("paging: %s\n", pmode_name[as.mode]);
	matrix();
	ptwrites();
	large();
	spaces();
}
