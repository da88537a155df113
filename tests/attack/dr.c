/* SPDX-License-Identifier: GPL-2.0-only */
/* Attack guest (dr): debug registers must be per guest, and MOV DR must fault as on hardware. */
/* Two copies of this image share a CPU (names ending in different letters). Each writes its
 * own values into DR0-DR3, DR6's B0-B3 and DR7, lets the other run (YIELD, or a slice's end),
 * and must read back its own values: a hypervisor that leaves DR0-DR3 (in neither the VMCB nor
 * the VMCS) or DR6 (not in the VMCS) on the CPU hands one guest's breakpoints to the other. */
#include "tests/attack/attack.h"

const char guest_name[] = GUEST_NAME;

#define ROUNDS 6
#define DR7_FIXED 0x400ul /* bit 10 reads as 1 */

static ulong read_dr(int i)
{
	ulong v = 0;
	switch (i) {
	case 0:
		asm volatile("mov %%dr0, %0" : "=r"(v));
		break;
	case 1:
		asm volatile("mov %%dr1, %0" : "=r"(v));
		break;
	case 2:
		asm volatile("mov %%dr2, %0" : "=r"(v));
		break;
	case 3:
		asm volatile("mov %%dr3, %0" : "=r"(v));
		break;
	case 6:
		asm volatile("mov %%dr6, %0" : "=r"(v));
		break;
	case 7:
		asm volatile("mov %%dr7, %0" : "=r"(v));
		break;
	}
	return v;
}

static void write_dr(int i, ulong v)
{
	switch (i) {
	case 0:
		asm volatile("mov %0, %%dr0" : : "r"(v));
		break;
	case 1:
		asm volatile("mov %0, %%dr1" : : "r"(v));
		break;
	case 2:
		asm volatile("mov %0, %%dr2" : : "r"(v));
		break;
	case 3:
		asm volatile("mov %0, %%dr3" : : "r"(v));
		break;
	case 6:
		asm volatile("mov %0, %%dr6" : : "r"(v));
		break;
	case 7:
		asm volatile("mov %0, %%dr7" : : "r"(v));
		break;
	}
}

static uint32_t name_hash;
static int variant;

/* Breakpoint addresses no code here ever touches: above RAM, canonical, 8-byte aligned. */
static ulong bp_value(int round, int i)
{
#ifdef __x86_64__
	return 0x00007f0000000000ul | ((ulong)(name_hash & 0xffffff) << 16) | ((ulong)round << 8) |
	       ((ulong)i << 4);
#else
	return 0xf0000000ul | ((name_hash & 0xfff) << 16) | ((ulong)round << 8) | ((ulong)i << 4);
#endif
}

/* Variant 0: local write breakpoints of 4 bytes (RW=01 LEN=11), LE+GE; variant 1: global
 * execute breakpoints (RW=00 LEN=00), GE only. Both differ from the reset value 0x400. */
static ulong dr7_value(int round)
{
	/* QEMU 7.2's VMRUN and #VMEXIT load DR7 without re-registering TCG's watchpoints, and a
	 * later DR7 write then frees stale ones: QEMU itself crashes (segfault) once a guest of a
	 * hypervisor enables a breakpoint. On TCG the breakpoints stay disabled (their addresses
	 * and RW/LEN fields still differ per guest). */
	ulong en = on_tcg()	  ? 0
		   : variant == 0 ? ((round & 1) ? 0x55 : 0x05)
				  : ((round & 1) ? 0xaa : 0x0a);
	if (variant == 0)
		return DR7_FIXED | 0xdddd0000ul | 0x300 | en;
	return DR7_FIXED | 0x200 | (round & 1 ? 0x00050000ul : 0) | en;
}

static ulong dr6_bits(void)
{
	return variant == 0 ? 0x5 : 0xa;
}

static void write_all(int round)
{
	for (int i = 0; i < 4; i++)
		write_dr(i, bp_value(round, i));
	write_dr(6, 0xffff0ff0ul | dr6_bits());
	write_dr(7, dr7_value(round));
}

