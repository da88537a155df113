/* SPDX-License-Identifier: GPL-2.0-only */
/* Multiboot2 boot-information parser: validates every bound before reading through it. */
#include "boot/mb2.h"
#include "lib/printf.h"
#include "lib/string.h"

struct mb2_tag {
	u32 type, size;
} PACKED;

/* The header of both memory-map tags (6, and 17 with EFI descriptors as entries). */
struct mb2_tag_mmap {
	struct mb2_tag tag;
	u32 entry_size, entry_version;
} PACKED;

struct mb2_raw_mmap_entry {
	u64 base, len;
	u32 type, reserved;
} PACKED;

/* EFI_MEMORY_DESCRIPTOR (UEFI 2.x); newer firmware may use larger entries. */
struct efi_mem_desc {
	u32 type, pad;
	u64 phys, virt, pages, attr;
} PACKED;

struct mb2_tag_module {
	struct mb2_tag tag;
	u32 start, end;
} PACKED;

struct mb2_tag_meminfo {
	struct mb2_tag tag;
	u32 lower, upper;
} PACKED;

#define MB2_PHYS_LIMIT (1ull << 52)
#define RSDP_V1_LEN 20
#define RSDP_V2_LEN 36

/* A string payload from off to the end of the tag, or NULL when it lacks a NUL. */
static const char *tag_string(const struct mb2_tag *t, u32 off)
{
	if (t->size <= off)
		return NULL;
	const char *s = (const char *)t + off;
	return strnlen(s, t->size - off) < t->size - off ? s : NULL;
}

static void add_mmap(struct boot_info *out, u64 base, u64 len, u32 type)
{
	if (out->nmmap == MB2_MAX_MMAP) {
		out->mmap_dropped++;
		return;
	}
	out->mmap[out->nmmap++] = (struct mb2_mmap_entry){ base, len, type };
}

/* Either map tag's header, whole, with entries of at least min_entry bytes. */
static int check_map_header(const struct mb2_tag *t, u32 off, const char *what, u32 min_entry,
			    struct boot_info *out)
{
	const struct mb2_tag_mmap *m = (const void *)t;
	if (t->size < sizeof(*m))
		return FMT_ERROR(out, MB2_ERR_CONTENT, "mb2: %s tag at offset %u: size %u < %zu",
				 what, off, t->size, sizeof(*m));
	if (m->entry_size < min_entry)
		return FMT_ERROR(out, MB2_ERR_CONTENT,
				 "mb2: %s tag at offset %u: entry_size %u < %u", what, off,
				 m->entry_size, min_entry);
	return 0;
}

static int parse_mmap(const struct mb2_tag *t, u32 off, struct boot_info *out)
{
	const struct mb2_tag_mmap *m = (const void *)t;
	int err = check_map_header(t, off, "mmap", sizeof(struct mb2_raw_mmap_entry), out);
	if (err)
		return err;
	/* Whole entries only: a partial trailing entry is ignored like the spec's padding. */
	for (u32 pos = sizeof(*m); t->size - pos >= m->entry_size; pos += m->entry_size) {
		const struct mb2_raw_mmap_entry *e = (const void *)((const u8 *)t + pos);
		if (!out->mmap_from_efi)
			add_mmap(out, e->base, e->len, e->type);
	}
	return 0;
}

/* What an EFI memory type is to Umbra once boot services are gone: the loader's and the boot
 * services' memory is free RAM like conventional memory; runtime services, MMIO and anything
 * unknown stay reserved (as does any range marked for runtime use, whatever its type). */
static u32 efi_to_mb2_type(u32 efi)
{
	switch (efi) {
	case EFI_LOADER_CODE:
	case EFI_LOADER_DATA:
	case EFI_BOOT_SERVICES_CODE:
	case EFI_BOOT_SERVICES_DATA:
	case EFI_CONVENTIONAL_MEMORY:
		return MB2_MMAP_AVAILABLE;
	case EFI_ACPI_RECLAIM_MEMORY:
		return MB2_MMAP_ACPI_RECLAIM;
	case EFI_ACPI_MEMORY_NVS:
		return MB2_MMAP_NVS;
	case EFI_UNUSABLE_MEMORY:
		return MB2_MMAP_BADRAM;
	default:
		return MB2_MMAP_RESERVED;
	}
}

