/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for boot/mb2.c on hand-built multiboot2 information images (BIOS and UEFI), valid and malformed. */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/harness.h"
#include "boot/mb2.h"

/* Image builder: tags appended 8-aligned after the 8-byte header. */
struct img {
	_Alignas(8) u8 buf[16384];
	u32 off;
};

static struct img *img_new(void)
{
	struct img *m = calloc(1, sizeof(*m));
	m->off = 8;
	return m;
}

static u8 *tag(struct img *m, u32 type, const void *payload, u32 len)
{
	u8 *t = m->buf + m->off;
	u32 hdr[2] = { type, 8 + len };
	memcpy(t, hdr, 8);
	if (payload)
		memcpy(t + 8, payload, len);
	m->off += (8 + len + 7) & ~7u;
	return t;
}

static u32 finish(struct img *m)
{
	tag(m, MB2_TAG_END, NULL, 0);
	u32 hdr[2] = { m->off, 0 };
	memcpy(m->buf, hdr, 8);
	return m->off;
}

static void set_u32(u8 *p, u32 v)
{
	memcpy(p, &v, 4);
}

static void tag_string(struct img *m, u32 type, const char *s)
{
	tag(m, type, s, (u32)strlen(s) + 1);
}

struct raw_mmap {
	u64 base, len;
	u32 type, reserved;
};

static void tag_mmap(struct img *m, const struct raw_mmap *e, u32 n, u32 esz)
{
	u8 p[4096] = { 0 };
	u32 hdr[2] = { esz, 0 };
	memcpy(p, hdr, 8);
	for (u32 i = 0; i < n; i++)
		memcpy(p + 8 + i * esz, &e[i], sizeof(e[i]));
	tag(m, MB2_TAG_MMAP, p, 8 + n * esz);
}

static void tag_module(struct img *m, u32 start, u32 end, const char *cmd)
{
	u8 p[4096];
	assert_true(strlen(cmd) < sizeof(p) - 8);
	memcpy(p, &start, 4);
	memcpy(p + 4, &end, 4);
	strcpy((char *)p + 8, cmd);
	tag(m, MB2_TAG_MODULE, p, 8 + (u32)strlen(cmd) + 1);
}

/* EFI_MEMORY_DESCRIPTOR (40 bytes); esz may be larger, as OVMF's 48. */
struct efi_desc {
	u32 type, pad;
	u64 phys, virt, pages, attr;
};

static u8 *tag_efi_mmap(struct img *m, const struct efi_desc *d, u32 n, u32 esz)
{
	u8 p[4096] = { 0 };
	u32 hdr[2] = { esz, 1 };
	memcpy(p, hdr, 8);
	for (u32 i = 0; i < n; i++)
		memcpy(p + 8 + i * esz, &d[i], sizeof(d[i]));
	return tag(m, MB2_TAG_EFI_MMAP, p, 8 + n * esz);
}

/* What OVMF hands over, cut down: low RAM with a reserved hole, boot-services and loader
 * pieces that are RAM once boot services are gone, ACPI, runtime, MMIO and a type from the
 * future. */
