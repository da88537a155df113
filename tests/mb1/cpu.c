/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 kernel: CPUID consistency, the MSR policy with its #GP cases (long mode), CR0/CR4 checks. */
#include "tests/mb1/mb1.h"

const char guest_name[] = "cpu";

#define NONCANON 0x0000800000000000ull
#define CR0_CD (1ul << 30)
#define CR0_NW (1ul << 29)

static int printable(uint32_t w)
{
	for (int i = 0; i < 4; i++, w >>= 8)
		if ((w & 0xff) < 0x20 || (w & 0xff) > 0x7e)
			return 0;
	return 1;
}

/* Raw values differ between QEMU, Bochs and Umbra's filtered view: only relations are printed. */
static void cpuid_checks(void)
{
	struct cpuid v = cpuid(0, 0), f1 = cpuid(1, 0), e0 = cpuid(0x80000000u, 0);
	CHECK(v.a >= 1, "cpuid max basic leaf %x", v.a);
	CHECK(printable(v.b) && printable(v.c) && printable(v.d), "cpuid vendor not printable");
	CHECK(e0.a >= 0x80000001u && e0.a < 0x80000100u, "cpuid max extended leaf %x", e0.a);
	if (e0.a >= 0x80000004u) {
		for (uint32_t l = 0x80000002u; l <= 0x80000004u; l++) {
			struct cpuid b = cpuid(l, 0);
			uint32_t w[4] = { b.a, b.b, b.c, b.d };
			for (int i = 0; i < 4; i++)
				for (int k = 0; k < 4; k++) {
					uint8_t c = (uint8_t)(w[i] >> (8 * k));
					CHECK(!c || (c >= 0x20 && c <= 0x7e),
					      "brand string byte %x", c);
				}
		}
	}
	/* What a 64-bit kernel relies on: FPU, TSC, MSR, PAE, APIC, CX8, PGE, CMOV, FXSR, SSE2. */
	uint32_t need = 1u << 0 | 1u << 4 | 1u << 5 | 1u << 6 | 1u << 8 | 1u << 9 | 1u << 13 |
			1u << 15 | 1u << 24 | 1u << 26;
	CHECK((f1.d & need) == need, "cpuid 1 edx %x lacks %x", f1.d, need & ~f1.d);
	CHECK(cpuid(0x80000001u, 0).d & (1u << 29), "cpuid: long mode not offered");
	/* The same leaf twice: CPUID must not change between calls (the APIC ID field included). */
	struct cpuid again = cpuid(1, 0);
	CHECK(again.a == f1.a && again.b == f1.b && again.d == f1.d, "cpuid 1 unstable");
	kprintf("cpuid: leaves, vendor and brand printable, long-mode baseline present\n");
}

/* What CPUID announces must be there: the MSRs and control bits behind a feature flag.
 * (Linux reads MCG_CAP when it sees MCA, uses the TSC deadline MSR when it sees that bit.) */
static void advertised(void)
{
	struct cpuid f1 = cpuid(1, 0), e1 = cpuid(0x80000001u, 0), f7 = cpuid(7, 0);
	uint64_t v;
	if (f1.d & (1u << 14))
		CHECK(!rdmsr_safe(0x179, &v) && !rdmsr_safe(0x17a, &v),
		      "MCA announced: MCG_CAP/STATUS");
	if (f1.c & (1u << 24))
		CHECK(!rdmsr_safe(0x6e0, &v), "TSC deadline announced: IA32_TSC_DEADLINE");
	if (f1.c & (1u << 15))
		CHECK(!rdmsr_safe(0x345, &v), "PDCM announced: IA32_PERF_CAPABILITIES");
	if (f1.c & (1u << 7))
		CHECK(!rdmsr_safe(0x198, &v), "EST announced: IA32_PERF_STATUS");
	if (f1.d & (1u << 21))
		CHECK(!rdmsr_safe(0x600, &v), "DS announced: IA32_DS_AREA");
	if (f1.d & (1u << 22))
		CHECK(!rdmsr_safe(0x19c, &v), "ACPI announced: IA32_THERM_STATUS");
	if (e1.d & (1u << 25)) {
		uint64_t efer = rdmsr(MSR_EFER);
		CHECK(!wrmsr_safe(MSR_EFER, efer | (1u << 14)), "FFXSR announced: EFER.FFXSR");
		wrmsr(MSR_EFER, efer);
	}
#ifdef __x86_64__
	if (f7.b & 1u) {
		ulong cr4 = read_cr4(), got = 0;
		CHECK(!write_cr4_safe(cr4 | (1ul << 16)), "FSGSBASE announced: CR4.FSGSBASE");
		if (read_cr4() & (1ul << 16)) {
			asm volatile("wrfsbase %1; rdfsbase %0" : "=r"(got) : "r"(0x123000ul));
			CHECK(got == 0x123000ul, "wrfsbase/rdfsbase: %lx", got);
			asm volatile("wrfsbase %0" : : "r"(0ul));
		}
		write_cr4(cr4);
	}
#else
	(void)f7;
#endif
	kprintf("cpuid: the msrs and control bits behind announced features are there\n");
}

