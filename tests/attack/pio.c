/* SPDX-License-Identifier: GPL-2.0-only */
/* Attack guest (pio): port I/O widths, string I/O and its faults, and I/O privilege at CPL 3. */
/* Runs on the 16550's scratch register (0x3ff, any value reads back) and its neighbours: LSR
 * (0x3fd) and MSR (0x3fe) ignore writes, MCR (0x3fc) is written with its own value. A device
 * narrower than the access sees consecutive byte accesses, as on the ISA bus. String I/O is
 * checked the way the SDM defines REP INS/OUTS: one element per iteration, a page fault stops
 * it precisely with RCX and RSI/RDI counted up to the faulting element (which is not done), and
 * the memory access obeys paging (supervisor pages, read-only pages) at the CPL of the guest.
 * At CPL 3 with IOPL 0 and no I/O bitmap every I/O instruction is #GP(0) (even to the result
 * port, which then must not end the guest); with IOPL 3 they run. */
#include "tests/attack/attack.h"

const char guest_name[] = GUEST_NAME;

#define SCR 0x3ff
#define MSR_FS_BASE 0xc0000100u

static inline void outw(uint16_t port, uint16_t v)
{
	asm volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}
static inline uint16_t inw(uint16_t port)
{
	uint16_t v;
	asm volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static ulong buf_page, hole; /* a mapped page, and the unmapped page after it */

static void widths(void)
{
	ulong mark = checks_failed;
	/* outb sends AL only: AH must not reach the device (or the next port). */
	outb(SCR, 0);
	asm volatile("outb %%al, %%dx" : : "a"(0xa55au), "d"(SCR));
	uint8_t b = inb(SCR);
	CHECK(b == 0x5a, "outb with AH=0xa5: scratch reads %x, expected 5a", b);
	case_end("outb-al (AX=0xa55a to 0x3ff: the scratch holds 0x5a)", mark);

	mark = checks_failed;
	outw(0x3fe, 0x12ab); /* 0xab to the MSR (ignored), 0x12 to the scratch */
	b = inb(SCR);
	CHECK(b == 0x12, "outw 0x12ab to 0x3fe: scratch %x, expected 12", b);
	uint16_t w = inw(0x3fe);
	CHECK((w >> 8) == 0x12, "inw from 0x3fe: %x, the scratch 0x12 belongs in the high byte", w);
	case_end("outw-inw (0x3fe/0x3ff: the high byte is the scratch)", mark);

	mark = checks_failed;
	uint8_t mcr = inb(0x3fc);
	outl(0x3fc, 0x77000000u | mcr); /* MCR unchanged, LSR and MSR ignore it, scratch 0x77 */
	CHECK(inb(SCR) == 0x77, "outl to 0x3fc: scratch %x, expected 77", inb(SCR));
	CHECK(inb(0x3fc) == mcr, "outl to 0x3fc: MCR %x, expected %x", inb(0x3fc), mcr);
	uint32_t l = inl(0x3fc);
	CHECK((l >> 24) == 0x77 && (l & 0xff) == mcr, "inl from 0x3fc: %x (MCR %x, scratch 77)", l,
	      mcr);
	case_end("outl-inl (0x3fc-0x3ff: MCR and scratch bytes)", mark);

	/* A dword at 0xfffe covers 0xfffe-0x10001: nothing answers there (no wrap to port 0). */
	l = inl(0xfffe);
	if (on_umbra)
		CHECK(l == 0xffffffffu, "inl from 0xfffe: %x, expected all ones", l);
	kprintf("attack inl-0xfffe (the top of the port space%s): %s\n",
		on_umbra ? ", all ones" : ", natively not checked",
		!on_umbra || l == 0xffffffffu ? "ok" : "FAILED");
}

/* rep outsb/insb with count, returning what was left in RCX and RSI/RDI, and the vector. */
static int rep_outsb(ulong src, ulong count, uint16_t port, ulong *rcx, ulong *rsi)
{
	ulong n = fault_count, c = count, s = src;
	asm volatile(ATK_RECOVER "rep outsb\n1:" : "+c"(c), "+S"(s) : "d"(port) : "memory", "cc");
	*rcx = c, *rsi = s;
	return fault_since(n);
}

static int rep_outsb_down(ulong src, ulong count, uint16_t port, ulong *rcx, ulong *rsi)
{
	ulong n = fault_count, c = count, s = src;
	asm volatile(ATK_RECOVER "std\n\trep outsb\n1:\tcld"
		     : "+c"(c), "+S"(s)
		     : "d"(port)
		     : "memory", "cc");
	*rcx = c, *rsi = s;
	return fault_since(n);
}

static int rep_insb(ulong dst, ulong count, uint16_t port, ulong *rcx, ulong *rdi)
{
	ulong n = fault_count, c = count, d = dst;
	asm volatile(ATK_RECOVER "rep insb\n1:" : "+c"(c), "+D"(d) : "d"(port) : "memory", "cc");
	*rcx = c, *rdi = d;
	return fault_since(n);
}

static void strings(void)
{
	uint8_t *p = (uint8_t *)buf_page;
	ulong c, r;
	ulong mark = checks_failed;
	for (int i = 0; i < 10; i++)
		p[i] = (uint8_t)(0x31 + i);
	int v = rep_outsb(buf_page, 10, SCR, &c, &r);
	CHECK(v == NO_FAULT, "rep outsb: %s", vec_name(v));
	CHECK(inb(SCR) == 0x3a, "rep outsb of 10 bytes: scratch %x, expected the last, 3a",
	      inb(SCR));
	CHECK(c == 0 && r == buf_page + 10, "rep outsb: rcx %lx rsi %lx, expected 0, %lx", c, r,
	      buf_page + 10);
	case_end("rep-outsb (10 bytes to the scratch: the last stays, rcx 0, rsi +10)", mark);

	mark = checks_failed;
	v = rep_outsb_down(buf_page + 9, 10, SCR, &c, &r);
	CHECK(v == NO_FAULT && inb(SCR) == 0x31, "std; rep outsb: %s, scratch %x, expected 31",
	      vec_name(v), inb(SCR));
	CHECK(c == 0 && r == buf_page - 1, "std; rep outsb: rcx %lx rsi %lx, expected 0, %lx", c, r,
	      buf_page - 1);
	case_end("rep-outsb-df (DF=1: backwards, the first byte last)", mark);

	mark = checks_failed;
	outb(SCR, 0xc3);
	for (int i = 0; i < 16; i++)
		p[i] = 0;
	v = rep_insb(buf_page + 2, 8, SCR, &c, &r);
	int same = 1;
	for (int i = 0; i < 16; i++)
		same &= p[i] == ((i >= 2 && i < 10) ? 0xc3 : 0);
	CHECK(v == NO_FAULT && same, "rep insb of 8 bytes: %s, buffer wrong", vec_name(v));
	CHECK(c == 0 && r == buf_page + 10, "rep insb: rcx %lx rdi %lx, expected 0, %lx", c, r,
	      buf_page + 10);
	case_end("rep-insb (8 bytes, exactly those, rcx 0, rdi +8)", mark);

	/* Into the unmapped page: 5 bytes land, the 6th faults (#PF, write, not present). */
	mark = checks_failed;
	ulong start = hole - 5;
	for (int i = 0; i < 5; i++)
		((uint8_t *)start)[i] = 0;
	outb(SCR, 0x99);
	v = rep_insb(start, 12, SCR, &c, &r);
	CHECK(v == 14, "rep insb across into a hole: %s, expected #PF", vec_name(v));
	if (v == 14) {
		CHECK(last_fault.cr2 == hole && last_fault.error == PF_W,
		      "rep insb #PF: cr2 %lx error %lx, expected %lx, 2", last_fault.cr2,
		      last_fault.error, hole);
		CHECK(c == 7 && r == hole, "rep insb #PF: rcx %lx rdi %lx, expected 7, %lx", c, r,
		      hole);
	}
	for (int i = 0; i < 5; i++)
		CHECK(((uint8_t *)start)[i] == 0x99, "rep insb: byte %d before the hole is %x", i,
		      ((uint8_t *)start)[i]);
	case_end("rep-insb-pf (12 bytes from 5 before a hole: #PF at it, rcx 7, rdi there)", mark);

	/* Out of the hole: 3 bytes go out, the 4th read faults (#PF, read, not present). */
	mark = checks_failed;
	start = hole - 3;
	((uint8_t *)start)[0] = 0x41, ((uint8_t *)start)[1] = 0x42, ((uint8_t *)start)[2] = 0x43;
	outb(SCR, 0);
	v = rep_outsb(start, 6, SCR, &c, &r);
	CHECK(v == 14, "rep outsb across into a hole: %s, expected #PF", vec_name(v));
	if (v == 14) {
		CHECK(last_fault.cr2 == hole && last_fault.error == 0,
		      "rep outsb #PF: cr2 %lx error %lx, expected %lx, 0", last_fault.cr2,
		      last_fault.error, hole);
		CHECK(c == 3 && r == hole, "rep outsb #PF: rcx %lx rsi %lx, expected 3, %lx", c, r,
		      hole);
	}
	CHECK(inb(SCR) == 0x43, "rep outsb #PF: scratch %x, expected the last byte out, 43",
	      inb(SCR));
	case_end("rep-outsb-pf (6 bytes from 3 before a hole: #PF at it, rcx 3)", mark);

	/* Wider elements: each word's high byte reaches the scratch, each dword's top byte. */
	mark = checks_failed;
	uint16_t *w = (uint16_t *)buf_page;
	w[0] = 0x1101, w[1] = 0x2202;
	ulong cc = 2, s = buf_page;
	asm volatile("rep outsw" : "+c"(cc), "+S"(s) : "d"(0x3fe) : "memory");
	CHECK(inb(SCR) == 0x22 && cc == 0 && s == buf_page + 4,
	      "rep outsw: scratch %x rcx %lx "
	      "rsi %lx",
	      inb(SCR), cc, s);
	uint32_t *d = (uint32_t *)(buf_page + 64);
	d[0] = d[1] = 0;
	outb(SCR, 0x5e);
	ulong dd = (ulong)d;
	cc = 2;
	asm volatile("rep insl" : "+c"(cc), "+D"(dd) : "d"(0x3fc) : "memory");
	CHECK((d[0] >> 24) == 0x5e && (d[1] >> 24) == 0x5e && dd == (ulong)d + 8,
	      "rep insl from 0x3fc: %x %x rdi %lx", d[0], d[1], dd);
	case_end("rep-outsw-insl (word and dword elements)", mark);

#ifdef __x86_64__
	/* A segment override: OUTS reads FS:RSI, FS's base from IA32_FS_BASE. */
	mark = checks_failed;
	p[100] = 0x6b;
	uint64_t fsb = rdmsr(MSR_FS_BASE);
	wrmsr(MSR_FS_BASE, buf_page);
	cc = 1, s = 100;
	asm volatile("rep outsb %%fs:(%%rsi), (%%dx)" : "+c"(cc), "+S"(s) : "d"(SCR) : "memory");
	wrmsr(MSR_FS_BASE, fsb);
	CHECK(inb(SCR) == 0x6b, "rep outsb from fs:100: scratch %x, expected 6b", inb(SCR));
	case_end("fs-outsb (rep outsb %fs:(%rsi): FS base from the MSR)", mark);
#endif
}

/* INS writing the guest's own page table: the write must reach the shadow MMU like any other
 * write to a page table (else the old translation stays). Bytes 1 and 2 of the PTE (address
 * bits 12-23) are rewritten one INSB at a time, then the mapping must reach the new frame. */
static void ins_into_pte(void)
{
	ulong va = TEST_VA + 4 * PAGE_SIZE, a, b;
	do {
		a = page_alloc(), b = page_alloc();
	} while (((a ^ b) & ~0xfff000ul) != 0);
	frame_mark(a);
	frame_mark(b);
	void *pte = map_page(&atk_space, va, a, 1, PTE_P | PTE_W);
	invlpg(va);
	ulong mark = checks_failed;
	expect_maps(va, a, "before the INSB");
	uint64_t nv = pte_get(&atk_space, pte) ^ (a ^ b);
	for (int i = 1; i <= 2; i++) {
		outb(SCR, (uint8_t)(nv >> (8 * i)));
		ulong d = (ulong)pte + (ulong)i;
		asm volatile("insb" : "+D"(d) : "d"(SCR) : "memory");
	}
	CHECK(pte_get(&atk_space, pte) == nv, "the PTE reads %llx after the INSBs, expected %llx",
	      (unsigned long long)pte_get(&atk_space, pte), (unsigned long long)nv);
	invlpg(va);
	expect_maps(va, b, "after the INSBs into the PTE and invlpg");
	case_end("insb-into-pte (INS rewrites a PTE: the new frame is reached)", mark);
}

USER_SNIPPET(u_outb, "mov $0x3ff, %dx\n\tmov $0x11, %al\n\toutb %al, %dx");
USER_SNIPPET(u_out_result, "mov $0x10, %eax\n\toutl %eax, $0xf4");
USER_SNIPPET(u_inb, "mov $0x3ff, %dx\n\tinb %dx, %al");
#ifdef __x86_64__
USER_SNIPPET(u_insb, "mov %rbx, %rdi\n\tmov $0x3ff, %dx\n\trep insb");
USER_SNIPPET(u_outsb, "mov %rbx, %rsi\n\tmov $0x3ff, %dx\n\trep outsb");
#else
USER_SNIPPET(u_insb, "mov %ebx, %edi\n\tmov $0x3ff, %dx\n\trep insb");
USER_SNIPPET(u_outsb, "mov %ebx, %esi\n\tmov $0x3ff, %dx\n\trep outsb");
#endif

static void cpl3(void)
{
	user_init();
	/* A user page without W for the IOPL 3 case. */
	ulong ro_pa = page_alloc(), ro = user_data + PAGE_SIZE;
	if (GUEST_MODE != PM_OFF) {
		map_page(&atk_space, ro, ro_pa, 1, PTE_P | PTE_U);
		invlpg(ro);
	}
	outb(SCR, 0x22);
	int v = USER_RUN(u_outb, 0, 0, 0, 0);
	expect_vec("outb-cpl3 (IOPL 0)", v, 13);
	CHECK(inb(SCR) == 0x22, "the CPL 3 outb reached the scratch (%x)", inb(SCR));
	v = USER_RUN(u_out_result, 0, 0, 0, 0);
	expect_vec("out-result-port-cpl3 (IOPL 0: #GP, the guest goes on)", v, 13);
	v = USER_RUN(u_inb, 0, 0, 0, 0);
	expect_vec("inb-cpl3 (IOPL 0)", v, 13);
	v = USER_RUN(u_insb, 0, user_data, 4, 0);
	expect_vec("rep-insb-cpl3 (IOPL 0)", v, 13);
	v = USER_RUN(u_outsb, 0, user_data, 4, 0);
	expect_vec("rep-outsb-cpl3 (IOPL 0)", v, 13);

	/* IOPL 3: the port is allowed, but the memory side is still a user access. */
	const ulong iopl3 = 0x3002;
	uint8_t *k = (uint8_t *)(buf_page + 512);
	k[0] = k[1] = k[2] = k[3] = 0xee;
	v = user_exec_flags(u_insb, u_insb_end, 0, (ulong)k, 4, iopl3, 0);
	ulong mark = checks_failed;
	CHECK(v == 14 && last_fault.error == (PF_P | PF_W | PF_U) && last_fault.cr2 == (ulong)k,
	      "rep insb into a supervisor page at CPL 3: %s error %lx cr2 %lx, expected #PF 7 at %lx",
	      vec_name(v), last_fault.error, last_fault.cr2, (ulong)k);
	CHECK(k[0] == 0xee && k[3] == 0xee, "the supervisor page was written: %x", k[0]);
	case_end("rep-insb-iopl3-supervisor (#PF P|W|U, the page unchanged)", mark);

	outb(SCR, 0x22);
	v = user_exec_flags(u_outsb, u_outsb_end, 0, (ulong)k, 4, iopl3, 0);
	mark = checks_failed;
	CHECK(v == 14 && last_fault.error == (PF_P | PF_U) && last_fault.cr2 == (ulong)k,
	      "rep outsb from a supervisor page at CPL 3: %s error %lx cr2 %lx, expected #PF 5",
	      vec_name(v), last_fault.error, last_fault.cr2);
	CHECK(inb(SCR) == 0x22, "a supervisor byte reached the port at CPL 3 (%x)", inb(SCR));
	case_end("rep-outsb-iopl3-supervisor (#PF P|U, nothing read out)", mark);

	if (GUEST_MODE != PM_OFF) {
		v = user_exec_flags(u_insb, u_insb_end, 0, ro, 4, iopl3, 0);
		mark = checks_failed;
		CHECK(v == 14 && last_fault.error == (PF_P | PF_W | PF_U) && last_fault.cr2 == ro,
		      "rep insb into a read-only user page: %s error %lx cr2 %lx", vec_name(v),
		      last_fault.error, last_fault.cr2);
		CHECK(*(volatile uint8_t *)ro_pa == 0, "the read-only page was written");
		case_end("rep-insb-iopl3-readonly (#PF P|W|U)", mark);
	}
	outb(SCR, 0x22);
	v = user_exec_flags(u_outb, u_outb_end, 0, 0, 0, iopl3, 0);
	mark = checks_failed;
	CHECK(v == NO_FAULT && inb(SCR) == 0x11, "outb at CPL 3 with IOPL 3: %s, scratch %x",
	      vec_name(v), inb(SCR));
	case_end("outb-iopl3 (allowed)", mark);
}

void test_main(void)
{
	/* A space of our own: the identity map, one buffer page and a hole after it. */
	user_init();
	buf_page = TEST_VA;
	hole = TEST_VA + PAGE_SIZE;
	map_page(&atk_space, buf_page, page_alloc(), 1, PTE_P | PTE_W);
	invlpg(buf_page);
	invlpg(hole);
	widths();
	strings();
	ins_into_pte();
	cpl3();
	kprintf("cases: pio\n");
}
