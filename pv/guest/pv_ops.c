/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest-side paravirt ops: native defaults, Umbra's hypercall versions, the lazy MMU queue. */
#include "pv/guest/pv_ops.h"
#include "pv/guest/x86.h"

#define COM1 0x3f8
#define PIT_HZ 1193182u
#define NS_PER_S 1000000000ull

enum pv_insn pv_insn;
int pv_on_umbra;
uint64_t pv_tsc_hz;
pv_ulong pv_phys_offset;
struct pv_lazy_stats pv_lazy_stats;

long pv_hypercall_insn(enum pv_insn insn, pv_ulong nr, pv_ulong a0, pv_ulong a1, pv_ulong a2,
		       pv_ulong a3)
{
	pv_ulong r = nr;
	if (insn == PV_VMMCALL)
		__asm__ volatile("vmmcall"
				 : "+a"(r)
				 : "b"(a0), "c"(a1), "d"(a2), "S"(a3)
				 : "memory");
	else
		__asm__ volatile("vmcall"
				 : "+a"(r)
				 : "b"(a0), "c"(a1), "d"(a2), "S"(a3)
				 : "memory");
	return (long)r;
}

long pv_hypercall(pv_ulong nr, pv_ulong a0, pv_ulong a1, pv_ulong a2, pv_ulong a3)
{
	return pv_hypercall_insn(pv_insn, nr, a0, a1, a2, a3);
}

/* ---- native ops ---- */
static long native_write_cr3(pv_ulong cr3)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(cr3) : "memory");
	return 0;
}

static long native_set_pte(uint64_t pa, unsigned bytes, uint64_t val)
{
	void *e = (void *)(pv_ulong)(pa + pv_phys_offset);

	if (bytes == 4) {
		*(volatile uint32_t *)e = (uint32_t)val;
		return 0;
	}
#ifdef __x86_64__
	*(volatile uint64_t *)e = val;
#else
	/* In halves with P clear in between, so the walker never sees a torn present entry. */
	volatile uint32_t *h = e;
	h[0] = 0;
	h[1] = (uint32_t)(val >> 32);
	h[0] = (uint32_t)val;
#endif
	return 0;
}

static long native_invlpg(pv_ulong va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
	return 0;
}

static long native_flush_tlb(void)
{
	pv_ulong cr3;
	__asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
	return native_write_cr3(cr3);
}

static long native_mmu_update(const struct umbra_mmu_update *u, unsigned n, unsigned bytes)
{
	for (unsigned i = 0; i < n; i++)
		native_set_pte(u[i].ptr, bytes, u[i].val);
	return n;
}

/* A bad record stops the batch before any applies, as on Umbra. */
static long native_mmu_op(const struct umbra_mmu_op *o, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (o[i].reserved || o[i].op < UMBRA_MMUOP_NEW_CR3 ||
		    o[i].op > UMBRA_MMUOP_FLUSH_ALL ||
		    (o[i].op == UMBRA_MMUOP_FLUSH_ALL && o[i].arg))
			return -UMBRA_EINVAL;
	for (unsigned i = 0; i < n; i++) {
		if (o[i].op == UMBRA_MMUOP_NEW_CR3)
			native_write_cr3((pv_ulong)o[i].arg);
		else if (o[i].op == UMBRA_MMUOP_INVLPG)
			native_invlpg((pv_ulong)o[i].arg);
		else
			native_flush_tlb();
	}
	return n;
}

static long native_console_write(const char *buf, pv_ulong len)
{
	for (pv_ulong i = 0; i < len; i++) {
		/* Bounded, so a missing UART cannot hang the guest. */
		for (int t = 0; t < 100000 && !(inb(COM1 + 5) & 0x20); t++)
			;
		outb(COM1, (uint8_t)buf[i]);
	}
	return (long)len;
}

static void native_halt(void)
{
	__asm__ volatile("hlt" : : : "memory");
}

static uint64_t tsc_to_ns(uint64_t tsc)
{
	if (!pv_tsc_hz)
		return 0;
	return tsc / pv_tsc_hz * NS_PER_S + tsc % pv_tsc_hz * NS_PER_S / pv_tsc_hz;
}

static uint64_t native_time_ns(void)
{
	return tsc_to_ns(read_tsc());
}
static long native_yield(void)
{
	return 0;
}

/* The TSC against 10 ms of PIT channel 2 (mode 0, gate on, speaker off): OUT2 in port 0x61
 * bit 5 rises at terminal count. */
