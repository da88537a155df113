/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest library core: boot info, console, descriptors, exceptions, probes, CPU, pages. */
#include <stdarg.h>
#include "tests/guests/lib/guest.h"

#define COM1 0x3f8
#define MB_BOOT_MAGIC 0x2badb002u
#define MAX_PRINTED_FAILURES 20

const char *const pmode_name[] = { "off", "32-bit", "PAE", "long" };

uint64_t ram_bytes;
int booted_by_umbra;
char boot_cmdline[128];
struct features cpu;
int on_umbra;
int umbra_nested;
unsigned long checks_failed;
int fatal_triple;
volatile struct fault_rec last_fault;
volatile ulong fault_count;
volatile ulong fault_recover;

extern ulong boot_magic, boot_info;
extern char _end[], boot_stack_top[];
extern char trap_stubs[], irq_stubs[];
extern char ustub_start[], ustub_read[], ustub_write[], ustub_end[];
extern uint64_t gdt[];
ulong user_call(ulong ip, ulong sp, ulong ax, ulong bx, ulong cx);
__attribute__((noreturn)) void user_return(ulong value);
void lib_start(void);
void trap_handler(struct frame *f);

/* ---- console ---- */
void kputc(char c)
{
	if (c == '\n')
		kputc('\r');
	/* Bounded, so a missing UART cannot hang the guest. */
	for (int i = 0; i < 100000 && !(inb(COM1 + 5) & 0x20); i++)
		;
	outb(COM1, (uint8_t)c);
}

static void put_num(unsigned long long v, unsigned base, int width, char pad, int neg)
{
	char buf[24];
	int n = 0;
	do {
		buf[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (neg)
		buf[n++] = '-';
	for (; width > n; width--)
		kputc(pad);
	while (n)
		kputc(buf[--n]);
}

static void kvprintf(const char *fmt, va_list ap)
{
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			kputc(*fmt);
			continue;
		}
		char pad = ' ';
		int width = 0, longs = 0;
		fmt++;
		if (*fmt == '0')
			pad = '0', fmt++;
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		while (*fmt == 'l')
			longs++, fmt++;
		unsigned long long v = 0;
		if (*fmt == 'd' || *fmt == 'u' || *fmt == 'x') {
			if (longs >= 2)
				v = va_arg(ap, unsigned long long);
			else if (longs == 1)
				v = va_arg(ap, unsigned long);
			else
				v = va_arg(ap, unsigned int);
		}
		switch (*fmt) {
		case 'd': {
			long long s = longs >= 2 ? (long long)v
				      : longs	 ? (long long)(long)v
						 : (long long)(int)v;
			put_num(s < 0 ? -(unsigned long long)s : (unsigned long long)s, 10, width,
				pad, s < 0);
			break;
		}
		case 'u':
			put_num(v, 10, width, pad, 0);
			break;
		case 'x':
			put_num(v, 16, width, pad, 0);
			break;
		case 'p':
			put_num((ulong)va_arg(ap, void *), 16, width, pad, 0);
			break;
		case 'c':
			kputc((char)va_arg(ap, int));
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			for (; s && *s; s++)
				kputc(*s);
			break;
		}
		case '%':
			kputc('%');
			break;
		default:
			kputc('%');
			kputc(*fmt);
			break;
		}
	}
}

void kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
}

void check_failed(const char *fmt, ...)
{
	if (++checks_failed > MAX_PRINTED_FAILURES)
		return;
	va_list ap;
	va_start(ap, fmt);
	kprintf("CHECK FAILED: ");
	kvprintf(fmt, ap);
	kputc('\n');
	va_end(ap);
}

void skip_note(const char *what)
{
	kprintf("note: not running on Umbra; %s skipped\n", what);
}

__attribute__((noreturn)) static void report(uint32_t value)
{
	outl(UMBRA_RESULT_PORT, value);
	/* Still here: no isa-debug-exit. Bochs' magic breakpoint (a no-op elsewhere) ends a Bochs
	 * run; the serial log then tells the result. */
	asm volatile("xchg %%bx, %%bx" : : : "memory");
	for (;;)
		asm volatile("cli; hlt");
}

__attribute__((noreturn)) void finish(void)
{
	if (checks_failed) {
		kprintf("RESULT: FAIL %lu checks failed\n", checks_failed);
		report(UMBRA_RESULT_FAIL);
	}
	kprintf("RESULT: PASS\n");
	report(UMBRA_RESULT_PASS);
}

