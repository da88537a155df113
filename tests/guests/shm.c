/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest test: two guests exchange messages through a shared region, woken by doorbells only. */
/*
 * Run by check-shm on Umbra only (a region exists only there). The region (SHM_INFO 0) is
 * mapped at TEST_VA. role=pair (two guests): each peer sends n= messages to the other through
 * its own ring in the region while receiving the other's, every message checked (sequence and
 * checksum); a peer with nothing to do sets its wait flag and halts, and the other rings its
 * doorbell only when it finds that flag set, so the exchange polls nothing: its exits are the
 * doorbells and the halts. Peer 0 also tries every bad argument first, and at the end rings the
 * ended peer 1 until it is refused. role=flood rings peer 1 n= times in a loop; its peer,
 * role=victim, computes meanwhile and must finish, having taken far fewer interrupts than were
 * rung (they coalesce). role=writer fills a page for its read-only peer, role=ro, which checks
 * it and that its own store faults as a store to a read-only page does (#PF, error P|W).
 * role=linuxrx is the receiving end of tests/linux/ivshm.c's protocol, for a Linux sender: n=
 * MiB in 256 KiB chunks through two slots after a header page, every word checked.
 * role=msix takes its doorbells as its ivshmem function's MSI-X messages through its local
 * APIC (found on its PCI bus: the capability, the table in BAR1), masked and unmasked (the
 * pending bit), while role=ringer, its peer, rings it each time it asks.
 */
#include "tests/guests/lib/guest.h"

const char guest_name[] = GUEST_NAME;

#define DOORBELL_IRQ 0x40
#define RING 128u

struct msg {
	uint32_t seq, a, b, sum;
};
struct ring {
	volatile uint32_t head, tail; /* written by the producer, by the consumer */
	uint32_t pad[2];
	struct msg slot[RING];
};
struct layout {
	volatile uint32_t wait[2]; /* peer i halts, and wants a doorbell at any change */
	volatile uint32_t done;	   /* flood: the ringing is over */
	uint32_t pad;
	struct ring ring[2]; /* ring[i]: peer i's messages to the other */
};

static struct umbra_shm_info info;
static volatile struct layout *L;
static volatile ulong doorbells;

static long hc(ulong nr, ulong a0, ulong a1, ulong a2)
{
	return umbra_hypercall4(nr, a0, a1, a2, 0);
}

static void on_doorbell(struct frame *f)
{
	(void)f;
	doorbells++;
}

static uint32_t checksum(uint32_t seq, uint32_t a, uint32_t b)
{
	return (seq * 0x9e3779b1u) ^ a ^ (b << 7 | b >> 25) ^ 0x5a5a5a5au;
}

/* Is the word at w (ended by a space or the line's end) exactly s? */
static int strcmp_role(const char *w, const char *s)
{
	while (*s && *w == *s)
		w++, s++;
	return *s || (*w && *w != ' ');
}

static void mfence(void)
{
	__asm__ volatile("mfence" : : : "memory");
}

static inline uint32_t inl_(uint16_t p)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(p));
	return v;
}

static uint32_t cfg_rd(unsigned dev, unsigned reg)
{
	outl(0xcf8, 0x80000000u | dev << 11 | (reg & 0xfc));
	return inl_(0xcfc);
}

static void cfg_wr(unsigned dev, unsigned reg, uint32_t v)
{
	outl(0xcf8, 0x80000000u | dev << 11 | (reg & 0xfc));
	outl(0xcfc, v);
}

#define PTE_PCD (1ull << 4)
#define IVSHMEM_ID 0x11101af4u
static unsigned ivdev;		/* its ivshmem function's device number on bus 0 */
static volatile uint32_t *bar1; /* the MSI-X table and pending bits */

/* Maps the region (cached, writable in the guest's tables) at TEST_VA, and uncached the local
 * APIC and its ivshmem function's BAR1 (at their own addresses). */