static uint64_t measure_tsc_hz(void)
{
	const unsigned count = PIT_HZ / 100;
	outb(0x61, (uint8_t)((inb(0x61) & ~0x02) | 0x01));
	outb(0x43, 0xb0);
	outb(0x42, (uint8_t)count);
	outb(0x42, (uint8_t)(count >> 8));
	uint64_t t0 = read_tsc();
	for (unsigned long i = 0; !(inb(0x61) & 0x20); i++)
		if (i > 100000000ul)
			return 0; /* no PIT */
	uint64_t t1 = read_tsc();
	return (t1 - t0) * PIT_HZ / count;
}

struct pv_ops pv_ops = {
	.write_cr3 = native_write_cr3,
	.set_pte = native_set_pte,
	.invlpg = native_invlpg,
	.flush_tlb = native_flush_tlb,
	.mmu_update = native_mmu_update,
	.mmu_op = native_mmu_op,
	.console_write = native_console_write,
	.halt = native_halt,
	.time_ns = native_time_ns,
};

struct pv_mod_ops pv_mod_ops = {
	.console_write = native_console_write,
	.yield = native_yield,
	.time_ns = native_time_ns,
};

/* ---- Umbra's ops ---- */
static long umbra_mmu_op1(uint32_t op, uint64_t arg)
{
	struct umbra_mmu_op o = { op, 0, arg };
	long r = pv_hypercall(UMBRA_HC_MMU_OP, (pv_ulong)&o, 1, 0, 0);
	return r < 0 ? r : 0;
}

static long umbra_write_cr3(pv_ulong cr3)
{
	return umbra_mmu_op1(UMBRA_MMUOP_NEW_CR3, cr3);
}
static long umbra_invlpg(pv_ulong va)
{
	return umbra_mmu_op1(UMBRA_MMUOP_INVLPG, va);
}
static long umbra_flush_tlb(void)
{
	return umbra_mmu_op1(UMBRA_MMUOP_FLUSH_ALL, 0);
}

static long umbra_mmu_update(const struct umbra_mmu_update *u, unsigned n, unsigned bytes)
{
	(void)bytes; /* Umbra uses the entry size of the mode in force */
	return pv_hypercall(UMBRA_HC_MMU_UPDATE, (pv_ulong)u, n, 0, 0);
}

static long umbra_set_pte(uint64_t pa, unsigned bytes, uint64_t val)
{
	struct umbra_mmu_update u = { pa, val };
	long r = umbra_mmu_update(&u, 1, bytes);
	return r < 0 ? r : 0;
}

static long umbra_mmu_op(const struct umbra_mmu_op *o, unsigned n)
{
	return pv_hypercall(UMBRA_HC_MMU_OP, (pv_ulong)o, n, 0, 0);
}

static long umbra_console_write(const char *buf, pv_ulong len)
{
	pv_ulong done = 0;
	while (done < len) {
		pv_ulong n = len - done > UMBRA_CONSOLE_MAX ? UMBRA_CONSOLE_MAX : len - done;
		long r = pv_hypercall(UMBRA_HC_CONSOLE_WRITE, (pv_ulong)(buf + done), n, 0, 0);
		if (r < 0)
			return done ? (long)done : r;
		done += (pv_ulong)r;
	}
	return (long)done;
}

/* BLOCK returns at the first event; with interrupts on, it is taken on the way back. */
static void umbra_halt(void)
{
	pv_hypercall(UMBRA_HC_BLOCK, (pv_ulong)UMBRA_TIMER_MAX_NS,
		     (pv_ulong)(UMBRA_TIMER_MAX_NS >> 32), 0, 0);
}

static uint64_t umbra_time_ns(void)
{
	struct umbra_time t = { 0, 0 };
	pv_hypercall(UMBRA_HC_TIME, (pv_ulong)&t, 0, 0, 0);
	return t.monotonic_ns;
}

static long umbra_yield(void)
{
	return pv_hypercall(UMBRA_HC_YIELD, 0, 0, 0, 0);
}

int pv_detect(void)
{
	uint32_t r[4];

	cpuid_regs(1, 0, r);
	if (!(r[2] & (1u << 31)))
		return 0;
	cpuid_regs(UMBRA_CPUID_BASE, 0, r);
	if (r[0] < UMBRA_CPUID_FEATURES || r[1] != UMBRA_SIGNATURE_EBX ||
	    r[2] != UMBRA_SIGNATURE_ECX || r[3] != UMBRA_SIGNATURE_EDX)
		return 0;
	cpuid_regs(UMBRA_CPUID_FEATURES, 0, r);
	return r[0] == UMBRA_ABI_VERSION;
}

