/* SPDX-License-Identifier: GPL-2.0-only */
/* Multiboot2 constants (usable from assembly) and the boot-information parser. */
#ifndef BOOT_MB2_H
#define BOOT_MB2_H

/* OS image header (boot/ asm) */
/* clang-format off */
#define MB2_HEADER_MAGIC        0xe85250d6
#define MB2_ARCH_I386           0
#define MB2_HEADER_TAG_END      0
#define MB2_HEADER_TAG_INFO_REQ 1
#define MB2_HEADER_TAG_ADDRESS  2
#define MB2_HEADER_TAG_ENTRY    3
#define MB2_HEADER_TAG_FLAGS    4
#define MB2_HEADER_TAG_FRAMEBUF 5
#define MB2_HEADER_TAG_ALIGN    6
#define MB2_HEADER_TAG_OPTIONAL 1   /* header tag flags bit 0 */

/* Value in eax when the loader enters the kernel; ebx holds the info address. */
#define MB2_BOOTLOADER_MAGIC    0x36d76289

/* Boot-information tag types */
#define MB2_TAG_END          0
#define MB2_TAG_CMDLINE      1
#define MB2_TAG_LOADER_NAME  2
#define MB2_TAG_MODULE       3
#define MB2_TAG_MEMINFO      4
#define MB2_TAG_BOOTDEV      5
#define MB2_TAG_MMAP         6
#define MB2_TAG_VBE          7
#define MB2_TAG_FRAMEBUFFER  8
#define MB2_TAG_ELF_SECTIONS 9
#define MB2_TAG_APM          10
#define MB2_TAG_EFI32        11
#define MB2_TAG_EFI64        12
#define MB2_TAG_SMBIOS       13
#define MB2_TAG_ACPI_OLD     14
#define MB2_TAG_ACPI_NEW     15
#define MB2_TAG_NETWORK      16
#define MB2_TAG_EFI_MMAP     17
#define MB2_TAG_EFI_BS       18
#define MB2_TAG_EFI32_IH     19
#define MB2_TAG_EFI64_IH     20
#define MB2_TAG_LOAD_BASE    21

/* Memory map entry types */
#define MB2_MMAP_AVAILABLE   1
#define MB2_MMAP_RESERVED    2
#define MB2_MMAP_ACPI_RECLAIM 3
#define MB2_MMAP_NVS         4
#define MB2_MMAP_BADRAM      5

/* UEFI memory types (EFI_MEMORY_TYPE) in the EFI memory-map tag (17) */
#define EFI_LOADER_CODE          1
#define EFI_LOADER_DATA          2
#define EFI_BOOT_SERVICES_CODE   3
#define EFI_BOOT_SERVICES_DATA   4
#define EFI_CONVENTIONAL_MEMORY  7
#define EFI_UNUSABLE_MEMORY      8
#define EFI_ACPI_RECLAIM_MEMORY  9
#define EFI_ACPI_MEMORY_NVS      10
#define EFI_PAGE_SIZE            4096
#define EFI_MEMORY_RUNTIME       (1ull << 63)   /* the firmware keeps using it at run time */
/* clang-format on */

#ifndef __ASSEMBLY__
#include "lib/types.h"

/* clang-format off */
#define MB2_MAX_MMAP    128
/* Modules kept: guests and their files. Far more than memory holds guests for (each needs its
 * state and RAM); a module past them is counted in modules_dropped and ignored, said at boot. */
#define MB2_MAX_MODULES 512

/* Negative return values of mb2_parse */
#define MB2_ERR_HEADER  (-1)   /* total_size, reserved field or alignment */
#define MB2_ERR_TAG     (-2)   /* a tag header out of bounds or malformed */
#define MB2_ERR_NO_END  (-3)   /* no end tag within total_size */
#define MB2_ERR_CONTENT (-4)   /* a known tag's payload is malformed */
/* clang-format on */

struct mb2_mmap_entry {
	u64 base, len;
	u32 type;
};

struct mb2_module {
	u64 start, end;	     /* physical [start, end) as the loader gives them */
	const char *cmdline; /* inside the info, NUL-terminated */
};

struct boot_info {
	u32 total_size;	     /* bytes of the info structure (to reserve it) */
	const char *cmdline; /* NULL when the loader gave none */
	const char *loader_name;
	bool has_meminfo;
	u32 mem_lower_kb, mem_upper_kb;
	u32 nmmap;
	u32 mmap_dropped; /* entries beyond MB2_MAX_MMAP, ignored */
	/* The map came from the EFI memory-map tag (boot services exited), in multiboot2 types,
	 * adjacent entries of one type merged; it wins over the tag-6 map when both are given. */
	bool mmap_from_efi;
	struct mb2_mmap_entry mmap[MB2_MAX_MMAP];
	u32 nmodules;
	u32 modules_dropped;
	struct mb2_module modules[MB2_MAX_MODULES];
	const void *rsdp_old; /* copy of the ACPI 1.0 RSDP (tag 14) */
	size_t rsdp_old_len;
	const void *rsdp_new; /* copy of the ACPI 2.0+ RSDP (tag 15) */
	size_t rsdp_new_len;
	const char *error; /* first problem found, NULL on success */
	char errbuf[112];
};

/*
 * Parses the boot information at info, reading at most avail bytes (8-byte
 * aligned, as the loader places it). Pointers in out point into info.
 * Returns 0, or an MB2_ERR_* value with out->error set.
 */
int mb2_parse(const void *info, size_t avail, struct boot_info *out);

#endif /* __ASSEMBLY__ */
#endif
