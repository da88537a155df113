/* SPDX-License-Identifier: GPL-2.0-only */
/* Attack guest (ps): page-size bits and reserved bits in the guest's page tables, as the SDM has them. */
/* Under shadow paging the hypervisor walks the guest's tables, so it, not the CPU, must apply
 * these rules (Intel SDM vol. 3A, 4.3-4.5 and Tables 4-4 to 4-20):
 *  - 32-bit paging: with CR4.PSE = 0, bit 7 of a PDE is ignored and the PDE references a page
 *    table (Table 4-5: "If CR4.PSE = 1, must be 0 ...; otherwise, ignored"). With CR4.PSE = 1 a
 *    PDE with bit 7 maps 4 MiB, and its bit 21 is reserved (Table 4-4): #PF with RSVD.
 *  - PAE paging: the four PDPTEs are loaded by MOV to CR3; one with P = 1 and a reserved bit
 *    (bits 2:1, 8:5, above MAXPHYADDR: bit 7 is reserved, there are no 1 GiB pages) makes the
 *    MOV to CR3 #GP(0) (4.4.1) and CR3 keeps its value.
 *  - PAE and 4-level paging: bit 63 (XD) is reserved while IA32_EFER.NXE = 0; bits 20:13 of a
 *    PDE that maps 2 MiB and address bits at or above MAXPHYADDR are reserved (#PF, RSVD).
 *  - 4-level paging: bit 7 of a PML4E is reserved. Bit 7 of a PDPTE maps 1 GiB if
 *    CPUID.80000001H:EDX.Page1GB [bit 26] = 1, else it is reserved (4.5.4: "If the PS flag of
 *    a PDPTE is 1 and 1-GByte pages are not supported, a reserved-bit violation"); in a 1 GiB
 *    PDPTE bits 29:13 are reserved.
 * A reserved-bit #PF has error code P|RSVD (+ W/U/I of the access); QEMU's TCG leaves out P.
 * QEMU's TCG does not check PAE PDPTEs at the MOV to CR3 (it walks them at each access), and
 * -cpu qemu64 does not raise the RSVD fault for a PDPTE's PS bit without Page1GB: natively
 * these are only noted; under Umbra's shadow paging Umbra decides and must follow the SDM. */
#include "tests/attack/attack.h"

const char guest_name[] = GUEST_NAME;

static struct aspace as;
static ulong frame_x; /* a marked frame below 4 MiB */

/* Reads va and checks a reserved-bit #PF at it. */
static void expect_rsvd(const char *what, ulong va)
{
	uint32_t v;
	int f = probe_read(va, &v);
	int tcg = on_tcg() && !on_umbra;
	ulong want = PF_RSVD | PF_P, err = last_fault.error;
	if (f && last_fault.vector == 14 && tcg && err == PF_RSVD)
		err |= PF_P; /* TCG's RSVD faults lack P */
	if (f && last_fault.vector == 14 && last_fault.cr2 == va && err == want) {
		kprintf("attack %s: #PF with RSVD as expected\n", what);
		return;
	}
	if (!f)
		check_failed("attack %s: read without a fault, expected #PF error %lx", what, want);
	else
		check_failed(
			"attack %s: vector %lu error %lx cr2 %lx, expected #PF error %lx at %lx",
			what, last_fault.vector, last_fault.error, last_fault.cr2, want, va);
}

static void expect_map(const char *what, ulong va, ulong pa)
{
	ulong mark = checks_failed;
	expect_maps(va, pa, what);
	case_end(what, mark);
}

/* Sets the entry for TEST_VA at level, flushes, and returns it (for clearing). */
static void *set_entry(int level, uint64_t v)
{
	void *e = pt_entry(&as, TEST_VA, level, 1);
	pte_set(&as, e, v);
	invlpg(TEST_VA);
	return e;
}

static void clear_entry(void *e)
{
	pte_set(&as, e, 0);
	invlpg(TEST_VA);
}

static unsigned maxphyaddr(void)
{
	if (cpuid(0x80000000u, 0).a >= 0x80000008u)
		return cpuid(0x80000008u, 0).a & 0xff;
	return 36;
}

/* ---- 32-bit paging ---- */
static void paging32(void)
{
	/* The identity map with 4 KiB pages only, so that CR4.PSE may be cleared. */
	as.mode = PM_32, as.levels = 2, as.bytes = 4, as.root = page_alloc();
	for (uint64_t pa = 0; pa < ram_bytes; pa += PAGE_SIZE)
		map_page(&as, pa, pa, 1, PTE_P | PTE_W);
	as_activate(&as);

	/* PS set in a PDE while CR4.PSE = 0: a page-table pointer all the same. */
	set_cr4_bits(0, CR4_PSE);
	ulong pt = page_alloc();
	((uint32_t *)pt)[pt_index(&as, TEST_VA, 1)] = (uint32_t)(frame_x | PTE_P | PTE_W);
	void *e = set_entry(2, pt | PTE_P | PTE_W | PTE_PS);
	expect_map("pse0-ps-ignored (CR4.PSE=0: a PDE's PS bit is ignored)", TEST_VA, frame_x);
	clear_entry(e);
	if (!cpu.pse) {
		kprintf("attack pse1-*: skipped (no PSE)\n");
		return;
	}
	set_cr4_bits(CR4_PSE, 0);
	e = set_entry(2, PTE_P | PTE_W | PTE_PS);
	expect_map("pse1-4m (a 4 MiB page at 0)", TEST_VA + frame_x, frame_x);
	clear_entry(e);
	e = set_entry(2, PTE_P | PTE_W | PTE_PS | (1ull << 21));
	expect_rsvd("pse1-4m-bit21 (bit 21 of a 4 MiB PDE)", TEST_VA);
	clear_entry(e);
}

