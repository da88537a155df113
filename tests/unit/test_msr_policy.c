/* SPDX-License-Identifier: GPL-2.0-only */
/* Audit of the MSR policy against the CPUID policy on made-up Intel and AMD CPUs: an MSR exists exactly when what it needs is announced. */
#include <string.h>

#include "tests/unit/harness.h"
#include "vmm/cpuid.h"
#include "vmm/kvmclock.h"
#include "vmm/msr.h"
#include "vmm/pv_eoi.h"
#include "vmm/vcpu.h"

/* What vmm/msr.c reaches beyond the policy: TSC offset, EFER, clocks. */
static u64 tsc_offset_set;
static void set_tsc_offset(struct vcpu_hw *hw, u64 off)
{
	(void)hw;
	tsc_offset_set = off;
}
static const struct virt_backend fake_virt = { .set_tsc_offset = set_tsc_offset };
const struct virt_backend *virt = &fake_virt;
u64 tsc_hz = 1000000000;
bool vcpu_set_efer(struct vcpu *v, u64 val)
{
	v->hw.regs.efer = val;
	return true;
}
u64 monotonic_ns(void)
{
	return 0;
}
u64 tsc_to_monotonic_ns(u64 tsc)
{
	return tsc;
}
u64 tsc_to_ns(u64 ticks)
{
	return (u64)((unsigned __int128)ticks * 1000000000u / tsc_hz);
}
u64 ns_to_tsc(u64 ns)
{
	return (u64)((unsigned __int128)ns * tsc_hz / 1000000000u);
}
void *memslots_ptr(const struct memslots *m, u64 gpa, u64 len)
{
	(void)m;
	(void)gpa;
	(void)len;
	return NULL;
}
int mmu_write(struct mmu_vm *vm, u64 gpa, unsigned len, u64 value)
{
	(void)vm;
	(void)gpa;
	(void)len;
	(void)value;
	return -1;
}

/* ---- made-up CPUs: the raw leaves cpuid_policy_init sees ---- */

enum { EAX, EBX, ECX, EDX };
#define F(reg, bit) \
	{ \
		reg, bit \
	}
#define EDX1_TSC 4
#define EDX1_APIC 9
#define EDX1_MTRR 12
#define EDX1_MCA 14
#define EDX1_PAT 16
#define E1_EDX_RDTSCP 27
#define E1_EDX_LM 29

static struct {
	u32 vendor_ebx;
	u32 l1_ecx, l1_edx, l7_ebx, e1_edx;
} cpu;

static struct cpuid_regs fake_cpuid(u32 leaf, u32 sub)
{
	(void)sub;
	switch (leaf) {
	case 0:
		return (struct cpuid_regs){ 7, cpu.vendor_ebx, 0, 0 };
	case 1:
		return (struct cpuid_regs){ 0x000806c1, 0, cpu.l1_ecx, cpu.l1_edx };
	case 7:
		return (struct cpuid_regs){ 0, cpu.l7_ebx, 0, 0 };
	case 0x80000000:
		return (struct cpuid_regs){ 0x80000008, 0, 0, 0 };
	case 0x80000001:
		return (struct cpuid_regs){ 0, 0, 0, cpu.e1_edx };
	case 0x80000008:
		return (struct cpuid_regs){ 39, 0, 0, 0 };
	default:
		return (struct cpuid_regs){ 0, 0, 0, 0 };
	}
}

#define INTEL 0x756e6547u /* "Genu" */
#define AMD 0x68747541u	  /* "Auth" */
#define HYGON 0x6f677948u /* "Hygo": AMD's MSRs too */
#define ALL_EDX1 (BIT(EDX1_TSC) | BIT(EDX1_APIC) | BIT(EDX1_MTRR) | BIT(EDX1_MCA) | BIT(EDX1_PAT))
#define ALL_E1 (BIT(E1_EDX_RDTSCP) | BIT(E1_EDX_LM) | BIT(20))

static struct vm vm;
static struct vcpu vcpu;

