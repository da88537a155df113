/* SPDX-License-Identifier: GPL-2.0-only */
/* What every boot format shares: ELF segments placed strictly, the PC memory map, the entry. */
#ifndef VMM_LOAD_PLACE_H
#define VMM_LOAD_PLACE_H

#include "lib/types.h"

struct vm;

/* The ELF32/ELF64 segments at their physical addresses, none overlapping [keep, +keep_len).
 * *entry: 0 for the ELF header's entry point, or another one to check instead (inside a
 * segment, below 4 GiB); returns the entry point and the end of the highest segment. */
extern const char elf_bad_entry[]; /* the reason elf_load gives for a bad entry point */
int elf_load(struct vm *vm, const u8 *img, u64 size, u64 keep, u64 keep_len, u64 *entry, u64 *end,
	     const char **why);
/* The descriptor of the ELF note NAME/TYPE in img's PT_NOTE segments: 1 found, 0 none (or not
 * an ELF), -1 a note segment that runs past the image or a note past its segment. */
int elf_find_note(const u8 *img, u64 size, const char *name, u32 type, const u8 **desc,
		  u32 *desc_len);
/* vCPU 0 in the flat 32-bit state (vmm/flat32.h), EAX/EBX as given. */
void loader_entry_state(struct vm *vm, u64 entry, u32 eax, u32 ebx);

/* The guest's physical memory map as a PC BIOS reports it (e820 / multiboot types): low RAM,
 * the EBDA, the BIOS area (where the MP table is), then the rest of RAM. */
enum { LOADER_RAM = 1, LOADER_RESERVED = 2, LOADER_MAX_REGIONS = 5 };
struct loader_region {
	u64 base, len;
	u32 type;
};
unsigned loader_memory_map(const struct vm *vm, struct loader_region *out);

#endif