static void map_region(void)
{
	static struct aspace as;
	as_init(&as, GUEST_MODE);
	for (uint64_t off = 0; off < info.size; off += PAGE_SIZE)
		map_page(&as, TEST_VA + off, info.gpa + off, 1, PTE_P | PTE_W);
	for (unsigned d = 1; d < 32 && !ivdev; d++)
		if (cfg_rd(d, 0) == IVSHMEM_ID && (cfg_rd(d, 0x18) & ~0xfu) == info.gpa)
			ivdev = d;
	if (ivdev) {
		ulong b1 = cfg_rd(ivdev, 0x14) & ~0xfu;
		map_page(&as, b1, b1, 1, PTE_P | PTE_W | PTE_PCD);
		bar1 = (volatile uint32_t *)b1;
	}
	map_page(&as, LAPIC_BASE, LAPIC_BASE, 1, PTE_P | PTE_W | PTE_PCD);
	as_activate(&as);
	L = (volatile struct layout *)TEST_VA;
}

static void wake(unsigned peer)
{
	mfence();
	if (L->wait[peer]) {
		L->wait[peer] = 0;
		long r = hc(UMBRA_HC_SHM_RING, 0, peer, 0);
		CHECK(r == 0 || r == 1, "ring peer %u: %ld", peer, r);
	}
}

static void bad_arguments(void)
{
	CHECK(hc(UMBRA_HC_SHM_INFO, 9, (ulong)&info, 0) == -UMBRA_ENOENT, "INFO of region 9");
	CHECK(hc(UMBRA_HC_SHM_INFO, 0, 0xfffff000ul, 0) == -UMBRA_EFAULT, "INFO to a bad address");
	CHECK(hc(UMBRA_HC_SHM_BIND, 0, UMBRA_SHM_VECTORS, DOORBELL_IRQ) == -UMBRA_EINVAL,
	      "BIND of vector 16");
	CHECK(hc(UMBRA_HC_SHM_BIND, 0, 0, 5) == -UMBRA_EINVAL, "BIND to an exception vector");
	CHECK(hc(UMBRA_HC_SHM_BIND, 3, 0, DOORBELL_IRQ) == -UMBRA_ENOENT, "BIND of region 3");
	CHECK(hc(UMBRA_HC_SHM_RING, 0, 7, 0) == -UMBRA_ENOENT, "RING of peer 7");
	CHECK(hc(UMBRA_HC_SHM_RING, 0, 1, UMBRA_SHM_VECTORS) == -UMBRA_EINVAL, "RING vector 16");
	CHECK(hc(UMBRA_HC_SHM_RING, 1, 0, 0) == -UMBRA_ENOENT, "RING in region 1");
	kprintf("%s: bad arguments refused\n", guest_name);
}

static void pair(ulong n)
{
	unsigned me = info.peer_id, other = me ^ 1;
	volatile struct ring *tx = &L->ring[me], *rx = &L->ring[other];
	uint32_t seed = 0x1234567u + me, rseed = 0x1234567u + other, sum_in = 0, sum_out = 0;
	ulong sent = 0, recvd = 0, sleeps = 0;
	uint64_t end = timeout_ms(600000);
	static struct umbra_stats before, after;

	CHECK(umbra_stats(&before) == 0, "STATS before");

	while ((sent < n || recvd < n) && !timed_out(end)) {
		int moved = 0;
		while (sent < n && tx->head - tx->tail < RING) {
			volatile struct msg *m = &tx->slot[tx->head % RING];
			seed = seed * 1664525u + 1013904223u;
			m->seq = (uint32_t)sent;
			m->a = seed;
			m->b = ~seed ^ (uint32_t)sent;
			m->sum = checksum(m->seq, m->a, m->b);
			sum_out += m->a;
			__asm__ volatile("" : : : "memory");
			tx->head++;
			sent++;
			moved = 1;
		}
		while (recvd < n && rx->tail != rx->head) {
			volatile struct msg *m = &rx->slot[rx->tail % RING];
			rseed = rseed * 1664525u + 1013904223u;
			CHECK(m->seq == (uint32_t)recvd && m->a == rseed &&
				      m->sum == checksum(m->seq, m->a, m->b),
			      "message %lu: seq %u a %x sum %x", recvd, m->seq, m->a, m->sum);
			sum_in += m->a;
			__asm__ volatile("" : : : "memory");
			rx->tail++;
			recvd++;
			moved = 1;
		}
		if (moved) {
			wake(other);
			continue;
		}
		/* Nothing to do: ask for a doorbell, look once more, halt until one comes. */
		irq_off();
		L->wait[me] = 1;
		mfence();
		if ((sent < n && tx->head - tx->tail < RING) ||
		    (recvd < n && rx->tail != rx->head)) {
			L->wait[me] = 0;
			irq_on();
			continue;
		}
		sleeps++;
		irq_wait();
		L->wait[me] = 0;
	}
	CHECK(umbra_stats(&after) == 0, "STATS after");
	kprintf("%s: peer %u sent %lu received %lu (checksums %x %x), halted %lu times, %lu doorbells\n",
		guest_name, me, sent, recvd, sum_out, sum_in, sleeps, doorbells);
	/* What the exchange cost in exits (make bench-shm turns them into messages per exit). */
	kprintf("%s: exchange exits=%lu hypercall=%lu hlt=%lu\n", guest_name,
		(ulong)(after.exits_total - before.exits_total),
		(ulong)(after.exits[UMBRA_EXIT_HYPERCALL] - before.exits[UMBRA_EXIT_HYPERCALL]),
		(ulong)(after.exits[UMBRA_EXIT_HLT] - before.exits[UMBRA_EXIT_HLT]));
	CHECK(sent == n && recvd == n, "exchange incomplete: %lu/%lu sent, %lu/%lu received", sent,
	      n, recvd, n);
	if (me == 0) {
		/* The peer ends once it has everything: ringing it is then refused. */
		long r = 0;
		uint64_t t = timeout_ms(60000);
		while (!timed_out(t) && (r = hc(UMBRA_HC_SHM_RING, 0, 1, 0)) != -UMBRA_ENOENT)
			delay_ms(1);
		CHECK(r == -UMBRA_ENOENT, "ringing the ended peer gave %ld", r);
	}
}