static struct vcpu *boot(u32 vendor, u32 l1_edx, u32 e1_edx, u32 l1_ecx)
{
	cpu.vendor_ebx = vendor;
	cpu.l1_ecx = l1_ecx;
	cpu.l1_edx = l1_edx;
	cpu.l7_ebx = ~0u;
	cpu.e1_edx = e1_edx;
	cpuid_policy_init(&vm.cpuid, fake_cpuid);
	memset(&vcpu, 0, sizeof(vcpu));
	vcpu.vm = &vm;
	vcpu.hw.pat = PAT_RESET;
	vlapic_reset(&vcpu.vlapic, 0, true);
	return &vcpu;
}

static bool announced(struct vcpu *v, u32 leaf, int reg, int bit)
{
	u32 r[4];

	cpuid_guest(v, leaf, 0, r);
	return (r[reg] >> bit) & 1;
}

/* The SDM's rules for a write that changes bits, written from the manual (not from vmm/msr.c):
 * whether the CPU takes new over old. NULL in a fact: only writing back the value read is
 * audited (EFER has its own tests; AMD's inert counters take anything). */
typedef bool (*write_rule)(u64 old, u64 val);

static bool any_value(u64 old, u64 val)
{
	(void)old;
	(void)val;
	return true;
}
static bool only_zero(u64 old, u64 val)
{
	(void)old;
	return val == 0;
}
static bool low_half(u64 old, u64 val)
{
	(void)old;
	return !(val >> 32);
}
static bool debugctl_ok(u64 old, u64 val)
{
	(void)old;
	return !(val & ~3ull);
} /* LBR, BTF */

/* A memory type an MTRR or the PAT may hold: UC, WC, WT, WP, WB (and UC- in the PAT). */
static bool mem_type_ok(u64 t, bool pat)
{
	return t == 0 || t == 1 || t == 4 || t == 5 || t == 6 || (pat && t == 7);
}

static bool pat_ok(u64 old, u64 val)
{
	(void)old;
	for (int i = 0; i < 8; i++)
		if (!mem_type_ok(val >> (i * 8) & 0xff, true))
			return false;
	return true;
}

/* Type in bits 7:0, fixed-range enable 10, enable 11; the rest reserved. */
static bool mtrr_def_type_ok(u64 old, u64 val)
{
	(void)old;
	return !(val & ~0xcffull) && mem_type_ok(val & 0xff, false);
}

/* The base (bits 12 to MAXPHYADDR-1, 39 on the made-up CPUs), BSP 8, x2APIC 10 and enable 11;
 * the rest reserved. x2APIC needs enable, is entered from xAPIC only and left only to
 * disabled (SDM 10.12.5). */
#define APIC_EN BIT(11)
#define APIC_EXTD BIT(10)
static bool apic_base_ok(u64 old, u64 val)
{
	u64 from = old & (APIC_EN | APIC_EXTD), to = val & (APIC_EN | APIC_EXTD);

	if (val & ~((BIT(39) - 1) & ~0xfffull) & ~(BIT(8) | APIC_EXTD | APIC_EN))
		return false;
	if (to == APIC_EXTD)
		return false;
	if (to == (APIC_EN | APIC_EXTD))
		return from != 0;
	return to != APIC_EN || from != (APIC_EN | APIC_EXTD);
}

/* Intel's writable bits: fast strings 0, TCC 3, EIST 16, MONITOR FSM 18, limit CPUID 22,
 * xTPR disable 23, XD disable 34 (where NX exists); the read-only 7, 11, 12 take any value
 * and keep theirs; everything else is reserved. */
#define MISC_RO (BIT(7) | BIT(11) | BIT(12))
static bool misc_enable_ok(u64 old, u64 val);

/*
 * The SDM's (and AMD's APM's) rule for each MSR Umbra models, written here independently of
 * vmm/msr.c's table on purpose: the audit compares the two. vendor: 0 any, else leaf 0 EBX.
 * ro: a write #GPs even with the value just read. write: the rule for changed bits; ignored:
 * bits a write may change that keep their value; clock: reads move on by themselves.
 */