int pv_init(void)
{
	uint32_t v[4];

	cpuid_regs(0, 0, v);
	/* AuthenticAMD, HygonGenuine */
	pv_insn = v[1] == 0x68747541u || v[1] == 0x6f677948u ? PV_VMMCALL : PV_VMCALL;
	pv_on_umbra = pv_detect();
	if (!pv_on_umbra) {
		pv_tsc_hz = measure_tsc_hz();
		return 0;
	}
	struct umbra_time t = { 0, 0 };
	pv_hypercall(UMBRA_HC_TIME, (pv_ulong)&t, 0, 0, 0);
	pv_tsc_hz = t.tsc_hz;
	pv_ops = (struct pv_ops){
		.write_cr3 = umbra_write_cr3,
		.set_pte = umbra_set_pte,
		.invlpg = umbra_invlpg,
		.flush_tlb = umbra_flush_tlb,
		.mmu_update = umbra_mmu_update,
		.mmu_op = umbra_mmu_op,
		.console_write = umbra_console_write,
		.halt = umbra_halt,
		.time_ns = umbra_time_ns,
	};
	pv_mod_ops = (struct pv_mod_ops){
		.console_write = umbra_console_write,
		.yield = umbra_yield,
		.time_ns = umbra_time_ns,
	};
	return 1;
}

/* ---- lazy MMU mode ---- */
static int lazy;
static unsigned lazy_bytes; /* entry size of the queued updates */
static unsigned n_upd, n_op;
static struct umbra_mmu_update upd_q[UMBRA_MMU_BATCH_MAX];
static struct umbra_mmu_op op_q[UMBRA_MMU_BATCH_MAX];

void pv_lazy_mmu_begin(void)
{
	lazy = 1;
}
int pv_lazy_mmu_active(void)
{
	return lazy;
}

long pv_lazy_mmu_flush(void)
{
	long r = 0, e;

	if (n_upd) {
		pv_lazy_stats.update_calls++;
		pv_lazy_stats.updates += n_upd;
		e = pv_ops.mmu_update(upd_q, n_upd, lazy_bytes);
		if (e < 0)
			r = e;
		n_upd = 0;
	}
	if (n_op) {
		pv_lazy_stats.op_calls++;
		pv_lazy_stats.ops += n_op;
		e = pv_ops.mmu_op(op_q, n_op);
		if (e < 0 && !r)
			r = e;
		n_op = 0;
	}
	return r;
}

long pv_lazy_mmu_end(void)
{
	long r = pv_lazy_mmu_flush();
	lazy = 0;
	return r;
}

static long queue_op(uint32_t op, uint64_t arg)
{
	long r = 0;
	if (n_op == UMBRA_MMU_BATCH_MAX) {
		pv_lazy_stats.flushes_full++;
		r = pv_lazy_mmu_flush();
	}
	op_q[n_op++] = (struct umbra_mmu_op){ op, 0, arg };
	return r;
}

long pv_set_pte(uint64_t pa, unsigned bytes, uint64_t val)
{
	long r = 0;

	if (!lazy)
		return pv_ops.set_pte(pa, bytes, val);
	/* A full queue, or one entry size changing under it, flushes first: ops stay behind
	 * the entries they follow. */
	if (n_upd == UMBRA_MMU_BATCH_MAX || (n_upd && bytes != lazy_bytes)) {
		pv_lazy_stats.flushes_full++;
		r = pv_lazy_mmu_flush();
	}
	lazy_bytes = bytes;
	upd_q[n_upd++] = (struct umbra_mmu_update){ pa, val };
	return r;
}

uint64_t pv_pte_read(uint64_t pa, unsigned bytes)
{
	/* The newest queued write wins. */
	for (unsigned i = n_upd; lazy && i-- > 0;)
		if (upd_q[i].ptr == pa)
			return upd_q[i].val;
	const void *e = (const void *)(pv_ulong)(pa + pv_phys_offset);
	return bytes == 4 ? *(const volatile uint32_t *)e : *(const volatile uint64_t *)e;
}

long pv_write_cr3(pv_ulong cr3)
{
	return lazy ? queue_op(UMBRA_MMUOP_NEW_CR3, cr3) : pv_ops.write_cr3(cr3);
}
long pv_invlpg(pv_ulong va)
{
	return lazy ? queue_op(UMBRA_MMUOP_INVLPG, va) : pv_ops.invlpg(va);
}
long pv_flush_tlb(void)
{
	return lazy ? queue_op(UMBRA_MMUOP_FLUSH_ALL, 0) : pv_ops.flush_tlb();
}
