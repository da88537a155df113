/* SPDX-License-Identifier: GPL-2.0-only */
/* What every boot format shares: ELF segments placed strictly, the PC memory map, the entry. */
#include "vmm/load/place.h"
#include "lib/string.h"
#include "vmm/flat32.h"
#include "vmm/vm.h"

#define EI_CLASS 4
#define ELFCLASS32 1
#define ELFCLASS64 2
#define ET_EXEC 2
#define EM_386 3
#define EM_X86_64 62
#define PT_LOAD 1
#define PT_NOTE 4
#define MAX_SEGMENTS 16

struct elf_seg {
	u64 off, filesz, paddr, memsz;
};

struct elf_image {
	u64 entry;
	unsigned nseg;
	struct elf_seg seg[MAX_SEGMENTS];
};

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

/* Reads the ELF header and program headers of either class into one description. */
static const char *parse_elf(const u8 *img, u64 size, struct elf_image *out)
{
	if (size < 52 || memcmp(img,
				"\x7f"
				"ELF",
				4))
		return "not an ELF image";
	bool is64 = img[EI_CLASS] == ELFCLASS64;
	if (!is64 && img[EI_CLASS] != ELFCLASS32)
		return "unknown ELF class";
	if (img[5] != 1)
		return "not little-endian";
	if (is64 && size < 64)
		return "truncated ELF header";
	if (rd16(img + 16) != ET_EXEC)
		return "not an executable ELF";
	u16 machine = rd16(img + 18);
	if (machine != (is64 ? EM_X86_64 : EM_386))
		return "ELF machine is not x86";

	u64 phoff = is64 ? rd64(img + 32) : rd32(img + 28);
	u16 phentsize = rd16(img + (is64 ? 54 : 42));
	u16 phnum = rd16(img + (is64 ? 56 : 44));
	out->entry = is64 ? rd64(img + 24) : rd32(img + 24);
	if (phentsize < (is64 ? 56 : 32) || phnum == 0)
		return "bad program header table";
	if (phoff > size || (u64)phnum * phentsize > size - phoff)
		return "program headers run past the image";

	out->nseg = 0;
	for (u16 i = 0; i < phnum; i++) {
		const u8 *ph = img + phoff + (u64)i * phentsize;
		if (rd32(ph) != PT_LOAD)
			continue;
		if (out->nseg == MAX_SEGMENTS)
			return "too many loadable segments";
		struct elf_seg *s = &out->seg[out->nseg++];
		if (is64)
			*s = (struct elf_seg){ rd64(ph + 8), rd64(ph + 32), rd64(ph + 24),
					       rd64(ph + 40) };
		else
			*s = (struct elf_seg){ rd32(ph + 4), rd32(ph + 16), rd32(ph + 12),
					       rd32(ph + 20) };
		if (s->filesz > s->memsz)
			return "segment file size exceeds its memory size";
		if (s->off > size || s->filesz > size - s->off)
			return "segment data runs past the image (truncated?)";
	}
	if (!out->nseg)
		return "no loadable segment";
	return NULL;
}

/* Walks the PT_NOTE segments for the note NAME/TYPE. The header was validated by parse_elf. */
int elf_find_note(const u8 *img, u64 size, const char *name, u32 type, const u8 **desc,
		  u32 *desc_len)
{
	struct elf_image e;
	if (parse_elf(img, size, &e))
		return 0;
	bool is64 = img[EI_CLASS] == ELFCLASS64;
	u64 phoff = is64 ? rd64(img + 32) : rd32(img + 28);
	u16 phentsize = rd16(img + (is64 ? 54 : 42)), phnum = rd16(img + (is64 ? 56 : 44));
	u32 name_len = (u32)strlen(name) + 1;

	for (u16 i = 0; i < phnum; i++) {
		const u8 *ph = img + phoff + (u64)i * phentsize;
		if (rd32(ph) != PT_NOTE)
			continue;
		u64 off = is64 ? rd64(ph + 8) : rd32(ph + 4);
		u64 len = is64 ? rd64(ph + 32) : rd32(ph + 16);
		if (off > size || len > size - off)
			return -1;
		/* Each note: namesz, descsz, type, then name and desc, both padded to 4 bytes. */
		for (u64 at = 0; len - at >= 12;) {
			const u8 *n = img + off + at;
			u64 nsz = rd32(n), dsz = rd32(n + 4);
			u64 nroom = (nsz + 3) & ~3ull, droom = (dsz + 3) & ~3ull;
			if (nroom + droom > len - at - 12)
				return -1;
			if (rd32(n + 8) == type && nsz == name_len &&
			    !memcmp(n + 12, name, name_len)) {
				*desc = n + 12 + nroom;
				*desc_len = (u32)dsz;
				return 1;
			}
			at += 12 + nroom + droom;
		}
	}
	return 0;
}