/* clang-format off */
static const struct fact {
	u32 first, last;
	const char *name;
	u32 leaf;
	int reg, bit; /* bit < 0: needs only the vendor */
	u32 vendor;
	bool ro;
	write_rule write;
	u64 ignored;
	bool clock;
} facts[] = {
	{ 0x10, 0x10, "TSC", 1, EDX, EDX1_TSC, 0, false, any_value, 0, true },
	{ 0x1b, 0x1b, "APIC_BASE", 0, 0, -1, 0, false, apic_base_ok, 0, false },
	{ 0x3b, 0x3b, "TSC_ADJUST", 7, EBX, 1, 0, false, any_value, 0, false },
	{ 0xfe, 0xfe, "MTRRCAP", 1, EDX, EDX1_MTRR, 0, true, NULL, 0, false },
	{ 0x179, 0x179, "MCG_CAP", 1, EDX, EDX1_MCA, 0, true, NULL, 0, false },
	{ 0x17a, 0x17a, "MCG_STATUS", 1, EDX, EDX1_MCA, 0, false, only_zero, 0, false },
	/* architectural since the P6 and K7 */
	{ 0x1d9, 0x1d9, "DEBUGCTL", 0, 0, -1, 0, false, debugctl_ok, 0, false },
	{ 0x1a0, 0x1a0, "MISC_ENABLE", 0, 0, -1, INTEL, false, misc_enable_ok, MISC_RO, false },
	{ 0x277, 0x277, "PAT", 1, EDX, EDX1_PAT, 0, false, pat_ok, 0, false },
	{ 0x2ff, 0x2ff, "MTRR_DEF_TYPE", 1, EDX, EDX1_MTRR, 0, false, mtrr_def_type_ok, 0, false },
	{ 0x6e0, 0x6e0, "TSC_DEADLINE", 1, ECX, 24, 0, false, NULL, 0, false },
	{ MSR_KVM_WALL_CLOCK_NEW, MSR_KVM_SYSTEM_TIME_NEW, "KVM clock", KVM_CPUID_FEATURES, EAX, 3, 0, false, NULL, 0, false },
	{ MSR_KVM_PV_EOI_EN, MSR_KVM_PV_EOI_EN, "KVM PV EOI", KVM_CPUID_FEATURES, EAX, 6, 0, false, NULL, 0, false },
	{ 0xc0000080, 0xc0000080, "EFER", 0x80000001, EDX, E1_EDX_LM, 0, false, NULL, 0, false },
	{ 0xc0000103, 0xc0000103, "TSC_AUX", 0x80000001, EDX, E1_EDX_RDTSCP, 0, false, low_half, 0, false },
	{ 0xc0010000, 0xc0010007, "K7 PERF", 0, 0, -1, AMD, false, NULL, 0, false },
	{ 0xc0010055, 0xc0010055, "INT_PENDING", 0, 0, -1, AMD, false, NULL, 0, false },
};
/* clang-format on */

static bool misc_enable_ok(u64 old, u64 val)
{
	u64 rw = BIT(0) | BIT(3) | BIT(16) | BIT(18) | BIT(22) | BIT(23) |
		 (cpu.e1_edx & BIT(20) ? BIT(34) : 0);
	return !((old ^ val) & ~(rw | MISC_RO));
}

static const struct fact *fact_for(u32 msr)
{
	for (unsigned i = 0; i < ARRAY_SIZE(facts); i++)
		if (msr >= facts[i].first && msr <= facts[i].last)
			return &facts[i];
	return NULL;
}

static bool should_exist(struct vcpu *v, const struct fact *f)
{
	u32 vendor = cpu.vendor_ebx == HYGON ? AMD : cpu.vendor_ebx;

	if (!f || (f->vendor && f->vendor != vendor))
		return false;
	return f->bit < 0 || announced(v, f->leaf, f->reg, f->bit);
}

/* Every index in the ranges kernels probe: reads succeed exactly where the facts say, and
 * writing back what was read succeeds exactly where the MSR exists and is writable. */
