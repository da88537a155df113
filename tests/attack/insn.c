/* SPDX-License-Identifier: GPL-2.0-only */
/* Attack guest (insn): instructions a hypervisor intercepts or hides must fault as on hardware. */
/* Each instruction runs under the library's fault recovery and must raise what a CPU without
 * virtualization raises (Umbra hides VMX and SVM in CPUID): the SVM and VMX instructions #UD,
 * privileged ones #GP at CPL 3, MONITOR/MWAIT #UD while CPUID.1:ECX.MONITOR is clear, RDPMC #GP
 * (no counters are modelled); INVD and WBINVD complete at CPL 0 (intercepted: they must never
 * reach the real CPU, which the guest cannot see); SMSW returns CR0's low bits at any CPL;
 * unknown hypercalls return -ENOSYS and the privileged ones -EPERM from CPL 3. */
#include "tests/attack/attack.h"

const char guest_name[] = GUEST_NAME;

#ifdef __x86_64__
#define RAX "%%rax"
#define RBX "%%rbx"
#else
#define RAX "%%eax"
#define RBX "%%ebx"
#endif
#define CR0_MP (1ul << 1)
#define CR0_EM (1ul << 2)
#define CR0_TS (1ul << 3)

static uint64_t scratch[4] __attribute__((aligned(4096)));

/* ---- ring-3 snippets (single-% register names: top-level asm) ---- */
#ifdef __x86_64__
#define U(reg) "%r" #reg
#else
#define U(reg) "%e" #reg
#endif
USER_SNIPPET(u_invd, "invd");
USER_SNIPPET(u_wbinvd, "wbinvd");
USER_SNIPPET(u_hlt, "hlt");
USER_SNIPPET(u_cli, "cli");
USER_SNIPPET(u_rdmsr, "mov $0x10, %ecx\n\trdmsr");
USER_SNIPPET(u_wrmsr, "mov $0xc0000103, %ecx\n\txor %eax, %eax\n\txor %edx, %edx\n\twrmsr");
USER_SNIPPET(u_movcr, "mov %cr0, " U(ax));
USER_SNIPPET(u_invlpg, "invlpg (" U(bx) ")");
USER_SNIPPET(u_clts, "clts");
USER_SNIPPET(u_rdpmc, "xor %ecx, %ecx\n\trdpmc");
USER_SNIPPET(u_monitor, "mov " U(bx) ", " U(ax) "\n\txor %ecx, %ecx\n\txor %edx, %edx\n\tmonitor");
USER_SNIPPET(u_smsw, "smsw %eax");
USER_SNIPPET(u_cpuid, "xor %eax, %eax\n\txor %ecx, %ecx\n\tcpuid");
USER_SNIPPET(u_rdtsc, "rdtsc");
USER_SNIPPET(u_vmmcall, "vmmcall");
USER_SNIPPET(u_vmcall, "vmcall");

static void cpl0_cache(void)
{
	ulong marker = 0;
	int v = ATTEMPT_OUT("invd\n\tmov $0x600dbeef, %k0", "=r"(marker));
	expect_vec("invd-cpl0 (completes; Umbra must intercept it)", v, NO_FAULT);
	CHECK(marker == 0x600dbeef, "invd: the instruction after it did not run (%lx)", marker);
	v = ATTEMPT("wbinvd", "i"(0));
	expect_vec("wbinvd-cpl0 (completes)", v, NO_FAULT);
}

