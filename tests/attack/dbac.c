/* SPDX-License-Identifier: GPL-2.0-only */
/* Attack guest (dbac): #DB and #AC, the exceptions whose delivery can raise them again. */
/* On a CPU without the hypervisor's #DB and #AC intercepts, a #DB whose delivery hits a data
 * breakpoint on the frame it pushes (on an IST stack: the same slot every time) or an #AC whose
 * delivery pushes onto a misaligned ring-3 stack is delivered again before any instruction
 * runs, forever: no interrupt is taken in between (SDM 6.9: traps of the previous instruction
 * outrank interrupts) and the host CPU is lost (CVE-2015-8104, CVE-2015-5307). With the
 * intercepts the guest only loops on itself, an exit each time, until its budget ends.
 *
 * Cases run by default (each ends with a verdict the guest checks itself):
 *   tf-step      TF across nop, cpuid, out, rdmsr (the last three intercepted): one #DB after
 *                each instruction, at the next one, with DR6.BS, and one after the popf that
 *                clears TF (TF was set when it began).
 *   tf-hypercall (under Umbra) TF across VMCALL and VMMCALL: one #DB after each.
 *   db-bp-stack  a write breakpoint on the slot where #DB's frame is pushed (no IST): the
 *                single-step #DB's delivery hits it, so a second #DB arrives before the
 *                handler's first instruction, with DR6.B0; its own frame lands lower, so it ends.
 *   ac-*         #AC (17, error code 0) for a misaligned read at CPL 3 with CR0.AM and
 *                EFLAGS.AC; none without CR0.AM or at CPL 0. QEMU's TCG raises no #AC at all.
 * The loops (argument loop=db: 64-bit, IST; loop=ac: 32-bit, a ring-3 #AC handler on a
 * misaligned stack) never end on hardware: run with expect=timeout, beside a healthy guest. */
#include "tests/attack/attack.h"

const char guest_name[] = GUEST_NAME;

#define DR6_BS (1ul << 14)
#define DR6_CLEAR 0xffff0ff0ul
#define DR7_FIXED 0x400ul
#define EFL_TF (1ul << 8)
#define EFL_AC (1ul << 18)
#define CR0_AM (1ul << 18)
#define MAX_DB 16

static volatile ulong db_count, db_ip[MAX_DB], db_dr6[MAX_DB];
static volatile int db_one_step; /* db-bp-stack: no more single steps after the first #DB */

static ulong get_dr6(void)
{
	ulong v;
	asm volatile("mov %%dr6, %0" : "=r"(v));
	return v;
}
static void set_dr6(ulong v)
{
	asm volatile("mov %0, %%dr6" : : "r"(v));
}
static void set_dr7(ulong v)
{
	asm volatile("mov %0, %%dr7" : : "r"(v));
}
static void set_dr0(ulong v)
{
	asm volatile("mov %0, %%dr0" : : "r"(v));
}

/* Records each #DB; past MAX_DB it disarms every breakpoint and TF, so an emulator (or a
 * hypervisor) that loops where hardware does not still lets the guest report it. */
static void db_handler(struct frame *f)
{
	ulong n = db_count++;
	if (n < MAX_DB) {
		db_ip[n] = f->ip;
		db_dr6[n] = get_dr6();
	}
	set_dr6(DR6_CLEAR);
	if (db_one_step)
		f->flags &= ~EFL_TF;
	if (n + 1 >= MAX_DB) {
		set_dr7(DR7_FIXED);
		f->flags &= ~EFL_TF;
	}
}

/* ---- tf-step ---- */
void tf_sequence(void);
extern const char tf_b1[], tf_b2[], tf_b3[], tf_b4[], tf_b5[], tf_b6[], tf_b7[], tf_b8[], tf_b9[];
#ifdef __x86_64__
#define XSP "%rsp"
#define XBX "%rbx"
#else
#define XSP "%esp"
#define XBX "%ebx"
#endif
asm(".text\n.globl tf_sequence\ntf_sequence:\n"
    "push " XBX "\n"
    "pushf\n orl $0x100, (" XSP ")\n popf\n" /* TF from the next instruction on */
    "nop\n"
    ".globl tf_b1\ntf_b1: xor %eax, %eax\n"
    ".globl tf_b2\ntf_b2: cpuid\n"
    ".globl tf_b3\ntf_b3: out %al, $0x80\n"
    ".globl tf_b4\ntf_b4: mov $0x1b, %ecx\n"
    ".globl tf_b5\ntf_b5: rdmsr\n"
    ".globl tf_b6\ntf_b6: pushf\n"
    ".globl tf_b7\ntf_b7: andl $~0x100, (" XSP ")\n"
    ".globl tf_b8\ntf_b8: popf\n"
    ".globl tf_b9\ntf_b9: pop " XBX "\n"
    "ret\n");

