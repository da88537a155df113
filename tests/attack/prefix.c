/* SPDX-License-Identifier: GPL-2.0-only */
/* Attack guest (prefix): intercepted instructions with prefixes must complete as on hardware. */
/* A hypervisor that emulates an intercepted instruction must resume after all of it. Without
 * NRIP save (QEMU's TCG) it decodes the length itself; one that assumes the bare opcode's
 * length resumes inside the instruction and runs garbage. Each case is followed by a marker
 * instruction (mov $0x600dbeef, %esi) that must run; HLT's wake-up interrupt must return to the
 * end of the prefixed HLT; too long an instruction (16 bytes) and LOCK are #GP and #UD before
 * any intercept (QEMU's TCG ignores LOCK on CPUID and HLT: LOCK HLT is not tried, it would halt
 * there with interrupts off). */
#include "tests/attack/attack.h"

const char guest_name[] = GUEST_NAME;

#define MARK 0x600dbeefu
#define TIMER_VECTOR 0x40
#define MSR_TSC_AUX 0xc0000103u

/* CPUID leaf 0 with the given prefix bytes (a .byte list) before 0f a2; m gets the marker. */
#define CPUID_PFX(bytes, a, b, m) \
	asm volatile("xor %%esi, %%esi\n\t.byte " bytes ", 0x0f, 0xa2\n\tmov $0x600dbeef, %%esi" \
		     : "=a"(a), "=b"(b), "=S"(m) \
		     : "a"(0), "c"(0) \
		     : "dx", "memory")

static void check_cpuid(const char *what, uint32_t a, uint32_t b, uint32_t m)
{
	struct cpuid r = cpuid(0, 0);
	ulong mark = checks_failed;
	CHECK(m == MARK, "%s: the marker after it did not run (esi=%x)", what, m);
	CHECK(a == r.a && b == r.b, "%s: leaf 0 gave %x/%x, plain cpuid %x/%x", what, a, b, r.a,
	      r.b);
	case_end(what, mark);
}

static void cpuid_cases(void)
{
	uint32_t a, b, m;
	CPUID_PFX("0x2e", a, b, m);
	check_cpuid("cs-cpuid (2e 0f a2)", a, b, m);
	CPUID_PFX("0x2e, 0x3e, 0x26, 0x64, 0x65, 0x36", a, b, m);
	check_cpuid("six-segment-cpuid (2e 3e 26 64 65 36 0f a2)", a, b, m);
	CPUID_PFX("0xf3", a, b, m);
	check_cpuid("rep-cpuid (f3 0f a2)", a, b, m);
#ifdef __x86_64__
	CPUID_PFX("0x48", a, b, m);
	check_cpuid("rexw-cpuid (48 0f a2)", a, b, m);
	CPUID_PFX("0x2e, 0x66, 0x41", a, b, m);
	check_cpuid("cs-opsize-rexb-cpuid (2e 66 41 0f a2)", a, b, m);
#endif
	/* 13 prefixes + 2 bytes = 15, the longest instruction there is; one more is #GP(0). */
	CPUID_PFX("0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e", a, b, m);
	check_cpuid("15-byte-cpuid (13 x 2e, 0f a2)", a, b, m);
	int v = ATTEMPT_X(
		"xor %%eax, %%eax\n\txor %%ecx, %%ecx\n\t"
		".byte 0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,"
		"0x0f,0xa2",
		"i"(0));
	expect_vec("16-byte-cpuid (14 x 2e, 0f a2)", v, 13);
	v = ATTEMPT_X("xor %%eax, %%eax\n\txor %%ecx, %%ecx\n\t.byte 0xf0, 0x0f, 0xa2", "i"(0));
	if (v == NO_FAULT && on_tcg())
		note_vec("lock-cpuid (f0 0f a2)", v, "QEMU TCG ignores LOCK on CPUID");
	else
		expect_vec("lock-cpuid (f0 0f a2)", v, 6);
}

