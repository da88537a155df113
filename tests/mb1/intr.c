/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 kernel: interrupts meeting exception delivery: a pending timer interrupt around events
 * delivered through a fresh IDT onto fresh stack pages, faults while delivering an interrupt,
 * and the benign/contributory/page-fault combinations of SDM Table 6-5 (double fault). */
#include "tests/mb1/mb1.h"

const char guest_name[] = "intr";

/* Paging is on, and every case loads a copy of the IDT at a virtual address never used before
 * and runs on stack pages never used before, so the event delivery itself is the first access:
 * where a shadow-paging hypervisor takes an exit in the middle of the delivery and must
 * deliver the same event again, once, before any other.
 * The timer is the local APIC's, one-shot, made pending (IRR) with interrupts off first.
 * Error codes of faults on IDT gates leave out EXT (bit 0): hardware sets it while delivering
 * an earlier exception, QEMU's TCG never does; TCG's long mode also reports gate index * 16. */

#ifdef __x86_64__
#define GATE 16
#define SP "rsp"
#define SET_RESUME "movq $1f, resume_ip(%%rip)\n\t"
#define SAVE_SP "mov %%rsp, saved_sp(%%rip)\n\t"
#define LOAD_SP "mov saved_sp(%%rip), %%rsp\n\t"
#define STACK_SKEW 16 /* RSP stays 16-byte aligned: the frame starts 16 bytes above a page */
#else
#define GATE 8
#define SP "esp"
#define SET_RESUME "movl $1f, resume_ip\n\t"
#define SAVE_SP "mov %%esp, saved_sp\n\t"
#define LOAD_SP "mov saved_sp, %%esp\n\t"
#define STACK_SKEW 8
#endif

enum { V_TIMER = 0x50, V_SOFT = 0x51, V_HIGHGATE = 0xa0 };

volatile ulong resume_ip, resume_sp, saved_sp;
static volatile ulong hits[256], err[32], frame_at[256], ip_at[256], resume_at[256], cr2_at;
static volatile int order[8], norder;
static struct aspace as;
static void *lib_idt;
static ulong va_next = TEST_VA;

/* ---- address space and fresh memory ---- */

/* A range of virtual pages nobody used, with an unmapped guard page after it. */
static ulong reserve(int pages)
{
	ulong va = va_next;
	va_next += (ulong)(pages + 1) * PAGE_SIZE;
	return va;
}

static ulong map_fresh(ulong va)
{
	ulong pa = page_alloc();
	map_page(&as, va, pa, 1, PTE_P | PTE_W);
	return pa;
}

/* pages mapped pages of stack: the frame of an event pushed at the top crosses into the page
 * below the top one, both touched first by the delivery. */
static ulong fresh_stack(int pages, ulong *lo)
{
	ulong va = reserve(pages);
	for (int i = 0; i < pages; i++)
		map_fresh(va + (ulong)i * PAGE_SIZE);
	*lo = va;
	return va + (ulong)(pages - 1) * PAGE_SIZE + STACK_SKEW;
}

/* The library's IDT copied to a fresh page through its physical address: the new virtual
 * address is first read by the CPU when it delivers an event. */
static void *fresh_idt(void)
{
	ulong va = reserve(1), pa = map_fresh(va);
	const uint8_t *s = lib_idt;
	for (int i = 0; i < 256 * GATE; i++)
		((uint8_t *)pa)[i] = s[i];
	return (void *)va;
}

static void *idt_phys(const void *idt_va)
{
	void *e[5];
	int l = pt_walk(&as, (ulong)idt_va, e);
	if (l != 1)
		fail("idt at %lx not mapped by a 4K page", (ulong)idt_va);
	return (void *)(ulong)((pte_get(&as, e[1]) & PTE_ADDR) + ((ulong)idt_va & 0xfff));
}

/* ---- events ---- */
static void reset(void)
{
	for (int i = 0; i < 256; i++)
		hits[i] = frame_at[i] = ip_at[i] = resume_at[i] = 0;
	for (int i = 0; i < 8; i++)
		order[i] = -1;
	norder = 0;
	cr2_at = 0;
	resume_ip = resume_sp = 0;
}