static void tf_step(void)
{
	static const char *const want[] = { tf_b1, tf_b2, tf_b3, tf_b4, tf_b5,
					    tf_b6, tf_b7, tf_b8, tf_b9 };
	static const char *const insn[] = { "nop",   "xor",   "cpuid", "out", "mov",
					    "rdmsr", "pushf", "and",   "popf" };
	const ulong n = sizeof(want) / sizeof(want[0]);
	ulong mark = checks_failed;
	db_count = 0;
	set_dr6(DR6_CLEAR);
	tf_sequence();
	CHECK(db_count == n, "tf-step: %lu #DBs for %lu single-stepped instructions", db_count, n);
	for (ulong i = 0; i < n && i < db_count; i++) {
		CHECK(db_ip[i] == (ulong)want[i],
		      "tf-step: #DB %lu (after %s) at %lx, expected %lx", i, insn[i], db_ip[i],
		      (ulong)want[i]);
		CHECK(db_dr6[i] & DR6_BS, "tf-step: #DB %lu (after %s): DR6=%lx lacks BS", i,
		      insn[i], db_dr6[i]);
	}
	case_end("tf-step (one #DB per instruction, cpuid/out/rdmsr included)", mark);
}

/* ---- tf-hypercall (under Umbra): TF across VMCALL and VMMCALL, one answered directly and
 * the other through the #UD intercept: each is completed by Umbra and owes its #DB, at the
 * instruction after it, then the pushf, and and popf that clear TF trap as usual. ---- */
#ifdef __x86_64__
#define ISP "%%rsp"
#else
#define ISP "%%esp"
#endif
#define TF_HC(insn) \
	asm volatile("pushf\n\torl $0x100, (" ISP ")\n\tpopf\n\t" insn "\n1:\n\t" \
		     "pushf\n\tandl $~0x100, (" ISP ")\n\tpopf\n\tlea 1b, %1" \
		     : "+a"(r), "=r"(after) \
		     : "b"(0ul), "c"(0ul) \
		     : "memory", "cc")

static void tf_hypercall(void)
{
	ulong mark = checks_failed;
	for (int i = 0; i < 2; i++) {
		ulong r = UMBRA_HC_VERSION, after;
		db_count = 0;
		set_dr6(DR6_CLEAR);
		if (i)
			TF_HC("vmmcall");
		else
			TF_HC("vmcall");
		const char *what = i ? "vmmcall" : "vmcall";
		CHECK(r == UMBRA_ABI_VERSION, "tf-hypercall: %s returned %lx", what, r);
		CHECK(db_count == 4, "tf-hypercall: %lu #DBs after %s, pushf, and, popf", db_count,
		      what);
		CHECK(db_ip[0] == after && (db_dr6[0] & DR6_BS),
		      "tf-hypercall: #DB after %s at %lx (want %lx), DR6=%lx", what, db_ip[0],
		      after, db_dr6[0]);
	}
	case_end("tf-hypercall (vmcall and vmmcall, one #DB after each)", mark);
}

/* ---- db-bp-stack ---- */
static char bp_stack[4096] __attribute__((aligned(16)));
static volatile ulong saved_sp;
void bp_stack_step(ulong top);
extern const char bp_after_add[];
/* Switches to the stack top (16-aligned) and single-steps one instruction there, the `add`
 * that brings the stack pointer back to top: its #DB is delivered with the stack at top. The
 * pushf/popf that set TF run 64 bytes lower, off the breakpoint's slot. */