static void sweep(struct vcpu *v, const char *what)
{
	static const u32 ranges[][2] = {
		{ 0, 0x7ff },
		{ 0x900, 0x1fff },
		{ 0x4b564d00, 0x4b564dff },
		{ 0xc0000000, 0xc0000fff },
		{ 0xc0010000, 0xc0010fff },
	};

	for (unsigned r = 0; r < ARRAY_SIZE(ranges); r++)
		for (u32 msr = ranges[r][0]; msr <= ranges[r][1]; msr++) {
			const struct fact *f = fact_for(msr);
			bool want = should_exist(v, f);
			u64 val = 0;

			if (msr_read(v, msr, &val) != want)
				fail_msg("%s: rdmsr %#x (%s) %s, expected %s", what, msr,
					 f ? f->name : "unknown", want ? "#GP" : "succeeded",
					 want ? "success" : "#GP");
			/* The KVM clock's and PV EOI's writes reach guest memory: their own tests cover
			 * them. */
			if (f && f->leaf == KVM_CPUID_FEATURES)
				continue;
			if (msr_write(v, msr, val) != (want && !f->ro))
				fail_msg("%s: wrmsr %#x (%s) with the value read: wrong answer",
					 what, msr, f ? f->name : "unknown");
		}
}

/* Reads the MSR into *old; its value with bit b flipped. */
static u64 old_value_flipped(struct vcpu *v, const struct fact *f, int b, u64 *old)
{
	assert_true(msr_read(v, f->first, old));
	return *old ^ BIT(b);
}

/* Each bit of each MSR that has a write rule, flipped from the value read: the write is
 * taken exactly when the rule says, reads back as written (but the ignored bits), and the
 * value read before is restored. */
static void sweep_writes(struct vcpu *v, const char *what)
{
	for (unsigned i = 0; i < ARRAY_SIZE(facts); i++) {
		const struct fact *f = &facts[i];
		u64 old, val;

		if (!f->write || !should_exist(v, f))
			continue;
		for (int b = 0; b < 64; b++) {
			u64 want = old_value_flipped(v, f, b, &old);
			bool ok = f->write(old, want);
			if (msr_write(v, f->first, want) != ok)
				fail_msg(
					"%s: wrmsr %#x (%s) bit %d flipped from %#llx: %s, expected %s",
					what, f->first, f->name, b, (unsigned long long)old,
					ok ? "#GP" : "taken", ok ? "taken" : "#GP");
			assert_true(msr_read(v, f->first, &val));
			u64 expect = ok ? (want & ~f->ignored) | (old & f->ignored) : old;
			if (!f->clock && val != expect)
				fail_msg("%s: %s reads %#llx after writing %#llx, expected %#llx",
					 what, f->name, (unsigned long long)val,
					 (unsigned long long)want, (unsigned long long)expect);
			/* The APIC's way back from x2APIC goes through disabled. */
			if (ok && !f->write(want, old))
				assert_true(msr_write(v, f->first, old & ~(APIC_EN | APIC_EXTD)));
			if (ok && !msr_write(v, f->first, old))
				fail_msg("%s: %s: the value read (%#llx) not taken back", what,
					 f->name, (unsigned long long)old);
		}
	}
}

static void test_intel(void **state)
{
	(void)state;
	sweep(boot(INTEL, ALL_EDX1, ALL_E1, 0), "intel, everything");
	sweep_writes(boot(INTEL, ALL_EDX1, ALL_E1, 0), "intel, everything");
	sweep_writes(boot(INTEL, ALL_EDX1, ALL_E1 & ~BIT(20), BIT(3) | BIT(7) | BIT(14)),
		     "intel, no NX, MONITOR/EIST/xTPR on the host");
}

static void test_amd(void **state)
{
	(void)state;
	sweep(boot(AMD, ALL_EDX1, ALL_E1, 0), "amd, everything");
	sweep_writes(boot(AMD, ALL_EDX1, ALL_E1, 0), "amd, everything");
}

