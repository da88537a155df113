/* SPDX-License-Identifier: GPL-2.0-only */
/* mb1 kernel: the multiboot v1 information block: flags, command line, memory map, modules. */
#include "tests/mb1/mb1.h"

const char guest_name[] = "boot";

extern char _end[];

struct mmap_entry {
	uint32_t size;
	uint64_t base, len;
	uint32_t type;
} __attribute__((packed));

/* Whether the usable (type 1) entries cover [lo, hi) without a gap. */
static int covered(const struct mb1_info *mbi, uint64_t lo, uint64_t hi)
{
	for (int progress = 1; lo < hi && progress;) {
		progress = 0;
		for (uint32_t off = 0; off < mbi->mmap_length;) {
			const struct mmap_entry *e = (const void *)(ulong)(mbi->mmap_addr + off);
			if (e->type == 1 && e->base <= lo && e->base + e->len > lo) {
				lo = e->base + e->len;
				progress = 1;
			}
			off += e->size + 4;
		}
	}
	return lo >= hi;
}

static uint32_t fnv1a(const uint8_t *p, uint32_t n)
{
	uint32_t h = 2166136261u;
	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

/* A module's string without its first word, which is the file name (QEMU) or the guest's
 * name (Umbra). */
static const char *after_first_word(const char *s)
{
	while (*s && *s != ' ')
		s++;
	while (*s == ' ')
		s++;
	return s;
}

void test_main(void)
{
	const struct mb1_info *mbi = mb1_info();
	/* Memory, boot device, command line, modules, memory map, loader name: what QEMU sets. */
	kprintf("flags: %x\n", mbi->flags & 0x24f);
	kprintf("args: [%s]\n", mb1_args());
	CHECK(mbi->mem_lower == 639 || mbi->mem_lower == 640, "mem_lower %u", mbi->mem_lower);
	CHECK(covered(mbi, 0, (uint64_t)mbi->mem_lower << 10), "mmap does not cover mem_lower");
	CHECK(covered(mbi, 1u << 20, (1u << 20) + ((uint64_t)mbi->mem_upper << 10)),
	      "mmap does not cover mem_upper");
	kprintf("mmap: usable entries cover mem_lower and mem_upper\n");

	const struct mb1_mod *m = (const void *)(ulong)mbi->mods_addr;
	kprintf("modules: %u\n", mbi->mods_count);
	for (uint32_t i = 0; i < mbi->mods_count; i++) {
		CHECK(!(m[i].start & 0xfff), "module %u not page aligned", i);
		CHECK(m[i].start >= (ulong)_end && m[i].end <= ram_bytes && m[i].end >= m[i].start,
		      "module %u outside free RAM", i);
		kprintf("module %u: %u bytes, fnv1a %x, args [%s]\n", i, m[i].end - m[i].start,
			fnv1a((const uint8_t *)(ulong)m[i].start, m[i].end - m[i].start),
			after_first_word((const char *)(ulong)m[i].string));
	}
}
