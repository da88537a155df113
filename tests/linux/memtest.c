/* SPDX-License-Identifier: GPL-2.0-only */
/* The Linux test's memory check: `memtest MIB` fills MIB MiB of anonymous memory, verifies it, and says where it lay. */
/*
 * Every 8-byte word gets a value derived from its index and a seed, written in one pass and
 * checked in a second, so a page Umbra mapped twice, to the wrong frame or not at all shows up
 * as a bad word. The frames behind the pages come from /proc/self/pagemap (root sees them):
 * the count above 4 GiB proves the guest's RAM there was used. Prints one line; exits 0 only
 * when no word was bad and, with `high` as second argument, some page was above 4 GiB.
 */
#include "tests/linux/sys.h"

#define PROT_RW 3
#define MAP_PRIVATE_ANON 0x22
#define PAGE 4096ul
#define PM_PRESENT (1ull << 63)
#define PM_PFN ((1ull << 55) - 1)

static u64 pattern(u64 i)
{
	return (i + 1) * 0x9e3779b97f4a7c15ull ^ 0x5a5a5a5aa5a5a5a5ull;
}

static void out_dec(ulong v)
{
	char b[24];
	int n = 0;
	do
		b[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	char r[24];
	for (int i = 0; i < n; i++)
		r[i] = b[n - 1 - i];
	r[n] = 0;
	out(r);
}

static ulong atoul(const char *s)
{
	ulong v = 0;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (ulong)(*s++ - '0');
	return v;
}

static int run(int argc, char **argv)
{
	if (argc < 2 || !atoul(argv[1])) {
		out("memtest: usage: memtest MIB [high]\n");
		return 2;
	}
	ulong bytes = atoul(argv[1]) << 20, words = bytes / 8, pages = bytes / PAGE;
	long m = sys6(SYS_MMAP, 0, (long)bytes, PROT_RW, MAP_PRIVATE_ANON, -1, 0);
	if (m < 0 && m > -4096) {
		out("memtest: FAIL mmap\n");
		return 1;
	}
	u64 *p = (u64 *)m;
	for (ulong i = 0; i < words; i++)
		p[i] = pattern(i);
	ulong bad = 0;
	for (ulong i = 0; i < words; i++)
		bad += p[i] != pattern(i);

	/* Where the pages are: 512 pagemap entries (one page of them) per read. */
	ulong high = 0, absent = 0;
	u64 top = 0, pm[512];
	long fd = sys6(SYS_OPEN, (long)"/proc/self/pagemap", 0, 0, 0, 0, 0);
	for (ulong pg = 0; fd >= 0 && pg < pages; pg += 512) {
		ulong n = pages - pg < 512 ? pages - pg : 512;
		long off = (long)(((ulong)m / PAGE + pg) * 8);
		if (sys6(SYS_PREAD64, fd, (long)pm, (long)(n * 8), off, 0, 0) != (long)(n * 8)) {
			fd = -1;
			break;
		}
		for (ulong k = 0; k < n; k++) {
			u64 pfn = pm[k] & PM_PFN;
			absent += !(pm[k] & PM_PRESENT) || !pfn;
			high += pfn >= (1ull << 32) / PAGE;
			top = pfn > top ? pfn : top;
		}
	}
	/* One line under 127 characters (Umbra's console splits longer ones). */
	out("memtest: ");
	out_dec(bytes >> 20);
	out(" MiB, ");
	out_dec(bad);
	out(" bad words, ");
	out_dec(high);
	out(" of ");
	out_dec(pages);
	out(" pages above 4 GiB, ");
	out_dec(absent);
	out(fd < 0 ? " no pagemap" : " absent");
	out_hex(", top frame 0x", top);
	int want_high = argc > 2 && argv[2][0] == 'h';
	return bad || fd < 0 || absent || (want_high && !high);
}

static void start_c(long *sp)
{
	sys6(SYS_EXIT, run((int)sp[0], (char **)(sp + 1)), 0, 0, 0, 0, 0);
}
