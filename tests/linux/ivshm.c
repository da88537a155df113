/* SPDX-License-Identifier: GPL-2.0-only */
/* The Linux test's ivshmem peer: `ivshm send|recv SYSFS_DIR MIB` moves MIB MiB through the region. */
/*
 * Two Linux guests share a region (Umbra's shm=); in each it is an ivshmem PCI function, found
 * by its sysfs directory: resource2 (the memory) and resource0 (the registers) mmap'ed, its
 * interrupt through uio_pci_generic's /dev/uio0 (INTx: uio masks it with the command register's
 * disable bit; re-enabled here through the config file after the status register is read).
 * The sender fills two 256 KiB slots in turn with a pattern from a seed per chunk, marks the
 * slot full and rings the receiver's doorbell; the receiver checks every word, marks it empty
 * and rings back. Each waits in read() on /dev/uio0, never polling. Both print a checksum of
 * everything moved; the receiver's check of each word is what passes or fails.
 */
#include "tests/linux/sys.h"

#define O_RDWR 2
#define O_SYNC 04010000
#define PROT_RW 3
#define MAP_SHARED 1

__attribute__((noreturn)) static void die(const char *why)
{
	out("ivshm: FAIL ");
	out(why);
	out("\n");
	sys6(SYS_EXIT, 1, 0, 0, 0, 0, 0);
	__builtin_unreachable();
}

static char path[128];

static const char *at(const char *dir, const char *file)
{
	ulong n = 0;
	for (; dir[n] && n < 100; n++)
		path[n] = dir[n];
	path[n++] = '/';
	for (ulong i = 0; file[i]; i++)
		path[n++] = file[i];
	path[n] = 0;
	return path;
}

static long open_rw(const char *p)
{
	long fd = sys6(SYS_OPEN, (long)p, O_RDWR | O_SYNC, 0, 0, 0, 0);
	if (fd < 0)
		die(p);
	return fd;
}

#define SLOT (256u << 10)
struct hdr {		      /* the region's first page */
	volatile u32 full[2]; /* slot i holds chunk seq[i] (set by the sender) */
	volatile u32 seq[2];
};
#define DATA_OFF 4096u

enum { INTR_MASK = 0, INTR_STATUS = 1, IVPOSITION = 2, DOORBELL = 3 };

static volatile u32 *regs;
static long uio, cfg;

/* Blocks until the peer rings (an interrupt through uio), then acknowledges it. */
static void wait_doorbell(void)
{
	u32 count;
	unsigned short cmd;
	if (sys6(SYS_READ, uio, (long)&count, 4, 0, 0, 0) != 4)
		die("read /dev/uio0");
	(void)regs[INTR_STATUS]; /* reading clears it: the line drops */
	if (sys6(SYS_PREAD64, cfg, (long)&cmd, 2, 4, 0, 0) != 2)
		die("read config");
	cmd &= (unsigned short)~0x400;
	if (sys6(SYS_PWRITE64, cfg, (long)&cmd, 2, 4, 0, 0) != 2)
		die("write config");
}

static u32 next(u32 *x)
{
	*x = *x * 1664525u + 1013904223u;
	return *x;
}

static u64 parse(const char *s)
{
	u64 v = 0;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (u64)(*s - '0');
	return v;
}

static void start_c(long *sp)
{
	if (sp[0] != 4)
		die("usage: ivshm send|recv SYSFS_DIR MIB");
	const char *role = (const char *)sp[1 + 1], *dir = (const char *)sp[2 + 1];
	int send = role[0] == 's';
	u64 chunks = parse((const char *)sp[3 + 1]) * (1u << 20) / SLOT;

	long r2 = open_rw(at(dir, "resource2")), r0 = open_rw(at(dir, "resource0"));
	cfg = open_rw(at(dir, "config"));
	uio = open_rw("/dev/uio0");
	long mem = sys6(SYS_MMAP, 0, DATA_OFF + 2 * SLOT, PROT_RW, MAP_SHARED, r2, 0);
	long reg = sys6(SYS_MMAP, 0, 4096, PROT_RW, MAP_SHARED, r0, 0);
	if (mem < 0 || reg < 0)
		die("mmap");
	struct hdr *h = (struct hdr *)mem;
	regs = (volatile u32 *)reg;
	u32 me = regs[IVPOSITION], peer = me ^ 1;
	regs[INTR_MASK] = 1;
	u64 sum = 0;
	for (u64 c = 0; c < chunks; c++) {
		unsigned s = (unsigned)(c & 1);
		volatile u32 *data = (volatile u32 *)(mem + DATA_OFF + s * SLOT);
		u32 x = (u32)c * 0x9e3779b9u + 1;
		if (send) {
			while (h->full[s])
				wait_doorbell();
			for (u32 i = 0; i < SLOT / 4; i++)
				sum += data[i] = next(&x);
			h->seq[s] = (u32)c;
			__asm__ volatile("mfence" : : : "memory");
			h->full[s] = 1;
		} else {
			while (!h->full[s])
				wait_doorbell();
			if (h->seq[s] != (u32)c)
				die("chunk out of order");
			for (u32 i = 0; i < SLOT / 4; i++) {
				u32 want = next(&x);
				if (data[i] != want)
					die("a word differs");
				sum += want;
			}
			__asm__ volatile("mfence" : : : "memory");
			h->full[s] = 0;
		}
		__asm__ volatile("mfence" : : : "memory");
		regs[DOORBELL] = peer << 16;
	}
	out(send ? "ivshm: sent, " : "ivshm: received and checked, ");
	out_hex("checksum ", sum);
	sys6(SYS_EXIT, 0, 0, 0, 0, 0, 0);
}