/*
 * The EFI map replaces a tag-6 map parsed before it. Firmware splits RAM into many small
 * descriptors (one per allocation); merging neighbours of one translated type keeps the
 * map within MB2_MAX_MMAP on real machines.
 */
static int parse_efi_mmap(const struct mb2_tag *t, u32 off, struct boot_info *out)
{
	const struct mb2_tag_mmap *m = (const void *)t;
	int err = check_map_header(t, off, "EFI mmap", sizeof(struct efi_mem_desc), out);
	if (err)
		return err;
	if (!out->mmap_from_efi) {
		out->nmmap = 0;
		out->mmap_dropped = 0;
		out->mmap_from_efi = true;
	}
	for (u32 pos = sizeof(*m); t->size - pos >= m->entry_size; pos += m->entry_size) {
		const struct efi_mem_desc *d = (const void *)((const u8 *)t + pos);
		/* x86 physical addresses have at most 52 bits: a range beyond (or a page count
		 * that would wrap base + length) is corrupt, as is an unaligned base. */
		if (d->pages > (MB2_PHYS_LIMIT >> 12) || d->phys > MB2_PHYS_LIMIT ||
		    d->phys + (d->pages << 12) > MB2_PHYS_LIMIT || (d->phys & (EFI_PAGE_SIZE - 1)))
			return FMT_ERROR(out, MB2_ERR_CONTENT,
					 "mb2: EFI mmap tag at offset %u: descriptor at +%u: "
					 "0x%lx + 0x%lx pages outside the address space",
					 off, pos, d->phys, d->pages);
		if (!d->pages)
			continue;
		u32 type =
			d->attr & EFI_MEMORY_RUNTIME ? MB2_MMAP_RESERVED : efi_to_mb2_type(d->type);
		u64 len = d->pages << 12;
		struct mb2_mmap_entry *prev = out->nmmap ? &out->mmap[out->nmmap - 1] : NULL;
		if (prev && prev->type == type && prev->base + prev->len == d->phys)
			prev->len += len;
		else
			add_mmap(out, d->phys, len, type);
	}
	return 0;
}

static int parse_module(const struct mb2_tag *t, u32 off, struct boot_info *out)
{
	const struct mb2_tag_module *m = (const void *)t;
	const char *cmd = tag_string(t, sizeof(*m));
	if (!cmd)
		return FMT_ERROR(out, MB2_ERR_CONTENT,
				 "mb2: module tag at offset %u: size %u, string not NUL-terminated",
				 off, t->size);
	if (m->start > m->end)
		return FMT_ERROR(out, MB2_ERR_CONTENT,
				 "mb2: module tag at offset %u: start 0x%x > end 0x%x", off,
				 m->start, m->end);
	if (out->nmodules == MB2_MAX_MODULES) {
		out->modules_dropped++;
		return 0;
	}
	out->modules[out->nmodules++] = (struct mb2_module){ m->start, m->end, cmd };
	return 0;
}

static int parse_string(const struct mb2_tag *t, u32 off, const char **dst, struct boot_info *out)
{
	const char *s = tag_string(t, sizeof(*t));
	if (!s)
		return FMT_ERROR(out, MB2_ERR_CONTENT,
				 "mb2: tag type %u at offset %u: string not NUL-terminated",
				 t->type, off);
	if (!*dst)
		*dst = s;
	return 0;
}