/* Every vector the cases use comes here: it counts, remembers where its frame was, and
 * resumes exceptions at the case's label (and stack, for the double faults). */
static void on_event(struct frame *f)
{
	unsigned v = (unsigned)f->vector;
	hits[v]++;
	frame_at[v] = (ulong)f;
	ip_at[v] = f->ip;
	resume_at[v] = resume_ip;
	if (norder < 8)
		order[norder++] = (int)v;
	if (v < 32) {
		err[v] = f->error;
		if (v == 14)
			cr2_at = read_cr2();
		if (!resume_ip)
			fail("exception %u at %lx outside a case", v, f->ip);
		f->ip = resume_ip;
#ifdef __x86_64__
		if (resume_sp)
			f->sp = resume_sp;
#endif
	} else if (v == V_TIMER) {
		apic_reg_write(LAPIC_EOI, 0);
	}
}

static int arm_timer(unsigned vector)
{
	apic_reg_write(LAPIC_TIMER_INIT, 0);
	apic_reg_write(LAPIC_TIMER_DIV, 0xb);
	apic_reg_write(LAPIC_LVT_TIMER, vector);
	apic_reg_write(LAPIC_TIMER_INIT, 10000);
	for (uint64_t end = timeout_ms(1000); !apic_vec_bit(LAPIC_IRR, vector) && !timed_out(end);)
		;
	return apic_vec_bit(LAPIC_IRR, vector);
}

/* Runs insn on the stack at top with the IDT at idt, after sti (whose shadow covers insn).
 * Exceptions resume at the label after insn; then cli, and the kernel's stack and IDT. */
/* clang-format off */
#define RUN(idt, top, insn, ...) do { \
	idt_load((idt), 256 * GATE - 1); \
	asm volatile(SET_RESUME SAVE_SP "mov %0, %%" SP "\n\tsti\n\t" insn "\n1:\n\tcli\n\t" \
		     LOAD_SP : : "r"(top), ##__VA_ARGS__ : "memory", "cc", "ax", "dx"); \
	idt_load(lib_idt, 256 * GATE - 1); \
	resume_ip = resume_sp = 0; \
	window(2); /* anything owed and late arrives now, and is counted */ \
} while (0)
/* clang-format on */

/* Interrupts on for a while: what is pending and deliverable arrives. */
static void window(ulong ms)
{
	irq_on();
	delay_ms(ms);
	irq_off();
}

static int on_stack(unsigned v, ulong lo, int pages)
{
	return frame_at[v] >= lo && frame_at[v] < lo + (ulong)pages * PAGE_SIZE;
}

static int only(const unsigned *v, const ulong *n, int k)
{
	ulong total = 0;
	for (int i = 0; i < 256; i++)
		total += hits[i];
	for (int i = 0; i < k; i++) {
		if (hits[v[i]] != n[i])
			return 0;
		total -= n[i];
	}
	return total == 0;
}