static const struct efi_desc ovmf_like[] = {
	{ EFI_BOOT_SERVICES_CODE, 0, 0x0, 0, 1, 0xf },
	{ EFI_CONVENTIONAL_MEMORY, 0, 0x1000, 0, 0x7, 0xf },
	{ 0 /* reserved */, 0, 0x8000, 0, 1, 0xf },
	{ EFI_CONVENTIONAL_MEMORY, 0, 0x9000, 0, 0x97, 0xf },
	{ EFI_CONVENTIONAL_MEMORY, 0, 0x100000, 0, 0x100, 0xf },
	{ EFI_LOADER_CODE, 0, 0x200000, 0, 0x10, 0xf },
	{ EFI_LOADER_DATA, 0, 0x210000, 0, 0x10, 0xf },
	{ EFI_BOOT_SERVICES_DATA, 0, 0x220000, 0, 0x1de0, 0xf },
	{ EFI_ACPI_RECLAIM_MEMORY, 0, 0x2000000, 0, 2, 0xf },
	{ EFI_ACPI_MEMORY_NVS, 0, 0x2002000, 0, 1, 0xf },
	{ 6 /* runtime data */, 0, 0x2003000, 0, 1, 0x800000000000000full },
	{ EFI_CONVENTIONAL_MEMORY, 0, 0x2004000, 0, 0, 0xf }, /* empty: dropped */
	{ 11 /* MMIO */, 0, 0xffc00000, 0, 0x400, 0x8000000000000001ull },
	{ EFI_UNUSABLE_MEMORY, 0, 0x3000000, 0, 1, 0 },
	{ 0x70000000 /* OEM type */, 0, 0x4000000, 0, 1, 0 },
	{ EFI_BOOT_SERVICES_DATA, 0, 0x5000000, 0, 1, 0x800000000000000full }, /* runtime use */
};
#define N_OVMF (sizeof(ovmf_like) / sizeof(ovmf_like[0]))

static u8 rsdp_old[20] = "RSD PTR ";
static u8 rsdp_new[36] = "RSD PTR ";

static struct boot_info bi;

static void test_full(void **state)
{
	(void)state;
	struct img *m = img_new();
	tag_string(m, MB2_TAG_CMDLINE, "log=debug cpus=2");
	tag_string(m, MB2_TAG_LOADER_NAME, "GRUB 2.06");
	u32 meminfo[2] = { 639, 130048 };
	tag(m, MB2_TAG_MEMINFO, meminfo, 8);
	tag(m, 99, "future", 6); /* unknown tags are skipped */
	struct raw_mmap e[3] = {
		{ 0, 0x9fc00, MB2_MMAP_AVAILABLE, 0 },
		{ 0xf0000, 0x10000, MB2_MMAP_RESERVED, 0 },
		{ 0x100000, 0x7ee0000, MB2_MMAP_AVAILABLE, 0 },
	};
	tag_mmap(m, e, 3, 24);
	tag_module(m, 0x200000, 0x201000, "guest.bin");
	tag_module(m, 0x300000, 0x300000, "");
	tag(m, MB2_TAG_ACPI_OLD, rsdp_old, sizeof(rsdp_old));
	tag(m, MB2_TAG_ACPI_NEW, rsdp_new, sizeof(rsdp_new));
	u32 total = finish(m);

	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), 0);
	assert_null(bi.error);
	assert_int_equal(bi.total_size, total);
	assert_string_equal(bi.cmdline, "log=debug cpus=2");
	assert_string_equal(bi.loader_name, "GRUB 2.06");
	assert_true(bi.has_meminfo);
	assert_int_equal(bi.mem_lower_kb, 639);
	assert_int_equal(bi.mem_upper_kb, 130048);
	assert_int_equal(bi.nmmap, 3);
	assert_int_equal(bi.mmap[2].base, 0x100000);
	assert_int_equal(bi.mmap[2].len, 0x7ee0000);
	assert_int_equal(bi.mmap[1].type, MB2_MMAP_RESERVED);
	assert_int_equal(bi.nmodules, 2);
	assert_int_equal(bi.modules[0].start, 0x200000);
	assert_int_equal(bi.modules[0].end, 0x201000);
	assert_string_equal(bi.modules[0].cmdline, "guest.bin");
	assert_string_equal(bi.modules[1].cmdline, "");
	assert_int_equal(bi.rsdp_old_len, 20);
	assert_memory_equal(bi.rsdp_old, "RSD PTR ", 8);
	assert_int_equal(bi.rsdp_new_len, 36);
	/* Pointers point into the image. */
	assert_true((const u8 *)bi.cmdline > m->buf && (const u8 *)bi.cmdline < m->buf + total);
	/* avail exactly total_size is enough. */
	assert_int_equal(mb2_parse(m->buf, total, &bi), 0);
	free(m);
}

