/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest test: vCPUs sharing page tables: concurrent faults, CR3 switches, remap and write-protect shootdowns, NMIs around shadows. */
/* The APs start by INIT-SIPI-SIPI through the local APIC into a real-mode trampoline, or with
 * start=pv on the module line by Umbra's VCPU_START hypercall (what VMX without unrestricted
 * guest can run). The BSP changes a shared page table entry while the APs read and write
 * through it, then does the guest's own shootdown (IPI, INVLPG on every target, wait for the
 * acknowledgements); after that no vCPU may see the old translation. Natively (-smp 1) the
 * test runs on the BSP alone. */
#include "tests/guests/lib/guest.h"

const char guest_name[] = GUEST_NAME;

#define MAXCPU 16 /* Umbra gives a guest up to 15 (vmm/vm.h) */
#define STR_(x) #x
#define XSTR(x) STR_(x)
#define STACK 16384
#define NP 32			      /* shared pages, first touched by every vCPU at once */
#define SV (TEST_VA + NP * PAGE_SIZE) /* the page remapped and write-protected */
#define TRAMP 0x8000ul		      /* the real-mode trampoline's page: SIPI vector 8 */
#define VEC_SHOOT 0xf0
#define VEC_NOBODY 0xf1
#define REMAP_ROUNDS_DEFAULT 8
#define WP_ROUNDS 4
#define WAIT_MS 30000 /* safety net for every wait on another vCPU */

static struct aspace as_a, as_b;
static ulong frames[NP], sv_frame[2];
static ulong cr0_on, cr4_on;
static const void *idt;
static uint8_t ap_stacks[MAXCPU][STACK] __attribute__((aligned(STACK)));

/* Shared between the vCPUs. */
static volatile uint32_t ap_next, ap_online, ncpu = 1;
__attribute__((used)) static volatile uint32_t ap_overflow; /* APs stopped by the bound */
static volatile uint32_t phase, done_round, acks, checked, nobody_hits;
static volatile uint32_t bar_count, bar_gen;
static volatile uint32_t ap_fails;
static volatile uint32_t ap_first_fail[5]; /* cpu, phase, round, value, enum ap_check */
/* Which of an AP's checks failed (printed as a number with the first failure). */
enum ap_check { CHK_OTHER, CHK_LOOP_READ, CHK_STALE, CHK_WRITE_PROTECT, CHK_SHOOT_COUNT };
static struct {
	volatile uint32_t expect_fault, faulted, error, shoots, round, spins;
} pcpu[MAXCPU];
/* rounds=N on the command line: that many remap rounds (a soak), else 8. */
static uint32_t remap_rounds = REMAP_ROUNDS_DEFAULT;

/* The trampoline (copied to TRAMP) and the two 32-bit AP entries. */
__asm__(".text\n"
	".code16\n"
	".globl tramp_start, tramp_end\n"
	"tramp_start:\n"
	"	cli\n"
	"	mov %cs, %ax\n"
	"	mov %ax, %ds\n"
	"	lgdtl tramp_gdtd - tramp_start\n"
	"	mov %cr0, %eax\n"
	"	or $1, %eax\n"
	"	mov %eax, %cr0\n"
	"	ljmpl $0x08, $ap_entry_sipi\n"
	"	.align 4\n"
	"tramp_gdtd: .word 71\n" /* the library's GDT: 9 descriptors */
	"	.long gdt\n"
	"tramp_end:\n"
	".code32\n"
	"ap_entry_sipi:\n"
	"	mov $0x10, %ax\n"
	"	mov %ax, %ds\n mov %ax, %es\n mov %ax, %ss\n mov %ax, %fs\n mov %ax, %gs\n"
	"	mov $1, %eax\n"
	"	lock xadd %eax, ap_next\n"
	"	inc %eax\n"
	/* An index past ap_stacks (an AP started more often than there are vCPUs) would put its
	 * stack over the BSS that follows: it stops here, counted, before touching memory. */
	"	cmp $" XSTR(
		MAXCPU) " - 1, %eax\n"
			"	jbe 2f\n"
			"	lock incl ap_overflow\n"
			"3:	cli\n hlt\n jmp 3b\n"
			"2:	lea 1(%eax), %ecx\n" /* the top of ap_stacks[index] */
			"	shl $14, %ecx\n"
			"	lea ap_stacks(%ecx), %esp\n"
			"	push $0\n"
			"	push %eax\n"
			"	call ap_main\n"
			"1:	cli\n hlt\n jmp 1b\n"
			".globl ap_entry_pv\n"
			"ap_entry_pv:\n" /* EAX = vCPU index, EBX = argument, ESP given */
			"	lgdt tramp_gdtd\n"
			"	ljmp $0x08, $2f\n"
			"2:	mov $0x10, %cx\n"
			"	mov %cx, %ds\n mov %cx, %es\n mov %cx, %ss\n mov %cx, %fs\n mov %cx, %gs\n"
			"	push %ebx\n"
			"	push %eax\n"
			"	call ap_main\n"
			"3:	cli\n hlt\n jmp 3b\n");