/* (a) The timer interrupt pending across deliveries onto fresh pages. */
static void pending_timer(void)
{
	ulong lo, top;
	int irr;

	reset();
	irr = arm_timer(V_TIMER);
	top = fresh_stack(3, &lo);
	RUN(fresh_idt(), top, "nop");
	CHECK(irr && hits[V_TIMER] == 1 && norder == 1, "timer alone: %lu interrupts",
	      hits[V_TIMER]);
	CHECK(on_stack(V_TIMER, lo, 3), "timer alone: frame at %lx, not on the fresh stack",
	      frame_at[V_TIMER]);
	kprintf("timer interrupt through a fresh idt onto fresh stack pages: once, on that stack\n");

	static const struct {
		const char *insn, *what;
		unsigned vec;
	} exc[] = {
		{ "ud2", "#UD (fault)", 6 },
		{ "int3", "#BP (int3)", 3 },
		{ "int $0x51", "int $0x51", V_SOFT },
	};
	for (unsigned i = 0; i < 3; i++) {
		reset();
		irr = arm_timer(V_TIMER);
		top = fresh_stack(3, &lo);
		if (i == 0)
			RUN(fresh_idt(), top, "ud2");
		else if (i == 1)
			RUN(fresh_idt(), top, "int3");
		else
			RUN(fresh_idt(), top, "int $0x51");
		/* sti's shadow holds the interrupt past the instruction; the event's gate clears
		 * IF; the interrupt comes at iret, once. */
		unsigned v[] = { exc[i].vec, V_TIMER };
		ulong n[] = { 1, 1 };
		CHECK(irr && only(v, n, 2), "%s with the timer pending: %lu and %lu times",
		      exc[i].what, hits[exc[i].vec], hits[V_TIMER]);
		CHECK(order[0] == (int)exc[i].vec && order[1] == V_TIMER, "%s: order %d %d",
		      exc[i].what, order[0], order[1]);
		CHECK(on_stack(exc[i].vec, lo, 3) && on_stack(V_TIMER, lo, 3),
		      "%s: frames off the stack", exc[i].what);
		kprintf("%s on fresh pages with the timer pending: each once, the event first\n",
			exc[i].what);
	}

	/* A trap gate leaves IF set: the interrupt comes before the handler's first instruction. */
	reset();
	irr = arm_timer(V_TIMER);
	top = fresh_stack(3, &lo);
	void *idt = fresh_idt();
	gate_write(idt_phys(idt), 6, trap_stub(6), GATE_TRAP, 0);
	RUN(idt, top, "ud2");
	unsigned v[] = { 6, V_TIMER };
	ulong n[] = { 1, 1 };
	CHECK(irr && only(v, n, 2) && order[0] == V_TIMER && order[1] == 6,
	      "#UD through a trap gate: %lu/%lu times, order %d %d", hits[6], hits[V_TIMER],
	      order[0], order[1]);
	kprintf("#UD through a trap gate with the timer pending: the interrupt first, each once\n");
}

/* (c) A fault while delivering an external interrupt: its gate is on a page not present. An
 * interrupt is benign (Table 6-4), so the #PF is delivered on its own (handled serially); the
 * interrupt was acknowledged and is not delivered again: its vector stays in service. */
static void interrupt_gate_fault(void)
{
	reset();
	/* Gates 0-127 on a fresh page, 128-255 on the page after it, never mapped. */
	ulong va = reserve(2), pa = map_fresh(va);
	ulong base = va + PAGE_SIZE - 128 * GATE;
	const uint8_t *s = lib_idt;
	for (int i = 0; i < 128 * GATE; i++)
		((uint8_t *)pa)[PAGE_SIZE - 128 * GATE + i] = s[i];
	ulong lo, top = fresh_stack(3, &lo);
	int irr = arm_timer(V_HIGHGATE);
	RUN((void *)base, top, "nop");
	int isr = apic_vec_bit(LAPIC_ISR, V_HIGHGATE);
	uint32_t ppr = apic_reg_read(LAPIC_PPR);
	apic_reg_write(LAPIC_EOI, 0);
	ulong gate = base + V_HIGHGATE * GATE;
	unsigned v[] = { 14 };
	ulong n[] = { 1 };
	CHECK(irr && only(v, n, 1), "interrupt gate not present: #PF %lu times, others %lu",
	      hits[14], hits[V_HIGHGATE]);
	CHECK(err[14] == 0 && cr2_at >= gate && cr2_at < gate + GATE,
	      "interrupt gate not present: #PF error %lx cr2 %lx (gate at %lx)", err[14], cr2_at,
	      gate);
	CHECK(ip_at[14] == resume_at[14] && on_stack(14, lo, 3),
	      "interrupt gate not present: #PF frame ip %lx (interrupted at %lx)", ip_at[14],
	      resume_at[14]);
	CHECK(isr && ppr == V_HIGHGATE, "interrupt gate not present: isr %d ppr %x after", isr,
	      ppr);
	kprintf("interrupt whose gate is not present: #PF on the gate (error 0), interrupt lost\n");
	kprintf("... its vector stays in service until eoi\n");
}

/* (d) Faults while delivering exceptions, through bad gates. */
static int gp_gate_error(ulong e, unsigned vec)
{
	e &= ~1ul; /* EXT */
	return e == vec * 8 + 2 || (GATE == 16 && on_tcg() && e == vec * 16 + 2);
}