static void test_minimal(void **state)
{
	(void)state;
	struct img *m = img_new();
	finish(m);
	assert_int_equal(mb2_parse(m->buf, 16, &bi), 0);
	assert_null(bi.cmdline);
	assert_null(bi.rsdp_old);
	assert_null(bi.rsdp_new);
	assert_int_equal(bi.nmmap, 0);
	free(m);
}

static void test_header_errors(void **state)
{
	(void)state;
	struct img *m = img_new();
	u32 total = finish(m);
	assert_int_equal(mb2_parse(m->buf, 7, &bi), MB2_ERR_HEADER);
	assert_error_has(bi.error, "only 7 bytes");
	assert_int_equal(mb2_parse(m->buf, total - 1, &bi), MB2_ERR_HEADER);
	assert_error_has(bi.error, "total_size 16 outside [16, 15]");
	assert_int_equal(mb2_parse(m->buf + 4, 64, &bi), MB2_ERR_HEADER);
	assert_error_has(bi.error, "not 8-byte aligned");
	set_u32(m->buf, 8);
	assert_int_equal(mb2_parse(m->buf, 64, &bi), MB2_ERR_HEADER);
	assert_error_has(bi.error, "total_size 8");
	set_u32(m->buf, 16);
	set_u32(m->buf + 4, 1);
	assert_int_equal(mb2_parse(m->buf, 64, &bi), MB2_ERR_HEADER);
	assert_error_has(bi.error, "reserved field");
	free(m);
}

static void test_no_end_tag(void **state)
{
	(void)state;
	struct img *m = img_new();
	tag_string(m, MB2_TAG_CMDLINE, "x");
	set_u32(m->buf, m->off); /* total_size ends right after the cmdline tag */
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_NO_END);
	assert_error_has(bi.error, "no end tag");
	/* total_size not a multiple of 8, leaving 4 bytes after a tag: still no end tag. */
	set_u32(m->buf, m->off + 4);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_NO_END);
	free(m);
}

static void test_truncated_tag(void **state)
{
	(void)state;
	struct img *m = img_new();
	u8 *t = tag(m, 42, NULL, 24);
	u32 total = finish(m);
	set_u32(t + 4, total); /* runs past total_size */
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_TAG);
	assert_error_has(bi.error, "tag type 42 at offset 8: size 48 outside [8, 40]");
	set_u32(t + 4, 4); /* smaller than a tag header */
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_TAG);
	assert_error_has(bi.error, "size 4 outside");
	set_u32(t + 4, 0xfffffff9); /* would wrap the offset arithmetic */
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_TAG);
	free(m);
}

static void test_bad_end_tag(void **state)
{
	(void)state;
	struct img *m = img_new();
	tag(m, MB2_TAG_END, NULL, 8);
	set_u32(m->buf, m->off);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_TAG);
	assert_error_has(bi.error, "end tag at offset 8: size 16, not 8");
	free(m);
}

static void test_mmap_errors(void **state)
{
	(void)state;
	struct raw_mmap e[2] = { { 0x1000, 0x2000, 1, 0 }, { 0x100000, 0x100000, 1, 0 } };
	struct img *m = img_new();
	tag_mmap(m, e, 2, 16);
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_CONTENT);
	assert_error_has(bi.error, "entry_size 16 < 24");
	free(m);

	m = img_new();
	tag(m, MB2_TAG_MMAP, "\x18\0\0\0", 4); /* header cut short */
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_CONTENT);
	assert_error_has(bi.error, "mmap tag at offset 8: size 12 < 16");
	free(m);

	/* Larger entries are stepped over by entry_size; a partial entry at the end is ignored. */
	m = img_new();
	u8 p[8 + 2 * 32 + 20] = { 32 };
	memcpy(p + 8, &e[0], 24);
	memcpy(p + 40, &e[1], 24);
	tag(m, MB2_TAG_MMAP, p, sizeof(p));
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), 0);
	assert_int_equal(bi.nmmap, 2);
	assert_int_equal(bi.mmap[1].base, 0x100000);
	free(m);
}

