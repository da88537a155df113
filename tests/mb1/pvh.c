/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 kernel: the PVH boot protocol (Xen's struct hvm_start_info, version 1), as QEMU's
 * -kernel (its pvh.bin option ROM) and Umbra's loader give it: the entry state, the start
 * info, the command line, the modules, the memory map and the RSDP. Entered at pvh_start
 * (pvh_entry.S), which records EBX, CR0, CR4 and EFLAGS and calls pvh_early() to hand the
 * library a multiboot-style information block before lib_start(). */
#include "tests/mb1/mb1.h"

const char guest_name[] = "pvh";

#define HVM_START_MAGIC 0x336ec578u

struct hvm_start_info {
	uint32_t magic, version, flags, nr_modules;
	uint64_t modlist_paddr, cmdline_paddr, rsdp_paddr;
	uint64_t memmap_paddr; /* version 1 */
	uint32_t memmap_entries, reserved;
};
struct hvm_modlist_entry {
	uint64_t paddr, size, cmdline_paddr, reserved;
};
struct hvm_memmap_entry {
	uint64_t addr, size;
	uint32_t type, reserved;
};
_Static_assert(sizeof(struct hvm_start_info) == 56, "start info layout");
_Static_assert(sizeof(struct hvm_modlist_entry) == 32, "module entry layout");
_Static_assert(sizeof(struct hvm_memmap_entry) == 24, "memory map entry layout");

extern uint32_t pvh_ebx, pvh_cr0, pvh_cr4, pvh_eflags;
extern ulong boot_magic, boot_info;
extern char _end[];

#define KIB 1024ull
#define MIB (1024ull * 1024)

/* The library reads a multiboot v1 block: the RAM above 1 MiB and the command line with a
 * first word in front (mb1_args() drops it, as it drops a file or guest name). */
static struct mb1_info fake_mbi;
static char fake_cmdline[128] = "pvh ";

static const struct hvm_start_info *start_info(void)
{
	return (const struct hvm_start_info *)(ulong)pvh_ebx;
}

static int start_info_ok(void)
{
	return pvh_ebx && start_info()->magic == HVM_START_MAGIC && start_info()->version >= 1;
}

static const struct hvm_memmap_entry *memmap(void)
{
	return (const struct hvm_memmap_entry *)(ulong)start_info()->memmap_paddr;
}

/* The end of the RAM entries from addr on without a gap (addr itself if none holds addr). */
static uint64_t ram_run_end(uint64_t addr)
{
	const struct hvm_start_info *si = start_info();
	for (int progress = 1; progress && si->memmap_paddr;) {
		progress = 0;
		for (uint32_t i = 0; i < si->memmap_entries && i < 128; i++) {
			const struct hvm_memmap_entry *e = &memmap()[i];
			if (e->type == 1 && e->addr <= addr && e->addr + e->size > addr) {
				addr = e->addr + e->size;
				progress = 1;
			}
		}
	}
	return addr;
}

/* Runs before lib_start() (no IDT, no console set up): only reads what the loader left. */
void pvh_early(void);
void pvh_early(void)
{
	boot_magic = 0x2badb002u;
	boot_info = (ulong)&fake_mbi;
	fake_mbi.cmdline = (uint32_t)(ulong)fake_cmdline;
	fake_mbi.flags = 4; /* command line */
	if (!start_info_ok())
		return; /* test_main() says so; the library assumes 16 MiB */
	const char *cl = (const char *)(ulong)start_info()->cmdline_paddr;
	for (size_t i = 4; cl && *cl && i < sizeof(fake_cmdline) - 1; i++)
		fake_cmdline[i] = *cl++;
	uint64_t top = ram_run_end(MIB);
	if (top > MIB) {
		fake_mbi.flags |= 1; /* memory: the library's ram_bytes is 1 MiB + mem_upper */
		fake_mbi.mem_lower = (uint32_t)(ram_run_end(0) / KIB);
		fake_mbi.mem_upper = (uint32_t)((top - MIB) / KIB);
	}
}

static uint32_t fnv1a(const uint8_t *p, uint64_t n)
{
	uint32_t h = 2166136261u;
	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

static uint8_t sum_bytes(const uint8_t *p, uint32_t n)
{
	uint8_t s = 0;
	while (n--)
		s += *p++;
	return s;
}

static size_t str_len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

/* Whether [a, a + alen) and [b, b + blen) overlap. */
static int overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

static void check_entry_state(void)
{
	/* The PVH ABI: CR0.PE set, CR0.PG clear, CR4 clear, EFLAGS.IF/TF/VM clear. */
	CHECK((pvh_cr0 & CR0_PE) && !(pvh_cr0 & CR0_PG), "CR0 at entry %x: PE=1 PG=0 wanted",
	      pvh_cr0);
	CHECK(pvh_cr4 == 0, "CR4 at entry %x, not 0", pvh_cr4);
	CHECK(!(pvh_eflags & ((1u << 9) | (1u << 8) | (1u << 17))),
	      "EFLAGS at entry %x: IF, TF or VM set", pvh_eflags);
	kprintf("entry: 32-bit protected mode, CR0.PE=%u CR0.PG=%u, CR4 clear, IF/TF/VM clear\n",
		pvh_cr0 & 1, pvh_cr0 >> 31);
	if (!start_info_ok())
		fail("EBX %x does not point at a start info (magic %x)", pvh_ebx,
		     pvh_ebx ? start_info()->magic : 0);
	const struct hvm_start_info *si = start_info();
	/* The start info is the loader's: not over the image. */
	CHECK(!overlap(pvh_ebx, sizeof(*si), 0x100000, (ulong)_end - 0x100000),
	      "start info %x inside the image", pvh_ebx);
	kprintf("ebx: start info, magic %x, version >= 1: %s, flags %x\n", si->magic,
		si->version >= 1 ? "yes" : "no", si->flags);
}

static void check_cmdline(const struct hvm_start_info *si)
{
	if (!si->cmdline_paddr) {
		kprintf("cmdline: none\n");
		return;
	}
	const char *cl = (const char *)(ulong)si->cmdline_paddr;
	size_t n = str_len(cl);
	CHECK(!overlap(si->cmdline_paddr, n + 1, 0x100000, (ulong)_end - 0x100000),
	      "command line inside the image");
	/* cmdlen=N: the length the whole command line must have (a loader must not cut it). The
	 * library keeps only 127 bytes of it: the arguments are read from the start. */
	ulong want = mb1_arg_num("cmdlen", ~0ul);
	CHECK(want == ~0ul || want == n, "command line of %u bytes, cmdlen=%lu wanted", (unsigned)n,
	      want);
	if (n <= 100)
		kprintf("cmdline: [%s]\n", cl);
	else
		kprintf("cmdline: %u bytes\n", (unsigned)n);
}

static void check_modules(const struct hvm_start_info *si)
{
	kprintf("modules: %u\n", si->nr_modules);
	CHECK(si->nr_modules <= 16, "%u modules", si->nr_modules);
	if (!si->nr_modules)
		return;
	const struct hvm_modlist_entry *m = (const void *)(ulong)si->modlist_paddr;
	CHECK(si->modlist_paddr, "modules but no module list");
	for (uint32_t i = 0; i < si->nr_modules && i < 16 && si->modlist_paddr; i++) {
		uint64_t pa = m[i].paddr, size = m[i].size;
		CHECK(!(pa & 0xfff), "module %u not page aligned", i);
		CHECK(pa >= (ulong)_end && pa + size <= ram_bytes && pa + size >= pa,
		      "module %u at %llx+%llx outside free RAM above the image", i,
		      (unsigned long long)pa, (unsigned long long)size);
		CHECK(!overlap(pa, size, pvh_ebx, sizeof(*si)), "module %u over the start info", i);
		for (uint32_t j = 0; j < i; j++)
			CHECK(!overlap(pa, size, m[j].paddr, m[j].size),
			      "modules %u and %u overlap", j, i);
		/* msizeN=BYTES (N < 10): the size module N must have (the order of the files). */
		char key[] = "msize0";
		key[5] = (char)('0' + i);
		ulong want = i < 10 ? mb1_arg_num(key, ~0ul) : ~0ul;
		CHECK(want == ~0ul || want == size, "module %u: %llu bytes, %s=%lu wanted", i,
		      (unsigned long long)size, key, want);
		if (pa + size > ram_bytes || pa + size < pa)
			continue;
		const uint8_t *p = (const uint8_t *)(ulong)pa;
		kprintf("module %u: %llu bytes, fnv1a %x, first bytes ", i,
			(unsigned long long)size, fnv1a(p, size));
		for (uint64_t k = 0; k < size && k < 12; k++)
			kputc(p[k] >= 0x20 && p[k] < 0x7f ? (char)p[k] : '.');
		kputc('\n');
	}
	ulong want = mb1_arg_num("mods", ~0ul);
	CHECK(want == ~0ul || want == si->nr_modules, "%u modules, mods=%lu wanted", si->nr_modules,
	      want);
}

static void check_memmap(const struct hvm_start_info *si)
{
	CHECK(si->memmap_paddr && si->memmap_entries, "no memory map");
	CHECK(si->memmap_entries <= 128, "%u memory map entries", si->memmap_entries);
	if (!si->memmap_paddr || !si->memmap_entries)
		return;
	uint64_t total = 0;
	for (uint32_t i = 0; i < si->memmap_entries && i < 128; i++) {
		const struct hvm_memmap_entry *e = &memmap()[i];
		CHECK(e->type >= 1 && e->type <= 5, "memory map entry %u: type %u", i, e->type);
		if (e->type != 1)
			continue;
		total += e->size;
		CHECK(!overlap(e->addr, e->size, 0xa0000, 0x60000),
		      "RAM entry %u in the VGA/BIOS hole", i);
		CHECK(!overlap(e->addr, e->size, si->rsdp_paddr, 20), "RSDP in RAM entry %u", i);
	}
	uint64_t low = ram_run_end(0), high = ram_run_end(MIB);
	CHECK(low >= 639 * KIB, "RAM at 0 ends at %llx", (unsigned long long)low);
	CHECK(high > MIB, "no RAM at 1 MiB");
	/* The loaders differ in what they reserve at the top (firmware tables, ROMs): a few MiB. */
	uint64_t want = mb1_arg_num("ram", 16) * MIB;
	CHECK(total + 2 * MIB >= want && total <= want + 2 * MIB && high <= want,
	      "RAM total %llu KiB (to %llx from 1 MiB) for ram=%llu MiB",
	      (unsigned long long)(total / KIB), (unsigned long long)high,
	      (unsigned long long)(want / MIB));
	kprintf("memmap: RAM from 0 past 639 KiB and from 1 MiB, none in the hole, "
		"total within 2 MiB of %llu MiB\n",
		(unsigned long long)(want / MIB));
}

struct __attribute__((packed)) rsdp {
	char sig[8];
	uint8_t checksum;
	char oem[6];
	uint8_t revision;
	uint32_t rsdt;
	uint32_t length;
	uint64_t xsdt;
	uint8_t xchecksum, reserved[3];
};

/* An ACPI table at pa: its signature, and whether its length is sane and it sums to 0. */
static int table_ok(uint64_t pa, const char *sig)
{
	/* Firmware keeps its tables in reserved memory, above the RAM the library counts. */
	const uint8_t *t = (const uint8_t *)(ulong)pa;
	if (!pa || pa >= 0xfff00000u)
		return 0;
	for (int i = 0; i < 4; i++)
		if (t[i] != (uint8_t)sig[i])
			return 0;
	uint32_t len = *(const uint32_t *)(t + 4);
	return len >= 36 && len < 0x10000 && !sum_bytes(t, len);
}

static void check_rsdp(const struct hvm_start_info *si)
{
	if (!si->rsdp_paddr || si->rsdp_paddr >= MIB) {
		check_failed("rsdp_paddr %llx", (unsigned long long)si->rsdp_paddr);
		return;
	}
	const struct rsdp *r = (const void *)(ulong)si->rsdp_paddr;
	int sig = 1;
	for (int i = 0; i < 8; i++)
		sig &= r->sig[i] == "RSD PTR "[i];
	CHECK(sig, "no \"RSD PTR \" at rsdp_paddr");
	CHECK(!sum_bytes((const uint8_t *)r, 20), "RSDP checksum");
	if (r->revision >= 2)
		CHECK(r->length >= 36 && r->length < 4096 &&
			      !sum_bytes((const uint8_t *)r, r->length),
		      "RSDP extended checksum");
	CHECK(table_ok(r->rsdt, "RSDT"), "RSDT at %x", r->rsdt);
	kprintf("rsdp: \"RSD PTR \" with valid checksums, RSDT valid\n");
}

void test_main(void)
{
	check_entry_state();
	const struct hvm_start_info *si = start_info();
	check_cmdline(si);
	check_modules(si);
	check_memmap(si);
	check_rsdp(si);
}
