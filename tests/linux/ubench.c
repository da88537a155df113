/* SPDX-License-Identifier: GPL-2.0-only */
/* The Linux benchmark's workloads (fork+exec, pipe ping-pong, mmap/touch/munmap) with Umbra's exit counts per operation. */
/* No libc: raw system calls, and the STATS hypercall (restricted, so callable from user mode)
 * read before and after each workload. Natively (no Umbra) only times are printed. Output:
 * one line per metric, LBENCH WORKLOAD METRIC VALUE (ns_per_op, exits_per_op_x1000, REASON_x1000,
 * pt_writes_x1000, fills_x1000). */
#include "pv/abi.h"

#include "tests/linux/sys.h"

#define MAP_SIZE (1ul << 20)

static ulong now_ns(void)
{
	long ts[2];
	sys6(SYS_CLOCK_GETTIME, 1, (long)ts, 0, 0, 0, 0);
	return (ulong)ts[0] * 1000000000ul + (ulong)ts[1];
}

static int amd, on_umbra;

static void probe(void)
{
	unsigned a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
	amd = b == 0x68747541; /* "Auth"enticAMD: VMMCALL, else VMCALL */
	__asm__ volatile("cpuid"
			 : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
			 : "a"(UMBRA_CPUID_BASE), "c"(0));
	on_umbra = b == UMBRA_SIGNATURE_EBX && c == UMBRA_SIGNATURE_ECX && d == UMBRA_SIGNATURE_EDX;
}

/* Umbra writes the result through the guest's paging like a user store that cannot fault: a
 * page still copy-on-write after fork would make it fail, so the page is written first. */
static long stats(struct umbra_stats *s)
{
	long r;
	if (!on_umbra)
		return -1;
	*(volatile unsigned *)&s->size = 0;
	if (amd)
		__asm__ volatile("vmmcall"
				 : "=a"(r)
				 : "a"(UMBRA_HC_STATS), "b"(s), "c"(sizeof(*s))
				 : "memory");
	else
		__asm__ volatile("vmcall"
				 : "=a"(r)
				 : "a"(UMBRA_HC_STATS), "b"(s), "c"(sizeof(*s))
				 : "memory");
	return r;
}

/* ---- output without printf ---- */
static char obuf[1024];
static ulong out_len;

static void put(const char *s)
{
	while (*s && out_len < sizeof(obuf) - 1)
		obuf[out_len++] = *s++;
}

static void put_num(ulong v)
{
	char b[24];
	int n = 0;
	do
		b[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < 23);
	while (n && out_len < sizeof(obuf) - 1)
		obuf[out_len++] = b[--n];
}

static void flush(void)
{
	put("\n");
	sys6(SYS_WRITE, 1, (long)obuf, (long)out_len, 0, 0, 0);
	out_len = 0;
}

/* ---- workloads ---- */
static char *const true_argv[] = { "true", 0 };
static char *const no_env[] = { 0 };

static void fork_exec(ulong n)
{
	for (ulong i = 0; i < n; i++) {
		long pid = sys6(SYS_FORK, 0, 0, 0, 0, 0, 0);
		if (pid == 0) {
			sys6(SYS_EXECVE, (long)"/bin/true", (long)true_argv, (long)no_env, 0, 0, 0);
			sys6(SYS_EXIT, 127, 0, 0, 0, 0, 0);
		}
		sys6(SYS_WAIT4, pid, 0, 0, 0, 0, 0);
	}
}

static void pipe_pingpong(ulong n)
{
	int to[2], back[2];
	char c = 'x';
	sys6(SYS_PIPE, (long)to, 0, 0, 0, 0, 0);
	sys6(SYS_PIPE, (long)back, 0, 0, 0, 0, 0);
	long pid = sys6(SYS_FORK, 0, 0, 0, 0, 0, 0);
	if (pid == 0) {
		for (ulong i = 0; i < n; i++) {
			sys6(SYS_READ, to[0], (long)&c, 1, 0, 0, 0);
			sys6(SYS_WRITE, back[1], (long)&c, 1, 0, 0, 0);
		}
		sys6(SYS_EXIT, 0, 0, 0, 0, 0, 0);
	}
	for (ulong i = 0; i < n; i++) {
		sys6(SYS_WRITE, to[1], (long)&c, 1, 0, 0, 0);
		sys6(SYS_READ, back[0], (long)&c, 1, 0, 0, 0);
	}
	sys6(SYS_WAIT4, pid, 0, 0, 0, 0, 0);
}

static void mmap_touch(ulong n)
{
	for (ulong i = 0; i < n; i++) {
		volatile char *p = (volatile char *)sys6(SYS_MMAP, 0, MAP_SIZE, 3, 0x22, -1, 0);
		if ((long)p < 0)
			sys6(SYS_EXIT, 3, 0, 0, 0, 0, 0);
		for (ulong off = 0; off < MAP_SIZE; off += 4096)
			p[off] = 1;
		sys6(SYS_MUNMAP, (long)p, MAP_SIZE, 0, 0, 0, 0);
	}
}

#define REASON_NAME(name, short_name) #short_name,
static const char *const reason_names[] = { UMBRA_EXIT_REASON_LIST(REASON_NAME) };

/* One line per metric ("LBENCH W METRIC VALUE"): Umbra's console wraps long lines. */
static void metric(const char *w, const char *name, const char *suffix, ulong v)
{
	put("LBENCH ");
	put(w);
	put(" ");
	put(name);
	put(suffix);
	put(" ");
	put_num(v);
	flush();
}

static void report(const char *w, ulong n, ulong ns, const struct umbra_stats *a,
		   const struct umbra_stats *b, int counted)
{
	metric(w, "ns_per_op", "", ns / n);
	if (on_umbra && !counted)
		metric(w, "stats_failed", "", 1);
	if (!counted)
		return;
	metric(w, "exits_per_op", "_x1000", (b->exits_total - a->exits_total) * 1000 / n);
	for (unsigned r = 0; r < UMBRA_EXIT_REASONS; r++)
		if (b->exits[r] != a->exits[r])
			metric(w, reason_names[r], "_x1000",
			       (b->exits[r] - a->exits[r]) * 1000 / n);
	metric(w, "pt_writes", "_x1000",
	       (b->mmu.writes_emulated - a->mmu.writes_emulated) * 1000 / n);
	metric(w, "fills", "_x1000", (b->mmu.faults_fixed - a->mmu.faults_fixed) * 1000 / n);
}

static ulong parse(const char *s)
{
	ulong v = 0;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (ulong)(*s - '0');
	return v ? v : 1;
}

static int streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* ubench WORKLOAD N */
static void start_c(long *sp)
{
	static struct umbra_stats a, b;
	const char *w = sp[0] > 1 ? (const char *)sp[2] : "";
	ulong n = sp[0] > 2 ? parse((const char *)sp[3]) : 1;
	void (*fn)(ulong) = streq(w, "fork")   ? fork_exec
			    : streq(w, "pipe") ? pipe_pingpong
			    : streq(w, "mmap") ? mmap_touch
					       : 0;

	if (!fn) {
		put("usage: ubench fork|pipe|mmap N");
		flush();
		sys6(SYS_EXIT, 2, 0, 0, 0, 0, 0);
	}
	probe();
	int counted = stats(&a) > 0;
	ulong t0 = now_ns();
	fn(n);
	ulong t1 = now_ns();
	counted = stats(&b) > 0 && counted && b.exits_total >= a.exits_total;
	report(w, n, t1 - t0, &a, &b, counted);
	sys6(SYS_EXIT, on_umbra && !counted, 0, 0, 0, 0, 0);
}