__attribute__((noreturn)) void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kprintf("RESULT: FAIL ");
	kvprintf(fmt, ap);
	kputc('\n');
	va_end(ap);
	report(UMBRA_RESULT_FAIL);
}

__attribute__((noreturn)) void triple_fault(void)
{
	static const struct __attribute__((packed)) {
		uint16_t limit;
		ulong base;
	} empty = { 0, 0 };
	asm volatile("lidt %0" : : "m"(empty));
	asm volatile("ud2");
	for (;;)
		;
}

/* ---- descriptors ---- */
struct __attribute__((packed)) dtr {
	uint16_t limit;
	ulong base;
};

#ifdef __x86_64__
struct __attribute__((packed)) tss {
	uint32_t rsv0;
	uint64_t rsp0, rsp1, rsp2, rsv1, ist[7], rsv2;
	uint16_t rsv3, iomap;
};
struct gate {
	uint16_t off0, sel;
	uint8_t ist, type;
	uint16_t off1;
	uint32_t off2, rsv;
};
#else
struct __attribute__((packed)) tss {
	uint32_t link, esp0, ss0, esp1, ss1, esp2, ss2, cr3, eip, eflags;
	uint32_t eax, ecx, edx, ebx, esp, ebp, esi, edi, es, cs, ss, ds, fs, gs, ldt;
	uint16_t trap, iomap;
};
struct gate {
	uint16_t off0, sel;
	uint8_t zero, type;
	uint16_t off1;
};
#endif

static struct gate idt[256];
static struct tss tss;
static char trap_stack[8192] __attribute__((aligned(16)));

static void set_gate(int vec, ulong handler, int dpl)
{
	struct gate *g = &idt[vec];
	g->off0 = (uint16_t)handler;
	g->sel = 0x08;
	g->type = (uint8_t)(0x8e | (dpl << 5)); /* present interrupt gate */
	g->off1 = (uint16_t)(handler >> 16);
#ifdef __x86_64__
	g->sel = 0x18;
	g->off2 = (uint32_t)(handler >> 32);
#endif
}

ulong trap_stub(int vector)
{
	if (vector < 32)
		return (ulong)trap_stubs + 16 * (ulong)vector;
	if (vector == 0x80)
		return (ulong)trap_stubs + 16 * 32;
	return (ulong)irq_stubs + 16 * (ulong)(vector - 32);
}

static void descriptors_init(void)
{
	for (int i = 0; i < 256; i++)
		set_gate(i, trap_stub(i), 0);
	set_gate(0x80, trap_stub(0x80), 3); /* ring 3's way back */
	struct dtr idtr = { sizeof(idt) - 1, (ulong)idt };
	asm volatile("lidt %0" : : "m"(idtr));

	ulong base = (ulong)&tss, limit = sizeof(tss) - 1;
#ifdef __x86_64__
	tss.rsp0 = (ulong)trap_stack + sizeof(trap_stack);
	gdt[8] = (uint64_t)base >> 32;
#else
	tss.esp0 = (ulong)trap_stack + sizeof(trap_stack);
	tss.ss0 = 0x10;
#endif
	tss.iomap = sizeof(tss);
	gdt[7] = (limit & 0xffff) | ((uint64_t)(base & 0xffffff) << 16) | (0x89ull << 40) |
		 ((uint64_t)((base >> 24) & 0xff) << 56);
	asm volatile("ltr %w0" : : "r"(0x38));
}

static void dump_frame(const struct frame *f)
{
	kprintf("exception %lu error=%lx ip=%lx cs=%lx flags=%lx cr2=%lx cr3=%lx\n", f->vector,
		f->error, f->ip, f->cs, f->flags, read_cr2(), read_cr3());
}

void gate_write(void *idt, int vector, ulong handler, unsigned attr, unsigned ist)
{
	struct gate *g = (struct gate *)idt + vector;
	g->off0 = (uint16_t)handler;
	g->sel = 0x08;
	g->type = (uint8_t)attr;
	g->off1 = (uint16_t)(handler >> 16);
#ifdef __x86_64__
	g->sel = 0x18;
	g->ist = (uint8_t)ist;
	g->off2 = (uint32_t)(handler >> 32);
	g->rsv = 0;
#else
	g->zero = 0;
	(void)ist;
#endif
}