extern char tramp_start[], tramp_end[], ap_entry_pv[];
void ap_main(uint32_t idx, uint32_t arg);

/* The vCPU's index, from the stack it runs on (0: the BSP's boot stack). */
static uint32_t me(void)
{
	ulong sp = (ulong)__builtin_frame_address(0), base = (ulong)ap_stacks;
	return sp >= base && sp < base + sizeof(ap_stacks) ? (uint32_t)((sp - base) / STACK) : 0;
}

static void ap_fail_at(uint32_t cpu, uint32_t value, enum ap_check where)
{
	if (__atomic_fetch_add(&ap_fails, 1, __ATOMIC_SEQ_CST) == 0) {
		ap_first_fail[0] = cpu;
		ap_first_fail[1] = phase;
		ap_first_fail[2] = done_round;
		ap_first_fail[3] = value;
		ap_first_fail[4] = where;
	}
}

static void ap_fail(uint32_t cpu, uint32_t value)
{
	ap_fail_at(cpu, value, CHK_OTHER);
}

static void apic_eoi(void)
{
	apic_reg_write(LAPIC_EOI, 0);
}

static void ipi(uint32_t dest, uint32_t lo)
{
	apic_reg_write(LAPIC_ICR_HI, dest << 24);
	apic_reg_write(LAPIC_ICR_LO, lo);
}

/* ---- NMIs against STI and MOV SS shadows ----
 * vCPU 1 sends vCPU 0 NMIs, one at a time, while vCPU 0 runs a loop of CLI; MOV SS; NOP; STI;
 * NOP. Neither NOP's boundary may take one: MOV SS blocks NMIs for one instruction, and STI
 * blocks them too where a VMM injects (KVM, Umbra; VMX entry refuses an NMI under MOV SS
 * blocking). An NMI arrives at a boundary the kick out of guest mode picks: on QEMU many find
 * a shadow to be held over (63 of 100 were injected inside one before Umbra held them); Bochs
 * takes no external-interrupt exit inside a shadow, so there the case cannot fail. */
#define NMI_ROUNDS 100
static volatile uint32_t nmis, nmi_in_shadow, nmi_loop_done;
static volatile ulong nmi_bad_ip;
extern const char nmi_movss_in[], nmi_sti_in[];

static void on_nmi(struct frame *f)
{
	nmis++;
	if (f->ip == (ulong)nmi_movss_in || f->ip == (ulong)nmi_sti_in) {
		nmi_in_shadow++;
		nmi_bad_ip = f->ip;
	}
}

/* vCPU 0: the shadows, until vCPU 1 has sent them all (IF=0 after). */
static void nmi_shadows(void)
{
	while (!nmi_loop_done)
		__asm__ volatile(
			"mov $64, %%ecx\n"
			"1:\tcli\n\tmov %%ss, %%eax\n\tmov %%eax, %%ss\n"
			".globl nmi_movss_in\nnmi_movss_in:\n\tnop\n\tsti\n"
			".globl nmi_sti_in\nnmi_sti_in:\n\tnop\n\tdec %%ecx\n\tjnz 1b\n\tcli" ::
				: "eax", "ecx", "memory", "cc");
}

/* vCPU 1: one NMI to vCPU 0 at a time, the next once it was taken. */
static void nmi_sender(uint32_t c)
{
	for (uint32_t i = 1; i <= NMI_ROUNDS; i++) {
		ipi(0, 0x4400); /* NMI, level assert, physical APIC ID 0 */
		uint64_t end = timeout_ms(WAIT_MS);
		while (nmis < i)
			if (timed_out(end)) {
				ap_fail(c, 0x3e1a0000u | i);
				nmi_loop_done = 1;
				return;
			}
	}
	nmi_loop_done = 1;
}

