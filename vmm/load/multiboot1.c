/* SPDX-License-Identifier: GPL-2.0-only */
/* Multiboot v1 loading as QEMU's -kernel does it: image, modules, then the information block. */
#include "vmm/load/multiboot1.h"
#include "lib/string.h"
#include "lib/printf.h"
#include "vmm/load/place.h"
#include "vmm/vm.h"

#define MB1_FLAG_AOUT_KLUDGE (1u << 16)
#define MB1_SEARCH 8192

/* Information-block flags Umbra fills in. */
#define MBI_MEMORY (1u << 0)
#define MBI_BOOTDEV (1u << 1)
#define MBI_CMDLINE (1u << 2)
#define MBI_MODS (1u << 3)
#define MBI_MMAP (1u << 6)
#define MBI_LOADER (1u << 9)

struct mbi {
	u32 flags, mem_lower, mem_upper, boot_device, cmdline, mods_count, mods_addr;
	u32 syms[4];
	u32 mmap_length, mmap_addr, drives_length, drives_addr, config_table, boot_loader_name;
	u32 apm_table, vbe[6];
} PACKED;

struct mb1_module {
	u32 start, end, string, reserved;
} PACKED;

struct mb1_mmap {
	u32 size;
	u64 base, len;
	u32 type;
} PACKED;

/* The multiboot v1 header in the image's first 8 KiB, or NULL. */
static const u32 *mb1_find_header(const u8 *img, u64 size)
{
	u64 limit = size < MB1_SEARCH ? size : MB1_SEARCH;
	for (u64 off = 0; off + 12 <= limit; off += 4) {
		const u32 *h = (const u32 *)(img + off);
		if (h[0] == MB1_HEADER_MAGIC && h[0] + h[1] + h[2] == 0)
			return h;
	}
	return NULL;
}

/* The a.out kludge: load addresses straight from the header. */
static const char *load_kludge(struct vm *vm, const u8 *img, u64 size, const u32 *h, u64 *entry,
			       u64 *end)
{
	u64 hoff = (u64)((const u8 *)h - img);
	u32 header_addr = h[3], load_addr = h[4], load_end = h[5], bss_end = h[6];

	if (hoff + 32 > size)
		return "multiboot header truncated";
	if (load_addr > header_addr || header_addr - load_addr > hoff)
		return "multiboot load address after the header";
	u64 file_off = hoff - (header_addr - load_addr);
	u64 len = load_end ? (u64)load_end - load_addr : size - file_off;
	if (load_end && load_end < load_addr)
		return "multiboot load end before load start";
	if (len > size - file_off)
		return "multiboot image shorter than its load range";
	u64 mem_end = bss_end ? bss_end : load_addr + len;
	if (mem_end < load_addr + len || mem_end > vm->mem.low_bytes)
		return "segment outside guest memory";
	u8 *dst = memslots_ptr(&vm->mem, load_addr, mem_end - load_addr);
	memcpy(dst, img + file_off, len);
	memset(dst + len, 0, mem_end - load_addr - len);
	*entry = h[7];
	*end = mem_end;
	if (*entry < load_addr || *entry >= mem_end)
		return "entry point is not inside the loaded image";
	return NULL;
}

/* A bump allocator over guest RAM for what follows the kernel. */
struct place {
	struct vm *vm;
	u64 next;
};

static u64 place_take(struct place *p, u64 len, u64 align)
{
	u64 at = ALIGN_UP(p->next, align);
	if (at + len < at || at + len > p->vm->mem.low_bytes)
		return 0;
	p->next = at + len;
	return at;
}

static u64 place_string(struct place *p, const char *a, const char *b)
{
	size_t la = strlen(a), lb = b ? strlen(b) : 0;
	u64 at = place_take(p, la + (lb ? lb + 1 : 0) + 1, 1);
	if (!at)
		return 0;
	char *dst = memslots_ptr(&p->vm->mem, at, la + lb + 2);
	memcpy(dst, a, la);
	if (lb) {
		dst[la] = ' ';
		memcpy(dst + la + 1, b, lb);
		la += lb + 1;
	}
	dst[la] = 0;
	return at;
}