asm(".text\n.globl bp_stack_step\nbp_stack_step:\n"
#ifdef __x86_64__
    "mov %rsp, saved_sp(%rip)\n mov %rdi, %rsp\n"
#else
    "mov 4(%esp), %eax\n mov %esp, saved_sp\n mov %eax, %esp\n"
#endif
    "sub $64, " XSP "\n pushf\n orl $0x100, (" XSP ")\n popf\n add $64, " XSP "\n"
    ".globl bp_after_add\nbp_after_add:\n"
#ifdef __x86_64__
    "mov saved_sp(%rip), %rsp\n"
#else
    "mov saved_sp, %esp\n"
#endif
    "ret\n");

static void db_bp_stack(void)
{
	/* Frame of a #DB without privilege change, pushed below top: long mode pushes SS first
	 * (at top - 8, RSP aligned to 16 before); 32-bit mode pushes EFLAGS (top - 4), then CS. */
	ulong top = (ulong)bp_stack + sizeof(bp_stack) - 64;
#ifdef __x86_64__
	ulong slot = top - 8, len = 2; /* LEN=10b: 8 bytes */
#else
	ulong slot = top - 8, len = 3; /* CS; LEN=11b: 4 bytes (the handler rewrites EFLAGS) */
#endif
	ulong mark = checks_failed;
	db_count = 0;
	db_one_step = 1;
	set_dr6(DR6_CLEAR);
	set_dr0(slot);
	set_dr7(DR7_FIXED | 0x1 | (0x1ul << 16) | (len << 18)); /* L0, RW0=01 (write), LEN0 */
	bp_stack_step(top);
	db_one_step = 0;
	set_dr7(DR7_FIXED);
	set_dr0(0);
	if (db_count == 1 && on_tcg() && !on_umbra) {
		kprintf("attack db-bp-stack: 1 #DB (QEMU TCG's watchpoints miss exception frames)\n");
		return;
	}
	/* The nested #DB is taken before the handler's first instruction: its frame's IP is the
	 * library's #DB stub; then the single-step's own #DB with the IP after the add. */
	CHECK(db_count == 2,
	      "db-bp-stack: %lu #DBs, expected 2 (the single step, then the write "
	      "breakpoint hit by its delivery)",
	      db_count);
	if (db_count >= 2) {
		CHECK(db_ip[0] == trap_stub(1),
		      "db-bp-stack: first #DB handled at %lx, expected the "
		      "stub %lx",
		      db_ip[0], trap_stub(1));
		CHECK(db_dr6[0] & 1, "db-bp-stack: DR6=%lx lacks B0 at the nested #DB", db_dr6[0]);
		CHECK(db_ip[1] == (ulong)bp_after_add,
		      "db-bp-stack: second #DB at %lx, expected %lx", db_ip[1],
		      (ulong)bp_after_add);
	}
	case_end("db-bp-stack (a #DB raised by #DB's delivery, then the handler runs)", mark);
}

/* ---- #AC ---- */
USER_SNIPPET(u_ac_read, "pushf\n\torl $0x40000, (" XSP ")\n\tpopf\n\tmov 1(" XBX "), %eax\n\t"
			"pushf\n\tandl $~0x40000, (" XSP ")\n\tpopf");

static void ac_cases(void)
{
	user_init();
	int tcg = on_tcg();
	set_cr0_bits(CR0_AM, 0);
	ulong v;
	int vec = USER_RUN(u_ac_read, 0, user_data, 0, &v);
	if (vec == NO_FAULT && tcg) {
		note_vec("ac-cpl3 (misaligned read, CR0.AM, EFLAGS.AC, CPL 3)", vec,
			 "QEMU TCG raises no #AC");
	} else {
		expect_vec("ac-cpl3 (misaligned read, CR0.AM, EFLAGS.AC, CPL 3)", vec, 17);
		if (vec == 17)
			CHECK(last_fault.error == 0, "#AC error code %lx, expected 0",
			      last_fault.error);
	}
	/* At CPL 0 alignment is never checked. */
	ulong junk = 0;
	set_ac(1);
	vec = ATTEMPT_OUT("mov 1(%1), %0", "=r"(junk), "r"(user_data));
	set_ac(0);
	(void)junk;
	expect_vec("ac-cpl0 (the same read at CPL 0)", vec, NO_FAULT);
	set_cr0_bits(0, CR0_AM);
	vec = USER_RUN(u_ac_read, 0, user_data, 0, &v);
	expect_vec("ac-no-am (EFLAGS.AC at CPL 3, CR0.AM clear)", vec, NO_FAULT);
}