static void test_mmap_overflow(void **state)
{
	(void)state;
	struct raw_mmap e[MB2_MAX_MMAP + 5];
	for (u32 i = 0; i < MB2_MAX_MMAP + 5; i++)
		e[i] = (struct raw_mmap){ i * 0x10000ull, 0x1000, 1, 0 };
	struct img *m = img_new();
	tag_mmap(m, e, MB2_MAX_MMAP + 5, 24);
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), 0);
	assert_int_equal(bi.nmmap, MB2_MAX_MMAP);
	assert_int_equal(bi.mmap_dropped, 5);
	assert_int_equal(bi.mmap[MB2_MAX_MMAP - 1].base, (MB2_MAX_MMAP - 1) * 0x10000ull);
	free(m);
}

static void test_module_errors(void **state)
{
	(void)state;
	struct img *m = img_new();
	tag_module(m, 0x2000, 0x1000, "backwards");
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_CONTENT);
	assert_error_has(bi.error, "start 0x2000 > end 0x1000");
	free(m);

	m = img_new();
	tag(m, MB2_TAG_MODULE, "\0\0\x10\0\0\0\x20\0abc", 11); /* string lacks its NUL */
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_CONTENT);
	assert_error_has(bi.error, "not NUL-terminated");
	free(m);

	m = img_new();
	tag(m, MB2_TAG_MODULE, "\0\0\x10\0", 4); /* no room for start/end */
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_CONTENT);
	free(m);

	m = img_new();
	for (u32 i = 0; i < MB2_MAX_MODULES + 2; i++)
		tag_module(m, i << 20, (i << 20) + 0x1000, "m");
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), 0);
	assert_int_equal(bi.nmodules, MB2_MAX_MODULES);
	assert_int_equal(bi.modules_dropped, 2);
	free(m);
}

/* A Linux guest's module line as long as its kernel takes (cmdline_size 2047, and Umbra's own
 * words before "--"): the parser points at it whole, without a copy or a cut. */
static void test_long_module_line(void **state)
{
	(void)state;
	struct img *m = img_new();
	char line[2200];
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = 0;
	memcpy(line, "name=linux -- ", 14);
	memcpy(line + sizeof(line) - 7, " end=1", 6);
	tag_module(m, 0x200000, 0x300000, line);
	tag_module(m, 0x300000, 0x301000, "for=linux");
	finish(m);
	struct boot_info bi;
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), 0);
	assert_int_equal(bi.nmodules, 2);
	assert_int_equal(strlen(bi.modules[0].cmdline), sizeof(line) - 1);
	assert_string_equal(bi.modules[0].cmdline, line);
	assert_string_equal(bi.modules[1].cmdline, "for=linux");
	free(m);
}

static void test_string_errors(void **state)
{
	(void)state;
	struct img *m = img_new();
	tag(m, MB2_TAG_CMDLINE, "log=debug", 9); /* no NUL inside the tag */
	tag(m, 77, "\0\0\0\0\0\0\0", 7);	 /* a NUL just after it must not count */
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_CONTENT);
	assert_error_has(bi.error, "tag type 1 at offset 8: string not NUL-terminated");
	free(m);

	m = img_new();
	tag(m, MB2_TAG_LOADER_NAME, NULL, 0); /* empty payload: no string at all */
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_CONTENT);
	free(m);

	/* The first of two cmdline tags is kept. */
	m = img_new();
	tag_string(m, MB2_TAG_CMDLINE, "first");
	tag_string(m, MB2_TAG_CMDLINE, "second");
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), 0);
	assert_string_equal(bi.cmdline, "first");
	free(m);
}

