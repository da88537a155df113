/* SPDX-License-Identifier: GPL-2.0-only */
/* Turns the multiboot2 memory map into the page allocator's free ranges. */
#include "arch/x86/memory.h"
#include "arch/x86/paging.h"
#include "boot/lowmem.h"
#include "boot/mb2.h"
#include "lib/palloc.h"
#include "lib/printf.h"

extern char __kernel_start[], __kernel_end[];

static void *identity(u64 pa)
{
	return phys_to_virt(pa);
}

static u64 trampoline_page;

u64 memory_trampoline_page(void)
{
	return trampoline_page;
}

/* Chosen while the boot information is still intact: GRUB may have put it, or a module, in
 * low memory under UEFI. */
static void pick_trampoline_page(const struct boot_info *bi, u64 info_pa)
{
	static struct lowmem_range busy[2 + MB2_MAX_MODULES]; /* too large for the stack */
	u32 n = 0;

	busy[n++] =
		(struct lowmem_range){ virt_to_phys(__kernel_start), virt_to_phys(__kernel_end) };
	busy[n++] = (struct lowmem_range){ info_pa, info_pa + bi->total_size };
	for (u32 i = 0; i < bi->nmodules; i++)
		busy[n++] = (struct lowmem_range){ bi->modules[i].start, bi->modules[i].end };
	trampoline_page = lowmem_pick_page(bi, busy, n);
	if (trampoline_page)
		kinfo("memory: AP trampoline at 0x%lx (map from %s)\n", trampoline_page,
		      bi->mmap_from_efi ? "UEFI" : "multiboot2 mmap");
	else
		kprintf("memory: no free page below 1 MiB in the %s map for the AP trampoline\n",
			bi->mmap_from_efi ? "UEFI" : "multiboot2");
}

/* What the boot still holds: never handed out. Run again once RAM above 4 GiB is added, where
 * a loader may have put a module. */
static void reserve_boot(const struct boot_info *bi, u64 info_pa)
{
	/* The low 1 MiB holds the AP trampoline and, under a BIOS, its data and the EBDA; the
	 * allocator never hands it out either way. */
	palloc_reserve(0, LOWMEM_LIMIT);
	palloc_reserve(virt_to_phys(__kernel_start), virt_to_phys(__kernel_end));
	palloc_reserve(info_pa, info_pa + bi->total_size);
	for (u32 i = 0; i < bi->nmodules; i++)
		palloc_reserve(bi->modules[i].start, bi->modules[i].end);
}

static u64 min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}
static u64 max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

/* RAM above 4 GiB, 2 MiB aligned inward: Umbra maps it with large pages, whose tables come from
 * free RAM below 4 GiB, so this runs after the low ranges and the boot's reservations are in.
 * Returns the bytes of usable RAM left out (edges, or no page left for the tables). */
static u64 add_high(const struct boot_info *bi, u64 *high)
{
	u64 unused = 0;
	for (u32 i = 0; i < bi->nmmap; i++) {
		const struct mb2_mmap_entry *e = &bi->mmap[i];
		u64 end = e->base + e->len;
		if (e->type != MB2_MMAP_AVAILABLE || end <= HOST_MAPPED_LIMIT || end < e->base)
			continue;
		u64 base = max_u64(e->base, HOST_MAPPED_LIMIT);
		u64 lo = ALIGN_UP(base, LARGE_PAGE_SIZE), hi = ALIGN_DOWN(end, LARGE_PAGE_SIZE);
		u64 mapped = lo < hi ? paging_map_ram(lo, hi) : lo;
		if (mapped > lo) {
			palloc_add_free(lo, mapped);
			*high += mapped - lo;
		}
		unused += (end - base) - (mapped > lo ? mapped - lo : 0);
	}
	return unused;
}

void memory_init(const struct boot_info *bi, u64 info_pa)
{
	u64 usable = 0, high = 0;

	palloc_init(identity);
	for (u32 i = 0; i < bi->nmmap; i++) {
		const struct mb2_mmap_entry *e = &bi->mmap[i];
		if (e->type != MB2_MMAP_AVAILABLE)
			continue;
		u64 end = e->base + e->len < e->base ? ~0ull : e->base + e->len;
		usable += end - e->base;
		if (e->base < HOST_MAPPED_LIMIT)
			palloc_add_free(e->base, min_u64(end, HOST_MAPPED_LIMIT));
	}
	reserve_boot(bi, info_pa);
	u64 unused = add_high(bi, &high);
	reserve_boot(bi, info_pa);
	palloc_finalize();
	pick_trampoline_page(bi, info_pa);

	u64 tables = paging_high_table_pages(), bitmap = palloc_bitmap_pages();
	u64 free = palloc_free_pages(), given = (usable - unused) >> PAGE_SHIFT;
	u64 mib = max_u64(usable >> 20, 1);
	kinfo("memory: %lu MiB usable in the %s map, %lu MiB of it above 4 GiB\n", usable >> 20,
	      bi->mmap_from_efi ? "UEFI" : "multiboot2", high >> 20);
	kinfo("memory: %lu MiB free, %lu MiB used (Umbra, boot modules, low 1 MiB)\n", free >> 8,
	      given > free ? (given - free) >> 8 : 0);
	kinfo("memory: Umbra's map of it: %lu KiB page bitmap, %lu KiB tables above 4 GiB (%lu KiB"
	      " per GiB)\n",
	      bitmap * 4, tables * 4, (bitmap + tables) * 4 * 1024 / mib);
	if (unused)
		kprintf("memory: %lu KiB of usable RAM above 4 GiB not used (not 2 MiB aligned, or no"
			" page below 4 GiB for its tables)\n",
			unused >> 10);
	if (bi->mmap_dropped)
		kprintf("memory: %u map entries beyond the first %u not used\n", bi->mmap_dropped,
			MB2_MAX_MMAP);
}