static int barrier(void)
{
	uint32_t gen = bar_gen;
	uint64_t end = timeout_ms(WAIT_MS);

	if (__atomic_add_fetch(&bar_count, 1, __ATOMIC_SEQ_CST) == ncpu) {
		bar_count = 0;
		__atomic_add_fetch(&bar_gen, 1, __ATOMIC_SEQ_CST);
		return 1;
	}
	while (bar_gen == gen)
		if (timed_out(end))
			return 0;
	return 1;
}

/* The shootdown's target side: drop the page from this TLB, then say so. */
static void on_shoot(struct frame *f)
{
	(void)f;
	invlpg(SV);
	pcpu[me()].shoots++;
	__atomic_add_fetch(&acks, 1, __ATOMIC_SEQ_CST);
	apic_eoi();
}

static void on_nobody(struct frame *f)
{
	(void)f;
	nobody_hits++;
	apic_eoi();
}

/* One store that may fault: the #PF handler resumes after it and notes the fault. */
__attribute__((noinline)) static void try_write(volatile uint32_t *p, uint32_t v)
{
	__asm__ volatile(".globl tw_insn, tw_resume\n"
			 "tw_insn: movl %0, (%1)\n"
			 "tw_resume:\n"
			 :
			 : "r"(v), "r"(p)
			 : "memory");
}
extern char tw_insn[], tw_resume[];

static void on_pf(struct frame *f)
{
	uint32_t c = me();
	if (f->ip != (ulong)tw_insn || !pcpu[c].expect_fault)
		fail("vcpu %u: unexpected #PF at ip 0x%lx cr2 0x%lx error 0x%lx", c, f->ip,
		     (ulong)read_cr2(), f->error);
	pcpu[c].faulted = 1;
	pcpu[c].error = (uint32_t)f->error;
	f->ip = (ulong)tw_resume;
}

static volatile uint32_t *slot(ulong va, uint32_t c)
{
	return (volatile uint32_t *)(va + 64 + 4 * c);
}

/* Phase 1: every vCPU touches every shared page at once (shadow faults on one guest table). */
static void touch_all(uint32_t c)
{
	for (int i = 0; i < NP; i++) {
		ulong va = TEST_VA + (ulong)i * PAGE_SIZE;
		uint32_t m = *(volatile uint32_t *)va;
		if (m != marker_of(frames[i]))
			ap_fail(c, m);
		*slot(va, c) = 0xc0de0000u | c << 8 | (uint32_t)i;
	}
}

/* Phase 2: CR3 switches between two roots that share the test page table. */
static void switch_roots(uint32_t c)
{
	for (int k = 0; k < 100; k++) {
		write_cr3((k & 1) ? as_b.root : as_a.root);
		ulong va = TEST_VA + (ulong)(k % NP) * PAGE_SIZE;
		if (*(volatile uint32_t *)va != marker_of(frames[k % NP]) ||
		    *slot(va, c) != (0xc0de0000u | c << 8 | (uint32_t)(k % NP)))
			ap_fail(c, (uint32_t)k);
	}
	write_cr3(as_a.root);
}

/* Phases 3 and 4 on an AP: hammer the page until the BSP says the round's shootdown is done,
 * then the new translation (a frame, or no write) must be all this vCPU sees. */