/* A CPU without the features: their MSRs must go with them. */
static void test_features_missing(void **state)
{
	(void)state;
	sweep(boot(INTEL, BIT(EDX1_TSC) | BIT(EDX1_APIC), BIT(E1_EDX_LM), 0),
	      "intel, no MTRR/MCA/PAT/RDTSCP");
	sweep_writes(boot(INTEL, BIT(EDX1_TSC) | BIT(EDX1_APIC), BIT(E1_EDX_LM), 0),
		     "intel, no MTRR/MCA/PAT/RDTSCP");
	sweep(boot(AMD, BIT(EDX1_APIC), BIT(E1_EDX_LM), 0), "amd, no TSC/MTRR/MCA/PAT/RDTSCP");
	sweep_writes(boot(AMD, BIT(EDX1_APIC), BIT(E1_EDX_LM), 0),
		     "amd, no TSC/MTRR/MCA/PAT/RDTSCP");
	sweep(boot(HYGON, ALL_EDX1, ALL_E1, 0), "hygon");
	sweep(boot(0x746e6543u /* Centaur */, ALL_EDX1, ALL_E1, 0), "centaur");
}

/* x2APIC registers exist while the APIC is in x2APIC mode, which CPUID always announces. */
static void test_x2apic(void **state)
{
	struct vcpu *v = boot(INTEL, ALL_EDX1, ALL_E1, 0);
	u64 val;

	(void)state;
	assert_true(announced(v, 1, ECX, 21));
	assert_false(msr_read(v, 0x802, &val)); /* xAPIC mode */
	assert_true(msr_write(v, 0x1b, APIC_DEFAULT_BASE | BIT(8) | BIT(11) | BIT(10)));
	assert_true(msr_read(v, 0x802, &val));
	assert_int_equal(val, 0);
}

/* CPUID.1:EDX.APIC follows IA32_APIC_BASE's global enable; the MSR itself stays, so the APIC
 * can be enabled again, while its x2APIC registers go. */
static void test_apic_bit_follows_enable(void **state)
{
	struct vcpu *v = boot(INTEL, ALL_EDX1, ALL_E1, 0);
	u64 base, val;

	(void)state;
	assert_true(announced(v, 1, EDX, EDX1_APIC));
	assert_true(msr_read(v, 0x1b, &base));
	assert_true(msr_write(v, 0x1b, base & ~BIT(11)));
	assert_false(announced(v, 1, EDX, EDX1_APIC));
	assert_true(announced(v, 1, EDX, EDX1_TSC)); /* nothing else goes */
	assert_true(msr_read(v, 0x1b, &val));
	assert_int_equal(val, base & ~BIT(11));
	assert_false(msr_read(v, 0x802, &val));
	assert_true(msr_write(v, 0x1b, base));
	assert_true(announced(v, 1, EDX, EDX1_APIC));
}

/* IA32_MISC_ENABLE: the SDM's bits as the announced CPU has them; reserved bits #GP; the
 * CPUID limit, the MONITOR FSM and XD disable change CPUID (and EFER.NXE) as on the CPU. */