static void test_acpi_tags(void **state)
{
	(void)state;
	struct img *m = img_new();
	tag(m, MB2_TAG_ACPI_OLD, rsdp_old, 10);
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_CONTENT);
	assert_error_has(bi.error, "ACPI tag type 14 at offset 8: 10 bytes < 20");
	free(m);

	m = img_new();
	tag(m, MB2_TAG_ACPI_NEW, rsdp_new, 20);
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_CONTENT);
	assert_error_has(bi.error, "20 bytes < 36");
	free(m);

	m = img_new();
	tag(m, MB2_TAG_MEMINFO, "\1\0\0\0", 4);
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_CONTENT);
	assert_error_has(bi.error, "meminfo");
	free(m);
}

static void check_ovmf_map(void)
{
	static const struct mb2_mmap_entry want[] = {
		{ 0x0, 0x8000, MB2_MMAP_AVAILABLE }, /* BS code + conventional, merged */
		{ 0x8000, 0x1000, MB2_MMAP_RESERVED },
		{ 0x9000, 0x97000, MB2_MMAP_AVAILABLE },
		{ 0x100000, 0x1f00000, MB2_MMAP_AVAILABLE }, /* conventional, loader, BS data */
		{ 0x2000000, 0x2000, MB2_MMAP_ACPI_RECLAIM },
		{ 0x2002000, 0x1000, MB2_MMAP_NVS },
		{ 0x2003000, 0x1000, MB2_MMAP_RESERVED },
		{ 0xffc00000, 0x400000, MB2_MMAP_RESERVED },
		{ 0x3000000, 0x1000, MB2_MMAP_BADRAM },
		{ 0x4000000, 0x1000, MB2_MMAP_RESERVED },
		{ 0x5000000, 0x1000, MB2_MMAP_RESERVED },
	};
	assert_true(bi.mmap_from_efi);
	assert_int_equal(bi.nmmap, sizeof(want) / sizeof(want[0]));
	for (u32 i = 0; i < bi.nmmap; i++) {
		assert_int_equal(bi.mmap[i].base, want[i].base);
		assert_int_equal(bi.mmap[i].len, want[i].len);
		assert_int_equal(bi.mmap[i].type, want[i].type);
	}
}

static void test_efi_mmap(void **state)
{
	(void)state;
	struct raw_mmap e[2] = { { 0, 0x9fc00, 1, 0 }, { 0x100000, 0x7ee0000, 1, 0 } };
	/* GRUB under UEFI: tag-6 map first, then the EFI map, which wins; a framebuffer tag and
	 * the EFI system table tag are ignored. Descriptors of 48 bytes, as OVMF's. */
	struct img *m = img_new();
	tag_mmap(m, e, 2, 24);
	u8 fb[24] = { 0 };
	tag(m, MB2_TAG_FRAMEBUFFER, fb, sizeof(fb));
	tag(m, MB2_TAG_EFI64, "\0\0\0~\0\0\0\0", 8);
	tag_efi_mmap(m, ovmf_like, N_OVMF, 48);
	tag(m, MB2_TAG_ACPI_NEW, rsdp_new, sizeof(rsdp_new));
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), 0);
	check_ovmf_map();
	assert_int_equal(bi.rsdp_new_len, 36);
	assert_null(bi.rsdp_old);
	free(m);

	/* The other order: the tag-6 map after the EFI one is not used. */
	m = img_new();
	tag_efi_mmap(m, ovmf_like, N_OVMF, 40);
	tag_mmap(m, e, 2, 24);
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), 0);
	check_ovmf_map();
	free(m);

	/* A partial trailing descriptor is ignored, like the tag-6 map's. */
	m = img_new();
	u8 part[8 + 40 + 24] = { 40, 0, 0, 0, 1 };
	memcpy(part + 8, &ovmf_like[0], 40);
	memcpy(part + 48, &ovmf_like[1], 24);
	tag(m, MB2_TAG_EFI_MMAP, part, sizeof(part));
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), 0);
	assert_int_equal(bi.nmmap, 1);
	assert_int_equal(bi.mmap[0].len, 0x1000);
	free(m);
}

