/* SPDX-License-Identifier: GPL-2.0-only */
/* Attack guest (clock): the KVM clock and PV EOI MSRs with every kind of bad address, TSC_ADJUST, and the MSRs Linux reads unguarded. */
/* A pvclock record (32 bytes) or wall clock (12 bytes) is written only when it lies wholly in
 * one page of the guest's RAM at an 8-byte-aligned address; any other address is accepted and
 * remembered (as KVM does) but nothing is written anywhere: not into the guest's pages around
 * it, not into MMIO, not outside its RAM. Natively (QEMU's TCG has no KVM clock) these cases
 * are skipped. */
#include "tests/attack/attack.h"

const char guest_name[] = GUEST_NAME;

#define MSR_TSC 0x10u
#define MSR_TSC_ADJUST 0x3bu
#define MSR_WALL 0x4b564d00u
#define MSR_TIME 0x4b564d01u
#define MSR_AMD_INT_PENDING 0xc0010055u
#define SENTINEL 0xa5

struct pvclock {
	uint32_t version, pad;
	uint64_t tsc, system;
	uint32_t mul;
	int8_t shift;
	uint8_t flags, pad2[2];
};

static uint8_t pages[3][PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));

static void fill(void)
{
	for (unsigned i = 0; i < sizeof(pages); i++)
		((volatile uint8_t *)pages)[i] = SENTINEL;
}

/* Sentinel bytes left outside [skip, skip + len): a record's own bytes may hold the sentinel's
 * value by chance (its TSC, say), so they are not counted. */
static unsigned untouched_but(unsigned skip, unsigned len)
{
	unsigned n = 0;
	for (unsigned i = 0; i < sizeof(pages); i++)
		n += (i < skip || i >= skip + len) && ((volatile uint8_t *)pages)[i] == SENTINEL;
	return n;
}

static unsigned untouched(void)
{
	return untouched_but(0, 0);
}

static uint64_t scale(uint64_t d, uint32_t mul, int8_t shift)
{
	d = shift >= 0 ? d << shift : d >> -shift;
	return (uint64_t)(((unsigned __int128)d * mul) >> 32);
}

static void leaves(void)
{
	ulong mark = checks_failed;
	struct cpuid r = cpuid(0x40000100, 0);
	CHECK(r.a == 0x40000101 && r.b == 0x4b4d564b && r.c == 0x564b4d56 && r.d == 0x4d,
	      "leaf 0x40000100: %x %x %x %x", r.a, r.b, r.c, r.d);
	r = cpuid(0x40000101, 0);
	CHECK(r.a == ((1u << 3) | (1u << 6) | (1u << 24)),
	      "leaf 0x40000101 eax %x: CLOCKSOURCE2 | PV_EOI | STABLE", r.a);
	case_end("kvm-leaves (signature KVMKVMKVM, clock and PV EOI features only)", mark);
}

static void good_record(void)
{
	ulong mark = checks_failed;
	volatile struct pvclock *p = (volatile struct pvclock *)pages[1];
	fill();
	wrmsr(MSR_TIME, (ulong)p | 1);
	CHECK(rdmsr(MSR_TIME) == ((ulong)p | 1), "rdmsr gives back %lx", (ulong)rdmsr(MSR_TIME));
	CHECK(p->version && !(p->version & 1), "version %u: even and not 0", p->version);
	CHECK(p->flags & 1, "flags %x: TSC_STABLE", p->flags);
	CHECK(p->mul >= 0x80000000u, "mul %x: the most precise scale", p->mul);
	/* The record's time and the TSC agree within a millisecond either way of a fresh read. */
	uint64_t t = read_tsc(), ns = p->system + scale(t - p->tsc, p->mul, p->shift);
	uint64_t direct = scale(t, p->mul, p->shift);
	CHECK(ns + 1000000 > direct && ns < direct + 1000000, "system time %lu vs %lu", (ulong)ns,
	      (ulong)direct);
	unsigned left = untouched_but(PAGE_SIZE, sizeof(struct pvclock));
	CHECK(left == sizeof(pages) - sizeof(struct pvclock), "%u bytes around it changed",
	      (unsigned)(sizeof(pages) - sizeof(struct pvclock) - left));
	uint32_t v = p->version;
	wrmsr(MSR_TIME, (ulong)p); /* disabled: nothing is published */
	CHECK(p->version == v, "a disabled clock was republished (version %u -> %u)", v,
	      p->version);
	case_end("pvclock (an even version, a stable, precise scale, nothing else written)", mark);
}