/* Checks every register against this guest's values of round (0: the reset values). */
static void check_all(int round, const char *when)
{
	for (int i = 0; i < 4; i++) {
		ulong v = read_dr(i), want = round ? bp_value(round, i) : 0;
		CHECK(v == want, "%s: DR%d=%lx, expected %lx (another guest's value?)", when, i, v,
		      want);
	}
	ulong b = read_dr(6) & 0xf, wb = round ? dr6_bits() : 0;
	CHECK(b == wb, "%s: DR6.B0-B3=%lx, expected %lx", when, b, wb);
	ulong d7 = read_dr(7), w7 = round ? dr7_value(round) : DR7_FIXED;
	CHECK(d7 == w7, "%s: DR7=%lx, expected %lx", when, d7, w7);
}

/* Lets the other copy run: the YIELD hypercall, or a spin over several 10 ms slices. */
static void let_others_run(int by_yield)
{
	if (on_umbra && by_yield) {
		for (int i = 0; i < 3; i++)
			umbra_hypercall(UMBRA_HC_YIELD, 0, 0);
		return;
	}
	delay_ms(25);
}

static void isolation(void)
{
	ulong mark = checks_failed;
	check_all(0, "at start");
	case_end("dr-initial (DR0-3 0, DR6.B 0, DR7 0x400 at first)", mark);
	for (int by_yield = 1; by_yield >= 0; by_yield--) {
		mark = checks_failed;
		for (int r = 1; r <= ROUNDS; r++) {
			int round = by_yield ? r : r + ROUNDS;
			write_all(round);
			let_others_run(by_yield);
			check_all(round, by_yield ? "after yield" : "after preemption");
		}
		case_end(by_yield ? "dr-yield (own DR0-3/6/7 after YIELD, 6 rounds)"
				  : "dr-preempt (own DR0-3/6/7 after a 25 ms spin, 6 rounds)",
			 mark);
	}
	/* Leave no breakpoint armed for what follows. */
	write_dr(7, DR7_FIXED);
}