void *idt_base(void)
{
	struct dtr d;
	asm volatile("sidt %0" : "=m"(d));
	return (void *)d.base;
}

void idt_load(const void *base, uint16_t limit)
{
	struct dtr d = { limit, (ulong)base };
	asm volatile("lidt %0" : : "m"(d) : "memory");
}

void tss_set_ist(int n, ulong top)
{
#ifdef __x86_64__
	if (n >= 1 && n <= 7) {
		tss.ist[n - 1] = top;
		return;
	}
#endif
	fail("tss_set_ist(%d, %lx): no such IST", n, top);
}

static irq_fn irq_handlers[256];

void set_irq_handler(int vector, irq_fn fn)
{
	if (vector < 0 || vector > 255)
		fail("set_irq_handler: vector %d", vector);
	irq_handlers[vector] = fn;
}

void trap_handler(struct frame *f)
{
	irq_fn fn = f->vector < 256 ? irq_handlers[f->vector] : 0;
	if (fn) {
		fn(f);
		return;
	}
	/* A stray interrupt is never a fault to recover from: it would take the probe's path. */
	if (f->vector >= 32 && f->vector != 0x80) {
		kprintf("%s: unexpected interrupt %lu at %lx flags %lx\n", guest_name, f->vector,
			f->ip, f->flags);
		if (fatal_triple)
			triple_fault();
		fail("unexpected interrupt %lu", f->vector);
	}
	last_fault.vector = f->vector;
	last_fault.error = f->error;
	last_fault.cr2 = f->vector == 14 ? read_cr2() : 0;
	last_fault.ip = f->ip;
	last_fault.flags = f->flags;
	fault_count++;
	if ((f->cs & 3) == 3)
		user_return(f->vector == 0x80 ? f->ax : 0);
	if (fault_recover && f->vector != 0x80) {
		f->ip = fault_recover;
		fault_recover = 0;
		return;
	}
	kprintf("%s: unexpected ", guest_name);
	dump_frame(f);
	if (fatal_triple)
		triple_fault();
	fail("unexpected exception %lu at %lx", f->vector, f->ip);
}

/* ---- probes ---- */
#ifdef __x86_64__
#define SET_RECOVER "movq $1f, fault_recover(%%rip)\n\t"
#define SP "rsp"
#define WORD "8"
#else
#define SET_RECOVER "movl $1f, fault_recover\n\t"
#define SP "esp"
#define WORD "4"
#endif

int probe_read(ulong va, uint32_t *val)
{
	ulong n = fault_count;
	uint32_t v = 0;
	asm volatile(SET_RECOVER "movl (%1), %0\n1:" : "+r"(v) : "r"(va) : "memory");
	fault_recover = 0;
	if (fault_count != n)
		return 1;
	*val = v;
	return 0;
}

int probe_write(ulong va, uint32_t val)
{
	ulong n = fault_count;
	asm volatile(SET_RECOVER "movl %1, (%0)\n1:" : : "r"(va), "r"(val) : "memory");
	fault_recover = 0;
	return fault_count != n;
}

int probe_fetch(ulong va)
{
	ulong n = fault_count;
	/* A faulting fetch leaves the call's return address on the stack: drop it. */
	asm volatile(SET_RECOVER "call *%0\n\tjmp 2f\n1:\tadd $" WORD ", %%" SP "\n2:"
		     :
		     : "r"(va)
		     : "memory", "cc");
	fault_recover = 0;
	return fault_count != n;
}

static ulong user_code, user_stack;

void user_setup(ulong code_va, ulong code_pa, ulong stack_va)
{
	for (char *s = ustub_start, *d = (char *)code_pa; s < ustub_end; s++, d++)
		*d = *s;
	user_code = code_va;
	user_stack = stack_va + PAGE_SIZE - 16;
}

static int user_run(ulong ip, ulong bx, ulong cx, uint32_t *val)
{
	ulong v = user_call(ip, user_stack, 0, bx, cx);
	if (last_fault.vector != 0x80)
		return 1;
	if (val)
		*val = (uint32_t)v;
	return 0;
}