static void test_efi_mmap_errors(void **state)
{
	(void)state;
	struct img *m = img_new();
	tag(m, MB2_TAG_EFI_MMAP, "(\0\0\0", 4); /* header cut short */
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_CONTENT);
	assert_error_has(bi.error, "EFI mmap tag at offset 8: size 12 < 16");
	free(m);

	m = img_new();
	tag_efi_mmap(m, ovmf_like, 2, 32);
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_CONTENT);
	assert_error_has(bi.error, "EFI mmap tag at offset 8: entry_size 32 < 40");
	free(m);

	m = img_new();
	tag_efi_mmap(m, ovmf_like, 0, 0);
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_CONTENT);
	assert_error_has(bi.error, "entry_size 0 < 40");
	free(m);

	/* Ranges that wrap the address space, or more pages than it holds, or an unaligned base. */
	static const struct efi_desc bad[] = {
		{ EFI_CONVENTIONAL_MEMORY, 0, 0xfffffffffffff000ull, 0, 2, 0 },
		{ EFI_CONVENTIONAL_MEMORY, 0, 0x100000, 0, 1ull << 52, 0 },
		{ EFI_CONVENTIONAL_MEMORY, 0, (1ull << 52) - 0x1000, 0, 2, 0 },
		{ EFI_CONVENTIONAL_MEMORY, 0, 0x100800, 0, 1, 0 },
	};
	for (u32 i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = img_new();
		struct efi_desc d[2] = { ovmf_like[1], bad[i] };
		tag_efi_mmap(m, d, 2, 40);
		finish(m);
		assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_CONTENT);
		assert_error_has(bi.error, "descriptor at +56");
		assert_error_has(bi.error, "outside the address space");
		free(m);
	}

	/* The last page of the 52-bit physical address space is fine. */
	m = img_new();
	struct efi_desc top = { 0, 0, (1ull << 52) - 0x1000, 0, 1, 0 };
	tag_efi_mmap(m, &top, 1, 40);
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), 0);
	assert_int_equal(bi.nmmap, 1);
	free(m);

	/* More unmergeable descriptors than MB2_MAX_MMAP: the rest are counted, not stored. */
	m = img_new();
	static struct efi_desc many[MB2_MAX_MMAP + 3];
	for (u32 i = 0; i < MB2_MAX_MMAP + 3; i++)
		many[i] = (struct efi_desc){
			i & 1 ? EFI_CONVENTIONAL_MEMORY : 0, 0, i * 0x1000ull, 0, 1, 0
		};
	u8 p[8 + (MB2_MAX_MMAP + 3) * 40];
	u32 hdr[2] = { 40, 1 };
	memcpy(p, hdr, 8);
	for (u32 i = 0; i < MB2_MAX_MMAP + 3; i++)
		memcpy(p + 8 + i * 40, &many[i], 40);
	tag(m, MB2_TAG_EFI_MMAP, p, sizeof(p));
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), 0);
	assert_int_equal(bi.nmmap, MB2_MAX_MMAP);
	assert_int_equal(bi.mmap_dropped, 3);
	free(m);
}