static void ap_rounds(uint32_t c)
{
	for (uint32_t r = 1; r <= remap_rounds + WP_ROUNDS; r++) {
		uint64_t end = timeout_ms(WAIT_MS);
		pcpu[c].round = r;
		pcpu[c].spins = 0;
		irq_on();
		while (done_round < r && !timed_out(end)) {
			pcpu[c].spins++;
			uint32_t m = *(volatile uint32_t *)SV;
			if (m != marker_of(sv_frame[0]) && m != marker_of(sv_frame[1]))
				ap_fail_at(c, m, CHK_LOOP_READ);
			if (r <= remap_rounds)
				*slot(SV, c) = r;
		}
		irq_off();
		if (done_round < r) {
			ap_fail(c, 0xdead0000u | r);
			return;
		}
		if (r <= remap_rounds) {
			uint32_t m = *(volatile uint32_t *)SV;
			if (m != marker_of(sv_frame[r & 1]))
				ap_fail_at(c, m, CHK_STALE); /* it survived the shootdown */
		} else {
			uint32_t before = *slot(SV, c);
			pcpu[c].expect_fault = 1;
			pcpu[c].faulted = 0;
			try_write(slot(SV, c), 0xbad);
			pcpu[c].expect_fault = 0;
			if (!pcpu[c].faulted || (pcpu[c].error & (PF_P | PF_W)) != (PF_P | PF_W) ||
			    *slot(SV, c) != before)
				ap_fail_at(c, 0x3e000000u | pcpu[c].error, CHK_WRITE_PROTECT);
		}
		/* Exactly one shootdown interrupt per round: a second delivery of one IPI would
		 * acknowledge for a vCPU that has not flushed yet. */
		if (pcpu[c].shoots != r)
			ap_fail_at(c, pcpu[c].shoots, CHK_SHOOT_COUNT);
		__atomic_add_fetch(&checked, 1, __ATOMIC_SEQ_CST);
	}
}

void ap_main(uint32_t idx, uint32_t arg)
{
	idt_load(idt, 256 * 8 - 1);
	uint32_t id = apic_reg_read(LAPIC_ID) >> 24;
	apic_reg_write(LAPIC_SVR, 0x1ff);
	if (arg && (arg != 0x5eed0000u + idx || id != idx))
		ap_fail(idx, arg); /* VCPU_START: EAX = the index, EBX = the argument */
	write_cr4(cr4_on);
	write_cr3(as_a.root);
	write_cr0(cr0_on);
	__atomic_add_fetch(&ap_online, 1, __ATOMIC_SEQ_CST);
	if (me() != idx)
		ap_fail(idx, 0x57ac0000u | me());
	/* The BSP sets ncpu once everyone is counted, then phase 1. */
	while (phase < 1)
		__asm__ volatile("pause");
	touch_all(idx);
	if (!barrier() || !barrier())
		ap_fail(idx, 0xba000001u);
	switch_roots(idx);
	if (!barrier())
		ap_fail(idx, 0xba000002u);
	ap_rounds(idx);
	while (phase < 5)
		__asm__ volatile("pause");
	if (idx == 1)
		nmi_sender(idx);
	for (;;)
		__asm__ volatile("cli; hlt");
}

static ulong stack_top(uint32_t i)
{
	return (ulong)ap_stacks[i] + STACK;
}

/* VCPU_START: the bad inputs first (each must change nothing), then every AP. */
static void start_pv(uint32_t n)
{
	ulong entry = (ulong)ap_entry_pv;
	CHECK(umbra_hypercall4(UMBRA_HC_VCPU_START, n, entry, stack_top(1), 0) == -UMBRA_EINVAL,
	      "VCPU_START past the last vCPU");
	CHECK(umbra_hypercall4(UMBRA_HC_VCPU_START, 0, entry, stack_top(1), 0) == -UMBRA_EINVAL,
	      "VCPU_START of the caller itself");
	CHECK(umbra_hypercall4(UMBRA_HC_VCPU_START, 1, (ulong)ram_bytes, stack_top(1), 0) ==
		      -UMBRA_EFAULT,
	      "VCPU_START with the entry outside RAM");
	CHECK(umbra_hypercall4(UMBRA_HC_VCPU_START, 1, entry, (ulong)ram_bytes + PAGE_SIZE, 0) ==
		      -UMBRA_EFAULT,
	      "VCPU_START with the stack outside RAM");
	delay_ms(20);
	CHECK(ap_online == 0, "a refused VCPU_START started a vCPU");
	for (uint32_t i = 1; i < n; i++)
		CHECK(umbra_hypercall4(UMBRA_HC_VCPU_START, i, entry, stack_top(i),
				       0x5eed0000u + i) == 0,
		      "VCPU_START %u", i);
	CHECK(umbra_hypercall4(UMBRA_HC_VCPU_START, 1, entry, stack_top(1), 0) == -UMBRA_EBUSY,
	      "VCPU_START of a running vCPU");
}

/* INIT-SIPI-SIPI to all but self, as an MP BIOS or kernel does. */
static void start_sipi(void)
{
	for (ulong i = 0; i < (ulong)(tramp_end - tramp_start); i++)
		((volatile uint8_t *)TRAMP)[i] = (uint8_t)tramp_start[i];
	ipi(0, 0x000c4500); /* INIT, level assert, all excluding self */
	delay_ms(10);
	ipi(0, 0x000c4600 | (TRAMP >> 12)); /* SIPI */
	delay_ms(1);
	ipi(0, 0x000c4600 | (TRAMP >> 12)); /* the second one finds them running: ignored */
}