static void msr_cases(void)
{
	uint32_t lo, hi, m;
	uint64_t want = rdmsr(0x1b);
	asm volatile("xor %%esi, %%esi\n\t.byte 0x3e, 0x3e, 0x0f, 0x32\n\tmov $0x600dbeef, %%esi"
		     : "=a"(lo), "=d"(hi), "=S"(m)
		     : "c"(0x1b)
		     : "memory");
	ulong mark = checks_failed;
	CHECK(m == MARK, "ds-ds-rdmsr: the marker did not run (esi=%x)", m);
	CHECK((((uint64_t)hi << 32) | lo) == want, "ds-ds-rdmsr: APIC_BASE %x:%x, plain %llx", hi,
	      lo, (unsigned long long)want);
	case_end("ds-ds-rdmsr (3e 3e 0f 32, APIC_BASE)", mark);
#ifdef __x86_64__
	asm volatile("xor %%esi, %%esi\n\t.byte 0x48, 0x0f, 0x32\n\tmov $0x600dbeef, %%esi"
		     : "=a"(lo), "=d"(hi), "=S"(m)
		     : "c"(0x1b)
		     : "memory");
	mark = checks_failed;
	CHECK(m == MARK && (((uint64_t)hi << 32) | lo) == want, "rexw-rdmsr: %x:%x marker %x", hi,
	      lo, m);
	case_end("rexw-rdmsr (48 0f 32)", mark);
#endif
	if (!(cpuid(0x80000000u, 0).a >= 0x80000001u && (cpuid(0x80000001u, 0).d & (1u << 27)))) {
		kprintf("attack cs-wrmsr: skipped (no RDTSCP, so no TSC_AUX)\n");
		return;
	}
	uint64_t old = rdmsr(MSR_TSC_AUX);
	asm volatile("xor %%esi, %%esi\n\t.byte 0x2e, 0x0f, 0x30\n\tmov $0x600dbeef, %%esi"
		     : "=S"(m)
		     : "c"(MSR_TSC_AUX), "a"(0x1234u), "d"(0)
		     : "memory");
	uint64_t got = rdmsr(MSR_TSC_AUX);
	wrmsr(MSR_TSC_AUX, old);
	mark = checks_failed;
	CHECK(m == MARK, "cs-wrmsr: the marker did not run (esi=%x)", m);
	CHECK(got == 0x1234, "cs-wrmsr: TSC_AUX reads %llx after writing 0x1234",
	      (unsigned long long)got);
	case_end("cs-wrmsr (2e 0f 30, TSC_AUX)", mark);
}

/* ---- HLT woken by the local APIC timer ---- */
static volatile ulong timer_hits, timer_ip;
void hlt_pfx(void);
extern const char hlt_end[];
asm(".text\n.globl hlt_pfx\nhlt_pfx:\n"
    "sti\n .byte 0x2e, 0x3e, 0xf4\n" /* sti's shadow covers the hlt: no wake-up is lost */
    ".globl hlt_end\nhlt_end:\n"
    "cli\n ret\n");

static void timer_irq(struct frame *f)
{
	if (!timer_hits++)
		timer_ip = f->ip;
	apic_reg_write(LAPIC_EOI, 0);
}