static void cpl3_privileged(void)
{
	struct {
		const char *what;
		const char *code, *end;
	} cases[] = {
		{ "invd-cpl3", u_invd, u_invd_end },
		{ "wbinvd-cpl3", u_wbinvd, u_wbinvd_end },
		{ "hlt-cpl3", u_hlt, u_hlt_end },
		{ "cli-cpl3 (IOPL 0)", u_cli, u_cli_end },
		{ "rdmsr-cpl3", u_rdmsr, u_rdmsr_end },
		{ "wrmsr-cpl3", u_wrmsr, u_wrmsr_end },
		{ "mov-cr0-cpl3", u_movcr, u_movcr_end },
		{ "invlpg-cpl3", u_invlpg, u_invlpg_end },
		{ "clts-cpl3", u_clts, u_clts_end },
		{ "rdpmc-cpl3 (CR4.PCE clear)", u_rdpmc, u_rdpmc_end },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int v = user_exec(cases[i].code, cases[i].end, 0, user_data, 0, 0);
		expect_vec(cases[i].what, v, 13);
		if (v == 13)
			CHECK(last_fault.error == 0, "%s: #GP error code %lx, expected 0",
			      cases[i].what, last_fault.error);
	}
	/* Unprivileged, but intercepted: the same answers as at CPL 0. */
	ulong a3 = 0, t3 = 0;
	int v = USER_RUN(u_cpuid, 0, 0, 0, &a3);
	expect_vec("cpuid-cpl3", v, NO_FAULT);
	CHECK(v != NO_FAULT || a3 == cpuid(0, 0).a, "cpuid at CPL 3: leaf 0 EAX %lx, CPL 0 says %x",
	      a3, cpuid(0, 0).a);
	v = USER_RUN(u_rdtsc, 0, 0, 0, &t3);
	expect_vec("rdtsc-cpl3 (CR4.TSD clear)", v, NO_FAULT);
}

static void monitor_mwait(void)
{
	int has = !!(cpuid(1, 0).c & (1u << 3));
	if (has && !on_umbra) {
		kprintf("attack monitor: skipped natively (this CPU offers MONITOR/MWAIT)\n");
		return;
	}
	CHECK(!has, "monitor: CPUID.1:ECX.MONITOR is set under Umbra, which does not model it");
	if (has)
		return;
	int v = ATTEMPT_X("mov %0, " RAX "\n\txor %%ecx, %%ecx\n\txor %%edx, %%edx\n\tmonitor",
			  "r"((ulong)scratch));
	expect_vec("monitor (CPUID.1:ECX.MONITOR clear)", v, 6);
	v = ATTEMPT_X("xor %%eax, %%eax\n\txor %%ecx, %%ecx\n\tmwait", "i"(0));
	expect_vec("mwait (CPUID.1:ECX.MONITOR clear)", v, 6);
	v = USER_RUN(u_monitor, 0, (ulong)scratch, 0, 0);
	expect_vec("monitor-cpl3", v, 6);
}

static void rdpmc_cpl0(void)
{
	uint32_t lo = 0, hi = 0;
	ulong n = fault_count;
	asm volatile(ATK_RECOVER "rdpmc\n1:" : "+a"(lo), "+d"(hi) : "c"(0) : "memory");
	int v = fault_since(n);
	if (on_umbra) {
		expect_vec("rdpmc-cpl0 (ECX=0; Umbra models no counters)", v, 13);
	} else {
		note_vec("rdpmc-cpl0 (ECX=0)", v,
			 on_tcg() ? "natively: QEMU TCG has no RDPMC (#UD)"
				  : "natively: the CPU's counters decide");
	}
	n = fault_count;
	asm volatile(ATK_RECOVER "rdpmc\n1:" : "+a"(lo), "+d"(hi) : "c"(0x12345) : "memory");
	v = fault_since(n);
	if (v == 6 && on_tcg() && !on_umbra)
		note_vec("rdpmc-bad-index (ECX=0x12345)", v,
			 "natively: QEMU TCG has no RDPMC (#UD)");
	else
		expect_vec("rdpmc-bad-index (ECX=0x12345)", v, 13);
}

/* The SVM instructions with EFER.SVME clear (and SVM hidden) are #UD; VMMCALL is the hypercall
 * and not tried here. SKINIT is #UD without SVM or SKINIT in CPUID. */