/* After a failed round: where each AP is, and how many shootdowns it took (one a round). */
static void report_shoots(void)
{
	for (uint32_t c = 1; c < ncpu; c++)
		kprintf("%s: vcpu %u: round %u, %u reads in it, %u shootdown interrupts\n",
			guest_name, c, pcpu[c].round, pcpu[c].spins, pcpu[c].shoots);
}

/* Phase 3/4, BSP side: change the entry, then the guest's own shootdown. */
static int shootdown_round(uint32_t r, uint64_t pte)
{
	uint64_t end = timeout_ms(WAIT_MS);
	void *e = pt_entry(&as_a, SV, 1, 0);

	checked = 0;
	acks = 0;
	pte_set(&as_a, e, pte);
	invlpg(SV);
	ipi(0, 0x000c0000 | VEC_SHOOT); /* fixed, all excluding self */
	irq_on();
	while (acks < ncpu - 1 && !timed_out(end))
		__asm__ volatile("pause");
	irq_off();
	CHECK(acks == ncpu - 1, "round %u: %u of %u shootdown acknowledgements", r, acks, ncpu - 1);
	if (acks != ncpu - 1)
		report_shoots();
	__atomic_store_n(&done_round, r, __ATOMIC_SEQ_CST);
	while (checked < ncpu - 1 && !timed_out(end))
		__asm__ volatile("pause");
	CHECK(checked == ncpu - 1, "round %u: %u of %u vCPUs checked", r, checked, ncpu - 1);
	if (checked != ncpu - 1)
		report_shoots();
	return acks == ncpu - 1 && checked == ncpu - 1;
}

/* The APs' failed checks so far (they do not print: one console line at a time). */
static void report_ap_fails(const char *when)
{
	static uint32_t reported;
	CHECK(ap_fails == reported,
	      "%s: %u AP check(s) failed; first: vcpu %u phase %u round %u value 0x%x at %u "
	      "(frames 0x%lx 0x%lx)",
	      when, ap_fails - reported, ap_first_fail[0], ap_first_fail[1], ap_first_fail[2],
	      ap_first_fail[3], ap_first_fail[4], sv_frame[0] >> 12, sv_frame[1] >> 12);
	reported = ap_fails;
}