static int mb1_load(struct vm *vm, const u8 *img, u64 size, const struct mb1_file *files,
		    unsigned nfiles, const char **why)
{
	const u32 *hdr = mb1_find_header(img, size);
	u64 entry = 0, end;

	if (!hdr) { /* the probe found it: only a caller that skipped the probe gets here */
		*why = "no multiboot header";
		return -1;
	}
	if (hdr[1] & MB1_FLAG_AOUT_KLUDGE) {
		*why = load_kludge(vm, img, size, hdr, &entry, &end);
		if (*why)
			return -1;
	} else if (elf_load(vm, img, size, 0, 0, &entry, &end, why) < 0) {
		return -1;
	}

	struct place p = { vm, end };
	u64 mods_gpa[MB1_MAX_FILES];
	for (unsigned i = 0; i < nfiles; i++) {
		mods_gpa[i] = place_take(&p, files[i].size ? files[i].size : 1, PAGE_SIZE);
		if (!mods_gpa[i]) {
			*why = "guest memory too small for its modules";
			return -1;
		}
		memcpy(memslots_ptr(&vm->mem, mods_gpa[i], files[i].size), files[i].data,
		       files[i].size);
	}
	u64 info = place_take(&p, sizeof(struct mbi), PAGE_SIZE);
	u64 mods = place_take(&p, sizeof(struct mb1_module) * (nfiles ? nfiles : 1), 8);
	struct loader_region map[LOADER_MAX_REGIONS];
	unsigned nmap = loader_memory_map(vm, map);
	u64 mmap = place_take(&p, sizeof(struct mb1_mmap) * nmap, 8);
	/* As QEMU does, the image name comes first: here the guest's name. */
	u64 cmdline =
		place_string(&p, vm->name, vm->config.guest_args[0] ? vm->config.guest_args : NULL);
	u64 loader = place_string(&p, "Umbra", NULL);
	if (!info || !mods || !mmap || !cmdline || !loader || info >= (1ull << 32)) {
		*why = "guest memory too small for the multiboot information";
		return -1;
	}

	struct mb1_module *m = memslots_ptr(&vm->mem, mods, sizeof(*m) * (nfiles ? nfiles : 1));
	for (unsigned i = 0; i < nfiles; i++) {
		/* QEMU and GRUB start a module's string with its file name, which Umbra does not
		 * know: the guest's name stands in for it, as on the kernel's own command line. */
		const char *args = files[i].cmdline;
		u64 s = place_string(&p, vm->name, args && args[0] ? args : NULL);
		if (!s) {
			*why = "guest memory too small for the module command lines";
			return -1;
		}
		m[i] = (struct mb1_module){ (u32)mods_gpa[i], (u32)(mods_gpa[i] + files[i].size),
					    (u32)s, 0 };
	}
	/* mem_lower stops at the EBDA, as the map does. */
	struct mb1_mmap *e = memslots_ptr(&vm->mem, mmap, sizeof(*e) * nmap);
	for (unsigned i = 0; i < nmap; i++)
		e[i] = (struct mb1_mmap){ 20, map[i].base, map[i].len, map[i].type };

	struct mbi *mbi = memslots_ptr(&vm->mem, info, sizeof(*mbi));
	*mbi = (struct mbi){
		.flags = MBI_MEMORY | MBI_BOOTDEV | MBI_CMDLINE | MBI_MODS | MBI_MMAP | MBI_LOADER,
		.mem_lower = (u32)(map[0].len >> 10),
		.mem_upper = (u32)((vm->mem.low_bytes >> 10) - 1024),
		.boot_device = 0x8000ffffu,
		.cmdline = (u32)cmdline,
		.mods_count = nfiles,
		.mods_addr = (u32)mods,
		.mmap_length = (u32)(sizeof(*e) * nmap),
		.mmap_addr = (u32)mmap,
		.boot_loader_name = (u32)loader,
	};
	loader_entry_state(vm, entry, MB1_BOOT_MAGIC, (u32)info);
	return 0;
}

static int mb1_probe(const u8 *img, u64 size, const char **why)
{
	(void)why;
	return mb1_find_header(img, size) != NULL;
}

/* GRUB on a BIOS PC is the machine `qemu -kernel` and Umbra imitate for it: the BIOS's
 * leftovers by default. */
const struct load_format mb1_format = { "multiboot v1", mb1_probe, mb1_load, true };