static void svm_insns(void)
{
	ulong a = (ulong)scratch;
	expect_vec("vmrun", ATTEMPT_X("mov %0, " RAX "\n\tvmrun", "r"(a)), 6);
	expect_vec("vmload", ATTEMPT_X("mov %0, " RAX "\n\tvmload", "r"(a)), 6);
	expect_vec("vmsave", ATTEMPT_X("mov %0, " RAX "\n\tvmsave", "r"(a)), 6);
	expect_vec("stgi", ATTEMPT("stgi", "i"(0)), 6);
	expect_vec("clgi", ATTEMPT("clgi", "i"(0)), 6);
	expect_vec("skinit", ATTEMPT_X("mov %0, %%eax\n\tskinit", "r"((uint32_t)a)), 6);
	expect_vec("invlpga", ATTEMPT_X("mov %0, " RAX "\n\txor %%ecx, %%ecx\n\tinvlpga", "r"(a)),
		   6);
}

/* Outside VMX operation (CR4.VMXE clear; VMX hidden) every VMX instruction is #UD. */
static void vmx_insns(void)
{
	ulong a = (ulong)scratch;
	expect_vec("vmxon", ATTEMPT("vmxon (%0)", "r"(a)), 6);
	expect_vec("vmclear", ATTEMPT("vmclear (%0)", "r"(a)), 6);
	expect_vec("vmptrld", ATTEMPT("vmptrld (%0)", "r"(a)), 6);
	expect_vec("vmptrst", ATTEMPT("vmptrst (%0)", "r"(a)), 6);
	expect_vec("vmread", ATTEMPT_X("mov %0, " RAX "\n\tvmread " RAX ", " RBX, "r"(0ul)), 6);
	expect_vec("vmwrite", ATTEMPT_X("mov %0, " RAX "\n\tvmwrite " RBX ", " RAX, "r"(0ul)), 6);
	expect_vec("vmlaunch", ATTEMPT("vmlaunch", "i"(0)), 6);
	expect_vec("vmresume", ATTEMPT("vmresume", "i"(0)), 6);
	expect_vec("vmxoff", ATTEMPT("vmxoff", "i"(0)), 6);
	expect_vec("invept", ATTEMPT_X("mov %0, " RBX "\n\tinvept (%0), " RBX, "r"(a)), 6);
	expect_vec("invvpid", ATTEMPT_X("mov %0, " RBX "\n\tinvvpid (%0), " RBX, "r"(a)), 6);
	expect_vec("vmfunc", ATTEMPT_X("xor %%eax, %%eax\n\tvmfunc", "i"(0)), 6);
	/* With CR4.SMXE and CR4.OSXSAVE clear: GETSEC and XSETBV/XGETBV are #UD (before any exit). */
	expect_vec("getsec (CR4.SMXE clear)", ATTEMPT_X("xor %%eax, %%eax\n\tgetsec", "i"(0)), 6);
	expect_vec("xsetbv (CR4.OSXSAVE clear)",
		   ATTEMPT_X("xor %%ecx, %%ecx\n\tmov $1, %%eax\n\txor %%edx, %%edx\n\txsetbv",
			     "i"(0)),
		   6);
}

/* Turning virtualization on where CPUID hides it: EFER.SVME and CR4.VMXE are reserved. */
static void enable_virt(void)
{
	uint64_t efer = rdmsr(MSR_EFER);
	uint64_t e = efer | (1ull << 12);
	int v = ATTEMPT("wrmsr", "c"(MSR_EFER), "a"((uint32_t)e), "d"((uint32_t)(e >> 32)));
	if (v == NO_FAULT)
		wrmsr(MSR_EFER, efer);
	expect_vec("efer-svme (SVM hidden)", v, 13);
	ulong cr4 = read_cr4();
	v = ATTEMPT("mov %0, %%cr4", "r"(cr4 | (1ul << 13)));
	if (v == NO_FAULT)
		write_cr4(cr4);
	expect_vec("cr4-vmxe (VMX hidden)", v, 13);
}

