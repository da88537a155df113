/* SPDX-License-Identifier: GPL-2.0-only */
/* Booting ELF kernels through their PVH entry point (Xen's hvm_start_info protocol). */
#include "vmm/load/pvh.h"
#include "lib/string.h"
#include "vmm/load/acpi_tables.h"
#include "vmm/load/place.h"
#include "vmm/vm.h"

#define XEN_ELFNOTE_PHYS32_ENTRY 18
#define START_MAGIC 0x336ec578u
#define START_VERSION 1 /* with the memory map: what a non-Xen kernel requires */

struct start_info {
	u32 magic, version, flags, nr_modules;
	u64 modlist_paddr, cmdline_paddr, rsdp_paddr, memmap_paddr;
	u32 memmap_entries, reserved;
};
struct start_module {
	u64 paddr, size, cmdline_paddr, reserved;
};
struct start_memmap {
	u64 addr, size;
	u32 type, reserved;
};

/* The boot area, two pages in low memory that the image may not load over: the start info,
 * the module list, the memory map, then the command lines. */
#define AREA_GPA 0x10000ull
#define AREA_LEN 0x2000ull
#define MODLIST_OFF 0x40
#define MEMMAP_OFF 0x200
#define CMDLINE_OFF 0x400
_Static_assert(MODLIST_OFF >= sizeof(struct start_info), "start info room");
_Static_assert(MODLIST_OFF + MB1_MAX_FILES * sizeof(struct start_module) <= MEMMAP_OFF,
	       "module list room");
_Static_assert(MEMMAP_OFF + LOADER_MAX_REGIONS * sizeof(struct start_memmap) <= CMDLINE_OFF,
	       "memory map room");

/* The image's XEN_ELFNOTE_PHYS32_ENTRY note: 1 found, 0 none, -1 a malformed note. */
static int pvh_find_entry(const u8 *img, u64 size, u64 *entry)
{
	const u8 *desc;
	u32 len;
	int found = elf_find_note(img, size, "Xen", XEN_ELFNOTE_PHYS32_ENTRY, &desc, &len);

	if (found <= 0)
		return found;
	if (len != 4 && len != 8)
		return -1;
	u64 v = 0;
	memcpy(&v, desc, len);
	*entry = v;
	return 1;
}

/* Copies a command line into the area's string space; its address, or 0 when out of room. */
static u64 put_string(u8 *area, u64 *used, const char *s)
{
	size_t n = strlen(s) + 1;
	if (n > AREA_LEN - *used)
		return 0;
	memcpy(area + *used, s, n);
	*used += n;
	return AREA_GPA + *used - n;
}

static int pvh_load(struct vm *vm, const u8 *img, u64 size, const struct mb1_file *files,
		    unsigned nfiles, const char **why)
{
	u64 entry = 0, end, ram = vm->mem.low_bytes;

	pvh_find_entry(img, size, &entry); /* found: the probe said so */

	if (!entry || elf_load(vm, img, size, AREA_GPA, AREA_LEN, &entry, &end, why) < 0) {
		if (!entry || *why == elf_bad_entry)
			*why = "PVH: entry point is not inside a loaded segment below 4 GiB";
		return -1;
	}

	u8 *area = memslots_ptr(&vm->mem, AREA_GPA, AREA_LEN);
	memset(area, 0, AREA_LEN);
	struct start_info *si = (struct start_info *)area;
	struct start_module *mods = (struct start_module *)(area + MODLIST_OFF);
	struct start_memmap *map = (struct start_memmap *)(area + MEMMAP_OFF);
	u64 used = CMDLINE_OFF;

	*si = (struct start_info){ .magic = START_MAGIC,
				   .version = START_VERSION,
				   .nr_modules = nfiles,
				   .rsdp_paddr = ACPI_TABLES_GPA,
				   .modlist_paddr = AREA_GPA + MODLIST_OFF,
				   .memmap_paddr = AREA_GPA + MEMMAP_OFF };
	si->cmdline_paddr = put_string(area, &used, vm->config.guest_args);
	if (!si->cmdline_paddr) {
		*why = "PVH: command line too long";
		return -1;
	}

	/* Modules from the top of RAM down, in order, above the kernel and above 1 MiB (not over
	 * the BIOS area and its ACPI tables). */
	u64 top = ram < 0x100000000ull ? ram : 0x100000000ull,
	    floor = end > 0x100000 ? end : 0x100000;
	for (unsigned i = 0; i < nfiles; i++) {
		u64 len = (files[i].size + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
		if (len > top || top - len < floor) {
			*why = "PVH: modules too large for the guest's mem=";
			return -1;
		}
		top -= len;
		memcpy(memslots_ptr(&vm->mem, top, files[i].size), files[i].data, files[i].size);
		mods[i] = (struct start_module){ .paddr = top, .size = files[i].size };
		if (files[i].cmdline && files[i].cmdline[0] &&
		    !(mods[i].cmdline_paddr = put_string(area, &used, files[i].cmdline))) {
			*why = "PVH: command line too long";
			return -1;
		}
	}

	struct loader_region r[LOADER_MAX_REGIONS];
	si->memmap_entries = loader_memory_map(vm, r);
	for (unsigned i = 0; i < si->memmap_entries; i++)
		map[i] = (struct start_memmap){ .addr = r[i].base,
						.size = r[i].len,
						.type = r[i].type };

	loader_entry_state(vm, entry, 0, (u32)AREA_GPA);
	return 0;
}

static int pvh_probe(const u8 *img, u64 size, const char **why)
{
	u64 entry;
	int found = pvh_find_entry(img, size, &entry);

	if (found < 0)
		*why = "PVH: malformed Xen note";
	return found;
}

const struct load_format pvh_format = { "PVH", pvh_probe, pvh_load, false };
