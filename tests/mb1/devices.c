/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 kernel: 8259 masks, port 0x80, PCI config space, CMOS/RTC, the local APIC by MMIO. */
#include "tests/mb1/mb1.h"

const char guest_name[] = "devices";

#define APIC 0xfee00000u
enum {
	A_ID = 0x20,
	A_VER = 0x30,
	A_TPR = 0x80,
	A_PPR = 0xa0,
	A_EOI = 0xb0,
	A_LDR = 0xd0,
	A_DFR = 0xe0,
	A_SVR = 0xf0,
	A_ICR_LO = 0x300,
	A_ICR_HI = 0x310,
	A_LVT_TIMER = 0x320,
	A_LVT_LINT0 = 0x350,
	A_LVT_ERROR = 0x370,
	A_TIMER_INIT = 0x380,
	A_TIMER_CUR = 0x390,
	A_TIMER_DIV = 0x3e0
};

static uint32_t apic_rd(uint32_t off)
{
	return *phys32(APIC + off);
}
static void apic_wr(uint32_t off, uint32_t v)
{
	*phys32(APIC + off) = v;
}

static uint32_t inl(uint16_t port)
{
	uint32_t v;
	asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static void pic(void)
{
	/* The initialisation a kernel does: ICW1..ICW4 on both, then the masks. */
	static const uint8_t icw[2][4] = { { 0x11, 0x20, 0x04, 0x01 }, { 0x11, 0x28, 0x02, 0x01 } };
	for (int n = 0; n < 2; n++) {
		uint16_t base = n ? 0xa0 : 0x20;
		outb(base, icw[n][0]);
		for (int i = 1; i < 4; i++)
			outb(base + 1, icw[n][i]);
	}
	static const uint8_t masks[] = { 0xfb, 0xa5, 0x00, 0xff };
	static const uint8_t slave[] = { 0x04, 0x5a, 0xff, 0x00 };
	for (unsigned i = 0; i < sizeof(masks); i++) {
		outb(0x21, masks[i]);
		outb(0xa1, slave[i]);
		uint8_t m = inb(0x21), s = inb(0xa1);
		CHECK(m == masks[i] && s == slave[i], "pic masks %x/%x read %x/%x", masks[i],
		      slave[i], m, s);
	}
	/* Nothing is in service: OCW3 selects the ISR for the next command-port read. */
	outb(0x20, 0x0b);
	outb(0xa0, 0x0b);
	CHECK(inb(0x20) == 0 && inb(0xa0) == 0, "pic isr not empty");
	outb(0x20, 0x0a);
	outb(0xa0, 0x0a);
	/* ICW1 without ICW4 and in single mode (no ICW3): the next data write is the mask. */
	outb(0xa0, 0x12);
	outb(0xa1, 0x70);
	outb(0xa1, 0x3c);
	CHECK(inb(0xa1) == 0x3c, "pic mask after a short initialisation: %x", inb(0xa1));
	outb(0xa0, icw[1][0]);
	for (int i = 1; i < 4; i++)
		outb(0xa1, icw[1][i]);
	outb(0xa1, 0xff);
	kprintf("pic: initialised, masks kept\n");
	outb(0x80, 0x42); /* a POST code: accepted, nothing to see */
	kprintf("port 0x80: written\n");
}

/* q35 has devices on bus 0 natively; Umbra shows a guest without pci= its host bridge alone
 * (00:00.0, 8086:1237). Every read must be either all ones (absent) or a plausible header. */
static void pci(void)
{
	unsigned absent = 0, bad = 0;
	uint32_t id0 = 0;
	for (unsigned dev = 0; dev < 32; dev++) {
		uint32_t addr = 0x80000000u | (dev << 11);
		outl(0xcf8, addr);
		CHECK(inl(0xcf8) == addr, "pci address register readback for device %u", dev);
		uint32_t id = inl(0xcfc);
		if (dev == 0)
			id0 = id;
		if (id == 0xffffffffu)
			absent++;
		else if ((id & 0xffff) == 0xffff || (id & 0xffff) == 0)
			bad++;
	}
	outl(0xcf8, 0);
	CHECK(!bad, "pci: %u devices with an invalid vendor id", bad);
	CHECK(!on_umbra || (absent == 31 && id0 == 0x12378086u),
	      "pci: on Umbra %u of 32 absent, 00:00.0 reads %x (want 31, the bridge 8086:1237)",
	      absent, id0);
	kprintf("pci: bus 0 vendor ids consistent\n");
}

static uint8_t cmos(uint8_t idx)
{
	outb(0x70, idx);
	return inb(0x71);
}

static int is_bcd(uint8_t v, unsigned max)
{
	unsigned hi = v >> 4, lo = v & 0xf;
	return lo <= 9 && hi <= 9 && hi * 10 + lo <= max;
}

static void rtc(const struct mb1_info *mbi)
{
	unsigned base = cmos(0x15) | cmos(0x16) << 8;
	unsigned ext1 = cmos(0x17) | cmos(0x18) << 8, ext2 = cmos(0x30) | cmos(0x31) << 8;
	unsigned above16 = cmos(0x34) | cmos(0x35) << 8;
	/* CMOS counts all RAM, mem_upper what the firmware leaves usable: at most 1 MiB less. */
	unsigned ram_kb = (mbi->mem_upper + 1024 + 1023) / 1024 * 1024 - 1024;
	unsigned upper = ram_kb > 0xfc00 ? 0xfc00 : ram_kb;
	CHECK(base == 640, "cmos base memory %u KiB", base);
	CHECK(ext1 == upper && ext2 == upper, "cmos extended memory %u/%u KiB, mem_upper %u", ext1,
	      ext2, mbi->mem_upper);
	CHECK(above16 == (ram_kb > 15360 ? (ram_kb - 15360) / 64 : 0),
	      "cmos memory above 16 MiB: %u x 64 KiB, mem_upper %u", above16, mbi->mem_upper);
	kprintf("cmos: memory size matches mem_upper\n");

	uint8_t a = cmos(0x0a), b = cmos(0x0b), d = cmos(0x0d);
	CHECK((a & 0x70) == 0x20, "rtc register A %x: the 32.768 kHz time base", a);
	CHECK(!(b & 0x04) && (b & 0x02), "rtc register B %x: BCD, 24-hour", b);
	CHECK(d & 0x80, "rtc register D %x: battery good", d);
	/* Wait out an update in progress so the fields are one consistent reading. */
	for (int i = 0; i < 1000000 && (cmos(0x0a) & 0x80); i++)
		;
	uint8_t sec = cmos(0), min = cmos(2), hour = cmos(4), day = cmos(7), mon = cmos(8),
		year = cmos(9);
	CHECK(is_bcd(sec, 59) && is_bcd(min, 59) && is_bcd(hour, 23), "rtc time %x:%x:%x", hour,
	      min, sec);
	CHECK(is_bcd(day, 31) && day && is_bcd(mon, 12) && mon && is_bcd(year, 99),
	      "rtc date %x-%x-%x", year, mon, day);
	kprintf("rtc: status registers sane, time and date valid BCD\n");

	/* Register B picks binary or BCD and 12- or 24-hour: kernels set it and read accordingly. */
	outb(0x70, 0x0b);
	outb(0x71, (uint8_t)(b | 0x04));
	CHECK(cmos(0x0b) == (b | 0x04), "rtc register B write: read %x", cmos(0x0b));
	for (int i = 0; i < 1000000 && (cmos(0x0a) & 0x80); i++)
		;
	sec = cmos(0), min = cmos(2), hour = cmos(4), mon = cmos(8);
	CHECK(sec < 60 && min < 60 && hour < 24 && mon >= 1 && mon <= 12,
	      "rtc binary time %u:%u:%u month %u", hour, min, sec, mon);
	outb(0x70, 0x0b);
	outb(0x71, b);
	/* The battery-backed RAM above the clock keeps what is written. */
	uint8_t keep = cmos(0x50);
	outb(0x70, 0x50);
	outb(0x71, 0xa5);
	CHECK(cmos(0x50) == 0xa5, "cmos ram byte 0x50: read %x", cmos(0x50));
	outb(0x70, 0x50);
	outb(0x71, keep);
	kprintf("rtc: binary mode by register B, cmos ram kept\n");
}

static void apic(void)
{
	uint64_t base = rdmsr(0x1b);
	CHECK((base & ~0xfffull) == APIC, "apic base msr %llx", (unsigned long long)base);
	CHECK((base & 0x900) == 0x900, "apic base msr %llx: BSP and enabled",
	      (unsigned long long)base);
	wrmsr(0x1b, base); /* the same value again is always accepted */
	CHECK(rdmsr(0x1b) == base, "apic base msr rewritten");
	kprintf("apic base msr: 0xfee00000, bsp, enabled\n");

	uint32_t id = apic_rd(A_ID) >> 24, ver = apic_rd(A_VER);
	CHECK(id == cpuid(1, 0).b >> 24, "apic id %u, cpuid says %u", id, cpuid(1, 0).b >> 24);
	kprintf("apic: id %u, version %x, max lvt %u\n", id, ver & 0xff, (ver >> 16) & 0xff);

	static const uint32_t tprs[] = { 0x20, 0xf0, 0x00 };
	for (unsigned i = 0; i < 3; i++) {
		apic_wr(A_TPR, tprs[i]);
		CHECK(apic_rd(A_TPR) == tprs[i], "tpr %x read %x", tprs[i], apic_rd(A_TPR));
	}
	/* With nothing in service the processor priority is the task priority, all 8 bits. */
	apic_wr(A_TPR, 0x25);
	CHECK(apic_rd(A_PPR) == 0x25, "ppr %x with tpr 0x25", apic_rd(A_PPR));
	apic_wr(A_TPR, 0);
	/* Software-disabled (SVR bit 8 clear), the APIC masks every LVT entry and keeps it masked
	 * (SDM 11.4.7.2). QEMU 7.2's APIC model leaves them as they are: accepted natively only. */
	apic_wr(A_LVT_TIMER, 0x000000ef);
	apic_wr(A_SVR, 0x0ff);
	uint32_t lvt_t = apic_rd(A_LVT_TIMER);
	apic_wr(A_LVT_ERROR, 0x000000fe);
	uint32_t lvt_e = apic_rd(A_LVT_ERROR);
	if (tcg_native() && lvt_t == 0xef && lvt_e == 0xfe)
		lvt_t |= 1u << 16, lvt_e |= 1u << 16;
	CHECK(lvt_t == 0x000100ef, "lvt timer after disable: %x", lvt_t);
	CHECK(lvt_e == 0x000100fe, "lvt error written while disabled: %x", lvt_e);
	apic_wr(A_SVR, 0x1ff);
	CHECK((apic_rd(A_SVR) & 0x1ff) == 0x1ff, "svr read %x", apic_rd(A_SVR));
	/* Flat model, logical ID 1: both kept. */
	apic_wr(A_DFR, 0xffffffffu);
	apic_wr(A_LDR, 0x01000000u);
	CHECK(apic_rd(A_DFR) == 0xffffffffu && apic_rd(A_LDR) == 0x01000000u, "dfr %x ldr %x",
	      apic_rd(A_DFR), apic_rd(A_LDR));
	/* A fixed IPI to an APIC ID nobody has: delivered to no one, and the ICR reads idle. */
	apic_wr(A_ICR_HI, 0x0f000000u);
	apic_wr(A_ICR_LO, 0x000000f0u);
	for (int i = 0; i < 100000 && (apic_rd(A_ICR_LO) & (1u << 12)); i++)
		;
	CHECK((apic_rd(A_ICR_LO) & 0xcfff) == 0xf0, "icr low read %x", apic_rd(A_ICR_LO));
	CHECK(apic_rd(A_ICR_HI) >> 24 == 0x0f, "icr high read %x", apic_rd(A_ICR_HI));

	static const struct {
		uint32_t off, val;
	} lvt[] = {
		{ A_LVT_TIMER, 0x000100ef },
		{ A_LVT_LINT0, 0x00010700 },
		{ A_LVT_ERROR, 0x000100fe },
	};
	for (unsigned i = 0; i < 3; i++) {
		apic_wr(lvt[i].off, lvt[i].val);
		CHECK(apic_rd(lvt[i].off) == lvt[i].val, "lvt %x: wrote %x read %x", lvt[i].off,
		      lvt[i].val, apic_rd(lvt[i].off));
	}
	apic_wr(A_TIMER_DIV, 0x3);
	CHECK(apic_rd(A_TIMER_DIV) == 0x3, "timer divide read %x", apic_rd(A_TIMER_DIV));
	apic_wr(A_TIMER_INIT, 0x12345678);
	CHECK(apic_rd(A_TIMER_INIT) == 0x12345678, "timer initial count read %x",
	      apic_rd(A_TIMER_INIT));
	/* The masked timer may count (hardware) or not (Umbra's model): never above the start. */
	CHECK(apic_rd(A_TIMER_CUR) <= 0x12345678, "timer current count above the initial count");
	apic_wr(A_TIMER_INIT, 0);
	apic_wr(A_EOI, 0);
	kprintf("apic: tpr, ppr, svr, ldr, dfr, icr idle, lvt and timer registers kept\n");
}

void test_main(void)
{
	const struct mb1_info *mbi = mb1_info();
	/* Firmware may keep the top of RAM for itself (SeaBIOS: 132 KiB): whole MiB only. */
	kprintf("multiboot: mem_lower %u KiB, RAM %u MiB\n", mbi->mem_lower,
		(mbi->mem_upper + 1024 + 1023) / 1024);
	pic();
	pci();
	rtc(mbi);
	apic();
}
