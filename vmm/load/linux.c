/* SPDX-License-Identifier: GPL-2.0-only */
/* Booting a Linux bzImage through the 32-bit boot protocol (Documentation/x86/boot.rst). */
#include "vmm/load/linux.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "vmm/load/place.h"
#include "vmm/vm.h"

/* Offsets in the image and in boot_params ("the zero page"), which shares the setup header. */
#define BP_E820_ENTRIES 0x1e8
#define HDR_SETUP_SECTS 0x1f1
#define HDR_SYSSIZE 0x1f4
#define HDR_BOOT_FLAG 0x1fe
#define HDR_JUMP 0x200
#define HDR_MAGIC 0x202
#define HDR_VERSION 0x206
#define HDR_TYPE_OF_LOADER 0x210
#define HDR_LOADFLAGS 0x211
#define HDR_RAMDISK_IMAGE 0x218
#define HDR_RAMDISK_SIZE 0x21c
#define HDR_CMD_LINE_PTR 0x228
#define HDR_INITRD_ADDR_MAX 0x22c
#define HDR_RELOCATABLE 0x234
#define HDR_CMDLINE_SIZE 0x238
#define HDR_PREF_ADDRESS 0x258
#define HDR_INIT_SIZE 0x260
#define BP_E820_TABLE 0x2d0
#define BP_E820_MAX 128

#define LOADED_HIGH 0x01
#define MIN_VERSION 0x020a /* pref_address and init_size: the loader can check the room */

/* Where Umbra puts things: the zero page and the command line in low memory, as QEMU does;
 * the protected-mode kernel at 1 MiB. */
#define ZERO_PAGE_GPA 0x10000ull
#define CMDLINE_GPA 0x20000ull
#define KERNEL_GPA 0x100000ull
#define CMDLINE_ROOM 0x10000ull

static u16 rd16(const u8 *p)
{
	return (u16)(p[0] | p[1] << 8);
}
static u32 rd32(const u8 *p)
{
	return rd16(p) | (u32)rd16(p + 2) << 16;
}
static u64 rd64(const u8 *p)
{
	return rd32(p) | (u64)rd32(p + 4) << 32;
}
static void wr32(u8 *p, u32 v)
{
	memcpy(p, &v, 4);
}

/* The setup header runs from setup_sects to the end of the jump's target. */
static u64 header_end(const u8 *img)
{
	return HDR_JUMP + 2 + img[HDR_JUMP + 1];
}

static bool linux_is_bzimage(const u8 *img, u64 size)
{
	return size >= 0x210 && !memcmp(img + HDR_MAGIC, "HdrS", 4);
}

/* Everything the header promises that Umbra relies on; NULL when it holds. */
static const char *check_header(const u8 *img, u64 size, u64 ram, u64 *pm_off, u64 *kernel_end)
{
	u16 version = rd16(img + HDR_VERSION);
	unsigned sects = img[HDR_SETUP_SECTS] ? img[HDR_SETUP_SECTS] : 4;
	u64 hdr_end = header_end(img);

	if (rd16(img + HDR_BOOT_FLAG) != 0xaa55)
		return "bzImage: no 0xAA55 boot flag";
	if (version < MIN_VERSION)
		return "bzImage: boot protocol older than 2.10";
	if (size < 0x268 || hdr_end > size || hdr_end > 0x1000)
		return "bzImage: truncated setup header";
	if (!(img[HDR_LOADFLAGS] & LOADED_HIGH))
		return "bzImage: not loaded high (a zImage)";
	*pm_off = (u64)(sects + 1) * 512;
	if (*pm_off >= size)
		return "bzImage: setup_sects beyond the end of the image";
	/* A file cut short would start and fault at once in the part that is missing. Guests are
	 * created one at a time on the boot CPU, and a restart reloads an image that passed here,
	 * so one buffer serves every message. */
	u64 want = *pm_off + (u64)rd32(img + HDR_SYSSIZE) * 16;
	if (size < want) {
		static char msg[112];
		fmt_snprintf(msg, sizeof(msg),
			     "bzImage: truncated: %lu bytes, setup %lu + syssize*16 %lu = %lu",
			     size, *pm_off, want - *pm_off, want);
		return msg;
	}
	/* The decompressor runs at pref_address (or where a relocatable kernel moves itself) and
	 * needs init_size bytes there. */
	u64 run_at = rd64(img + HDR_PREF_ADDRESS), init_size = rd32(img + HDR_INIT_SIZE);
	if (run_at < KERNEL_GPA)
		run_at = KERNEL_GPA;
	*kernel_end = run_at + init_size;
	u64 image_end = KERNEL_GPA + (size - *pm_off);
	if (image_end > *kernel_end)
		*kernel_end = image_end;
	if (*kernel_end > ram)
		return "bzImage: guest memory too small for the kernel (pref_address + init_size)";
	return NULL;
}

