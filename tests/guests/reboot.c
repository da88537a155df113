/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest test: reboots through via=kbc|cf9|fadt|triple and, booted again, finds its memory zeroed and its devices reset (loop=1: reboots at every boot; from=bsp|ap: with vCPU 1 started, that vCPU resets while the other sleeps in HLT). */
#include "tests/guests/lib/guest.h"

const char guest_name[] = GUEST_NAME;

/* The boot count lives in CMOS RAM, which a PC's reset keeps (battery-backed); RAM it cannot
 * be kept in: a restart zeroes it, which the second boot checks at these addresses. */
#define CMOS_BOOTS 0x5a
static const uint32_t probes[] = { 0x200000, 0x400000, 0x800000, 0xf00000 };

/* from=: vCPU 1, started by VCPU_START at each boot, reports in; on the first boot the vCPU
 * named resets the guest while the other sleeps in HLT with interrupts off, so the reset must
 * bring it out of its CPU's sleep. Booted again, VCPU_START succeeds only if vCPU 1 is back
 * waiting to be started, as at power-on. */
#define AP_STACK 16384
static uint8_t ap_stack[AP_STACK] __attribute__((aligned(16)));
static volatile uint32_t ap_online, ap_arg;
static const char *ap_via;
__asm__(".text\n.globl ap_entry\nap_entry:\n" /* EAX = vCPU index, EBX = argument */
	"	push %ebx\n	push %eax\n	call ap_main\n"
	"1:	cli\n	hlt\n	jmp 1b\n");
extern char ap_entry[];
void ap_main(uint32_t idx, uint32_t arg);
static void reboot(const char *via);

static void sleep_forever(void)
{
	for (;;)
		asm volatile("cli; hlt");
}

void ap_main(uint32_t idx, uint32_t arg)
{
	ap_arg = arg;
	__atomic_store_n(&ap_online, idx, __ATOMIC_SEQ_CST);
	if (arg == 1)
		reboot(ap_via);
	sleep_forever();
}

/* Starts vCPU 1 (arg 1: it resets the guest) and waits for it to report in. */
static void start_ap(uint32_t arg)
{
	long r = umbra_hypercall4(UMBRA_HC_VCPU_START, 1, (ulong)ap_entry,
				  (ulong)(ap_stack + AP_STACK), arg);
	if (r)
		fail("VCPU_START of vCPU 1 returned %ld", r);
	for (int i = 0; i < 5000 && !__atomic_load_n(&ap_online, __ATOMIC_SEQ_CST); i++)
		delay_ms(1);
	if (ap_online != 1 || (arg != 1 && ap_arg != arg))
		fail("vCPU 1 did not report in (online %u, argument %x)", ap_online, ap_arg);
}

static uint8_t cmos_read(uint8_t idx)
{
	outb(0x70, idx);
	return inb(0x71);
}
static void cmos_write(uint8_t idx, uint8_t v)
{
	outb(0x70, idx);
	outb(0x71, v);
}

/* A command-line word: the value runs to the next space. */
static int is(const char *val, const char *word)
{
	while (*word && *val == *word)
		val++, word++;
	return !*word && (!*val || *val == ' ');
}

static void kbc_wait(void)
{
	for (int i = 0; i < 100000 && (inb(0x64) & 2); i++)
		;
}

/* The FADT's reset register, found as a kernel finds it: RSDP in the BIOS area, RSDT, FACP. */
static int fadt_reset(uint16_t *port, uint8_t *value)
{
	for (uint32_t a = 0xe0000; a < 0x100000; a += 16) {
		const char *p = (const char *)(ulong)a;
		if (p[0] != 'R' || p[1] != 'S' || p[2] != 'D' || p[3] != ' ' || p[4] != 'P')
			continue;
		uint32_t rsdt = *phys32(a + 16), len = *phys32(rsdt + 4);
		for (uint32_t e = rsdt + 36; e + 4 <= rsdt + len; e += 4) {
			uint32_t t = *phys32(e);
			if (*phys32(t) != 0x50434146u) /* "FACP" */
				continue;
			const uint8_t *f = (const uint8_t *)(ulong)t;
			uint32_t flags = *phys32(t + 112);
			if (!(flags & (1u << 10)) || f[116] != 1 || f[117] != 8)
				fail("FADT: no I/O reset register (flags %x, space %u, width %u)",
				     flags, f[116], f[117]);
			*port = (uint16_t)*phys32(t + 120);
			*value = f[128];
			return 0;
		}
	}
	return -1;
}