static void flood(ulong m)
{
	ulong delivered = 0, coalesced = 0;
	for (ulong i = 0; i < m; i++) {
		long r = hc(UMBRA_HC_SHM_RING, 0, 1, 0);
		delivered += r == 0;
		coalesced += r == 1;
	}
	L->done = 1;
	mfence();
	hc(UMBRA_HC_SHM_RING, 0, 1, 1);
	kprintf("%s: rang %lu times: %lu delivered, %lu coalesced\n", guest_name, m, delivered,
		coalesced);
	CHECK(delivered + coalesced == m, "%lu rings failed", m - delivered - coalesced);
	CHECK(coalesced > m / 2, "only %lu of %lu rings coalesced", coalesced, m);
}

static void victim(ulong m)
{
	uint32_t x = 1;
	ulong work = 0;
	irq_on();
	while (!L->done) {
		for (int i = 0; i < 10000; i++)
			x = x * 1664525u + 1013904223u;
		work++;
	}
	irq_off();
	kprintf("%s: %lu rounds of work, %lu doorbells taken (x=%x)\n", guest_name, work, doorbells,
		x);
	CHECK(doorbells >= 1, "no doorbell arrived");
	CHECK(doorbells < m / 2, "%lu doorbells taken of %lu rung: they did not coalesce",
	      doorbells, m);
}

static void writer(void)
{
	volatile uint32_t *page = (volatile uint32_t *)(TEST_VA + PAGE_SIZE);
	for (unsigned i = 0; i < PAGE_SIZE / 4; i++)
		page[i] = 0xc0de0000u + i;
	L->done = 1;
	mfence();
	CHECK(hc(UMBRA_HC_SHM_RING, 0, 1, 0) >= 0, "ring the reader");
	CHECK(HLT_UNTIL(doorbells, 60000), "no doorbell back from the reader");
	for (unsigned i = 0; i < PAGE_SIZE / 4; i++)
		CHECK(page[i] == 0xc0de0000u + i, "word %u changed to %x", i, page[i]);
}