int user_read(ulong va, uint32_t *val)
{
	return user_run(user_code + (ustub_read - ustub_start), va, 0, val);
}
int user_write(ulong va, uint32_t v)
{
	return user_run(user_code + (ustub_write - ustub_start), va, v, 0);
}
int user_fetch(ulong va)
{
	return user_run(va, 0, 0, 0);
}

/* ---- CPU ---- */
struct cpuid cpuid(uint32_t leaf, uint32_t sub)
{
	uint32_t v[4];
	cpuid_regs(leaf, sub, v);
	return (struct cpuid){ v[0], v[1], v[2], v[3] };
}

static void features_init(void)
{
	struct cpuid v = cpuid(0, 0), f1 = cpuid(1, 0), f7 = { 0, 0, 0, 0 }, e1 = { 0, 0, 0, 0 };
	if (v.a >= 7)
		f7 = cpuid(7, 0);
	if (cpuid(0x80000000u, 0).a >= 0x80000001u)
		e1 = cpuid(0x80000001u, 0);
	cpu.amd = (v.b == 0x68747541u) || (v.b == 0x6f677948u); /* AuthenticAMD, HygonGenuine */
	cpu.pse = !!(f1.d & (1u << 3));
	cpu.pae = !!(f1.d & (1u << 6));
	cpu.cx8 = !!(f1.d & (1u << 8));
	cpu.pge = !!(f1.d & (1u << 13));
	cpu.cx16 = !!(f1.c & (1u << 13));
	cpu.smep = !!(f7.b & (1u << 7));
	cpu.smap = !!(f7.b & (1u << 20));
	cpu.nx = !!(e1.d & (1u << 20));
	cpu.gb = !!(e1.d & (1u << 26));
	if (f1.c & (1u << 31)) {
		struct cpuid h = cpuid(UMBRA_CPUID_BASE, 0);
		on_umbra = h.b == UMBRA_SIGNATURE_EBX && h.c == UMBRA_SIGNATURE_ECX &&
			   h.d == UMBRA_SIGNATURE_EDX;
		umbra_nested =
			on_umbra && (cpuid(UMBRA_CPUID_FEATURES, 0).b & UMBRA_FEAT_NESTED_PAGING);
	}
}

long umbra_hypercall4(ulong nr, ulong a0, ulong a1, ulong a2, ulong a3)
{
	ulong r = nr;
	if (cpu.amd)
		asm volatile("vmmcall" : "+a"(r) : "b"(a0), "c"(a1), "d"(a2), "S"(a3) : "memory");
	else
		asm volatile("vmcall" : "+a"(r) : "b"(a0), "c"(a1), "d"(a2), "S"(a3) : "memory");
	return (long)r;
}

long umbra_hypercall(ulong nr, ulong a0, ulong a1)
{
	return umbra_hypercall4(nr, a0, a1, 0, 0);
}

int umbra_stats(struct umbra_stats *s)
{
	long r = umbra_hypercall(UMBRA_HC_STATS, (ulong)s, sizeof(*s));
	if (r < 0) {
		kprintf("stats hypercall failed: %ld\n", r);
		return -1;
	}
	return 0;
}

void set_ac(int on)
{
	ulong fl;
	asm volatile("pushf; pop %0" : "=r"(fl));
	fl = on ? fl | (1ul << 18) : fl & ~(1ul << 18);
	asm volatile("push %0; popf" : : "r"(fl) : "cc", "memory");
}

void set_cr0_bits(ulong set, ulong clear)
{
	write_cr0((read_cr0() & ~clear) | set);
}
void set_cr4_bits(ulong set, ulong clear)
{
	write_cr4((read_cr4() & ~clear) | set);
}
void set_efer_bits(uint64_t set, uint64_t clear)
{
	wrmsr(MSR_EFER, (rdmsr(MSR_EFER) & ~clear) | set);
}

/* ---- time and interrupt controllers ---- */
static ulong tsc_ms;
static int tsc_ok;

/* PIT channel 2 latched, the latch command bracketed by TSC reads: (a + b) / 2 is when the
 * count was taken, give or take (b - a) / 2. */
static uint16_t pit2_sample(uint64_t *mid, uint64_t *width)
{
	uint64_t a = read_tsc();
	outb(0x43, 0x80);
	uint64_t b = read_tsc();
	uint8_t lo = inb(0x42);
	*mid = a + (b - a) / 2;
	*width = b - a;
	return (uint16_t)(lo | inb(0x42) << 8);
}