static void reboot(const char *via)
{
	if (is(via, "kbc")) {
		kbc_wait();
		outb(0x64, 0xfe);
	} else if (is(via, "cf9")) {
		outb(0xcf9, 0x02);
		outb(0xcf9, 0x06);
	} else if (is(via, "fadt")) {
		uint16_t port;
		uint8_t value;
		if (fadt_reset(&port, &value))
			fail("no FADT found");
		kprintf("%s: FADT reset register: port 0x%x value 0x%x\n", guest_name, port, value);
		outb(port, value);
	} else if (is(via, "triple")) {
		static const struct __attribute__((packed)) {
			uint16_t limit;
			ulong base;
		} empty = { 0, 0 };
		asm volatile("lidt %0" : : "m"(empty));
		asm volatile("int3");
	} else {
		fail("via= names no way to reboot");
	}
	delay_ms(100);
	fail("vCPU %u still running 100 ms after the reset", ap_online && ap_arg == 1 ? 1u : 0u);
}

void test_main(void)
{
	const char *via = cmdline_value("via");
	uint8_t boots = cmos_read(CMOS_BOOTS);

	if (!via)
		fail("no via= on the command line");
	char how[8] = { 0 };
	for (unsigned i = 0; i < sizeof(how) - 1 && via[i] && via[i] != ' '; i++)
		how[i] = via[i];
	const char *from = cmdline_value("from");
	if (from && !is(from, "bsp") && !is(from, "ap"))
		fail("from= names no vCPU");
	ap_via = via;
	if (cmdline_value("loop")) {
		kprintf("%s: rebooting through %s again\n", guest_name, how);
		reboot(via);
	}
	if (boots == 0) {
		for (unsigned i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
			*phys32(probes[i]) = 0x5eb00700u + i;
		/* State a reset must clear: the 8042's command byte, A20 off. */
		kbc_wait();
		outb(0x64, 0x60);
		kbc_wait();
		outb(0x60, 0x05);
		outb(0x64, 0xdd);
		cmos_write(CMOS_BOOTS, 1);
		kprintf("%s: first boot, rebooting through %s%s\n", guest_name, how,
			!from		 ? ""
			: is(from, "ap") ? " from vCPU 1"
					 : " from vCPU 0");
		if (from && is(from, "ap")) {
			start_ap(1);
			sleep_forever();
		}
		if (from)
			start_ap(0x5eed0001u);
		reboot(via);
	}
	if (boots != 1)
		fail("boot count %u in CMOS", boots);
	for (unsigned i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		if (*phys32(probes[i]))
			fail("memory at 0x%x kept %x across the reset", probes[i],
			     *phys32(probes[i]));
	kbc_wait();
	outb(0x64, 0x20);
	for (int i = 0; i < 100000 && !(inb(0x64) & 1); i++)
		;
	uint8_t cb = inb(0x60);
	outb(0x64, 0xd0);
	for (int i = 0; i < 100000 && !(inb(0x64) & 1); i++)
		;
	uint8_t outp = inb(0x60);
	if (cb != 0x45 || !(outp & 2))
		fail("8042 after the reset: command byte %x, output port %x", cb, outp);
	cmos_write(CMOS_BOOTS, 0);
	if (from)
		start_ap(0x5eed0002u);
	kprintf("%s: second boot, memory zeroed, 8042 reset%s\n", guest_name,
		from ? ", vCPU 1 started again" : "");
	finish();
}