static void reader(void)
{
	ulong page = TEST_VA + PAGE_SIZE;
	CHECK(info.flags & UMBRA_SHM_RO, "INFO does not say read-only");
	CHECK(HLT_UNTIL(L->done, 60000), "the writer never said done");
	for (unsigned i = 0; i < PAGE_SIZE / 4; i++)
		CHECK(((volatile uint32_t *)page)[i] == 0xc0de0000u + i, "word %u reads %x", i,
		      ((volatile uint32_t *)page)[i]);
	CHECK(probe_write(page + 8, 0xbad), "a store to the read-only region did not fault");
	CHECK(last_fault.vector == 14 && (last_fault.error & (PF_P | PF_W)) == (PF_P | PF_W) &&
		      last_fault.cr2 == page + 8,
	      "the store gave vector %lu error %lx cr2 %lx", last_fault.vector, last_fault.error,
	      last_fault.cr2);
	CHECK(((volatile uint32_t *)page)[2] == 0xc0de0002u, "the store landed");
	CHECK(hc(UMBRA_HC_SHM_RING, 0, 0, 0) >= 0, "ring the writer");
	kprintf("%s: read-only view checked, store faulted\n", guest_name);
}

#define MSIX_IRQ 0x41
static volatile ulong msix_taken;

static void on_msix(struct frame *f)
{
	(void)f;
	msix_taken++;
	apic_reg_write(LAPIC_EOI, 0);
}

/* Steps of the MSI-X case, in L->done: the receiver asks, the ringer rings and acknowledges. */
static void ask_ring(uint32_t step)
{
	L->done = step;
	mfence();
}

static void msix(void)
{
	CHECK(ivdev != 0, "no ivshmem function at the region's address on the bus");
	if (!ivdev)
		return;
	uint32_t cap = cfg_rd(ivdev, 0x34) & 0xff, hdr = cfg_rd(ivdev, cap);
	CHECK(cfg_rd(ivdev, 4) >> 16 & 0x10, "status says no capability list");
	CHECK(cap == 0x40 && (hdr & 0xff) == 0x11 && (hdr >> 8 & 0xff) == 0 &&
		      (hdr >> 16 & 0x7ff) == UMBRA_SHM_VECTORS - 1,
	      "capability at %x: header %x (MSI-X, last, 16 entries expected)", cap, hdr);
	CHECK(cfg_rd(ivdev, cap + 4) == 1 && cfg_rd(ivdev, cap + 8) == (0x800 | 1),
	      "table %x, PBA %x", cfg_rd(ivdev, cap + 4), cfg_rd(ivdev, cap + 8));
	CHECK(bar1[3] == 1, "entry 0 not masked at reset (%x)", bar1[3]);
	/* Its local APIC on, the vector's handler, entry 0 to APIC 0 at MSIX_IRQ, MSI-X on. */
	apic_reg_write(LAPIC_SVR, 0x1ff);
	set_irq_handler(MSIX_IRQ, on_msix);
	CHECK(hc(UMBRA_HC_SHM_BIND, 0, 0, 0) == 0, "unbind vector 0");
	bar1[0] = 0xfee00000u;
	bar1[1] = 0;
	bar1[2] = MSIX_IRQ;
	bar1[3] = 0;
	cfg_wr(ivdev, cap, 0x8000u << 16);
	CHECK(cfg_rd(ivdev, cap) >> 16 & 0x8000, "MSI-X enable did not stick");
	ask_ring(1);
	CHECK(HLT_UNTIL(msix_taken == 1, 60000), "MSI-X message not taken (%lu)", msix_taken);
	/* Masked: the doorbell waits in the pending bit; unmasked, it is sent. */
	bar1[3] = 1;
	ask_ring(2);
	uint64_t t = timeout_ms(60000);
	while (!(bar1[0x800 / 4] & 1) && !timed_out(t))
		delay_ms(1);
	CHECK(bar1[0x800 / 4] & 1, "no pending bit for the masked vector");
	CHECK(msix_taken == 1, "a masked vector was sent (%lu)", msix_taken);
	bar1[3] = 0;
	CHECK(POLL_IRQ_UNTIL(msix_taken == 2, 10000), "the pending message not sent at unmask");
	CHECK(!(bar1[0x800 / 4] & 1), "pending bit still set");
	CHECK(doorbells == 0, "a doorbell came as the PV vector too");
	ask_ring(3);
	kprintf("%s: MSI-X: %lu messages, one held by its mask and sent at unmask\n", guest_name,
		msix_taken);
}

static void ringer(void)
{
	for (uint32_t step = 1; step <= 2; step++) {
		uint64_t t = timeout_ms(60000);
		while (L->done != step && !timed_out(t))
			delay_ms(1);
		CHECK(L->done == step, "step %u never asked", step);
		CHECK(hc(UMBRA_HC_SHM_RING, 0, 1, 0) >= 0, "ring step %u", step);
	}
	uint64_t t = timeout_ms(60000);
	while (L->done != 3 && !timed_out(t))
		delay_ms(1);
}