void test_main(void)
{
	struct umbra_vcpu_info info;

	const char *start = cmdline_value("start"), *rounds = cmdline_value("rounds");
	int pv = start && start[0] == 'p' && start[1] == 'v' && (!start[2] || start[2] == ' ');
	if (rounds) {
		uint32_t n = 0;
		for (; *rounds >= '0' && *rounds <= '9'; rounds++)
			n = n * 10 + (uint32_t)(*rounds - '0');
		if (n)
			remap_rounds = n;
	}
	pic_remap(0x20, 0x28); /* every 8259 line masked: only IPIs interrupt */
	as_init(&as_a, GUEST_MODE);
	as_clone_kernel(&as_b, &as_a);
	for (int i = 0; i < NP; i++) {
		frames[i] = page_alloc();
		frame_mark(frames[i]);
		map_page(&as_a, TEST_VA + (ulong)i * PAGE_SIZE, frames[i], 1, PTE_P | PTE_W);
	}
	for (int i = 0; i < 2; i++) {
		sv_frame[i] = page_alloc();
		frame_mark(sv_frame[i]);
	}
	map_page(&as_a, SV, sv_frame[0], 1, PTE_P | PTE_W);
	/* Root B shares A's test page table: its directory entry names the same table. */
	uint64_t pde = pte_get(&as_a, pt_entry(&as_a, TEST_VA, 2, 0));
	pte_set(&as_b, pt_entry(&as_b, TEST_VA, 2, 1), pde);
	map_page(&as_a, LAPIC_BASE, LAPIC_BASE, 1, PTE_P | PTE_W | (1ull << 4));
	map_page(&as_b, LAPIC_BASE, LAPIC_BASE, 1, PTE_P | PTE_W | (1ull << 4));
	as_activate(&as_a);
	set_cr0_bits(CR0_WP, 0); /* supervisor writes obey read-only entries */
	cr0_on = read_cr0();
	cr4_on = read_cr4();
	idt = idt_base();
	set_irq_handler(VEC_SHOOT, on_shoot);
	set_irq_handler(VEC_NOBODY, on_nobody);
	set_irq_handler(14, on_pf);
	apic_reg_write(LAPIC_SVR, 0x1ff);
	tsc_per_ms(); /* calibrated once, before the APs read it */

	uint32_t want = 0;
	if (on_umbra) {
		CHECK(umbra_hypercall(UMBRA_HC_VCPU_INFO, (ulong)&info, 0) == 0, "VCPU_INFO");
		want = info.nr_vcpus;
		CHECK(want >= 1 && want <= MAXCPU, "nr_vcpus %u", want);
		if (want > MAXCPU)
			want = MAXCPU;
	}
	if (pv && on_umbra && want > 1)
		start_pv(want);
	else
		start_sipi();
	/* Everyone there: Umbra said how many; natively whoever answered within the wait. */
	uint64_t end = timeout_ms(on_umbra ? WAIT_MS : 300);
	while ((!want || ap_online + 1 < want) && !timed_out(end))
		__asm__ volatile("pause");
	if (want)
		CHECK(ap_online + 1 == want, "%u of %u vCPUs came up", ap_online + 1, want);
	ncpu = ap_online + 1;
	kprintf("%s: %u vCPUs (%s start)\n", guest_name, ncpu, pv && on_umbra ? "pv" : "sipi");
	if (ncpu == 1)
		skip_note("only one CPU: the shootdown phases run without targets");

	/* An IPI to an APIC ID nobody has is dropped, as on hardware. */
	ipi(0x30, VEC_NOBODY);
	delay_ms(5);
	CHECK(nobody_hits == 0, "an IPI to a missing APIC ID arrived %u times", nobody_hits);

	phase = 1;
	touch_all(0);
	CHECK(barrier(), "phase 1 barrier");
	for (int i = 0; i < NP; i++)
		for (uint32_t c = 0; c < ncpu; c++)
			CHECK(*slot(TEST_VA + (ulong)i * PAGE_SIZE, c) ==
				      (0xc0de0000u | c << 8 | (uint32_t)i),
			      "page %d: vCPU %u's write is missing", i, c);
	CHECK(barrier(), "phase 1 check barrier");
	report_ap_fails("phase 1");
	CHECK(ap_overflow == 0, "%u AP starts past %u vCPUs (the trampoline ran again)",
	      ap_overflow, MAXCPU);
	phase = 2;
	switch_roots(0);
	CHECK(barrier(), "phase 2 barrier");
	report_ap_fails("phase 2");
	phase = 3;
	/* After a round some vCPU missed, the counts of the next ones would say nothing new. */
	int ok = 1;
	for (uint32_t r = 1; ok && r <= remap_rounds; r++)
		ok = shootdown_round(r, sv_frame[r & 1] | PTE_P | PTE_W);
	phase = 4;
	for (uint32_t r = remap_rounds + 1; ok && r <= remap_rounds + WP_ROUNDS; r++) {
		/* Writable again (a gain of rights needs no shootdown), then read-only. */
		pte_set(&as_a, pt_entry(&as_a, SV, 1, 0), sv_frame[0] | PTE_P | PTE_W);
		invlpg(SV);
		*slot(SV, 0) = r;
		ok = shootdown_round(r, sv_frame[0] | PTE_P);
	}
	report_ap_fails("phases 3 and 4");
	kprintf("%s: %u remap and %u write-protect shootdowns on %u vCPUs\n", guest_name,
		remap_rounds, WP_ROUNDS, ncpu);
	if (ncpu < 2 || !ok)
		return;
	set_irq_handler(2, on_nmi);
	phase = 5;
	nmi_shadows();
	report_ap_fails("phase 5");
	CHECK(nmis == NMI_ROUNDS && !nmi_in_shadow,
	      "NMIs: %u of %u taken, %u inside a shadow "
	      "(last at %lx)",
	      nmis, NMI_ROUNDS, nmi_in_shadow, nmi_bad_ip);
	kprintf("%s: %u NMIs from vCPU 1 around STI and MOV SS shadows, %u inside one\n",
		guest_name, nmis, nmi_in_shadow);
}