static void test_acpi_both(void **state)
{
	(void)state;
	/* UEFI firmware gives both RSDP tags; the first of each kind is kept. */
	struct img *m = img_new();
	u8 second[36] = "RSD PTR 2";
	tag(m, MB2_TAG_ACPI_OLD, rsdp_old, sizeof(rsdp_old));
	tag(m, MB2_TAG_ACPI_NEW, rsdp_new, sizeof(rsdp_new));
	tag(m, MB2_TAG_ACPI_NEW, second, sizeof(second));
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), 0);
	assert_int_equal(bi.rsdp_old_len, 20);
	assert_int_equal(bi.rsdp_new_len, 36);
	assert_memory_equal(bi.rsdp_new, rsdp_new, 36);
	free(m);

	/* A malformed new RSDP after a good old one still fails the parse: no silent fallback. */
	m = img_new();
	tag(m, MB2_TAG_ACPI_OLD, rsdp_old, sizeof(rsdp_old));
	tag(m, MB2_TAG_ACPI_NEW, rsdp_new, 35);
	finish(m);
	assert_int_equal(mb2_parse(m->buf, sizeof(m->buf), &bi), MB2_ERR_CONTENT);
	assert_error_has(bi.error, "35 bytes < 36");
	free(m);
}

/* A valid image copied into an exactly sized heap buffer, so ASan sees any overread. */
static u8 *exact_copy(const struct img *m, u32 len)
{
	u8 *p = aligned_alloc(8, (len + 7) & ~7u);
	memcpy(p, m->buf, len);
	return p;
}

static void test_every_truncation(void **state)
{
	(void)state;
	struct img *m = img_new();
	tag_string(m, MB2_TAG_CMDLINE, "cpus=4");
	struct raw_mmap e[2] = { { 0, 0x9fc00, 1, 0 }, { 0x100000, 0x1000000, 1, 0 } };
	tag_mmap(m, e, 2, 24);
	tag_module(m, 0x200000, 0x300000, "mod");
	tag_efi_mmap(m, ovmf_like, 4, 48);
	tag(m, MB2_TAG_ACPI_NEW, rsdp_new, sizeof(rsdp_new));
	u32 total = finish(m);
	/* Shrinking total_size (and the buffer with it) must give a clean error every time. */
	for (u32 len = 8; len < total; len++) {
		u8 *p = exact_copy(m, len);
		set_u32(p, len);
		int r = mb2_parse(p, len, &bi);
		if (r == 0 || !bi.error)
			fail_msg("truncation to %u accepted", len);
		free(p);
	}
	free(m);
}

static void test_random_corruption(void **state)
{
	(void)state;
	struct img *m = img_new();
	tag_string(m, MB2_TAG_CMDLINE, "log=info");
	struct raw_mmap e[3] = { { 0, 0x9fc00, 1, 0 },
				 { 0x100000, 0x1000000, 1, 0 },
				 { 0xfee00000, 0x1000, 2, 0 } };
	tag_mmap(m, e, 3, 24);
	tag_module(m, 0x200000, 0x300000, "guest");
	tag_efi_mmap(m, ovmf_like, 5, 40);
	tag(m, MB2_TAG_ACPI_OLD, rsdp_old, sizeof(rsdp_old));
	u32 total = finish(m);
	srand(12345);
	for (int iter = 0; iter < 20000; iter++) {
		u8 *p = exact_copy(m, total);
		for (int k = rand() % 4 + 1; k; k--)
			p[rand() % total] = (u8)rand();
		int r = mb2_parse(p, total, &bi);
		if (r != 0 && !bi.error)
			fail_msg("error %d without a message", r);
		if (r == 0)
			assert_null(bi.error);
		free(p);
	}
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_no_end_tag),
		cmocka_unit_test(test_truncated_tag),
		cmocka_unit_test(test_bad_end_tag),
		cmocka_unit_test(test_mmap_errors),
		cmocka_unit_test(test_long_module_line),
		cmocka_unit_test(test_mmap_overflow),
		cmocka_unit_test(test_module_errors),
		cmocka_unit_test(test_string_errors),
		cmocka_unit_test(test_acpi_tags),
		cmocka_unit_test(test_efi_mmap),
		cmocka_unit_test(test_efi_mmap_errors),
		cmocka_unit_test(test_acpi_both),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_random_corruption),
	};
	return cmocka_run_group_tests_name("mb2", tests, NULL, NULL);
}
