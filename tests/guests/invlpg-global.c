/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest test: INVLPG (4K and large pages), CR3 reload and global pages (CR4.PGE). */
/* After each flush the new mapping must be seen; whether a global mapping survives a CR3 load
 * is only reported, since the architecture merely permits it. */
#include "tests/guests/lib/guest.h"

const char guest_name[] = GUEST_NAME;

static struct aspace as;
static unsigned cases;

enum flush { BY_INVLPG, BY_CR3, BY_PGE_TOGGLE };

/* Rewrites entry e, flushes (INVLPG at flush_va), and checks va now reaches pa (0: unmapped). */
static void remap(void *e, uint64_t v, enum flush how, ulong flush_va, ulong va, ulong pa,
		  const char *what)
{
	pte_set(&as, e, v);
	if (how == BY_INVLPG) {
		invlpg(flush_va);
	} else if (how == BY_CR3) {
		write_cr3(read_cr3());
	} else {
		set_cr4_bits(0, CR4_PGE);
		set_cr4_bits(CR4_PGE, 0);
	}
	expect_maps(va, pa, what);
	cases++;
}

void test_main(void)
{
	as_init(&as, GUEST_MODE);
	ulong f0 = page_alloc(), f1 = page_alloc();
	ulong lsz = level_size(&as, 2);
	int large = large_level_ok(&as, 2);
	ulong b0 = large ? page_alloc_aligned(lsz, lsz) : 0,
	      b1 = large ? page_alloc_aligned(lsz, lsz) : 0;
	const uint64_t pw = PTE_P | PTE_W;
	frame_mark(f0);
	frame_mark(f1);
	ulong va = TEST_VA + 0x10000, gva = TEST_VA + 0x20000, lva = TEST_VA + lsz;
	void *e = map_page(&as, va, f0, 1, pw);
	as_activate(&as);

	expect_maps(va, f0, "initial mapping");
	remap(e, f1 | pw, BY_INVLPG, va, va, f1, "after INVLPG");
	remap(e, f0 | pw, BY_CR3, 0, va, f0, "after CR3 reload");
	remap(e, 0, BY_INVLPG, va, va, 0, "cleared entry after INVLPG");

	if (large) {
		frame_mark(b0 + 0x3000);
		frame_mark(b1 + 0x3000);
		void *le = map_page(&as, lva, b0, 2, pw);
		expect_maps(lva + 0x3000, b0 + 0x3000, "large page");
		/* Any address inside the large page flushes all of it. */
		remap(le, b1 | PTE_PS | pw, BY_INVLPG, lva + 0x5000, lva + 0x3000, b1 + 0x3000,
		      "large page after INVLPG elsewhere in it");
		remap(le, b0 | PTE_PS | pw, BY_CR3, 0, lva + 0x3000, b0 + 0x3000,
		      "large page after CR3 reload");
	} else {
		kprintf("skipped: large pages not offered\n");
	}

	if (cpu.pge) {
		set_cr4_bits(CR4_PGE, 0);
		void *ge = map_page(&as, gva, f0, 1, pw | PTE_G);
		expect_maps(gva, f0, "global mapping");
		pte_set(&as, ge, f1 | pw | PTE_G);
		write_cr3(read_cr3());
		uint32_t v = 0;
		probe_read(gva, &v);
		/* The architecture permits either answer here. */
		kprintf("note: global mapping after CR3 reload reads frame %s\n",
			v == marker_of(f0)   ? "old (TLB kept it)"
			: v == marker_of(f1) ? "new"
					     : "neither!");
		CHECK(v == marker_of(f0) || v == marker_of(f1),
		      "global page read %x after CR3 reload", v);
		remap(ge, f1 | pw | PTE_G, BY_INVLPG, gva, gva, f1, "global mapping after INVLPG");
		remap(ge, f0 | pw | PTE_G, BY_PGE_TOGGLE, 0, gva, f0,
		      "global mapping after toggling CR4.PGE");
		/* The global bit cleared again: then a CR3 reload must do. */
		remap(ge, f1 | pw, BY_INVLPG, gva, gva, f1, "mapping made non-global");
		remap(ge, f0 | pw, BY_CR3, 0, gva, f0, "non-global mapping after CR3 reload");
		set_cr4_bits(0, CR4_PGE);
	} else {
		kprintf("skipped: PGE not offered\n");
	}
	kprintf("cases: %s %u flush checks\n", pmode_name[as.mode], cases);
}