static void combinations(void)
{
	ulong lo, top;
	void *idt;

	/* Benign then contributory: #UD's gate has an invalid type, the #GP is delivered. */
	reset();
	top = fresh_stack(3, &lo);
	idt = fresh_idt();
	gate_write(idt_phys(idt), 6, trap_stub(6), 0x81, 0);
	RUN(idt, top, "ud2");
	unsigned v13[] = { 13 };
	ulong one[] = { 1 };
	CHECK(only(v13, one, 1) && gp_gate_error(err[13], 6),
	      "#UD through a bad gate: #GP %lu, "
	      "error %lx, #DF %lu",
	      hits[13], err[13], hits[8]);
	kprintf("#UD through a gate of an invalid type: #GP on the gate (benign, contributory)\n");

	/* INT3 likewise; a software interrupt's fault has EXT clear everywhere. */
	reset();
	top = fresh_stack(3, &lo);
	idt = fresh_idt();
	gate_write(idt_phys(idt), 3, trap_stub(3), 0x81, 0);
	RUN(idt, top, "int3");
	CHECK(only(v13, one, 1) && !(err[13] & 1) && gp_gate_error(err[13], 3),
	      "int3 through a bad gate: #GP %lu error %lx", hits[13], err[13]);
	kprintf("int3 through a gate of an invalid type: #GP on the gate\n");

	/* Contributory then contributory: a #GP whose gate is bad, or not present: #DF. */
	static const struct {
		uint8_t attr;
		const char *what;
	} gp[] = {
		{ 0x81, "#GP through a gate of an invalid type: #DF, error 0" },
		{ 0x0e, "#GP through a gate not present (#NP): #DF, error 0" },
	};
	for (unsigned i = 0; i < 2; i++) {
		reset();
		top = fresh_stack(3, &lo);
		idt = fresh_idt();
		gate_write(idt_phys(idt), 13, trap_stub(13), gp[i].attr, 0);
		RUN(idt, top, "mov %1, %%ds", "r"(0x1230));
		asm volatile("mov %0, %%ds" : : "r"(0x10));
		unsigned v8[] = { 8 };
		CHECK(only(v8, one, 1) && err[8] == 0, "%s: #DF %lu error %lx, #GP %lu #NP %lu",
		      gp[i].what, hits[8], err[8], hits[13], hits[11]);
		CHECK(on_stack(8, lo, 3), "%s: #DF frame off the stack", gp[i].what);
		kprintf("%s\n", gp[i].what);
	}

	/* Page fault then contributory: #PF's gate is bad: #DF. */
	reset();
	top = fresh_stack(3, &lo);
	idt = fresh_idt();
	gate_write(idt_phys(idt), 14, trap_stub(14), 0x81, 0);
	ulong hole = reserve(1);
	RUN(idt, top, "mov (%1), %%eax", "r"(hole));
	unsigned v8[] = { 8 };
	CHECK(only(v8, one, 1) && err[8] == 0, "#PF through a bad gate: #DF %lu error %lx, #GP %lu",
	      hits[8], err[8], hits[13]);
	kprintf("#PF through a gate of an invalid type: #DF, error 0\n");

	/* Contributory then page fault: #DE's gate sits on a page not present, the rest of the
	 * IDT on the next page: the #PF is delivered on its own. */
	reset();
	top = fresh_stack(3, &lo);
	ulong va = reserve(2), pa = map_fresh(va + PAGE_SIZE);
	const uint8_t *s = lib_idt;
	for (int i = GATE; i < 256 * GATE; i++)
		((uint8_t *)pa)[i - GATE] = s[i];
	ulong base = va + PAGE_SIZE - GATE;
	RUN((void *)base, top, "xor %%edx, %%edx\n\txor %%eax, %%eax\n\tdivl %%edx", "i"(0));
	unsigned v14[] = { 14 };
	CHECK(only(v14, one, 1) && err[14] == 0 && cr2_at >= base && cr2_at < base + GATE,
	      "#DE with its gate not present: #PF %lu error %lx cr2 %lx (gate %lx), #DE %lu #DF %lu",
	      hits[14], err[14], cr2_at, base, hits[0], hits[8]);
	kprintf("#DE with its gate on a page not present: #PF on the gate, no #DF\n");
}