static void bad_addresses(void)
{
	static const struct {
		ulong off;
		const char *what;
	} in_ram[] = {
		{ PAGE_SIZE + 4, "misaligned" },
		{ 2 * PAGE_SIZE - 8, "crossing a page" },
		{ PAGE_SIZE - 16, "crossing a page (wall clock too)" },
	};
	static const ulong outside[] = { 0xfee00000ul, 0xfec00000ul, 0xf0000000ul, 1ul << 40,
					 ~0ul & ~0xffful };
	ulong mark = checks_failed;

	for (unsigned i = 0; i < 3; i++) {
		fill();
		int v = ATTEMPT("wrmsr", "c"(MSR_TIME),
				"a"((uint32_t)((ulong)pages + in_ram[i].off) | 1),
				"d"((uint32_t)(((ulong)pages + in_ram[i].off) >> 32)));
		CHECK(v == NO_FAULT, "time at %s: %s", in_ram[i].what, vec_name(v));
		v = ATTEMPT("wrmsr", "c"(MSR_WALL), "a"((uint32_t)((ulong)pages + in_ram[i].off)),
			    "d"((uint32_t)(((ulong)pages + in_ram[i].off) >> 32)));
		CHECK(v == NO_FAULT, "wall clock at %s: %s", in_ram[i].what, vec_name(v));
		CHECK(untouched() == sizeof(pages) ||
			      (in_ram[i].off % 8 == 0 &&
			       (in_ram[i].off % PAGE_SIZE) + 12 <= PAGE_SIZE),
		      "%s: %u bytes written", in_ram[i].what,
		      (unsigned)(sizeof(pages) - untouched()));
	}
	fill();
	for (unsigned i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
		int v = ATTEMPT("wrmsr", "c"(MSR_TIME), "a"((uint32_t)outside[i] | 1),
				"d"((uint32_t)(outside[i] >> 32)));
		CHECK(v == NO_FAULT, "time at %lx: %s", outside[i], vec_name(v));
		v = ATTEMPT("wrmsr", "c"(MSR_WALL), "a"((uint32_t)outside[i]),
			    "d"((uint32_t)(outside[i] >> 32)));
		CHECK(v == NO_FAULT, "wall clock at %lx: %s", outside[i], vec_name(v));
		CHECK(rdmsr(MSR_TIME) == (outside[i] | 1), "rdmsr after %lx", outside[i]);
	}
	CHECK(untouched() == sizeof(pages), "RAM changed by records aimed outside it");
	wrmsr(MSR_TIME, 0);
	case_end(
		"bad-addresses (accepted, nothing written: misaligned, page-crossing, MMIO, beyond RAM)",
		mark);
}

static void wall_clock(void)
{
	ulong mark = checks_failed;
	volatile uint32_t *w = (volatile uint32_t *)pages[2];
	fill();
	wrmsr(MSR_WALL, (ulong)w);
	CHECK(w[0] && !(w[0] & 1), "version %u", w[0]);
	CHECK(w[1] >= 1798761600u - 3600 && w[1] < 1798761600u + 3600 && w[2] < 1000000000u,
	      "boot time %u.%09u: around 2027-01-01, the RTC's", w[1], w[2]);
	case_end("wall-clock (the RTC's date, at system time 0)", mark);
}