static void smsw_cases(void)
{
	static const ulong extra[] = { 0, CR0_MP, CR0_TS, CR0_EM | CR0_MP, CR0_TS | CR0_EM };
	ulong cr0 = read_cr0(), mark = checks_failed;
	for (unsigned i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
		ulong want = (cr0 & ~(CR0_MP | CR0_EM | CR0_TS)) | extra[i];
		write_cr0(want);
		ulong s0 = 0, s3 = 0;
		asm volatile("smsw %k0" : "=r"(s0));
		int v = USER_RUN(u_smsw, 0, 0, 0, &s3);
		write_cr0(cr0);
		CHECK((s0 & 0xffff) == (want & 0xffff), "smsw at CPL 0 with CR0=%lx: %lx", want,
		      s0);
		CHECK(v == NO_FAULT, "smsw at CPL 3: %s", vec_name(v));
		CHECK(v != NO_FAULT || (s3 & 0xffff) == (want & 0xffff),
		      "smsw at CPL 3 with CR0=%lx: %lx", want, s3);
	}
	/* CR0.NE clear (the guest's view; VMX keeps it set in the real CR0). */
	write_cr0(cr0 & ~CR0_NE);
	ulong s0 = 0;
	asm volatile("smsw %k0" : "=r"(s0));
	write_cr0(cr0);
	CHECK((s0 & 0xffff) == ((cr0 & ~CR0_NE) & 0xffff), "smsw with CR0.NE clear: %lx", s0);
	case_end("smsw (CR0 bits 15:0 at CPL 0 and 3, MP/EM/TS/NE as written)", mark);
}

static long hc_user(const char *code, const char *end, ulong nr, ulong a0, int *vec)
{
	ulong r = 0;
	*vec = user_exec(code, end, nr, a0, 0, &r);
	return (long)r;
}

static void hypercalls(void)
{
	static const ulong unknown[] = { 0, UMBRA_HC_COUNT, 999, 0x7fffffff, 0xffffffff };
	ulong mark = checks_failed;
	for (unsigned i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		long r = umbra_hypercall(unknown[i], 0, 0);
		CHECK(r == -UMBRA_ENOSYS, "hypercall %lx at CPL 0: %ld, expected -ENOSYS",
		      unknown[i], r);
	}
	case_end("hc-unknown (-ENOSYS at CPL 0)", mark);

	/* Both instructions work on both vendors when Umbra says so. */
	int any = !!(cpuid(UMBRA_CPUID_FEATURES, 0).b & UMBRA_FEAT_VMCALL_ANY);
	const char *ins[2][2] = { { u_vmmcall, u_vmmcall_end }, { u_vmcall, u_vmcall_end } };
	int vec;
	mark = checks_failed;
	for (int k = 0; k < 2; k++) {
		if (!any && k != !cpu.amd)
			continue;
		long r = hc_user(ins[k][0], ins[k][1], UMBRA_HC_VERSION, 0, &vec);
		CHECK(vec == NO_FAULT && r == UMBRA_ABI_VERSION, "%s VERSION at CPL 3: %s, %ld",
		      k ? "vmcall" : "vmmcall", vec_name(vec), r);
		r = hc_user(ins[k][0], ins[k][1], 999, 0, &vec);
		CHECK(vec == NO_FAULT && r == -UMBRA_ENOSYS, "%s 999 at CPL 3: %s, %ld",
		      k ? "vmcall" : "vmmcall", vec_name(vec), r);
	}
	case_end("hc-cpl3-restricted (VERSION works, unknown -ENOSYS, vmcall and vmmcall)", mark);

	/* The privileged calls from CPL 3: refused, and the guest goes on. EXIT carries the fail
	 * status, so a hypervisor that obeys ends this guest as failed. */
	static const struct {
		ulong nr, a0;
		const char *name;
	} priv[] = {
		{ UMBRA_HC_EXIT, UMBRA_RESULT_FAIL, "EXIT" },
		{ UMBRA_HC_BLOCK, 1000000, "BLOCK" },
		{ UMBRA_HC_TIMER_SET, 0, "TIMER_SET" },
		{ UMBRA_HC_MMU_UPDATE, 0, "MMU_UPDATE" },
		{ UMBRA_HC_MMU_OP, 0, "MMU_OP" },
		{ UMBRA_HC_STOP_GUEST, 0, "STOP_GUEST" },
		{ UMBRA_HC_STATS_OF, 0, "STATS_OF" },
	};
	mark = checks_failed;
	for (unsigned i = 0; i < sizeof(priv) / sizeof(priv[0]); i++) {
		int k = cpu.amd ? 0 : 1;
		long r = hc_user(ins[k][0], ins[k][1], priv[i].nr, priv[i].a0, &vec);
		CHECK(vec == NO_FAULT && r == -UMBRA_EPERM, "%s at CPL 3: %s, %ld, expected -EPERM",
		      priv[i].name, vec_name(vec), r);
	}
	case_end("hc-cpl3-privileged (EXIT, BLOCK, TIMER_SET, MMU_*, STOP_GUEST, STATS_OF: -EPERM)",
		 mark);
}