static void hlt_case(void)
{
#ifdef __x86_64__
	/* The boot map stops at 1 GiB: map the APIC page (uncached) in a space of our own. */
	static struct aspace as;
	as_init(&as, PM_64);
	map_page(&as, LAPIC_BASE, LAPIC_BASE, 1, PTE_P | PTE_W | (1ull << 4) | (1ull << 3));
	as_activate(&as);
#endif
	/* Firmware may leave the 8259 unmasked with IRQ0 on vector 8: move it away, all masked. */
	pic_remap(0x20, 0x28);
	set_irq_handler(TIMER_VECTOR, timer_irq);
	apic_reg_write(LAPIC_SVR, 0x1ff);
	apic_reg_write(LAPIC_TPR, 0);
	apic_reg_write(LAPIC_TIMER_DIV, 0xb); /* divide by 1 */
	apic_reg_write(LAPIC_LVT_TIMER, TIMER_VECTOR);
	/* A short one-shot count: hlt waits for it, whatever the APIC clock. */
	timer_hits = 0;
	apic_reg_write(LAPIC_TIMER_INIT, 200000);
	hlt_pfx();
	uint64_t end = timeout_ms(50);
	while (!timer_hits && !timed_out(end))
		;
	apic_reg_write(LAPIC_LVT_TIMER, LVT_MASKED);
	ulong mark = checks_failed;
	CHECK(timer_hits == 1, "cs-ds-hlt: %lu timer interrupts, expected 1", timer_hits);
	CHECK(timer_ip == (ulong)hlt_end, "cs-ds-hlt: woken at %lx, the end of the hlt is %lx",
	      timer_ip, (ulong)hlt_end);
	case_end("cs-ds-hlt (2e 3e f4, woken by the APIC timer at its end)", mark);
}

static void io_cases(void)
{
	uint32_t m;
	uint16_t w;
	outb(0x3ff, 0x5a);	 /* the UART's scratch register */
	outb(0x3fc, inb(0x3fc)); /* MCR as it was */
	asm volatile("xor %%esi, %%esi\n\t.byte 0x66, 0x2e, 0xed\n\tmov $0x600dbeef, %%esi"
		     : "=a"(w), "=S"(m)
		     : "d"(0x3fe), "a"(0)
		     : "memory");
	ulong mark = checks_failed;
	CHECK(m == MARK, "opsize-cs-in: the marker did not run (esi=%x)", m);
	CHECK((w >> 8) == 0x5a,
	      "opsize-cs-in: in ax from 0x3fe gave %x, the scratch byte 0x5a "
	      "belongs in AH",
	      w);
	case_end("opsize-cs-in (66 2e ed: inw from 0x3fe, scratch in AH)", mark);
	asm volatile("xor %%esi, %%esi\n\t.byte 0x3e, 0xe6, 0x80\n\tmov $0x600dbeef, %%esi"
		     : "=S"(m)
		     : "a"(0)
		     : "memory");
	mark = checks_failed;
	CHECK(m == MARK, "ds-out: the marker did not run (esi=%x)", m);
	case_end("ds-out (3e e6 80: out to the POST port)", mark);
}

static void hypercall_cases(void)
{
	if (!on_umbra) {
		skip_note("prefixed hypercalls");
		return;
	}
	static const struct {
		const char *what;
		int amd;
	} k[] = {
		{ "cs-vmmcall (2e 0f 01 d9, VERSION)", 1 },
		{ "cs-vmcall (2e 0f 01 c1, VERSION)", 0 },
	};
	int any = !!(cpuid(UMBRA_CPUID_FEATURES, 0).b & UMBRA_FEAT_VMCALL_ANY);
	for (int i = 0; i < 2; i++) {
		if (!any && k[i].amd != cpu.amd)
			continue;
		ulong a = UMBRA_HC_VERSION;
		uint32_t m;
		if (k[i].amd)
			asm volatile("xor %%esi, %%esi\n\t.byte 0x2e, 0x0f, 0x01, 0xd9\n\t"
				     "mov $0x600dbeef, %%esi"
				     : "+a"(a), "=S"(m)
				     :
				     : "memory");
		else
			asm volatile("xor %%esi, %%esi\n\t.byte 0x2e, 0x0f, 0x01, 0xc1\n\t"
				     "mov $0x600dbeef, %%esi"
				     : "+a"(a), "=S"(m)
				     :
				     : "memory");
		ulong mark = checks_failed;
		CHECK(m == MARK, "%s: the marker did not run (esi=%x)", k[i].what, m);
		CHECK(a == UMBRA_ABI_VERSION, "%s: returned %lx", k[i].what, a);
		case_end(k[i].what, mark);
	}
}

void test_main(void)
{
	cpuid_cases();
	msr_cases();
	io_cases();
	hypercall_cases();
	hlt_case();
	kprintf("cases: prefix\n");
}
