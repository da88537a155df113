/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest test: its assigned QEMU edu device through its PCI bus, the BAR mapped without exits, DMA, MSI, INTx, reset. */
/*
 * Run by check-pci on Umbra only (QEMU q35 with -device edu and intel-iommu; natively there is
 * no Umbra bus to test). With "-- expect=edu" (and pci= for Umbra) the guest finds the host
 * bridge and exactly one edu at 00:01.0; "edu+io" adds QEMU's pci-testdev at 00:02.0, whose
 * I/O window it reads with and without exits; with "-- expect=none" the host bridge alone. It checks the filtered configuration space
 * (read-only fields, the ROM hidden, MSI the only capability, BAR sizing), enables memory decode and
 * bus mastering, uses the registers through its own uncached mapping of the BAR and counts the
 * page-fault and nested-fault exits of 1000 accesses (0: the BAR is mapped straight), moves the
 * BAR (onto RAM, the local APIC: not decoded; to a free address: decoded there), then DMA from
 * its memory into the edu and back, and one aimed past its memory, which the IOMMU blocks: the
 * pattern it carried appears nowhere in the guest's RAM, and Umbra reports the fault; then MSI
 * (msi_tests) and INTx (intx_tests). "-- expect=reset" is the reset's case (reset_case),
 * "-- expect=hog" an INTx never ended (hog). Before the BAR is used, the
 * ECAM window its MCFG names answers as 0xCF8/0xCFC do (ecam_tests); a guest without pci= has
 * no MCFG and nothing at that address.
 */
#include "tests/guests/lib/guest.h"

const char guest_name[] = GUEST_NAME;

#define EDU_ID 0x11e81234u
#define TESTDEV_ID 0x00051b36u /* QEMU's pci-testdev: an I/O BAR whose reads are a header */
#define CMD_IO 0x1u
#define EDU_BAR_SIZE 0x100000u
#define HOLE_BAR 0xc0000000u /* where Umbra places it */
#define MOVED_BAR 0xd0000000u
#define PTE_PWT (1ull << 3)
#define PTE_PCD (1ull << 4)
#define CMD_MEM 0x2u
#define ECAM_PAGE 0xfea00000u /* the 2 MiB page holding Umbra's ECAM window (0xfeb00000) */
#define CMD_MASTER 0x4u

/* edu's registers (QEMU docs/specs/edu.rst) and its DMA buffer's device address. */
enum {
	EDU_REG_ID = 0x00,
	EDU_REG_ALIVE = 0x04,
	EDU_REG_FACT = 0x08,
	EDU_REG_STATUS = 0x20,
	EDU_DMA_SRC = 0x80,
	EDU_DMA_DST = 0x88,
	EDU_DMA_CNT = 0x90,
	EDU_DMA_CMD = 0x98
};
#define EDU_DMA_BUF 0x40000u
#define EDU_DMA_RUN 0x1u
#define EDU_DMA_TO_RAM 0x2u
#define EDU_DMA_IRQ 0x4u
#define MSI_CAP_ID 0x05
#define MSI_64BIT 0x80
#define MSI_ENABLE 0x1
#define MSI_VECTOR 0x51
#define MSI_ADDR_LOGICAL 0x4u /* address bit 2: destination mode */
#define MSI_DM_LOWEST 0x100u  /* data bits 8-10: delivery mode 1 */
#define LAPIC_LDR 0xd0
#define LAPIC_DFR 0xe0
#define MSI_RAISES 100
enum { EDU_IRQ_RAISE = 0x60, EDU_IRQ_ACK = 0x64 };
#define DMA_LEN 2048u /* QEMU 7.2's edu refuses a transfer ending at its buffer's end */

static inline uint32_t inl(uint16_t p)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(p));
	return v;
}
static inline uint16_t inw(uint16_t p)
{
	uint16_t v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(p));
	return v;
}
static inline void outw(uint16_t p, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(p));
}

static void cfg_addr(unsigned bus, unsigned dev, unsigned fn, unsigned reg)
{
	outl(0xcf8, 0x80000000u | bus << 16 | dev << 11 | fn << 8 | (reg & 0xfc));
}

static uint32_t cfg_rd(unsigned bus, unsigned dev, unsigned fn, unsigned reg)
{
	cfg_addr(bus, dev, fn, reg);
	return inl(0xcfc);
}

static void cfg_wr(unsigned dev, unsigned reg, uint32_t v)
{
	cfg_addr(0, dev, 0, reg);
	outl(0xcfc, v);
}

static volatile uint32_t *edu;

static uint32_t reg_rd(unsigned off)
{
	return edu[off / 4];
}
static void reg_wr(unsigned off, uint32_t v)
{
	edu[off / 4] = v;
}
static void reg_wr64(unsigned off, uint64_t v)
{
	*(volatile uint64_t *)((ulong)edu + off) = v;
}

/* One DMA of DMA_LEN bytes; the device runs it 100 ms (QEMU's virtual clock) after the start. */
static int dma(uint64_t src, uint64_t dst, uint32_t cmd)
{
	reg_wr64(EDU_DMA_SRC, src);
	reg_wr64(EDU_DMA_DST, dst);
	reg_wr64(EDU_DMA_CNT, DMA_LEN);
	reg_wr(EDU_DMA_CMD, cmd | EDU_DMA_RUN);
	uint64_t end = timeout_ms(5000);
	while ((reg_rd(EDU_DMA_CMD) & EDU_DMA_RUN) && !timed_out(end))
		asm volatile("pause");
	return !(reg_rd(EDU_DMA_CMD) & EDU_DMA_RUN);
}

static void fill(uint8_t *p, uint32_t seed)
{
	for (unsigned i = 0; i < DMA_LEN; i += 4)
		*(uint32_t *)(p + i) = seed ^ (i * 0x9e3779b9u);
}