static int parse_rsdp(const struct mb2_tag *t, u32 off, u32 min, const void **ptr, size_t *len,
		      struct boot_info *out)
{
	if (t->size - sizeof(*t) < min)
		return FMT_ERROR(out, MB2_ERR_CONTENT,
				 "mb2: ACPI tag type %u at offset %u: %zu bytes < %u", t->type, off,
				 t->size - sizeof(*t), min);
	if (!*ptr) {
		*ptr = t + 1;
		*len = t->size - sizeof(*t);
	}
	return 0;
}

static int parse_tag(const struct mb2_tag *t, u32 off, struct boot_info *out)
{
	switch (t->type) {
	case MB2_TAG_CMDLINE:
		return parse_string(t, off, &out->cmdline, out);
	case MB2_TAG_LOADER_NAME:
		return parse_string(t, off, &out->loader_name, out);
	case MB2_TAG_MODULE:
		return parse_module(t, off, out);
	case MB2_TAG_MEMINFO: {
		const struct mb2_tag_meminfo *m = (const void *)t;
		if (t->size < sizeof(*m))
			return FMT_ERROR(out, MB2_ERR_CONTENT,
					 "mb2: meminfo tag at offset %u: size %u < %zu", off,
					 t->size, sizeof(*m));
		out->has_meminfo = true;
		out->mem_lower_kb = m->lower;
		out->mem_upper_kb = m->upper;
		return 0;
	}
	case MB2_TAG_MMAP:
		return parse_mmap(t, off, out);
	case MB2_TAG_EFI_MMAP:
		return parse_efi_mmap(t, off, out);
	case MB2_TAG_ACPI_OLD:
		return parse_rsdp(t, off, RSDP_V1_LEN, &out->rsdp_old, &out->rsdp_old_len, out);
	case MB2_TAG_ACPI_NEW:
		return parse_rsdp(t, off, RSDP_V2_LEN, &out->rsdp_new, &out->rsdp_new_len, out);
	default:
		return 0; /* tags Umbra does not use: framebuffer, EFI system table, SMBIOS... */
	}
}

int mb2_parse(const void *info, size_t avail, struct boot_info *out)
{
	memset(out, 0, sizeof(*out));
	if ((uintptr_t)info & 7)
		return FMT_ERROR(out, MB2_ERR_HEADER, "mb2: info at %p is not 8-byte aligned",
				 info);
	if (avail < 8)
		return FMT_ERROR(out, MB2_ERR_HEADER,
				 "mb2: only %zu bytes available, header needs 8", avail);
	const u32 *hdr = info;
	u32 total = hdr[0];
	if (total < 16 || total > avail)
		return FMT_ERROR(out, MB2_ERR_HEADER, "mb2: total_size %u outside [16, %zu]", total,
				 avail);
	if (hdr[1] != 0)
		return FMT_ERROR(out, MB2_ERR_HEADER, "mb2: reserved field is 0x%x, not 0", hdr[1]);
	out->total_size = total;

	/* Offsets stay multiples of 8, so total - off >= 8 means a tag header fits. */
	for (u32 off = 8; total - off >= sizeof(struct mb2_tag);) {
		const struct mb2_tag *t = (const void *)((const u8 *)info + off);
		if (t->size < sizeof(*t) || t->size > total - off)
			return FMT_ERROR(out, MB2_ERR_TAG,
					 "mb2: tag type %u at offset %u: size %u outside [8, %u]",
					 t->type, off, t->size, total - off);
		if (t->type == MB2_TAG_END) {
			if (t->size != sizeof(*t))
				return FMT_ERROR(out, MB2_ERR_TAG,
						 "mb2: end tag at offset %u: size %u, not 8", off,
						 t->size);
			return 0;
		}
		int err = parse_tag(t, off, out);
		if (err)
			return err;
		u64 next =
			ALIGN_UP((u64)t->size, 8); /* u64: a size near 4 GiB must not wrap to 0 */
		if (next > total - off)
			break;
		off += (u32)next;
	}
	return FMT_ERROR(out, MB2_ERR_NO_END, "mb2: no end tag within total_size %u", total);
}