/* The TSC against PIT channel 2 (mode 0 from 0xffff, gate high in port 0x61) over 10 ms of
 * counts. Not the classic wait for OUT2: a busy host that stops the CPU between the count's
 * start and the first TSC read, or across OUT2's edge, skews that by the stall. Here each end
 * is one latch between two TSC reads; a try whose brackets exceed 1/100 of the interval, or
 * whose count went through 0 (OUT2 high), is repeated. */
static void tsc_measure(void)
{
	/* 10 ms of the 1.193182 MHz input clock; 40 ms once a try's brackets were too wide for
	 * 10 ms (an emulator whose exits take long: the brackets stay, the interval grows). */
	uint16_t window = 11932;
	uint8_t p61 = inb(0x61);
	outb(0x61, (uint8_t)((p61 & 0x0c) | 0x01)); /* gate high, speaker data off */
	uint64_t best = 0, best_ticks = 0, best_slack = 0;
	for (int attempt = 0; attempt < 8; attempt++) {
		outb(0x43, 0xb0); /* channel 2, LSB then MSB, mode 0, binary */
		outb(0x42, 0xff);
		outb(0x42, 0xff);
		uint64_t m0, w0, m1 = 0, w1 = 0;
		uint16_t c0 = pit2_sample(&m0, &w0), c1 = c0;
		/* Bounded twice over: by polls (if the TSC stood still) and by TSC (no PIT). */
		for (ulong i = 0; i < 2000000 && (uint16_t)(c0 - c1) < window; i++) {
			c1 = pit2_sample(&m1, &w1);
			if (m1 - m0 > (1ull << 33))
				break;
		}
		if (c1 == c0)
			break; /* not counting: no PIT */
		/* OUT2 high: the count went through 0 during a stall, the difference is short. */
		if (c1 > c0 || c0 - c1 < window || (inb(0x61) & 0x20))
			continue;
		uint64_t t = m1 - m0, slack = w0 + w1;
		if (!best || slack * best < best_slack * t)
			best = t, best_ticks = c0 - c1, best_slack = slack;
		if (slack * 100 < t)
			break;
		window = 47728;
	}
	outb(0x61, (uint8_t)(p61 & 0x0c));
	/* TSC ticks per ms: t / (ticks / 1193.182). Below 1 MHz the measurement is wrong. */
	uint64_t per_ms = best ? best * 1193182 / (best_ticks * 1000) : 0;
	tsc_ok = best && best_slack * 100 < best && per_ms >= 1000;
	tsc_ms = best && best_slack * 4 < best && per_ms >= 1000 ? (ulong)per_ms : 3000000;
}

ulong tsc_per_ms(void)
{
	if (!tsc_ms)
		tsc_measure();
	return tsc_ms;
}

int tsc_calibrated(void)
{
	tsc_per_ms();
	return tsc_ok;
}

void delay_ms(ulong ms)
{
	uint64_t end = timeout_ms(ms);
	while (!timed_out(end))
		asm volatile("pause");
}

void pic_remap(uint8_t base_m, uint8_t base_s)
{
	/* ICW1: edge, cascade, ICW4 follows; ICW3: the slave on IRQ2 / the slave's ID 2; ICW4:
	 * 8086 mode. Initialisation leaves IMR clear: mask at once, before anything can fire. */
	outb(0x20, 0x11);
	outb(0x21, base_m);
	outb(0x21, 0x04);
	outb(0x21, 0x01);
	outb(0x21, 0xff);
	outb(0xa0, 0x11);
	outb(0xa1, base_s);
	outb(0xa1, 0x02);
	outb(0xa1, 0x01);
	outb(0xa1, 0xff);
}

void pic_set_mask(uint16_t mask)
{
	outb(0x21, (uint8_t)mask);
	outb(0xa1, (uint8_t)(mask >> 8));
}

void pic_send_eoi(unsigned irq)
{
	if (irq >= 8)
		outb(0xa0, 0x20);
	outb(0x20, 0x20);
}

/* ---- pages ---- */
static ulong alloc_next, alloc_top;

ulong page_alloc_aligned(ulong size, ulong align)
{
	ulong p = ALIGN_UP(alloc_next, align);
	if (p + size > alloc_top || p + size < p)
		fail("out of guest memory (%lu bytes wanted, top %lx)", size, alloc_top);
	alloc_next = p + size;
	for (ulong *w = (ulong *)p; w < (ulong *)(p + size); w++)
		*w = 0;
	return p;
}