static int same_n(const volatile uint8_t *a, const uint8_t *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

static int strncmp6(const char *a, const char *b)
{
	for (unsigned i = 0; i < 6; i++)
		if (a[i] != b[i])
			return 1;
	return 0;
}

static void copy(uint8_t *d, const uint8_t *s, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		d[i] = s[i];
}

static void zero(uint8_t *d, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		d[i] = 0;
}

static unsigned scan_bus(unsigned *edu_dev, unsigned *io_dev)
{
	unsigned found = 0;
	*edu_dev = *io_dev = 0;
	for (unsigned d = 0; d < 32; d++) {
		uint32_t id = cfg_rd(0, d, 0, 0);
		if (id == 0xffffffffu)
			continue;
		found++;
		kprintf("%s: 00:%02x.0 %04x:%04x class %06x\n", guest_name, d, id & 0xffff,
			id >> 16, cfg_rd(0, d, 0, 8) >> 8);
		if (id == EDU_ID)
			*edu_dev = d;
		if (id == TESTDEV_ID)
			*io_dev = d;
		for (unsigned f = 1; f < 8; f++)
			CHECK(cfg_rd(0, d, f, 0) == 0xffffffffu, "00:%02x.%u answers", d, f);
	}
	for (unsigned b = 1; b < 256; b += 17)
		CHECK(cfg_rd(b, 0, 0, 0) == 0xffffffffu && cfg_rd(b, 5, 0, 0) == 0xffffffffu,
		      "bus %u answers", b);
	cfg_addr(0, 0, 0, 0);
	CHECK(inl(0xcf8) == 0x80000000u, "0xCF8 reads %x", inl(0xcf8));
	outl(0xcf8, 0); /* enable bit clear: configuration reads see nothing */
	CHECK(inl(0xcfc) == 0xffffffffu, "0xCFC answers with the enable bit clear");
	return found;
}

/* The MSI capability, the only one the guest sees: its offset (0 if none). */
static unsigned msi_cap;

/* Read-only fields keep their value; the ROM is hidden, the capability list holds MSI alone. */
static void filtered_config(unsigned d)
{
	uint32_t class = cfg_rd(0, d, 0, 8), sub = cfg_rd(0, d, 0, 0x2c);
	cfg_wr(d, 0, 0);
	cfg_wr(d, 8, 0xffffffffu);
	cfg_wr(d, 0x2c, 0);
	cfg_wr(d, 0x34, 0xff);
	CHECK(cfg_rd(0, d, 0, 0) == EDU_ID, "vendor/device written: %x", cfg_rd(0, d, 0, 0));
	CHECK(cfg_rd(0, d, 0, 8) == class, "class written: %x", cfg_rd(0, d, 0, 8));
	CHECK(cfg_rd(0, d, 0, 0x2c) == sub, "subsystem written: %x", cfg_rd(0, d, 0, 0x2c));
	/* INTA, on the line Umbra's ACPI tables route it to (11), as firmware leaves it. */
	CHECK((cfg_rd(0, d, 0, 0x3c) & 0xffff) == 0x010b, "interrupt pin and line %x",
	      cfg_rd(0, d, 0, 0x3c) & 0xffff);
	msi_cap = cfg_rd(0, d, 0, 0x34) & 0xff;
	uint32_t cap = msi_cap >= 0x40 ? cfg_rd(0, d, 0, msi_cap) : 0;
	CHECK((cap & 0xffff) == MSI_CAP_ID,
	      "the capability list starts with %x at %x, not MSI alone", cap & 0xffff, msi_cap);
	CHECK(cfg_rd(0, d, 0, 4) >> 16 & 0x10, "status shows no capability list");
	/* 64-bit, one message (Multiple Message Capable 0), off. */
	CHECK((cap >> 16) == MSI_64BIT, "MSI message control %x", cap >> 16);
	cfg_wr(d, 0x30, 0xffffffffu);
	CHECK(cfg_rd(0, d, 0, 0x30) == 0, "expansion ROM BAR sizes as %x", cfg_rd(0, d, 0, 0x30));
	for (unsigned r = 0x40; r < 0x100; r += 4)
		CHECK((r >= msi_cap && r < msi_cap + 16) || cfg_rd(0, d, 0, r) == 0,
		      "device-specific 0x%x reads %x", r, cfg_rd(0, d, 0, r));
	/* BAR sizing: all ones in, the 1 MiB mask out; the address comes back after. */
	uint32_t bar = cfg_rd(0, d, 0, 0x10);
	CHECK(bar == HOLE_BAR, "BAR0 placed at %x", bar);
	cfg_wr(d, 0x10, 0xffffffffu);
	CHECK(cfg_rd(0, d, 0, 0x10) == (uint32_t)-EDU_BAR_SIZE, "BAR0 sizes as %x",
	      cfg_rd(0, d, 0, 0x10));
	cfg_wr(d, 0x10, bar);
	for (unsigned r = 0x14; r < 0x28; r += 4) {
		cfg_wr(d, r, 0xffffffffu);
		CHECK(cfg_rd(0, d, 0, r) == 0, "BAR at 0x%x sizes as %x", r, cfg_rd(0, d, 0, r));
	}
}

/* The BAR moved onto something it cannot claim is not decoded there: what was there answers;
 * moved to a free address it answers there and no more at the old one. */
static void bar_moves(unsigned d)
{
	volatile uint32_t *ram = (volatile uint32_t *)0x200000ul;
	*ram = 0x5eed1234u;
	cfg_wr(d, 0x10, 0x200000u);
	CHECK(*ram == 0x5eed1234u, "RAM under a misplaced BAR reads %x", *ram);
	CHECK(edu[0] == 0xffffffffu, "the BAR still answers at its old place: %x", edu[0]);
	uint32_t apic_ver = apic_reg_read(LAPIC_VER);
	cfg_wr(d, 0x10, LAPIC_BASE);
	CHECK(apic_reg_read(LAPIC_VER) == apic_ver, "the local APIC's version reads %x",
	      apic_reg_read(LAPIC_VER));
	cfg_wr(d, 0x10, 0xfec00000u);
	cfg_wr(d, 0x10, MOVED_BAR);
	volatile uint32_t *moved = (volatile uint32_t *)(ulong)MOVED_BAR;
	CHECK(moved[0] == 0x010000edu, "ID at the moved BAR %x", moved[0]);
	moved[1] = 0x1234;
	CHECK(moved[1] == ~0x1234u, "liveness at the moved BAR %x", moved[1]);
	CHECK(edu[0] == 0xffffffffu, "the BAR still answers at its old place: %x", edu[0]);
	cfg_wr(d, 0x10, HOLE_BAR);
	CHECK(edu[0] == 0x010000edu && moved[0] == 0xffffffffu, "moved back: %x, %x", edu[0],
	      moved[0]);
}

/* Register accesses through the mapped BAR: after each page's first, not one exit. */
static void no_exits(void)
{
	struct umbra_stats a, b;
	reg_wr(EDU_REG_ALIVE, 1);
	if (umbra_stats(&a)) {
		check_failed("STATS failed");
		return;
	}
	unsigned bad = 0;
	for (uint32_t i = 0; i < 1000; i++) {
		reg_wr(EDU_REG_ALIVE, i);
		bad += reg_rd(EDU_REG_ALIVE) != ~i;
	}
	umbra_stats(&b);
	CHECK(!bad, "liveness wrong %u times", bad);
	uint64_t pf = b.exits[UMBRA_EXIT_PAGE_FAULT] - a.exits[UMBRA_EXIT_PAGE_FAULT];
	uint64_t npf = b.exits[UMBRA_EXIT_NESTED_FAULT] - a.exits[UMBRA_EXIT_NESTED_FAULT];
	uint64_t emu = b.exits[UMBRA_EXIT_EMULATE] - a.exits[UMBRA_EXIT_EMULATE];
	kprintf("%s: 2000 register accesses: %lu page-fault, %lu nested-fault exits, %lu exits in all\n",
		guest_name, (ulong)pf, (ulong)npf, (ulong)(b.exits_total - a.exits_total));
	CHECK(pf == 0 && npf == 0 && emu == 0,
	      "register accesses exited: pf %lu npf %lu emulate %lu", (ulong)pf, (ulong)npf,
	      (ulong)emu);
}

/* pci-testdev's I/O window: port 0 selects a test, the header then reads back byte by byte
 * with the test's name at 16 ("portio-..."). At the host's ports, where Umbra places it, the
 * accesses pass the I/O bitmap: no exit; moved elsewhere, each exits and is forwarded, with
 * the same bytes; the old ports then answer nothing. */
static unsigned read_name(uint16_t base, char *name, unsigned len)
{
	outb(base, 0);
	unsigned n = 0;
	for (; n + 1 < len; n++) {
		name[n] = (char)inb((uint16_t)(base + 16 + n));
		if (!name[n])
			break;
	}
	name[n] = 0;
	return n;
}

static void io_window(unsigned d)
{
	unsigned reg = 0;
	uint32_t bar = 0;
	for (unsigned r = 0x10; r < 0x28 && !reg; r += 4)
		if (cfg_rd(0, d, 0, r) & 1)
			reg = r, bar = cfg_rd(0, d, 0, r) & ~3u;
	if (!reg) {
		check_failed("pci-testdev has no I/O BAR");
		return;
	}
	cfg_addr(0, d, 0, 4);
	outw(0xcfc, CMD_IO);
	char a[32], b[32];
	struct umbra_stats s0, s1, s2;
	umbra_stats(&s0);
	unsigned n = read_name((uint16_t)bar, a, sizeof(a));
	umbra_stats(&s1);
	uint64_t direct = s1.exits[UMBRA_EXIT_IO] - s0.exits[UMBRA_EXIT_IO];
	CHECK(n > 7 && !strncmp6(a, "portio"), "I/O window at 0x%x reads '%s'", bar, a);
	cfg_wr(d, reg, 0x2000);
	CHECK(inb((uint16_t)(bar + 16)) == 0xff, "the old ports still answer");
	umbra_stats(&s1);
	read_name(0x2000, b, sizeof(b));
	umbra_stats(&s2);
	uint64_t moved = s2.exits[UMBRA_EXIT_IO] - s1.exits[UMBRA_EXIT_IO];
	kprintf("%s: I/O window '%s': %lu I/O exits at the host's ports 0x%x, %lu at 0x2000\n",
		guest_name, a, (ulong)direct, bar, (ulong)moved);
	CHECK(direct == 0, "%lu I/O exits through the passed ports", (ulong)direct);
	CHECK(moved > n, "only %lu I/O exits for %u forwarded reads", (ulong)moved, n);
	CHECK(same_n((const uint8_t *)a, (const uint8_t *)b, n + 1), "forwarded: '%s'", b);
	cfg_wr(d, reg, bar);
	umbra_stats(&s1);
	read_name((uint16_t)bar, b, sizeof(b));
	umbra_stats(&s2);
	CHECK(s2.exits[UMBRA_EXIT_IO] == s1.exits[UMBRA_EXIT_IO], "moved back: I/O exits");
}

/* ---- MSI ---- */

static volatile unsigned msis;

static void on_msi(struct frame *f)
{
	(void)f;
	msis++;
	reg_wr(EDU_IRQ_ACK, ~0u); /* the raise's bit and the DMA's */
	apic_reg_write(LAPIC_EOI, 0);
}

/* Off while the message changes, as a driver does, so Umbra sees only whole messages. */
#define BACKSTOP_VECTOR 0x52
static void on_backstop(struct frame *f)
{
	(void)f;
	apic_reg_write(LAPIC_EOI, 0);
}

static void msi_set(unsigned d, uint32_t addr, uint32_t data, int on)
{
	cfg_addr(0, d, 0, msi_cap);
	outw(0xcfe, 0);
	cfg_wr(d, msi_cap + 4, addr);
	cfg_wr(d, msi_cap + 8, 0);
	cfg_wr(d, msi_cap + 12, data);
	cfg_addr(0, d, 0, msi_cap);
	outw(0xcfe, on ? MSI_ENABLE : 0); /* message control: a 16-bit write at +2 */
}

/* One raise of the edu's interrupt, with interrupts on (QEMU sends the MSI during the write):
 * whether its handler counted one within ms. */
static int raise_irq(volatile unsigned *count, unsigned ms)
{
	unsigned before = *count;
	uint64_t end = timeout_ms(ms);
	irq_on();
	reg_wr(EDU_IRQ_RAISE, 1);
	while (*count == before && !timed_out(end))
		asm volatile("pause");
	irq_off();
	reg_wr(EDU_IRQ_ACK, 1);
	return *count != before;
}

/* n raises, each given a second: how many never arrived; Umbra's statistics around them. */
static unsigned raises(volatile unsigned *count, unsigned n, struct umbra_stats *a,
		       struct umbra_stats *b)
{
	unsigned lost = 0;
	umbra_stats(a);
	for (unsigned i = 0; i < n; i++)
		lost += !raise_irq(count, 1000);
	umbra_stats(b);
	return lost;
}

/* Enabled to this vCPU's APIC ID at MSI_VECTOR: each raise arrives once, at that vector (any
 * other vector ends the guest: no handler); off, or with a message that is no interrupt, or
 * aimed at an APIC ID no vCPU has, nothing arrives and Umbra goes on; right again, it works. */
static void msi_tests(unsigned d)
{
	if (!msi_cap) {
		check_failed("no MSI capability");
		return;
	}
	uint32_t me = apic_reg_read(LAPIC_ID) >> 24, addr = LAPIC_BASE | me << 12;
	/* Only the MSI may interrupt: the 8259's lines (the board's timer on IRQ0) masked. */
	pic_remap(0x20, 0x28);
	pic_set_mask(0xffff);
	set_irq_handler(MSI_VECTOR, on_msi);
	msi_set(d, addr, MSI_VECTOR, 1);
	CHECK(cfg_rd(0, d, 0, msi_cap + 4) == addr && cfg_rd(0, d, 0, msi_cap + 12) == MSI_VECTOR &&
		      (cfg_rd(0, d, 0, msi_cap) >> 16) == (MSI_64BIT | MSI_ENABLE),
	      "MSI reads back %x %x %x", cfg_rd(0, d, 0, msi_cap + 4),
	      cfg_rd(0, d, 0, msi_cap + 12), cfg_rd(0, d, 0, msi_cap));
	struct umbra_stats a, b;
	unsigned lost = raises(&msis, MSI_RAISES, &a, &b);
	uint64_t exits = b.exits_total - a.exits_total;
	kprintf("%s: %u MSIs at vector 0x%x: %u arrived, %lu exits (%lu intr, %lu pf, %lu npf, %lu irq-window)\n",
		guest_name, MSI_RAISES, MSI_VECTOR, msis, (ulong)exits,
		(ulong)(b.exits[UMBRA_EXIT_INTR] - a.exits[UMBRA_EXIT_INTR]),
		(ulong)(b.exits[UMBRA_EXIT_PAGE_FAULT] - a.exits[UMBRA_EXIT_PAGE_FAULT]),
		(ulong)(b.exits[UMBRA_EXIT_NESTED_FAULT] - a.exits[UMBRA_EXIT_NESTED_FAULT]),
		(ulong)(b.exits[UMBRA_EXIT_IRQ_WINDOW] - a.exits[UMBRA_EXIT_IRQ_WINDOW]));
	CHECK(!lost && msis == MSI_RAISES, "%u of %u MSIs lost, %u arrived", lost, MSI_RAISES,
	      msis);
	CHECK(b.exits[UMBRA_EXIT_INTR] - a.exits[UMBRA_EXIT_INTR] >= MSI_RAISES,
	      "fewer interrupt exits than MSIs");
	/* Each MSI costs its interrupt exit and the EOI's (a few timer exits besides). */
	CHECK(exits <= 3 * MSI_RAISES, "%lu exits for %u MSIs", (ulong)exits, MSI_RAISES);
	/* Off: nothing arrives. */
	msi_set(d, addr, MSI_VECTOR, 0);
	CHECK(!raise_irq(&msis, 200), "an MSI arrived while off");
	/* Nonsense: a vector below 16, an address outside 0xFEExxxxx, SMI delivery, an APIC ID no
	 * vCPU has: nothing arrives. */
	msi_set(d, addr, 0x05, 1);
	CHECK(!raise_irq(&msis, 200), "an MSI with vector 5 arrived");
	msi_set(d, 0xfed00000u, MSI_VECTOR, 1);
	CHECK(!raise_irq(&msis, 200), "an MSI aimed at 0xfed00000 arrived");
	msi_set(d, addr, 0x200 | MSI_VECTOR, 1);
	CHECK(!raise_irq(&msis, 200), "an MSI with SMI delivery arrived");
	msi_set(d, LAPIC_BASE | (me + 7) << 12, MSI_VECTOR, 1);
	CHECK(!raise_irq(&msis, 200), "an MSI aimed at APIC ID %u arrived", me + 7);
	msi_set(d, addr, MSI_VECTOR, 1);
	CHECK(raise_irq(&msis, 1000), "right again, the MSI never arrived");
	/* Logical destination (flat model, this APIC's bit 2) with lowest-priority delivery; a
	 * logical destination naming no APIC's bit is dropped. */
	apic_reg_write(LAPIC_DFR, 0xffffffffu);
	apic_reg_write(LAPIC_LDR, 1u << 26);
	msi_set(d, LAPIC_BASE | 0x04 << 12 | MSI_ADDR_LOGICAL, MSI_DM_LOWEST | MSI_VECTOR, 1);
	CHECK(raise_irq(&msis, 1000), "the logical, lowest-priority MSI never arrived");
	msi_set(d, LAPIC_BASE | 0x08 << 12 | MSI_ADDR_LOGICAL, MSI_VECTOR, 1);
	CHECK(!raise_irq(&msis, 200), "an MSI to logical destination 0x08 arrived");
	msi_set(d, addr, MSI_VECTOR, 1);
	/* The DMA's completion interrupt, 100 ms later, while the vCPU waits in HLT: it must
	 * wake it (Umbra's CPU sleeps meanwhile, nothing else to run). The APIC timer (about
	 * 4 s) ends the wait should the MSI be lost. */
	unsigned before = msis;
	set_irq_handler(BACKSTOP_VECTOR, on_backstop);
	apic_reg_write(LAPIC_TIMER_DIV, 0xb);
	apic_reg_write(LAPIC_LVT_TIMER, BACKSTOP_VECTOR);
	apic_reg_write(LAPIC_TIMER_INIT, 0xffffffffu);
	reg_wr64(EDU_DMA_SRC, EDU_DMA_BUF);
	reg_wr64(EDU_DMA_DST, page_alloc());
	reg_wr64(EDU_DMA_CNT, 64);
	reg_wr(EDU_DMA_CMD, EDU_DMA_RUN | EDU_DMA_TO_RAM | EDU_DMA_IRQ);
	CHECK(HLT_UNTIL(msis != before, 3000), "the DMA's MSI never woke the HLT");
	apic_reg_write(LAPIC_TIMER_INIT, 0);
	CHECK(!(reg_rd(EDU_DMA_CMD) & EDU_DMA_RUN), "woken before the DMA ended");
	msi_set(d, addr, MSI_VECTOR, 0);
	kprintf("cases: MSI delivered at its vector, nothing while off or nonsense\n");
}

/* ---- INTx ---- */

#define INTX_VECTOR 0x54
#define INTX_RAISES 100
#define PIC_RAISES 10
#define PCI_INTX_GSI 11 /* the guest's INTA line (its _PRT and MADT) */
#define CMD_INTX_DISABLE 0x400u
#define STATUS_INTX 0x8u

static volatile unsigned intxs;

/* The edu lowers its line once acknowledged; the EOI then ends the level interrupt at the
 * I/O APIC, which is when Umbra unmasks the function on the host. */
static void on_intx(struct frame *f)
{
	(void)f;
	intxs++;
	reg_wr(EDU_IRQ_ACK, ~0u);
	apic_reg_write(LAPIC_EOI, 0);
}

/* The same through the 8259: IRQ 11 on the slave, ended by the EOI commands to both chips. */
static void on_intx_pic(struct frame *f)
{
	(void)f;
	intxs++;
	reg_wr(EDU_IRQ_ACK, ~0u);
	outb(0xa0, 0x20);
	outb(0x20, 0x20);
}

static void ioapic_wr(unsigned reg, uint32_t v)
{
	*(volatile uint32_t *)0xfec00000ul = reg;
	*(volatile uint32_t *)0xfec00010ul = v;
}

/* With MSI off the edu raises INTA, which Umbra routed from the host's line: pin 1, line 11
 * read back; 100 raises through the guest's I/O APIC pin (level, active low) arrive once each;
 * the command register's INTx disable holds one back (its status shows it), and clearing it
 * delivers it. */
static void intx_tests(unsigned d)
{
	uint32_t r = cfg_rd(0, d, 0, 0x3c);
	CHECK((r >> 8 & 0xff) == 1, "interrupt pin %x, not INTA", r >> 8 & 0xff);
	cfg_wr(d, 0x3c, (r & ~0xffu) | PCI_INTX_GSI);
	uint32_t me = apic_reg_read(LAPIC_ID) >> 24;
	set_irq_handler(INTX_VECTOR, on_intx);
	ioapic_wr(0x11 + 2 * PCI_INTX_GSI, me << 24);
	ioapic_wr(0x10 + 2 * PCI_INTX_GSI, INTX_VECTOR | 1u << 13 | 1u << 15);
	struct umbra_stats a, b;
	unsigned lost = raises(&intxs, INTX_RAISES, &a, &b);
	kprintf("%s: %u INTx at vector 0x%x: %u arrived, %lu exits (%lu intr)\n", guest_name,
		INTX_RAISES, INTX_VECTOR, intxs, (ulong)(b.exits_total - a.exits_total),
		(ulong)(b.exits[UMBRA_EXIT_INTR] - a.exits[UMBRA_EXIT_INTR]));
	CHECK(!lost && intxs == INTX_RAISES, "%u of %u INTx lost, %u arrived", lost, INTX_RAISES,
	      intxs);
	/* Held back by the function's INTx disable, shown in its status, sent once enabled. */
	uint32_t cmd = cfg_rd(0, d, 0, 4) & 0xffff;
	cfg_wr(d, 4, cmd | CMD_INTX_DISABLE);
	unsigned before = intxs;
	irq_on();
	reg_wr(EDU_IRQ_RAISE, 1);
	uint64_t end = timeout_ms(200);
	while (!timed_out(end))
		asm volatile("pause");
	CHECK(intxs == before, "an INTx arrived while the function disabled it");
	CHECK(cfg_rd(0, d, 0, 4) >> 16 & STATUS_INTX, "status does not show the INTx held back");
	cfg_wr(d, 4, cmd);
	end = timeout_ms(1000);
	while (intxs == before && !timed_out(end))
		asm volatile("pause");
	irq_off();
	CHECK(intxs == before + 1, "enabled again, %u INTx arrived, not 1", intxs - before);
	ioapic_wr(0x10 + 2 * PCI_INTX_GSI, 1u << 16);
	/* Through the 8259 (PIC_RAISES, the cascade unmasked too). */
	set_irq_handler(0x28 + PCI_INTX_GSI - 8, on_intx_pic);
	pic_set_mask(0xffff & ~(1u << 2 | 1u << PCI_INTX_GSI));
	before = intxs;
	lost = raises(&intxs, PIC_RAISES, &a, &b);
	pic_set_mask(0xffff);
	CHECK(!lost && intxs == before + PIC_RAISES,
	      "through the 8259, %u of %u INTx lost, %u arrived", lost, PIC_RAISES, intxs - before);
	kprintf("cases: INTx delivered through the I/O APIC and the 8259, held while disabled\n");
}

/* expect=hog: the guest takes its edu's first INTx and neither acknowledges the device nor
 * ends the interrupt, for hold= ms (15000 by default), then ends; its function keeps asserting.
 * Umbra masks it at the function, so another guest's function on the same host line still gets
 * its interrupts meanwhile, and after it ended (the case checks that guest's INTx count). */
#define HOG_MS 15000
static volatile unsigned hogged;
static void on_hog(struct frame *f)
{
	(void)f;
	hogged++;
}

static void hog(unsigned d)
{
	cfg_wr(d, 4, CMD_MEM);
	edu = (volatile uint32_t *)(ulong)HOLE_BAR;
	pic_remap(0x20, 0x28);
	pic_set_mask(0xffff);
	set_irq_handler(INTX_VECTOR, on_hog);
	ioapic_wr(0x11 + 2 * PCI_INTX_GSI, (apic_reg_read(LAPIC_ID) >> 24) << 24);
	ioapic_wr(0x10 + 2 * PCI_INTX_GSI, INTX_VECTOR | 1u << 13 | 1u << 15);
	irq_on();
	reg_wr(EDU_IRQ_RAISE, 1);
	const char *hold = cmdline_value("hold");
	unsigned ms = hold ? 0 : HOG_MS;
	for (; hold && *hold >= '0' && *hold <= '9'; hold++)
		ms = ms * 10 + (unsigned)(*hold - '0');
	uint64_t end = timeout_ms(ms);
	while (!timed_out(end))
		asm volatile("pause");
	irq_off();
	kprintf("%s: held its INTx %u ms, never ended: %u arrived\n", guest_name, ms, hogged);
	CHECK(hogged == 1, "%u INTx arrived while the first was never ended", hogged);
	kprintf("cases: an INTx never ended holds its own function only\n");
}

static void dma_tests(void)
{
	uint8_t *src = (uint8_t *)page_alloc(), *back = (uint8_t *)page_alloc();
	uint8_t *ctl = (uint8_t *)page_alloc(), *want = (uint8_t *)page_alloc();
	fill(src, 0xfeedf00du);
	copy(want, src, DMA_LEN);
	CHECK(dma((ulong)src, EDU_DMA_BUF, 0), "DMA into the edu never finished");
	CHECK(dma(EDU_DMA_BUF, (ulong)back, EDU_DMA_TO_RAM), "DMA from the edu never finished");
	CHECK(same_n(back, want, DMA_LEN), "DMA round trip changed the data");
	/* A pattern only the edu holds, aimed past the guest's memory. */
	fill(src, 0xbadd0a11u);
	copy(want, src, DMA_LEN);
	CHECK(dma((ulong)src, EDU_DMA_BUF, 0), "DMA into the edu never finished");
	zero(src, DMA_LEN);
	zero(want + 16, DMA_LEN - 16);
	uint64_t outside = ram_bytes + 0x100000;
	kprintf("%s: DMA to 0x%lx, past its %lu MiB\n", guest_name, (ulong)outside,
		(ulong)(ram_bytes >> 20));
	CHECK(dma(EDU_DMA_BUF, outside, EDU_DMA_TO_RAM), "the blocked DMA never finished");
	unsigned hits = 0;
	for (ulong pa = 0x100000; pa + 16 <= ram_bytes; pa += 16)
		hits += (ulong)want != pa && same_n((const volatile uint8_t *)pa, want, 16);
	CHECK(hits == 0, "the blocked DMA's data is in the guest's memory %u times", hits);
	/* The edu did hold it: the same DMA to its own memory delivers it. */
	CHECK(dma(EDU_DMA_BUF, (ulong)ctl, EDU_DMA_TO_RAM), "DMA from the edu never finished");
	CHECK(same_n(ctl, want, 16), "the edu's buffer did not hold the pattern");
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

/* expect=reset: the first boot starts a DMA into its RAM and resets the machine (0xCF9) before
 * the edu runs it (100 ms of QEMU's clock later). Umbra quiesces the function before it clears
 * the guest's memory, so the second boot finds the function as at power-on (decode and bus
 * mastering off, BAR0 where Umbra placed it) and, once the edu has run the DMA, the target page
 * still zero: the DMA was dropped, not written into the new boot's memory. The boot count
 * lives in CMOS RAM, which the reset keeps. */
#define CMOS_BOOTS 0x58 /* a free byte: 0x5b-0x5d hold the RAM above 4 GiB */
#define RESET_TARGET 0x300000ul

static void reset_case(unsigned d)
{
	volatile uint8_t *target = (volatile uint8_t *)RESET_TARGET;
	if (cmos_read(CMOS_BOOTS) == 0) {
		cmos_write(CMOS_BOOTS, 1);
		cfg_wr(d, 4, CMD_MEM | CMD_MASTER);
		unsigned msi = cfg_rd(0, d, 0, 0x34) & 0xff;
		cfg_wr(d, msi + 4, LAPIC_BASE);
		cfg_wr(d, msi + 12, 0x51);
		cfg_wr(d, msi, (MSI_64BIT | MSI_ENABLE) << 16);
		uint8_t *src = (uint8_t *)page_alloc();
		fill(src, 0x5a5aa5a5u);
		CHECK(dma((ulong)src, EDU_DMA_BUF, 0), "DMA into the edu never finished");
		reg_wr64(EDU_DMA_SRC, EDU_DMA_BUF);
		reg_wr64(EDU_DMA_DST, RESET_TARGET);
		reg_wr64(EDU_DMA_CNT, DMA_LEN);
		reg_wr(EDU_DMA_CMD, EDU_DMA_TO_RAM | EDU_DMA_RUN);
		CHECK(reg_rd(EDU_DMA_CMD) & EDU_DMA_RUN, "the DMA ran before the reset");
		outb(0xcf9, 0x06);
		fail("still running after the reset through 0xCF9");
	}
	uint32_t cmd = cfg_rd(0, d, 0, 4) & 0xffff, bar = cfg_rd(0, d, 0, 0x10);
	kprintf("%s: after the reset: command 0x%x, BAR0 0x%x\n", guest_name, cmd, bar);
	CHECK(cmd == 0 && bar == HOLE_BAR, "not as at power-on: command %x BAR0 %x", cmd, bar);
	unsigned msi = cfg_rd(0, d, 0, 0x34) & 0xff;
	CHECK(msi >= 0x40 && cfg_rd(0, d, 0, msi) == (MSI_CAP_ID | MSI_64BIT << 16) &&
		      !cfg_rd(0, d, 0, msi + 4) && !cfg_rd(0, d, 0, msi + 12),
	      "MSI not as at power-on: %x %x %x", cfg_rd(0, d, 0, msi), cfg_rd(0, d, 0, msi + 4),
	      cfg_rd(0, d, 0, msi + 12));
	/* Nothing is written to the function until the edu has had its 100 ms: a guest's own
	 * command write would turn bus mastering off too. */
	delay_ms(500);
	cfg_wr(d, 4, CMD_MEM); /* the registers, not bus mastering */
	uint64_t end = timeout_ms(5000);
	while ((reg_rd(EDU_DMA_CMD) & EDU_DMA_RUN) && !timed_out(end))
		asm volatile("pause");
	CHECK(!(reg_rd(EDU_DMA_CMD) & EDU_DMA_RUN), "the edu never ran the DMA");
	unsigned landed = 0;
	for (unsigned i = 0; i < DMA_LEN; i++)
		landed += target[i] != 0;
	CHECK(!landed, "%u bytes of the DMA started before the reset landed", landed);
	kprintf("cases: the DMA started before the reset was dropped\n");
}

/* ---- ECAM (Umbra's MCFG) ---- */
struct acpi_sdt {
	char sig[4];
	uint32_t len;
	uint8_t rev, sum;
	char oem[6], table[8];
	uint32_t oem_rev, creator, creator_rev;
} __attribute__((packed));

static int sig_is(const volatile char *p, const char *sig, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (p[i] != sig[i])
			return 0;
	return 1;
}

/* The MCFG the RSDT lists (the RSDP searched for in the BIOS area, as a kernel does), or 0. */
static const struct acpi_sdt *find_mcfg(void)
{
	for (ulong p = 0xe0000; p < 0x100000; p += 16) {
		if (!sig_is((const char *)p, "RSD PTR ", 8))
			continue;
		const struct acpi_sdt *rsdt =
			(const struct acpi_sdt *)(ulong) * (uint32_t *)(p + 16);
		const uint32_t *ent = (const uint32_t *)(rsdt + 1);
		for (unsigned i = 0; i < (rsdt->len - sizeof(*rsdt)) / 4; i++)
			if (sig_is(((const struct acpi_sdt *)(ulong)ent[i])->sig, "MCFG", 4))
				return (const struct acpi_sdt *)(ulong)ent[i];
		return 0;
	}
	return 0;
}

static volatile uint8_t *ecam;

static volatile void *ecam_at(unsigned dev, unsigned fn, unsigned reg)
{
	return ecam + (dev << 15 | fn << 12 | reg);
}
static uint32_t ecam_rd(unsigned dev, unsigned fn, unsigned reg, unsigned len)
{
	volatile void *p = ecam_at(dev, fn, reg);
	return len == 1	  ? *(volatile uint8_t *)p
	       : len == 2 ? *(volatile uint16_t *)p
			  : *(volatile uint32_t *)p;
}
static void ecam_wr(unsigned dev, unsigned reg, uint32_t v)
{
	*(volatile uint32_t *)ecam_at(dev, 0, reg) = v;
}

/* What mechanism #1 reads at reg of width len (within a dword). */
static uint32_t cf8_rd(unsigned dev, unsigned fn, unsigned reg, unsigned len)
{
	uint32_t v = cfg_rd(0, dev, fn, reg) >> (8 * (reg & 3));
	return len == 4 ? v : v & ((1u << (8 * len)) - 1);
}

/*
 * The window the MCFG names (segment 0, bus 0 alone) reads, at widths 1, 2 and 4, what
 * 0xCF8/0xCFC read, for every register of every function there; extended space reads zero
 * (all ones where no function is); BAR sizing works through it; an 8-byte access, one across
 * a dword, a write to a missing function or to extended space reach nothing.
 */
static void ecam_tests(unsigned d)
{
	const struct acpi_sdt *mcfg = find_mcfg();
	if (!mcfg) {
		fail("no MCFG in a guest with a PCI bus");
		return;
	}
	const uint8_t *m = (const uint8_t *)(mcfg + 1) + 8;
	uint64_t base = *(const uint64_t *)m;
	unsigned seg = *(const uint16_t *)(m + 8);
	kprintf("%s: MCFG window 0x%lx segment %u buses %02x-%02x\n", guest_name, (ulong)base, seg,
		m[10], m[11]);
	CHECK(mcfg->len == sizeof(*mcfg) + 8 + 16 && seg == 0 && m[10] == 0 && m[11] == 0 &&
		      (base & ~0x1fffffull) == ECAM_PAGE,
	      "MCFG: length %u, window 0x%lx outside the page mapped", mcfg->len, (ulong)base);
	ecam = (volatile uint8_t *)(ulong)base;
	unsigned funcs = 0, reads = 0, bad = 0;
	for (unsigned dev = 0; dev < 32; dev++)
		for (unsigned fn = 0; fn < 8; fn++) {
			if (cfg_rd(0, dev, fn, 0) == 0xffffffffu) {
				bad += ecam_rd(dev, fn, 0, 4) != 0xffffffffu ||
				       ecam_rd(dev, fn, 0x100, 4) != 0xffffffffu;
				continue;
			}
			funcs++;
			for (unsigned reg = 0; reg < 0x100; reg++)
				for (unsigned len = 1; len <= 4; len <<= 1) {
					if (reg % len)
						continue;
					reads++;
					uint32_t e = ecam_rd(dev, fn, reg, len),
						 c = cf8_rd(dev, fn, reg, len);
					if (e != c && bad++ < 4)
						check_failed(
							"00:%02x.%u 0x%x/%u: ECAM %x, 0xCFC %x",
							dev, fn, reg, len, e, c);
				}
			for (unsigned reg = 0x100; reg < 0x1000; reg += 4)
				bad += ecam_rd(dev, fn, reg, 4) != 0;
		}
	CHECK(!bad, "%u ECAM reads disagree with 0xCF8/0xCFC", bad);
	CHECK(funcs >= 2, "ECAM compared %u functions", funcs);
	kprintf("%s: %u functions, %u reads through ECAM agree with 0xCF8/0xCFC\n", guest_name,
		funcs, reads);
	/* BAR sizing through the window, seen by both doors; the address back after. */
	uint32_t bar = ecam_rd(d, 0, 0x10, 4);
	ecam_wr(d, 0x10, 0xffffffffu);
	CHECK(ecam_rd(d, 0, 0x10, 4) == (uint32_t)-EDU_BAR_SIZE &&
		      cfg_rd(0, d, 0, 0x10) == (uint32_t)-EDU_BAR_SIZE,
	      "BAR0 sizes through ECAM as %x", ecam_rd(d, 0, 0x10, 4));
	ecam_wr(d, 0x10, bar);
	CHECK(cfg_rd(0, d, 0, 0x10) == HOLE_BAR, "BAR0 back at %x", cfg_rd(0, d, 0, 0x10));
	for (unsigned r = 0x14; r < 0x28; r += 4) {
		ecam_wr(d, r, 0xffffffffu);
		CHECK(ecam_rd(d, 0, r, 4) == 0, "BAR at 0x%x sizes through ECAM as %x", r,
		      ecam_rd(d, 0, r, 4));
	}
	*(volatile uint8_t *)ecam_at(d, 0, 0x3c) = 0x5a; /* the line: the OS's byte */
	CHECK((cfg_rd(0, d, 0, 0x3c) & 0xff) == 0x5a, "a byte written through ECAM reads %x",
	      cfg_rd(0, d, 0, 0x3c) & 0xff);
	/* What a root complex refuses. */
	uint64_t q = *(volatile uint64_t *)ecam_at(d, 0, 0);
	uint32_t across = *(volatile uint32_t *)ecam_at(d, 0, 2);
	uint16_t across16 = *(volatile uint16_t *)ecam_at(d, 0, 3);
	CHECK(q == ~0ull && across == 0xffffffffu && across16 == 0xffff,
	      "bad reads: 8 bytes %lx, across a dword %x %x", (ulong)q, across, across16);
	*(volatile uint64_t *)ecam_at(d, 0, 0x10) = ~0ull; /* would size BAR0 */
	*(volatile uint32_t *)ecam_at(d, 0, 0x12) = 0;	   /* across BAR0 and BAR1 */
	*(volatile uint32_t *)ecam_at(d, 0, 0x3e) = 0;	   /* across into the next dword */
	*(volatile uint32_t *)ecam_at(d, 0, 0x100) = 0xffffffffu;
	*(volatile uint32_t *)ecam_at(d, 1, 0x10) = 0xffffffffu; /* 00:01.1: nobody */
	*(volatile uint32_t *)ecam_at(31, 0, 4) = CMD_MEM;
	ecam_wr(0, 0x10, 0xffffffffu); /* the host bridge: read-only */
	CHECK(cfg_rd(0, d, 0, 0x10) == HOLE_BAR && cfg_rd(0, d, 0, 0x14) == 0 &&
		      (cfg_rd(0, d, 0, 0x3c) & 0xff) == 0x5a && ecam_rd(d, 0, 0x100, 4) == 0 &&
		      ecam_rd(d, 1, 0x10, 4) == 0xffffffffu && ecam_rd(0, 0, 0x10, 4) == 0,
	      "a bad write landed: BAR0 %x BAR1 %x line %x ext %x 01.1 %x host bridge BAR %x",
	      cfg_rd(0, d, 0, 0x10), cfg_rd(0, d, 0, 0x14), cfg_rd(0, d, 0, 0x3c),
	      ecam_rd(d, 0, 0x100, 4), ecam_rd(d, 1, 0x10, 4), ecam_rd(0, 0, 0x10, 4));
	kprintf("cases: ECAM agrees with 0xCF8/0xCFC, sizes BARs, refuses bad accesses\n");
}

/* Without pci= there is no bus: no MCFG, and nothing answers where the window would be. */
static void no_ecam(void)
{
	uint32_t v = *(volatile uint32_t *)(ulong)(ECAM_PAGE + 0x100000);
	kprintf("%s: %s; 0xfeb00000 reads %x\n", guest_name, find_mcfg() ? "an MCFG" : "no MCFG",
		v);
	CHECK(!find_mcfg() && v == 0xffffffffu, "a guest without a bus has ECAM");
}

void test_main(void)
{
	unsigned d, io;
	const char *expect = cmdline_value("expect"); /* "edu", "edu+io", "reset", "hog", "none" */
	if (!expect)
		fail("no expect= on the line");
	int assigned = expect[0] == 'e' || expect[0] == 'r' || expect[0] == 'h',
	    with_io = expect[0] == 'e' && expect[3] == '+';
	unsigned found = scan_bus(&d, &io);
	CHECK(cfg_rd(0, 0, 0, 0) == 0x12378086u, "00:00.0 is %x", cfg_rd(0, 0, 0, 0));
	CHECK((cfg_rd(0, 0, 0, 8) >> 8) == 0x060000, "00:00.0 class %x", cfg_rd(0, 0, 0, 8) >> 8);
	/* The BAR's 2 MiB, the ECAM window's, the I/O APIC's and the local APIC's, uncached. */
	struct aspace as;
	as_init(&as, PM_64);
	map_page(&as, HOLE_BAR, HOLE_BAR, 2, PTE_P | PTE_W | PTE_PCD | PTE_PWT);
	map_page(&as, MOVED_BAR, MOVED_BAR, 2, PTE_P | PTE_W | PTE_PCD | PTE_PWT);
	map_page(&as, ECAM_PAGE, ECAM_PAGE, 2, PTE_P | PTE_W | PTE_PCD | PTE_PWT);
	map_page(&as, 0xfec00000u, 0xfec00000u, 2, PTE_P | PTE_W | PTE_PCD | PTE_PWT);
	map_page(&as, LAPIC_BASE, LAPIC_BASE, 2, PTE_P | PTE_W | PTE_PCD | PTE_PWT);
	as_activate(&as);
	if (!assigned) {
		CHECK(found == 1 && !d, "a guest without pci= sees %u functions", found);
		no_ecam();
		kprintf("cases: no device without pci=\n");
		return;
	}
	CHECK(found == 2u + with_io && d == 1 && io == (with_io ? 2u : 0u),
	      "%u functions, the edu at %u, pci-testdev at %u", found, d, io);
	if (d != 1)
		fail("no edu at 00:01.0");
	if (expect[0] == 'h') {
		hog(d);
		return;
	}
	if (expect[0] != 'r') {
		filtered_config(d);
		ecam_tests(d);
	}
	edu = (volatile uint32_t *)(ulong)HOLE_BAR;
	if (expect[0] == 'r') {
		reset_case(d);
		return;
	}
	CHECK(edu[0] == 0xffffffffu, "the BAR decodes with memory decode off: %x", edu[0]);
	outw(0xcf8, 0); /* only a dword reaches 0xCF8 */
	cfg_addr(0, d, 0, 4);
	outw(0xcfc, CMD_MEM | CMD_MASTER);
	CHECK(inw(0xcfc) == (CMD_MEM | CMD_MASTER), "command reads %x", inw(0xcfc));
	CHECK(reg_rd(EDU_REG_ID) == 0x010000edu, "edu ID %x", reg_rd(EDU_REG_ID));
	reg_wr(EDU_REG_ALIVE, 0x12345678u);
	CHECK(reg_rd(EDU_REG_ALIVE) == ~0x12345678u, "liveness %x", reg_rd(EDU_REG_ALIVE));
	reg_wr(EDU_REG_FACT, 10);
	uint64_t end = timeout_ms(2000);
	while ((reg_rd(EDU_REG_STATUS) & 1) && !timed_out(end))
		asm volatile("pause");
	CHECK(reg_rd(EDU_REG_FACT) == 3628800u, "10! = %u", reg_rd(EDU_REG_FACT));
	no_exits();
	bar_moves(d);
	if (with_io)
		io_window(io);
	dma_tests();
	msi_tests(d);
	intx_tests(d);
	kprintf("cases: edu found, config filtered, BAR mapped with no exits, moves, DMA\n");
}