static void test_misc_enable(void **state)
{
	struct vcpu *v = boot(INTEL, ALL_EDX1, ALL_E1, BIT(3) /* the host has MONITOR */);
	const u64 base = BIT(0) | BIT(11) | BIT(12);
	u64 val;
	u32 r[4];

	(void)state;
	assert_true(msr_read(v, 0x1a0, &val));
	/* Fast strings, BTS and PEBS unavailable; no PMU and MONITOR are announced (leaf 0xA is
	 * zero, MONITOR is hidden), so bits 7 and 18 are clear; CPUID limit and XD disable off. */
	assert_int_equal(val, base);
	assert_false(announced(v, 1, ECX, 3));
	assert_true(msr_write(v, 0x1a0, val));
	assert_true(msr_write(v, 0x1a0, val ^ BIT(7) ^ BIT(11))); /* read-only: ignored */
	assert_true(msr_read(v, 0x1a0, &val));
	assert_int_equal(val, base);
	assert_false(msr_write(v, 0x1a0, val | BIT(1)));  /* reserved */
	assert_false(msr_write(v, 0x1a0, val | BIT(63))); /* reserved */
	assert_false(msr_write(v, 0x1a0, val | BIT(2)));  /* reserved: #GP, nothing kept */
	assert_true(msr_read(v, 0x1a0, &val));
	assert_int_equal(val, base);

	/* Every writable bit at once, as a kernel writing back a changed value does: kept per
	 * vCPU and read back. */
	u64 all = (base ^ BIT(0)) | BIT(3) | BIT(16) | BIT(18) | BIT(22) | BIT(23) | BIT(34);
	assert_true(msr_write(v, 0x1a0, all));
	assert_true(msr_read(v, 0x1a0, &val));
	assert_int_equal(val, all);
	/* The limit caps leaf 0 at 2; XD disable hides NX and refuses EFER.NXE; MONITOR stays
	 * hidden (Umbra has no MWAIT model) though its FSM bit is set. */
	cpuid_guest(v, 0, 0, r);
	assert_int_equal(r[EAX], 2);
	assert_false(announced(v, 0x80000001, EDX, 20));
	assert_false(cpuid_guest_nx(v));
	assert_false(announced(v, 1, ECX, 3));
	assert_true(msr_write(v, 0x1a0, base));
	cpuid_guest(v, 0, 0, r);
	assert_int_equal(r[EAX], 7);
	assert_true(announced(v, 0x80000001, EDX, 20));
	assert_true(cpuid_guest_nx(v));

	/* Without NX on the host XD disable is reserved. */
	v = boot(INTEL, ALL_EDX1, ALL_E1 & ~BIT(20), 0);
	assert_false(msr_write(v, 0x1a0, base | BIT(34)));
	assert_true(msr_write(v, 0x1a0, base | BIT(16) | BIT(23)));

	v = boot(AMD, ALL_EDX1, ALL_E1, 0);
	assert_false(msr_read(v, 0x1a0, &val));
	assert_false(msr_write(v, 0x1a0, base));
	assert_false(msr_write(v, 0x1a0, base | BIT(22)));
	assert_true(announced(v, 0x80000001, EDX, 20));
}

/* IA32_DEBUGCTL: on every CPU, LBR and BTF kept for the backends to load, the rest #GP. */
static void test_debugctl(void **state)
{
	u64 val = 1;

	(void)state;
	for (int amd = 0; amd < 2; amd++) {
		struct vcpu *v = boot(amd ? AMD : INTEL, ALL_EDX1, ALL_E1, 0);
		assert_true(msr_read(v, 0x1d9, &val));
		assert_int_equal(val, 0);
		assert_true(msr_write(v, 0x1d9, BIT(0) | BIT(1)));
		assert_int_equal(v->hw.debugctl, BIT(0) | BIT(1));
		assert_true(msr_read(v, 0x1d9, &val));
		assert_int_equal(val, BIT(0) | BIT(1));
		assert_false(msr_write(v, 0x1d9, BIT(6)));  /* trace messages: no debug store */
		assert_false(msr_write(v, 0x1d9, BIT(7)));  /* BTS: unavailable */
		assert_false(msr_write(v, 0x1d9, BIT(12))); /* freeze perfmon: no PMU */
		assert_false(msr_write(v, 0x1d9, BIT(2)));  /* reserved */
		assert_int_equal(v->hw.debugctl, BIT(0) | BIT(1));
	}
}

/* IA32_TSC_DEADLINE compared in the guest's TSC: at or below it fires now, near and across
 * the wrap too (before: a deadline below a guest TSC 13M ticks short of 2^64 fired 13M ticks
 * late, the difference taken in host TSC having wrapped), far above never overflows. */