/* TSC_ADJUST moves the TSC; a TSC write moves TSC_ADJUST by the same amount (SDM 17.17.3). */
static void tsc_adjust(void)
{
	ulong mark = checks_failed;
	const uint64_t jump = 1000000000000ull;
	uint64_t a0 = rdmsr(MSR_TSC_ADJUST), t0 = read_tsc();
	wrmsr(MSR_TSC_ADJUST, a0 + jump);
	uint64_t t1 = read_tsc();
	CHECK(t1 - t0 >= jump && t1 - t0 < jump + 10000000000ull, "TSC moved by %lu",
	      (ulong)(t1 - t0));
	CHECK(rdmsr(MSR_TSC_ADJUST) == a0 + jump, "TSC_ADJUST reads %lx",
	      (ulong)rdmsr(MSR_TSC_ADJUST));
	wrmsr(MSR_TSC, read_tsc() - jump);
	/* Back by jump less the cycles between the read and the write: a little below a0. */
	int64_t a1 = (int64_t)(rdmsr(MSR_TSC_ADJUST) - a0);
	CHECK(a1 <= 0 && a1 > -10000000000ll, "after the TSC write back, TSC_ADJUST is a0 %+ld",
	      (long)a1);
	/* Linux reads 0xc0010055 unguarded on AMD's CPUs (erratum 400); Intel's have no such MSR,
	 * nor does Umbra announcing Intel (#GP). Natively, TCG reads 0 on any vendor. */
	uint32_t lo = 0, hi = 0;
	ulong n = fault_count;
	asm volatile(ATK_RECOVER "rdmsr\n1:"
		     : "+a"(lo), "+d"(hi)
		     : "c"(MSR_AMD_INT_PENDING)
		     : "memory");
	int vec = fault_since(n);
	if (cpu.amd || !on_umbra)
		CHECK(vec == NO_FAULT && !lo && !hi, "0xc0010055: vector %d, reads %x:%x", vec, hi,
		      lo);
	else
		CHECK(vec == 13, "0xc0010055 on Intel: vector %d, expected #GP", vec);
	case_end("tsc-adjust (paired with TSC writes; 0xc0010055 reads 0 on AMD, #GP on Intel)",
		 mark);
}

/* IA32_TSC_DEADLINE fires once the TSC reaches it, compared numerically as the CPU does: at
 * or below the TSC at once, however near the TSC is to its wrap (before: with the TSC 10 s
 * short of 2^64, a deadline of 0x10 came 10 s late, when the TSC had wrapped and reached it);
 * far above, not at all. The timer through x2APIC (this guest maps no APIC page); 1 s stands
 * for "at once" against the 10 s the wrong conversion took. */
#define MSR_TSC_DEADLINE 0x6e0u
#define MSR_APIC_BASE 0x1bu
#define X2APIC_EOI 0x80bu
#define X2APIC_LVT_TIMER 0x832u
#define VEC_DEADLINE 0x40
static volatile uint32_t deadline_irqs;

static void on_deadline(struct frame *f)
{
	(void)f;
	deadline_irqs++;
	wrmsr(X2APIC_EOI, 0);
}

static int deadline_fires(uint64_t deadline, ulong ms)
{
	deadline_irqs = 0;
	wrmsr(MSR_TSC_DEADLINE, deadline);
	int fired = POLL_IRQ_UNTIL(deadline_irqs, ms);
	wrmsr(MSR_TSC_DEADLINE, 0);
	return fired;
}

static void tsc_deadline(void)
{
	ulong mark = checks_failed;

	if (!(cpuid(1, 0).c & (1u << 24))) {
		skip_note("tsc-deadline (no TSC-deadline timer announced)");
		return;
	}
	set_irq_handler(VEC_DEADLINE, on_deadline);
	pic_remap(0x20, 0x28);
	wrmsr(MSR_APIC_BASE, rdmsr(MSR_APIC_BASE) | (1u << 10)); /* x2APIC */
	wrmsr(X2APIC_LVT_TIMER, (2u << 17) | VEC_DEADLINE);	 /* TSC-deadline mode */
	CHECK(!deadline_fires(read_tsc() + (1ull << 62), 50), "a deadline 2^62 ahead fired");
	CHECK(deadline_fires(read_tsc(), 1000), "a deadline at the TSC did not fire");
	CHECK(deadline_fires(read_tsc() - 1000, 1000), "a deadline below the TSC did not fire");
	CHECK(deadline_fires(1, 1000), "a deadline of 1 did not fire");
	uint64_t t0 = read_tsc(), wrap = 0 - 10000 * (uint64_t)tsc_per_ms();
	wrmsr(MSR_TSC, wrap);
	CHECK(deadline_fires(read_tsc(), 1000), "at the TSC near its wrap: did not fire");
	CHECK(deadline_fires(read_tsc() - 1000, 1000), "below the TSC near its wrap: did not fire");
	CHECK(deadline_fires(0x10, 1000), "0x10, with the TSC 10 s short of 2^64: not at once");
	CHECK(!deadline_fires(~0ull, 50), "2^64-1, 10 s ahead of the TSC: fired");
	uint64_t spent = read_tsc() - wrap;
	wrmsr(MSR_TSC, t0 + spent);
	wrmsr(X2APIC_LVT_TIMER, 1u << 16);
	case_end("tsc-deadline (at, below, far above, and across the TSC's wrap)", mark);
}

