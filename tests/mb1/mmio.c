/* mb1 kernel: the instruction forms a compiled kernel uses on device registers (here the APIC's
 * TPR), each emulated by Umbra; the forms to run are the words of the command line. */
#include "tests/mb1/mb1.h"

const char guest_name[] = "mmio";

#define TPR 0xfee00080u

static volatile uint32_t *const tpr = (volatile uint32_t *)(ulong)TPR;
#ifdef __x86_64__
/* push/pop of memory are 64 bits wide in long mode, which the xAPIC leaves undefined (QEMU
 * reads 0): the runner asks for them in 32-bit code only. */
#define SUFFIX "q"
#else
#define SUFFIX "l"
#endif

static void form(const char *name)
{
	ulong base = TPR - 0x80, idx = 0x80 / 4;
	uint32_t v = 0;
	uint8_t flag = 0;
	*tpr = 0x30;
	if (mb1_streq(name, "or")) {
		asm volatile("orl $0x0c, (%0)" : : "r"(tpr) : "memory", "cc");
		v = *tpr, flag = v == 0x3c;
	} else if (mb1_streq(name, "and")) {
		asm volatile("andl %1, (%0)" : : "r"(tpr), "r"(0xe0u) : "memory", "cc");
		v = *tpr, flag = v == 0x20;
	} else if (mb1_streq(name, "add")) {
		asm volatile("addl $0x10, (%0)" : : "r"(tpr) : "memory", "cc");
		v = *tpr, flag = v == 0x40;
	} else if (mb1_streq(name, "indexed")) {
		asm volatile("movl (%1,%2,4), %0" : "=r"(v) : "r"(base), "r"(idx) : "memory");
		flag = v == 0x30;
	} else if (mb1_streq(name, "cmp")) {
		asm volatile("cmpl $0x30, (%1); sete %0" : "=q"(flag) : "r"(tpr) : "memory", "cc");
	} else if (mb1_streq(name, "test")) {
		asm volatile("testl $0x20, 0x80(%1); setnz %0" : "=q"(flag) : "r"(base) : "memory", "cc");
	} else if (mb1_streq(name, "xchg")) {
		v = 0x50;
		asm volatile("xchgl %0, (%1)" : "+r"(v) : "r"(tpr) : "memory");
		flag = v == 0x30 && *tpr == 0x50;
	} else if (mb1_streq(name, "push")) {
		ulong w;
		asm volatile("push" SUFFIX " (%1); pop %0" : "=r"(w) : "r"(tpr) : "memory");
		v = (uint32_t)w, flag = v == 0x30;
	} else if (mb1_streq(name, "pop")) {
		ulong w = 0x60;
		asm volatile("push %1; pop" SUFFIX " (%0)" : : "r"(tpr), "r"(w) : "memory");
		flag = *tpr == 0x60;
	} else {
		fail("unknown form %s", name);
	}
	CHECK(flag, "%s on the tpr: read %x", name, v);
	kprintf("%s: ok\n", name);
}

void test_main(void)
{
	char word[16];
#ifdef __x86_64__
	/* The boot map covers the first GiB only: map RAM and the APIC page. */
	static struct aspace as;
	as_init(&as, PM_64);
	map_page(&as, TPR & ~0xfffu, TPR & ~0xfffu, 1, PTE_P | PTE_W);
	as_activate(&as);
#endif
	for (const char *s = mb1_args(); *s;) {
		unsigned n = 0;
		while (*s && *s != ' ' && n < sizeof(word) - 1)
			word[n++] = *s++;
		word[n] = 0;
		while (*s == ' ')
			s++;
		form(word);
	}
	*tpr = 0;
}