#ifndef __x86_64__
/* `-- taskswitch` (32-bit, under Umbra only): a far JMP to a TSS. Umbra does not emulate
 * hardware task switches (one would load CR3 behind the shadow MMU): the exit is refused and
 * this guest alone ends, with the exit named; cases.sh checks the report and that the guests
 * beside it pass. Natively the switch happens, so it is not tried there. */
static struct tss32 {
	uint32_t w[26];
} tswitch_tss __attribute__((aligned(128)));

static void task_switch(void)
{
	struct __attribute__((packed)) {
		uint16_t limit;
		uint32_t base;
	} gdtr;
	static uint64_t gdt[16];
	asm volatile("sgdt %0" : "=m"(gdtr));
	for (unsigned i = 0; i <= gdtr.limit / 8 && i < 15; i++)
		gdt[i] = ((uint64_t *)gdtr.base)[i];
	uint32_t base = (uint32_t)&tswitch_tss, limit = sizeof(tswitch_tss) - 1;
	gdt[15] = (limit & 0xffff) | ((uint64_t)(base & 0xffffff) << 16) | (0x89ull << 40) |
		  ((uint64_t)(base >> 24) << 56);
	gdtr.base = (uint32_t)gdt;
	gdtr.limit = sizeof(gdt) - 1;
	asm volatile("lgdt %0" : : "m"(gdtr));
	kprintf("attack taskswitch: far jmp to a tss\n");
	asm volatile("ljmp $0x78, $0" ::: "memory");
	fail("the task switch came back");
}
#endif

/* The groups in order; `-- no<group>` on the module line skips one (a hypervisor that ends the
 * guest at one group hides the groups after it: skipping shows them). */
static const struct {
	const char *skip;
	void (*fn)(void);
	int umbra_only;
} groups[] = {
	{ "nocache", cpl0_cache, 0 },	   { "nocpl3", cpl3_privileged, 0 },
	{ "nomonitor", monitor_mwait, 0 }, { "nordpmc", rdpmc_cpl0, 0 },
	{ "nosmsw", smsw_cases, 0 },	   { "nosvm", svm_insns, 0 },
	{ "novmx", vmx_insns, 0 },	   { "novirt", enable_virt, 1 },
	{ "nohc", hypercalls, 1 },
};

void test_main(void)
{
#ifndef __x86_64__
	if (atk_arg_flag("taskswitch") && on_umbra)
		task_switch();
#endif
	user_init();
	for (unsigned i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		if (atk_arg_flag(groups[i].skip))
			kprintf("attack %s: skipped (%s)\n", groups[i].skip + 2, groups[i].skip);
		else if (groups[i].umbra_only && !on_umbra)
			skip_note(groups[i].skip + 2);
		else
			groups[i].fn();
	}
	kprintf("cases: insn\n");
}