/* MOV DR as the SDM has it (MOV-Move to/from Debug Registers, 17.2.4). */
static void mov_dr_faults(void)
{
	/* General detect: with DR7.GD the next MOV DR raises a fault-like #DB with DR6.BD, and the
	 * CPU clears GD when it delivers it (so the handler may use the registers). */
	write_dr(6, 0xffff0ff0ul);
	write_dr(7, DR7_FIXED | (1ul << 13));
	ulong junk = 0;
	int v = ATTEMPT_OUT("mov %%dr0, %0", "=r"(junk));
	/* Guarded: with GD left set (not cleared at the #DB's delivery) these fault too. */
	ulong d6 = 0, d7 = 0, mark = checks_failed;
	int v6 = ATTEMPT_OUT("mov %%dr6, %0", "=r"(d6));
	int v7 = ATTEMPT_OUT("mov %%dr7, %0", "=r"(d7));
	if (v6 != NO_FAULT || v7 != NO_FAULT) {
		check_failed(
			"dr-gd: reading DR6/DR7 after the #DB raised %s/%s: GD was not cleared",
			vec_name(v6), vec_name(v7));
		/* The #DB's delivery clears GD (a handler's own MOV DR would loop otherwise): with it
		 * still set every MOV DR faults, so the cases below cannot run. */
		if (ATTEMPT("mov %0, %%dr7", "r"(DR7_FIXED)) != NO_FAULT) {
			check_failed(
				"dr-gd: DR7.GD cannot be cleared any more; MOV DR cases skipped");
			return;
		}
		d7 = DR7_FIXED | (1ul << 13);
	}
	if (v == NO_FAULT && on_tcg()) {
		/* QEMU's TCG does not implement general detect: natively, and under Umbra when the
		 * MOV DR runs on the (TCG) CPU, nothing happens. */
		note_vec("dr-gd (MOV DR with DR7.GD)", v, "QEMU TCG has no general detect");
	} else {
		expect_vec("dr-gd (MOV DR with DR7.GD)", v, 1);
		CHECK(d6 & (1ul << 13), "after the GD #DB: DR6=%lx lacks BD", d6);
		CHECK(!(d7 & (1ul << 13)), "after the GD #DB: DR7=%lx still has GD", d7);
		case_end("dr-gd-state (DR6.BD set, DR7.GD cleared)", mark);
	}
	write_dr(7, DR7_FIXED);
	write_dr(6, 0xffff0ff0ul);

	/* DR4/DR5 alias DR6/DR7 while CR4.DE is clear; with DE set they are #UD. */
	ulong dr4 = 0;
	write_dr(6, 0xffff0ff0ul | 0x3);
	asm volatile("mov %%dr4, %0" : "=r"(dr4));
	(void)junk;
	mark = checks_failed;
	CHECK((dr4 & 0xf) == 0x3, "DR4 with CR4.DE=0 read %lx, DR6 holds B0|B1", dr4);
	case_end("dr4-alias (DR4 reads DR6 with CR4.DE=0)", mark);
	write_dr(6, 0xffff0ff0ul);
	set_cr4_bits(1ul << 3, 0);
	v = ATTEMPT_OUT("mov %%dr4, %0", "=r"(junk));
	expect_vec("dr4-de (MOV from DR4 with CR4.DE=1)", v, 6);
	v = ATTEMPT("mov %0, %%dr5", "r"(DR7_FIXED));
	expect_vec("dr5-de (MOV to DR5 with CR4.DE=1)", v, 6);
	set_cr4_bits(0, 1ul << 3);

#ifdef __x86_64__
	/* Bits 63:32 of DR6 and DR7 are reserved: writing a 1 there is #GP(0). */
	v = ATTEMPT("mov %0, %%dr7", "r"(DR7_FIXED | (1ul << 40)));
	if (v == NO_FAULT && on_tcg() && !on_umbra)
		note_vec("dr7-high (bit 40 of DR7)", v, "QEMU TCG does not check it natively");
	else
		expect_vec("dr7-high (bit 40 of DR7)", v, 13);
	write_dr(7, DR7_FIXED);
#endif

	/* At CPL 3 every MOV DR is #GP(0). */
	static const char *const what[] = { "dr-cpl3-read (MOV from DR0 at CPL 3)",
					    "dr-cpl3-write (MOV to DR7 at CPL 3)" };
	extern const char u_dr_read[], u_dr_read_end[], u_dr_write[], u_dr_write_end[];
	v = user_exec(u_dr_read, u_dr_read_end, 0, 0, 0, 0);
	expect_vec(what[0], v, 13);
	v = user_exec(u_dr_write, u_dr_write_end, 0x401, 0, 0, 0);
	expect_vec(what[1], v, 13);
	CHECK(read_dr(7) == DR7_FIXED, "DR7=%lx after the CPL 3 write", read_dr(7));
}

#ifdef __x86_64__
USER_SNIPPET(u_dr_read, "mov %dr0, %rax");
USER_SNIPPET(u_dr_write, "mov %rax, %dr7");
#else
USER_SNIPPET(u_dr_read, "mov %dr0, %eax");
USER_SNIPPET(u_dr_write, "mov %eax, %dr7");
#endif

void test_main(void)
{
	char name[32];
	atk_name(name, sizeof(name));
	size_t n = 0;
	name_hash = 2166136261u;
	for (; name[n]; n++)
		name_hash = (name_hash ^ (uint8_t)name[n]) * 16777619u;
	variant = n ? name[n - 1] & 1 : 0;
	kprintf("dr: variant %d%s\n", variant,
		on_umbra ? "" : " (alone: no other guest to leak to)");
	isolation();
	mov_dr_faults();
	kprintf("cases: dr 10\n");
}