#ifdef __x86_64__
/* (b) A #PF whose delivery faults (#PF) again: #DF, on IST1 pages never used before. And (c)
 * an interrupt whose delivery pushes onto a page not present: #PF, whose own delivery faults
 * the same way: #DF; the interrupt is lost, its vector in service. */
static void double_faults(void)
{
	ulong ist_lo, ist_top = fresh_stack(3, &ist_lo);
	tss_set_ist(1, ist_top);
	void *idt = fresh_idt();
	gate_write(idt_phys(idt), 8, trap_stub(8), GATE_INT, 1);
	ulong dead = reserve(2) + PAGE_SIZE, hole = reserve(1);
	unsigned v8[] = { 8 };
	ulong one[] = { 1 };

	reset();
	idt_load(idt, 4095);
	asm volatile("mov %%rsp, saved_sp(%%rip)\n\tmov %%rsp, resume_sp(%%rip)\n\t" SET_RESUME
		     "mov %0, %%rsp\n\t"
		     "mov (%1), %%rax\n1:\n\tmov saved_sp(%%rip), %%rsp"
		     :
		     : "r"(dead), "r"(hole)
		     : "rax", "memory", "cc");
	idt_load(lib_idt, 4095);
	resume_ip = resume_sp = 0;
	CHECK(only(v8, one, 1) && err[8] == 0,
	      "#PF on an unmapped stack: #DF %lu error %lx, #PF %lu", hits[8], err[8], hits[14]);
	CHECK(on_stack(8, ist_lo, 3), "#DF frame at %lx, not on IST1", frame_at[8]);
	kprintf("#PF delivered onto an unmapped stack: #DF on fresh IST1 pages, error 0\n");

	reset();
	ist_top = fresh_stack(3, &ist_lo);
	tss_set_ist(1, ist_top);
	idt = fresh_idt();
	gate_write(idt_phys(idt), 8, trap_stub(8), GATE_INT, 1);
	dead = reserve(2) + PAGE_SIZE;
	int irr = arm_timer(V_TIMER);
	idt_load(idt, 4095);
	asm volatile("mov %%rsp, saved_sp(%%rip)\n\tmov %%rsp, resume_sp(%%rip)\n\t" SET_RESUME
		     "mov %0, %%rsp\n\t"
		     "sti\n\tnop\n1:\n\tcli\n\tmov saved_sp(%%rip), %%rsp"
		     :
		     : "r"(dead)
		     : "rax", "memory", "cc");
	idt_load(lib_idt, 4095);
	resume_ip = resume_sp = 0;
	int isr = apic_vec_bit(LAPIC_ISR, V_TIMER);
	apic_reg_write(LAPIC_EOI, 0);
	window(2);
	CHECK(irr && only(v8, one, 1) && err[8] == 0 && on_stack(8, ist_lo, 3),
	      "interrupt onto an unmapped stack: #DF %lu error %lx, #PF %lu, timer %lu", hits[8],
	      err[8], hits[14], hits[V_TIMER]);
	CHECK(isr, "interrupt onto an unmapped stack: its vector not in service");
	kprintf("interrupt delivered onto an unmapped stack: #PF, then #DF on IST1; interrupt lost\n");
	tss_set_ist(1, 0);
}
#endif

void test_main(void)
{
	irq_off();
	lib_idt = idt_base();
	as_init(&as, GUEST_MODE);
	map_page(&as, LAPIC_BASE, LAPIC_BASE, 1, PTE_P | PTE_W);
	as_activate(&as);
	pic_remap(0x20, 0x28);
	apic_reg_write(LAPIC_SVR, 0x1ff);
	apic_reg_write(LAPIC_TPR, 0);
	static const int vecs[] = { 0, 3, 6, 8, 11, 13, 14, V_TIMER, V_SOFT, V_HIGHGATE };
	for (unsigned i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
		set_irq_handler(vecs[i], on_event);
	pending_timer();
	interrupt_gate_fault();
	combinations();
#ifdef __x86_64__
	double_faults();
#endif
	apic_reg_write(LAPIC_TIMER_INIT, 0);
	apic_reg_write(LAPIC_LVT_TIMER, LVT_MASKED);
}