static void test_tsc_deadline(void **state)
{
	const u64 now = 5000000000ull, wrap = ~0ull - 13000000;
	const u64 hz[] = { 1000000000ull, 50000000ull, 4000000000ull };

	(void)state;
	for (unsigned i = 0; i < sizeof(hz) / sizeof(hz[0]); i++) {
		tsc_hz = hz[i];
		assert_int_equal(msr_tsc_deadline_ns(1000, 1000, now), now);	 /* at */
		assert_int_equal(msr_tsc_deadline_ns(1, 1000, now), now);	 /* below */
		assert_int_equal(msr_tsc_deadline_ns(wrap, wrap, now), now);	 /* at, near wrap */
		assert_int_equal(msr_tsc_deadline_ns(wrap - 1, wrap, now), now); /* below, near */
		/* Across the wrap: the CPU compares numerically, so a deadline past 2^64 (0x10)
		 * is below a TSC short of it and due now, as on hardware. */
		assert_int_equal(msr_tsc_deadline_ns(0x10, wrap, now), now);
		assert_int_equal(msr_tsc_deadline_ns(1, 0x10, now), now); /* across: past */
		u64 soon =
			msr_tsc_deadline_ns(wrap - tsc_hz, wrap - 2 * tsc_hz, now); /* 1 s ahead */
		assert_true(soon > now + 999999990ull && soon <= now + 1000000001ull);
		u64 far = msr_tsc_deadline_ns(~0ull, 0, now); /* far above */
		assert_true(far > now && far <= now + (1ull << 60) + 1);
	}
	tsc_hz = 1000000000ull;
	/* Through the MSR: the guest's TSC written to just below the wrap, then deadlines below
	 * it are due at once (the model's clock is the host TSC here); 0x10, numerically below,
	 * came 13M ticks late before. */
	struct vcpu *v = boot(INTEL, ALL_EDX1, ALL_E1, BIT(24));
	v->vlapic.lvt[1] = (2u << 17) | 0x40; /* LVT timer: TSC-deadline mode, vector 0x40 */
	assert_true(msr_write(v, 0x10, wrap));
	const u64 below[] = { wrap - 1000, 0x10, 1 };
	for (unsigned i = 0; i < sizeof(below) / sizeof(below[0]); i++) {
		assert_true(msr_write(v, 0x6e0, below[i]));
		u64 at = vlapic_next_event_ns(&v->vlapic);
		assert_true(at != 0 && at <= rdtsc());
	}
	assert_true(msr_write(v, 0x6e0, ~0ull));
	assert_true(vlapic_next_event_ns(&v->vlapic) > rdtsc() + 10000000ull);
}

/* Each guest holds its own policy: building another (a second guest, another CPU) leaves the
 * first's vendor, NX, Page1GB, MAXPHYADDR and allowed CR4 bits as they were. */
static void test_policy_per_guest(void **state)
{
	struct cpuid_policy a, b;

	(void)state;
	cpu = (typeof(cpu)){ .vendor_ebx = INTEL, .l1_edx = ~0u, .l7_ebx = ~0u, .e1_edx = ~0u };
	cpuid_policy_init(&a, fake_cpuid);
	cpu = (typeof(cpu)){ .vendor_ebx = AMD };
	cpuid_policy_init(&b, fake_cpuid);
	assert_true(cpuid_vendor_intel(&a) && !cpuid_vendor_amd(&a));
	assert_true(cpuid_vendor_amd(&b) && !cpuid_vendor_intel(&b));
	assert_true(cpuid_has_nx(&a) && cpuid_has_1g(&a));
	assert_false(cpuid_has_nx(&b) || cpuid_has_1g(&b));
	assert_true(cpuid_cr4_allowed(&a) & CR4_SMEP);
	assert_false(cpuid_cr4_allowed(&b) & CR4_SMEP);
	assert_int_equal(cpuid_maxphyaddr(&a), 39);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel),	     cmocka_unit_test(test_policy_per_guest),
		cmocka_unit_test(test_amd),	     cmocka_unit_test(test_features_missing),
		cmocka_unit_test(test_x2apic),	     cmocka_unit_test(test_misc_enable),
		cmocka_unit_test(test_debugctl),     cmocka_unit_test(test_apic_bit_follows_enable),
		cmocka_unit_test(test_tsc_deadline),
	};

	return cmocka_run_group_tests_name("unit-msr-policy", tests, NULL, NULL);
}