/* ---- the loops (never end on hardware) ---- */
#ifdef __x86_64__
static char ist_stack[4096] __attribute__((aligned(16)));

static void db_loop(void)
{
	ulong top = (ulong)ist_stack + sizeof(ist_stack);
	tss_set_ist(1, top);
	gate_write(idt_base(), 1, trap_stub(1), GATE_INT, 1);
	db_count = 0;
	set_dr6(DR6_CLEAR);
	set_dr0(top - 8); /* SS of every frame pushed on IST1 */
	set_dr7(DR7_FIXED | 0x1 | (0x1ul << 16) | (2ul << 18));
	kprintf("db-loop: a write breakpoint on #DB's IST frame; single-stepping (hardware never "
		"comes back)\n");
	asm volatile(
		"pushf\n orl $0x100, (%%rsp)\n popf\n nop\n pushf\n andl $~0x100, (%%rsp)\n popf"
		:
		:
		: "memory", "cc");
	set_dr7(DR7_FIXED);
	fail("db-loop: came back after %lu #DBs: the #DB loop ended, unlike on hardware", db_count);
}
#else
/* The #AC gate leads to ring 3 (a DPL 3 code segment: no stack switch), and ring 3 runs on a
 * misaligned stack with EFLAGS.AC: each delivery's first push is misaligned, raising #AC. */
USER_SNIPPET(u_ac_loop, "sub $1, %esp\n\tpushf\n\torl $0x40000, (%esp)\n\tpopf\n\t"
			"mov 1(%ebx), %eax");
USER_SNIPPET(u_ac_handler, "nop"); /* reached only if the loop ends: back to ring 0 */

static void ac_loop(void)
{
	user_init();
	if (on_tcg()) {
		kprintf("ac-loop: QEMU TCG raises no #AC: nothing to loop on\n");
		finish();
	}
	/* The handler's code goes to the user data page: the snippet page holds the loop. */
	char *h = (char *)user_data;
	for (const char *s = u_ac_handler; s < u_ac_handler_end; s++)
		*h++ = *s;
	uint8_t *g = (uint8_t *)idt_base() + 17 * 8;
	ulong a = user_data;
	g[0] = (uint8_t)a;
	g[1] = (uint8_t)(a >> 8);
	g[2] = 0x23;
	g[3] = 0; /* the ring-3 code selector */
	g[4] = 0;
	g[5] = 0xee; /* present, DPL 3, 32-bit interrupt gate */
	g[6] = (uint8_t)(a >> 16);
	g[7] = (uint8_t)(a >> 24);
	set_cr0_bits(CR0_AM, 0);
	kprintf("ac-loop: #AC handled in ring 3 on a misaligned stack (hardware never comes "
		"back)\n");
	ulong v;
	int vec = USER_RUN(u_ac_loop, 0, user_data + 64, 0, &v);
	set_cr0_bits(0, CR0_AM);
	fail("ac-loop: came back (%s): the #AC loop ended, unlike on hardware", vec_name(vec));
}
#endif

void test_main(void)
{
	set_irq_handler(1, db_handler);
	if (atk_arg_flag("loop=db")) {
#ifdef __x86_64__
		db_loop();
#else
		fail("loop=db wants the 64-bit image (IST)");
#endif
	}
	if (atk_arg_flag("loop=ac")) {
#ifdef __x86_64__
		fail("loop=ac wants the 32-bit image (a 64-bit delivery aligns the stack)");
#else
		ac_loop();
#endif
	}
	/* `-- notf` / `-- nobp` skip a case (one that takes the host down hides the others). */
	if (atk_arg_flag("notf"))
		kprintf("attack tf-step: skipped (notf)\n");
	else
		tf_step();
	if (on_umbra)
		tf_hypercall();
	if (atk_arg_flag("nobp"))
		kprintf("attack db-bp-stack: skipped (nobp)\n");
	else
		db_bp_stack();
	set_irq_handler(1, 0);
	ac_cases();
	kprintf("cases: dbac 5\n");
}