/* A CR write that should fault; restored at once if it went through (TCG), and its vector. */
static int cr0_try(ulong val)
{
	ulong old = read_cr0();
	int v = write_cr0_safe(val);
	write_cr0(old);
	return v;
}

static int cr4_try(ulong val)
{
	ulong old = read_cr4();
	int v = write_cr4_safe(val);
	write_cr4(old);
	return v;
}

#ifdef __x86_64__

static void rw_back(const char *what, uint32_t msr, uint64_t val)
{
	uint64_t old = 0, got = 0;
	int r = rdmsr_safe(msr, &old), w = wrmsr_safe(msr, val), r2 = rdmsr_safe(msr, &got);
	CHECK(!r && !w && !r2 && got == val, "%s: rd %d wr %d rd %d, wrote %llx read %llx", what, r,
	      w, r2, (unsigned long long)val, (unsigned long long)got);
	wrmsr_safe(msr, old);
	kprintf("%s: write and read back ok\n", what);
}

volatile ulong sc_flags_in, sc_r11, sc_rcx;
void sc_entry(void);
void sc_return(void);
/* SYSCALL's target: records what the CPU handed over and returns the way SYSRET would, without
 * leaving ring 0 (SYSRET always goes to ring 3). */
asm(".text\n.globl sc_entry\nsc_entry:\n pushfq\n popq sc_flags_in(%rip)\n"
    " mov %r11, sc_r11(%rip)\n mov %rcx, sc_rcx(%rip)\n push %r11\n popfq\n jmp *%rcx\n");

/* STAR, LSTAR and SFMASK as SYSCALL uses them, not just as stored values. */
static void syscall_check(void)
{
	uint64_t efer = rdmsr(MSR_EFER);
	wrmsr(MSR_EFER, efer | 1);
	wrmsr(0xc0000081u, 0x18ull << 32); /* kernel CS 0x18 (the library's 64-bit code), SS 0x20 */
	wrmsr(0xc0000082u, (ulong)sc_entry);
	wrmsr(0xc0000084u, 0x400); /* SYSCALL clears DF */
	asm volatile("std\n\tsyscall\n.globl sc_return\nsc_return:\n\tcld\n\t"
		     "mov $0x10, %%eax\n\tmov %%eax, %%ss"
		     :
		     :
		     : "rax", "rcx", "r11", "memory", "cc");
	CHECK(!(sc_flags_in & 0x400) && (sc_r11 & 0x400), "syscall: flags in %lx, r11 %lx",
	      sc_flags_in, sc_r11);
	CHECK(sc_rcx == (ulong)sc_return, "syscall: rcx is not the return address");
	wrmsr(0xc0000081u, 0);
	wrmsr(0xc0000082u, 0);
	wrmsr(0xc0000084u, 0);
	wrmsr(MSR_EFER, efer);
	kprintf("syscall: lstar entered, sfmask applied, rcx and r11 as architected\n");
}