/* KVM's PV EOI (MSR 0x4b564d04): bit 1 set, or a flag word not wholly in RAM, is #GP and
 * changes nothing; a good word is taken. Then the TSC-deadline timer's interrupt is EOIed by
 * clearing the flag whenever Umbra has set it, and each next deadline must still arrive (a
 * lazy EOI Umbra missed would leave the vector in service and block it). */
#define MSR_PV_EOI 0x4b564d04u
static volatile uint32_t *pv_flag;
static volatile uint32_t lazy_eois;

static void on_deadline_pv(struct frame *f)
{
	(void)f;
	deadline_irqs++;
	if (__atomic_fetch_and(pv_flag, ~1u, __ATOMIC_SEQ_CST) & 1)
		lazy_eois++;
	else
		wrmsr(X2APIC_EOI, 0);
}

static void pv_eoi(void)
{
	static const ulong outside[] = { 0xfee00000ul, 0xfec00000ul, 1ul << 40, ~0ul & ~0xffful };
	ulong mark = checks_failed;

	fill();
	pv_flag = (volatile uint32_t *)pages[1];
	int v = ATTEMPT("wrmsr", "c"(MSR_PV_EOI), "a"((uint32_t)(ulong)pv_flag | 3),
			"d"((uint32_t)((ulong)pv_flag >> 32)));
	CHECK(v == 13, "bit 1 set: %s, expected #GP", vec_name(v));
	for (unsigned i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
		v = ATTEMPT("wrmsr", "c"(MSR_PV_EOI), "a"((uint32_t)outside[i] | 1),
			    "d"((uint32_t)(outside[i] >> 32)));
		CHECK(v == 13, "flag at %lx: %s, expected #GP", outside[i], vec_name(v));
	}
	CHECK(rdmsr(MSR_PV_EOI) == 0, "refused writes left %lx", (ulong)rdmsr(MSR_PV_EOI));
	CHECK(untouched() == sizeof(pages), "RAM changed by refused flag addresses");
	*pv_flag = 0;
	wrmsr(MSR_PV_EOI, (ulong)pv_flag | 1);
	CHECK(rdmsr(MSR_PV_EOI) == ((ulong)pv_flag | 1), "rdmsr gives back %lx",
	      (ulong)rdmsr(MSR_PV_EOI));
	if (cpuid(1, 0).c & (1u << 24)) {
		set_irq_handler(VEC_DEADLINE, on_deadline_pv);
		wrmsr(X2APIC_LVT_TIMER, (2u << 17) | VEC_DEADLINE);
		lazy_eois = 0;
		unsigned fired = 0;
		for (int i = 0; i < 8; i++)
			fired += (unsigned)deadline_fires(read_tsc(), 1000);
		CHECK(fired == 8, "%u of 8 deadlines arrived", fired);
		CHECK(lazy_eois > 0, "no interrupt came with the flag set (%u lazy EOIs)",
		      lazy_eois);
		wrmsr(X2APIC_LVT_TIMER, 1u << 16);
		kprintf("pv-eoi: %u of 8 interrupts EOIed by the flag\n", lazy_eois);
	}
	wrmsr(MSR_PV_EOI, 0);
	CHECK(untouched_but(PAGE_SIZE, 4) == sizeof(pages) - 4, "bytes beside the flag changed");
	case_end(
		"pv-eoi (bit 1 and words outside RAM #GP; EOI by the flag, every deadline arrives)",
		mark);
}

void test_main(void)
{
	if (!on_umbra) {
		skip_note("the KVM clock, TSC_ADJUST and 0xc0010055 (Umbra's)");
		kprintf("cases: clock\n");
		return;
	}
	leaves();
	good_record();
	bad_addresses();
	wall_clock();
	tsc_adjust();
	tsc_deadline();
	pv_eoi();
	kprintf("cases: clock\n");
}