const char elf_bad_entry[] = "entry point is not inside a loaded segment below 4 GiB";

static bool overlaps(u64 a, u64 alen, u64 b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

static const char *check_layout(const struct elf_image *e, u64 ram, u64 keep, u64 keep_len,
				u64 entry)
{
	for (unsigned i = 0; i < e->nseg; i++) {
		const struct elf_seg *s = &e->seg[i];
		if (s->paddr > ram || s->memsz > ram - s->paddr)
			return "segment outside guest memory";
		if (keep_len && overlaps(s->paddr, s->memsz, keep, keep_len))
			return "segment overlaps the boot information page";
		for (unsigned j = 0; j < i; j++)
			if (overlaps(s->paddr, s->memsz, e->seg[j].paddr, e->seg[j].memsz))
				return "segments overlap";
	}
	bool entry_ok = false;
	for (unsigned i = 0; i < e->nseg; i++)
		entry_ok |= entry - e->seg[i].paddr < e->seg[i].memsz;
	if (!entry_ok || entry > 0xffffffffull)
		return elf_bad_entry;
	return NULL;
}

int elf_load(struct vm *vm, const u8 *img, u64 size, u64 keep_gpa, u64 keep_len, u64 *entry,
	     u64 *end, const char **why)
{
	struct elf_image e;

	*why = parse_elf(img, size, &e);
	if (!*why)
		*why = check_layout(&e, vm->mem.low_bytes, keep_gpa, keep_len,
				    *entry ? *entry : e.entry);
	if (*why)
		return -1;
	*end = 0;
	for (unsigned i = 0; i < e.nseg; i++) {
		const struct elf_seg *s = &e.seg[i];
		u8 *dst = memslots_ptr(&vm->mem, s->paddr, s->memsz);
		memcpy(dst, img + s->off, s->filesz);
		memset(dst + s->filesz, 0, s->memsz - s->filesz);
		if (s->paddr + s->memsz > *end)
			*end = s->paddr + s->memsz;
	}
	if (!*entry)
		*entry = e.entry;
	return 0;
}

unsigned loader_memory_map(const struct vm *vm, struct loader_region *out)
{
	/* What QEMU's BIOS reports: 639 KiB of low RAM, the EBDA above it. */
	out[0] = (struct loader_region){ 0, 0x9fc00, LOADER_RAM };
	out[1] = (struct loader_region){ 0x9fc00, 0x400, LOADER_RESERVED };
	out[2] = (struct loader_region){ 0xf0000, 0x10000, LOADER_RESERVED };
	out[3] = (struct loader_region){ 0x100000, vm->mem.low_bytes - 0x100000, LOADER_RAM };
	if (vm->mem.bytes == vm->mem.low_bytes)
		return 4;
	out[4] = (struct loader_region){ MEMSLOT_HIGH_BASE, vm->mem.bytes - vm->mem.low_bytes,
					 LOADER_RAM };
	return 5;
}

void loader_entry_state(struct vm *vm, u64 entry, u32 eax, u32 ebx)
{
	flat32_state(&vm->vcpus[0].hw.regs, entry, eax, ebx);
}