static void msr_checks(void)
{
	uint64_t v, old;
	CHECK(!rdmsr_safe(MSR_EFER, &v) && (v & 0x500) == 0x500, "efer %llx: LME and LMA",
	      (unsigned long long)v);
	old = v;
	CHECK(!wrmsr_safe(MSR_EFER, v ^ 1) && rdmsr(MSR_EFER) == (v ^ 1), "efer.sce toggle");
	wrmsr(MSR_EFER, old);
	kprintf("efer: lme lma set, sce toggles\n");
	/* TCG keeps only the bits it knows and ignores the rest; hardware raises #GP. */
	expect_gp_hw("efer reserved bit 2 -> #GP", wrmsr_safe(MSR_EFER, old | 4), 0);
	wrmsr(MSR_EFER, old);
	expect_gp_hw("efer.lme cleared with paging on -> #GP",
		     wrmsr_safe(MSR_EFER, old & ~0x100ull), 0);
	wrmsr(MSR_EFER, old);

	CHECK(!rdmsr_safe(0x1b, &v) && (v & ~0xfffull) == 0xfee00000u && (v & 0x900) == 0x900,
	      "apic base %llx", (unsigned long long)v);
	kprintf("apic base: 0xfee00000, bsp, enabled\n");

	CHECK(!rdmsr_safe(0x277, &v) && v == 0x0007040600070406ull, "pat at reset %llx",
	      (unsigned long long)v);
	rw_back("pat (WC in entry 1)", 0x277, 0x0007040600070106ull);
	/* Memory types 2 and 3 are reserved: hardware #GP, TCG keeps the value. */
	expect_gp_hw("pat reserved type 2 -> #GP", wrmsr_safe(0x277, 0x0007040600070402ull), 0);
	expect_gp_hw("pat reserved type 8 -> #GP", wrmsr_safe(0x277, 0x0807040600070406ull), 0);
	wrmsr(0x277, 0x0007040600070406ull);

	/* MTRRs: what MTRRcap announces must be readable; counts differ by design (not printed). */
	int bad = rdmsr_safe(0xfe, &v);
	uint64_t cap = v;
	for (unsigned i = 0; i < (cap & 0xff) && i < 16; i++)
		bad |= rdmsr_safe(0x200 + 2 * i, &v) | rdmsr_safe(0x201 + 2 * i, &v);
	if (cap & 0x100) {
		static const uint32_t fixed[] = { 0x250, 0x258, 0x259, 0x268, 0x269, 0x26a,
						  0x26b, 0x26c, 0x26d, 0x26e, 0x26f };
		for (unsigned i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
			bad |= rdmsr_safe(fixed[i], &v);
	}
	bad |= rdmsr_safe(0x2ff, &v);
	CHECK(!bad, "an MTRR announced by MTRRcap %llx raised #GP", (unsigned long long)cap);
	CHECK(!wrmsr_safe(0x2ff, v) && rdmsr(0x2ff) == v, "mtrr def type rewritten");
	kprintf("mtrr: cap, ranges it announces, def type readable\n");

	rw_back("sysenter_cs", 0x174, 0x10);
	rw_back("sysenter_esp", 0x175, 0xffff800000001000ull);
	rw_back("sysenter_eip", 0x176, 0xffff800000002000ull);
	rw_back("star", 0xc0000081u, 0x0023001000000000ull);
	rw_back("lstar", 0xc0000082u, 0xffffffff81000000ull);
	rw_back("cstar", 0xc0000083u, 0xffffffff81000100ull);
	rw_back("sfmask", 0xc0000084u, 0x47700);
	/* TCG does not check canonical form on these writes; hardware does. Umbra leaves these
	 * MSRs to the CPU (the VMCB/VMCS holds them), so under Umbra on TCG TCG decides too. */
	expect_gp_hw("lstar non-canonical -> #GP", wrmsr_safe(0xc0000082u, NONCANON), 1);
	wrmsr(0xc0000082u, 0);

	static uint64_t fs_probe = 0x1122334455667788ull;
	rw_back("fs_base", 0xc0000100u, 0xffff800000003000ull);
	rw_back("gs_base", 0xc0000101u, 0xffff800000004000ull);
	rw_back("kernel_gs_base", 0xc0000102u, 0xffff800000005000ull);
	wrmsr(0xc0000100u, (ulong)&fs_probe);
	uint64_t seen;
	asm volatile("mov %%fs:0, %0" : "=r"(seen));
	CHECK(seen == fs_probe, "load through fs_base read %llx", (unsigned long long)seen);
	wrmsr(0xc0000101u, (ulong)&fs_probe);
	asm volatile("swapgs; swapgs; mov %%gs:0, %0" : "=r"(seen));
	CHECK(seen == fs_probe, "load through gs_base after two swapgs read %llx",
	      (unsigned long long)seen);
	kprintf("fs/gs base: used by fs: and gs: loads\n");
	/* Non-canonical bases: #GP on hardware, not on TCG; the CPU decides under Umbra too. */
	expect_gp_hw("fs_base non-canonical -> #GP", wrmsr_safe(0xc0000100u, NONCANON), 1);
	expect_gp_hw("gs_base non-canonical -> #GP", wrmsr_safe(0xc0000101u, NONCANON), 1);
	expect_gp_hw("kernel_gs_base non-canonical -> #GP", wrmsr_safe(0xc0000102u, NONCANON), 1);
	wrmsr(0xc0000100u, 0);
	wrmsr(0xc0000101u, 0);
	wrmsr(0xc0000102u, 0);

	uint64_t t1, t2, t3;
	t1 = read_tsc();
	CHECK(!rdmsr_safe(0x10, &t2), "rdmsr tsc");
	t3 = read_tsc();
	/* TCG's rdmsr of the TSC is not the running counter rdtsc reads; hardware's is. */
	CHECK(t1 < t3 && (tcg_native() || (t1 < t2 && t2 < t3)),
	      "tsc not increasing across rdtsc, rdmsr, rdtsc");
	kprintf("tsc: rdtsc and rdmsr increase\n");

	if (cpuid(0x80000001u, 0).d & (1u << 27)) {
		uint32_t aux;
		rw_back("tsc_aux", 0xc0000103u, 0x42);
		wrmsr(0xc0000103u, 0x42);
		asm volatile("rdtscp" : "=c"(aux) : : "rax", "rdx");
		/* TCG ignores the RDTSCP intercept (it checks only RDTSC's), so under Umbra on TCG
		 * RDTSCP reads the host's TSC_AUX; hardware exits and Umbra answers. */
		CHECK(aux == 0x42 || (on_umbra && on_tcg()), "rdtscp gave tsc_aux %x", aux);
		/* The high half is reserved: hardware #GP, TCG keeps the value. */
		expect_gp_hw("tsc_aux high bits -> #GP", wrmsr_safe(0xc0000103u, 1ull << 32), 0);
		wrmsr(0xc0000103u, 0);
		kprintf("rdtscp: returns tsc_aux\n");
	} else {
		kprintf("rdtscp: not offered\n");
	}

	/* MISC_ENABLE is Intel's: AMD's CPUs raise #GP, and so does Umbra announcing AMD. TCG
	 * offers it on every vendor. On Intel: fast strings on, BTS and PEBS unavailable, the
	 * MONITOR enable as CPUID.1 announces MONITOR, the CPUID limit and XD disable off. */
	int misc = rdmsr_safe(0x1a0, &v);
	if (!cpu.amd || tcg_native()) {
		CHECK(!misc, "misc_enable read");
		CHECK(!wrmsr_safe(0x1a0, v), "misc_enable rewritten unchanged");
		if (!cpu.amd) {
			int monitor = (cpuid(1, 0).c >> 3) & 1;
			CHECK((v & 0x1801) == 0x1801 && ((v >> 18) & 1) == (uint64_t)monitor &&
				      !(v & (1u << 22)) && !(v & (1ull << 34)),
			      "misc_enable %llx", (unsigned long long)v);
			/* Reserved bit 1: hardware #GP; TCG keeps it. No line of its own: the
			 * output must not depend on the vendor. */
			int rsvd = wrmsr_safe(0x1a0, v | 2);
			CHECK(rsvd == 13 || tcg_native(), "misc_enable reserved bit 1: vector %d",
			      rsvd);
			wrmsr_safe(0x1a0, v);
			/* Fast strings is writable and reads back as written. */
			uint64_t off = ~0ull;
			int w = wrmsr_safe(0x1a0, v & ~1ull);
			rdmsr_safe(0x1a0, &off);
			wrmsr_safe(0x1a0, v);
			CHECK(!w && off == (v & ~1ull),
			      "misc_enable without fast strings: %d, reads %llx", w,
			      (unsigned long long)off);
			/* The other writable bits at once, as a kernel writing back a changed value
			 * does: EIST, the MONITOR FSM, the CPUID limit, xTPR disable, and XD disable
			 * where NX exists and EFER.NXE is off (with NX in use it would take the NX
			 * bits away from live tables). Read back as written; the limit caps leaf 0
			 * at 2 and XD disable hides NX, as on the CPU. */
			uint64_t efer = 0;
			rdmsr_safe(0xc0000080u, &efer);
			int nx = (cpuid(0x80000001u, 0).d >> 20) & 1,
			    xd = nx && !(efer & (1u << 11));
			uint64_t flip = 1ull << 16 | 1ull << 18 | 1ull << 22 | 1ull << 23 |
					(xd ? 1ull << 34 : 0);
			uint32_t max0 = cpuid(0, 0).a;
			w = wrmsr_safe(0x1a0, v ^ flip);
			rdmsr_safe(0x1a0, &off);
			uint32_t lim0 = cpuid(0, 0).a;
			int nx_then = (cpuid(0x80000001u, 0).d >> 20) & 1;
			int back = wrmsr_safe(0x1a0, v);
			CHECK(!w && off == (v ^ flip) && !back,
			      "misc_enable writable bits: %d, reads %llx", w,
			      (unsigned long long)off);
			CHECK(lim0 == (max0 > 2 ? 2 : max0) && cpuid(0, 0).a == max0,
			      "misc_enable cpuid limit: leaf 0 %x, limited %x", max0, lim0);
			CHECK(!xd || (!nx_then && ((cpuid(0x80000001u, 0).d >> 20) & 1)),
			      "misc_enable xd disable: nx %d", nx_then);
		}
	} else {
		CHECK(misc == 13, "misc_enable on AMD: vector %d, expected #GP", misc);
		CHECK(wrmsr_safe(0x1a0, 0x1801) == 13, "misc_enable write on AMD: no #GP");
	}
	kprintf("misc_enable: as the vendor has it\n");

	/* AMD's legacy counters: Umbra reads 0 and drops writes, as TCG does (it has no counters);
	 * on Intel they do not exist (#GP), under Umbra announcing Intel too. */
	int perf_ok = 1;
	for (uint32_t m = 0xc0010000u; m <= 0xc0010007u; m++) {
		int w = wrmsr_safe(m, m & 4 ? 0x1234 : 0x430076);
		int r = rdmsr_safe(m, &v);
		if (cpu.amd)
			perf_ok &= !w && !r && v == 0;
		else if (on_umbra)
			perf_ok &= w == 13 && r == 13;
		else
			perf_ok &= (w == 13 && r == 13) || (!w && !r && v == 0);
	}
	CHECK(perf_ok, "amd perf counters 0xc0010000-7");
	kprintf("amd perf counters: as the vendor has them\n");

	/* An MSR nobody implements: TCG reads 0 where hardware and Umbra raise #GP. */
	expect_gp_hw("unknown msr 0x2fff read -> #GP", rdmsr_safe(0x2fff, &v), 0);
	expect_gp_hw("unknown msr 0x2fff write -> #GP", wrmsr_safe(0x2fff, 0), 0);
}

static void cr_checks(void)
{
	ulong cr0 = read_cr0(), cr4 = read_cr4();
	/* TCG does not check CR0 writes at all (SDM 2.5 / APM 3.1.1 #GP cases); hardware does. */
	expect_gp_hw("cr0 pg without pe -> #GP", cr0_try(cr0 & ~CR0_PE), 0);
	expect_gp_hw("cr0 nw without cd -> #GP", cr0_try(cr0 | CR0_NW), 0);
	expect_gp_hw("cr0 bit 32 -> #GP", cr0_try(cr0 | (1ul << 32)), 0);
	expect_fault("cr0 cd and nw together", cr0_try(cr0 | CR0_CD | CR0_NW), 0);
	expect_fault("cr0 ts set and cleared", cr0_try(cr0 | 8), 0);
	CHECK(read_cr0() == cr0, "cr0 not restored");
	/* QEMU 7.2's TCG never finishes a CR4 write with a reserved bit (the vCPU spins on the
	 * instruction) and lets PAE go in long mode (then triple-faults): natively these are not
	 * tried, under Umbra they must raise #GP as on hardware. */
	expect_fault("cr4 reserved bit 31 -> #GP", tcg_native() ? 13 : cr4_try(cr4 | (1ul << 31)),
		     13);
	expect_fault("cr4 bit 40 -> #GP", tcg_native() ? 13 : cr4_try(cr4 | (1ul << 40)), 13);
	expect_fault("cr4.pae cleared in long mode -> #GP",
		     tcg_native() ? 13 : cr4_try(cr4 & ~CR4_PAE), 13);
	expect_fault("cr4 pge set and cleared", cr4_try(cr4 | CR4_PGE), 0);
	CHECK(read_cr4() == cr4, "cr4 not restored");
}

#else
/* Protected mode, paging off: the checks made when paging is turned on. Natively on TCG the
 * faulting cases are not tried (TCG would take the write and run on garbage tables). */
static void cr_checks(void)
{
	ulong cr0 = read_cr0(), cr4 = read_cr4();
	expect_fault("cr0 pg without pe -> #GP",
		     tcg_native() ? 13 : cr0_try((cr0 & ~CR0_PE) | CR0_PG), 13);
	expect_gp_hw("cr0 nw without cd -> #GP", cr0_try(cr0 | CR0_NW), 0);
	/* Long mode needs PAE: CR0.PG with EFER.LME and CR4.PAE clear faults. */
	set_efer_bits(1u << 8, 0);
	expect_fault("cr0 pg with efer.lme and no pae -> #GP",
		     tcg_native() ? 13 : cr0_try(cr0 | CR0_PG), 13);
	set_efer_bits(0, 1u << 8);
	expect_fault("cr4 reserved bit 31 -> #GP", tcg_native() ? 13 : cr4_try(cr4 | (1ul << 31)),
		     13);
	expect_fault("cr4 pae, pse, pge set and cleared with paging off",
		     cr4_try(cr4 | CR4_PAE | CR4_PSE | CR4_PGE), 0);
	CHECK(read_cr0() == cr0 && read_cr4() == cr4, "cr0/cr4 not restored");
}
#endif

/* A TSC write moves the counter (kernels synchronising TSCs do it): rdtsc then counts on from
 * the value written. */
static void tsc_write(void)
{
	uint64_t t = 1ull << 40, now = 0;
	int w = wrmsr_safe(0x10, t);
	if (!w) /* rdtsc, not rdmsr: TCG's rdmsr of the TSC is not the counter (see above) */
		now = read_tsc();
	/* TCG takes the write but its rdtsc does not move: natively only the write is checked. */
	CHECK(!w && (tcg_native() || (now >= t && now - t < (1ull << 36))),
	      "tsc write: vector %d, read %llx", w, (unsigned long long)now);
	kprintf("tsc: written, counts on from the value written\n");
}

/* Intercepted instructions with prefixes run to the right next instruction: a hypervisor that
 * assumes the bare opcode's length resumes inside the instruction (at 0xa2 or 0x32, which
 * decode as other instructions and take the marker's bytes as an address). */
static void prefixed(void)
{
	uint32_t a = 0, b, c = 0x1b, d = 0;
	asm volatile(".byte 0x2e, 0x0f, 0xa2\n\tmov $0x600dbeef, %%edx"
		     : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	CHECK(d == 0x600dbeef, "cs cpuid: went on at the wrong byte (%x)", d);
	c = 0x1b;
	asm volatile(".byte 0x3e, 0x3e, 0x0f, 0x32\n\tmov $0x600dbeef, %%edx"
		     : "=a"(a), "+c"(c), "=d"(d));
	CHECK(d == 0x600dbeef && (a & 0xfffff000u) == 0xfee00000u, "ds ds rdmsr: %x %x", a, d);
	kprintf("prefixed cpuid and rdmsr: resume after the whole instruction\n");
}

void test_main(void)
{
	cpuid_checks();
	advertised();
	prefixed();
#ifdef __x86_64__
	msr_checks();
	syscall_check();
#endif
	cr_checks();
	if (mb1_arg_num("tscwrite", 0))
		tsc_write();
}