const char *cmdline_value(const char *key)
{
	for (const char *w = boot_cmdline; *w; w++) {
		if (w != boot_cmdline && w[-1] != ' ')
			continue;
		size_t k = 0;
		while (key[k] && w[k] == key[k])
			k++;
		if (!key[k] && w[k] == '=')
			return w + k + 1;
	}
	return NULL;
}

ulong page_alloc(void)
{
	return page_alloc_aligned(PAGE_SIZE, PAGE_SIZE);
}
ulong page_alloc_top(void)
{
	return alloc_next;
}

void frame_mark(ulong pa)
{
	*phys32(pa) = marker_of(pa);
}

void expect_maps(ulong va, ulong pa, const char *what)
{
	uint32_t v;
	int f = probe_read(va, &v);
	if (!pa)
		CHECK(f && last_fault.vector == 14 && !(last_fault.error & PF_P) &&
			      last_fault.cr2 == va,
		      "%s: va %lx should be not present (fault=%d vec=%lu err=%lx cr2=%lx)", what,
		      va, f, last_fault.vector, last_fault.error, last_fault.cr2);
	else if (f)
		check_failed("%s: va %lx faulted (vec %lu err %lx), expected frame %lx", what, va,
			     last_fault.vector, last_fault.error, pa);
	else
		CHECK(v == marker_of(pa), "%s: va %lx read %x, expected frame %lx's marker %x",
		      what, va, v, pa, marker_of(pa));
}

uint32_t rand32(void)
{
	static uint32_t s = 0x12345678u;
	s ^= s << 13;
	s ^= s >> 17;
	s ^= s << 5;
	return s;
}

/* ---- boot ---- */
static void boot_info_init(void)
{
	const char *cl = 0;
	if ((uint32_t)boot_magic == UMBRA_BOOT_MAGIC) {
		const struct umbra_boot_info *bi = (const void *)boot_info;
		booted_by_umbra = 1;
		ram_bytes = bi->mem_bytes;
		cl = (const char *)(ulong)bi->cmdline_gpa;
	} else if ((uint32_t)boot_magic == MB_BOOT_MAGIC) {
		const uint32_t *mbi = (const void *)boot_info;
		ram_bytes = (mbi[0] & 1) ? (1ull << 20) + ((uint64_t)mbi[2] << 10) : (16ull << 20);
		if (mbi[0] & 4)
			cl = (const char *)(ulong)mbi[4];
	} else {
		ram_bytes = 16ull << 20;
		kprintf("%s: unknown boot magic %lx, assuming 16 MiB\n", guest_name, boot_magic);
	}
	for (size_t i = 0; cl && cl[i] && i < sizeof(boot_cmdline) - 1; i++)
		boot_cmdline[i] = cl[i];
	/* Nothing here needs more; the identity maps stay small and below 4 GiB. */
	if (ram_bytes > (256ull << 20))
		ram_bytes = 256ull << 20;
}

void lib_start(void)
{
	/* 8 data bits, DLAB off: firmware may leave the UART otherwise (Bochs honours it). The
	 * divisor is left alone, since with DLAB on a simple model would take it for output. */
	outb(COM1 + 3, 0x03);
	boot_info_init();
	descriptors_init();
	/* Multiboot leaves CR0 bits other than PE undefined: AM and WP must start clear. */
	write_cr0(CR0_PE | CR0_ET | CR0_NE | (read_cr0() & CR0_PG));
	features_init();
	alloc_next = ALIGN_UP((ulong)_end, PAGE_SIZE);
	alloc_top = (ulong)ram_bytes;
	kprintf("%s: booted by %s, %lu MiB RAM, %s; cpu: pse=%d pae=%d pge=%d nx=%d smep=%d smap=%d "
		"1g=%d cx16=%d\n",
		guest_name, booted_by_umbra ? "Umbra" : "multiboot", (ulong)(ram_bytes >> 20),
		on_umbra ? "on Umbra" : "not on Umbra", cpu.pse, cpu.pae, cpu.pge, cpu.nx, cpu.smep,
		cpu.smap, cpu.gb, cpu.cx16);
	test_main();
	finish();
}