/* ---- PAE ---- */
static void pdpte_load(const char *what, uint64_t bits)
{
	struct aspace c;
	as_clone_kernel(&c, &as);
	uint64_t *pdpt = (uint64_t *)c.root;
	pdpt[2] |= bits;
	ulong cr3 = read_cr3();
	int v = ATTEMPT("mov %0, %%cr3", "r"(c.root));
	ulong now = read_cr3();
	if (v == NO_FAULT)
		write_cr3(cr3);
	if (v == NO_FAULT && on_tcg() && !on_umbra) {
		note_vec(what, v, "QEMU TCG does not check PDPTEs at MOV to CR3");
		return;
	}
	expect_vec(what, v, 13);
	CHECK(v != 13 || now == cr3, "%s: CR3 is %lx after the #GP, was %lx", what, now, cr3);
}

static void paging_pae(void)
{
	as_init(&as, PM_PAE);
	as_activate(&as);
	pdpte_load("pae-pdpte-ps (MOV CR3 with PS in a PDPTE)", PTE_PS);
	pdpte_load("pae-pdpte-rw (MOV CR3 with R/W in a PDPTE)", PTE_W);
}

/* ---- 4-level ---- */
static void paging64(void)
{
	as_init(&as, PM_64);
	as_activate(&as);
	void *e = set_entry(4, page_alloc() | PTE_P | PTE_W | PTE_PS);
	expect_rsvd("pml4e-ps (bit 7 of a PML4E)", TEST_VA);
	clear_entry(e);
	e = set_entry(3, PTE_P | PTE_W | PTE_PS);
	if (cpu.gb) {
		expect_map("pdpte-1g (Page1GB: a 1 GiB page at 0)", TEST_VA + frame_x, frame_x);
		clear_entry(e);
		e = set_entry(3, PTE_P | PTE_W | PTE_PS | (1ull << 13));
		expect_rsvd("pdpte-1g-bit13 (bits 29:13 of a 1 GiB PDPTE)", TEST_VA);
	} else {
		if (on_tcg() && !on_umbra) {
			uint32_t v;
			int f = probe_read(TEST_VA, &v);
			note_vec("pdpte-ps-no-1g (PS in a PDPTE without Page1GB)",
				 f ? (int)last_fault.vector : NO_FAULT,
				 "natively QEMU TCG decides");
		} else {
			expect_rsvd("pdpte-ps-no-1g (PS in a PDPTE without Page1GB)", TEST_VA);
		}
	}
	clear_entry(e);
}

/* ---- PAE and 4-level: 2 MiB reserved bits, XD without NXE, MAXPHYADDR ---- */
static void paging_8byte(void)
{
	void *e = set_entry(2, PTE_P | PTE_W | PTE_PS | (1ull << 13));
	expect_rsvd("pde-2m-bit13 (bits 20:13 of a 2 MiB PDE)", TEST_VA);
	clear_entry(e);
	e = set_entry(2, PTE_P | PTE_W | PTE_PS);
	expect_map("pde-2m (a 2 MiB page at 0)", TEST_VA + frame_x, frame_x);
	clear_entry(e);

	uint64_t efer = rdmsr(MSR_EFER);
	set_efer_bits(0, EFER_NXE);
	e = set_entry(1, frame_x | PTE_P | PTE_W | PTE_NX);
	expect_rsvd("pte-xd-nxe0 (bit 63 with EFER.NXE=0)", TEST_VA);
	if (cpu.nx) {
		set_efer_bits(EFER_NXE, 0);
		invlpg(TEST_VA);
		expect_map("pte-xd-nxe1 (the same PTE readable with EFER.NXE=1)", TEST_VA, frame_x);
	}
	wrmsr(MSR_EFER, efer);
	clear_entry(e);

	unsigned m = maxphyaddr();
	if (m < 52) {
		e = set_entry(1, frame_x | PTE_P | PTE_W | (1ull << m));
		expect_rsvd("pte-maxphyaddr (an address bit at MAXPHYADDR)", TEST_VA);
		clear_entry(e);
	}
}

void test_main(void)
{
	frame_x = page_alloc();
	frame_mark(frame_x);
	if (frame_x >= (4ul << 20))
		fail("the marked frame %lx is above 4 MiB", frame_x);
	kprintf("ps: %s paging, pse=%d 1g=%d nx=%d maxphyaddr=%u\n", pmode_name[GUEST_MODE],
		cpu.pse, cpu.gb, cpu.nx, maxphyaddr());
	if (GUEST_MODE == PM_32) {
		paging32();
	} else if (GUEST_MODE == PM_PAE) {
		paging_pae();
		paging_8byte();
	} else {
		paging64();
		paging_8byte();
	}
	kprintf("cases: ps\n");
}