static int linux_load(struct vm *vm, const u8 *img, u64 size, const struct mb1_file *files,
		      unsigned nfiles, const char **why)
{
	u64 ram = vm->mem.low_bytes, pm_off, kernel_end;

	if ((*why = check_header(img, size, ram, &pm_off, &kernel_end)))
		return -1;
	if (nfiles > 1) {
		*why = "bzImage: more than one file for it (it takes one initrd)";
		return -1;
	}
	u8 *bp = memslots_ptr(&vm->mem, ZERO_PAGE_GPA, PAGE_SIZE);
	memset(bp, 0, PAGE_SIZE);
	memcpy(bp + HDR_SETUP_SECTS, img + HDR_SETUP_SECTS, header_end(img) - HDR_SETUP_SECTS);
	memcpy(memslots_ptr(&vm->mem, KERNEL_GPA, size - pm_off), img + pm_off, size - pm_off);

	/* The initrd as high as the header allows, above everything the kernel unpacks into. */
	if (nfiles) {
		u64 limit = (u64)rd32(img + HDR_INITRD_ADDR_MAX) + 1;
		if (limit > ram)
			limit = ram;
		u64 at = files[0].size <= limit ? (limit - files[0].size) & ~(PAGE_SIZE - 1) : 0;
		if (at < kernel_end) {
			*why = "bzImage: initrd too large for the guest's mem= (it would overlap the "
			       "kernel)";
			return -1;
		}
		memcpy(memslots_ptr(&vm->mem, at, files[0].size), files[0].data, files[0].size);
		wr32(bp + HDR_RAMDISK_IMAGE, (u32)at);
		wr32(bp + HDR_RAMDISK_SIZE, (u32)files[0].size);
	}

	/* cmdline_size counts the bytes without the NUL (boot protocol 2.06+). */
	size_t n = strlen(vm->config.guest_args), max = rd32(img + HDR_CMDLINE_SIZE);
	if (n > max || n >= CMDLINE_ROOM) {
		kprintf("guest %s: command line of %zu bytes, but this kernel takes at most %zu "
			"(its cmdline_size)\n",
			vm->name, n, max < CMDLINE_ROOM ? max : (size_t)CMDLINE_ROOM - 1);
		*why = "bzImage: command line longer than the kernel's cmdline_size";
		return -1;
	}
	memcpy(memslots_ptr(&vm->mem, CMDLINE_GPA, n + 1), vm->config.guest_args, n + 1);
	wr32(bp + HDR_CMD_LINE_PTR, (u32)CMDLINE_GPA);
	bp[HDR_TYPE_OF_LOADER] = 0xff; /* an unregistered loader */

	struct loader_region map[LOADER_MAX_REGIONS];
	unsigned nmap = loader_memory_map(vm, map);
	_Static_assert(LOADER_MAX_REGIONS <= BP_E820_MAX, "e820 table in the zero page");
	for (unsigned i = 0; i < nmap; i++) {
		u8 *e = bp + BP_E820_TABLE + 20 * i;
		memcpy(e, &map[i].base, 8);
		memcpy(e + 8, &map[i].len, 8);
		wr32(e + 16, map[i].type);
	}
	bp[BP_E820_ENTRIES] = (u8)nmap;

	/* 32-bit entry: flat __BOOT_CS (0x10) and __BOOT_DS (0x18), ESI the zero page. */
	loader_entry_state(vm, KERNEL_GPA, 0, 0);
	struct x86_emu_ctx *r = &vm->vcpus[0].hw.regs;
	r->gpr[X86_RSI] = ZERO_PAGE_GPA;
	for (int s = 0; s < X86_NR_SREGS; s++)
		r->seg[s].sel = s == X86_CS ? 0x10 : 0x18;
	return 0;
}

static int linux_probe(const u8 *img, u64 size, const char **why)
{
	(void)why;
	return linux_is_bzimage(img, size);
}

const struct load_format linux_format = { "bzImage", linux_probe, linux_load, false };