/* tests/linux/ivshm.c's layout: full[2], seq[2] in the first page, two slots after it. */
#define LSLOT (256u << 10)
struct lhdr {
	volatile uint32_t full[2], seq[2];
};

static void linux_rx(ulong mib)
{
	volatile struct lhdr *h = (volatile struct lhdr *)TEST_VA;
	ulong chunks = mib * (1ul << 20) / LSLOT, bad = 0;
	if (info.size < PAGE_SIZE + 2 * LSLOT)
		fail("the region's %lu bytes are fewer than the Linux protocol's",
		     (ulong)info.size);
	for (ulong c = 0; c < chunks && !bad; c++) {
		unsigned s = (unsigned)(c & 1);
		volatile uint32_t *data = (volatile uint32_t *)(TEST_VA + PAGE_SIZE + s * LSLOT);
		uint32_t x = (uint32_t)c * 0x9e3779b9u + 1;
		if (!HLT_UNTIL(h->full[s], 120000))
			fail("chunk %lu never came", c);
		CHECK(h->seq[s] == (uint32_t)c, "chunk %lu came as %u", c, h->seq[s]);
		for (uint32_t i = 0; i < LSLOT / 4; i++) {
			x = x * 1664525u + 1013904223u;
			bad += data[i] != x;
		}
		CHECK(!bad, "chunk %lu: %lu words differ", c, bad);
		mfence();
		h->full[s] = 0;
		mfence();
		CHECK(hc(UMBRA_HC_SHM_RING, 0, info.peer_id ^ 1, 0) >= 0, "ring the sender");
	}
	kprintf("%s: received %lu MiB from the Linux peer, every word checked (%lu doorbells)\n",
		guest_name, mib, doorbells);
}

void test_main(void)
{
	const char *role = cmdline_value("role"), *nstr = cmdline_value("n");
	ulong n = 0;

	if (!on_umbra || !role)
		fail("needs Umbra and role=");
	for (const char *c = nstr ? nstr : "100000"; *c >= '0' && *c <= '9'; c++)
		n = n * 10 + (ulong)(*c - '0');
	long r = hc(UMBRA_HC_SHM_INFO, 0, (ulong)&info, 0);
	if (r)
		fail("SHM_INFO: %ld", r);
	kprintf("%s: region %s at 0x%lx, %lu KiB, peer %u of %u, flags %u\n", guest_name, info.name,
		(ulong)info.gpa, (ulong)(info.size >> 10), info.peer_id, info.peers, info.flags);
	CHECK(info.vectors == UMBRA_SHM_VECTORS, "vectors %u", info.vectors);
	/* The exchange's rings, or the writer's page after the flags' page. */
	if (info.size < sizeof(struct layout) || info.size < 2 * PAGE_SIZE)
		fail("the region's %lu bytes are fewer than the test's", (ulong)info.size);
	map_region();
	pic_remap(0x20, 0x28); /* every 8259 line masked: doorbells are the only interrupts */
	set_irq_handler(DOORBELL_IRQ, on_doorbell);
	CHECK(hc(UMBRA_HC_SHM_BIND, 0, 0, DOORBELL_IRQ) == 0, "BIND vector 0");
	CHECK(hc(UMBRA_HC_SHM_BIND, 0, 1, DOORBELL_IRQ) == 0, "BIND vector 1");
	if (!strcmp_role(role, "pair")) {
		if (info.peer_id == 0)
			bad_arguments();
		pair(n);
	} else if (!strcmp_role(role, "flood")) {
		flood(n);
	} else if (!strcmp_role(role, "victim")) {
		victim(n);
	} else if (!strcmp_role(role, "writer")) {
		writer();
	} else if (!strcmp_role(role, "ro")) {
		reader();
	} else if (!strcmp_role(role, "msix")) {
		msix();
	} else if (!strcmp_role(role, "ringer")) {
		ringer();
	} else if (!strcmp_role(role, "linuxrx")) {
		linux_rx(n);
	} else {
		fail("unknown role");
	}
}
