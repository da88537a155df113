/* Guest image loading: ELF32/ELF64 segments into guest RAM, and the boot information page. */
#ifndef VMM_LOADER_H
#define VMM_LOADER_H

#include "lib/types.h"

struct vm;
struct mb1_file;

/* Loads the image [img, img + size) into vm's RAM and sets its entry state: a multiboot v1
 * kernel the multiboot way (with files as its modules), anything else with Umbra's boot
 * protocol (pv/abi.h). 0, or <0 with *why saying what is wrong with the image. */
int loader_load(struct vm *vm, const u8 *img, u64 size, const struct mb1_file *files,
		unsigned nfiles, const char **why);

/* The ELF32/ELF64 segments at their physical addresses, none overlapping [keep, +keep_len).
 * Returns the entry point and the end of the highest segment. */
int elf_load(struct vm *vm, const u8 *img, u64 size, u64 keep, u64 keep_len, u64 *entry,
	     u64 *end, const char **why);
/* 32-bit protected mode, paging off, flat segments, interrupts off, EAX/EBX as given. */
void loader_entry_state(struct vm *vm, u64 entry, u32 eax, u32 ebx);

/* The guest's physical memory map as a PC BIOS reports it (e820 / multiboot types): low RAM,
 * the EBDA, the BIOS area (where the MP table is), then the rest of RAM. */
enum { LOADER_RAM = 1, LOADER_RESERVED = 2, LOADER_MAX_REGIONS = 4 };
struct loader_region {
	u64 base, len;
	u32 type;
};
unsigned loader_memory_map(const struct vm *vm, struct loader_region *out);

#endif
