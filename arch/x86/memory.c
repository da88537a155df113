/* SPDX-License-Identifier: GPL-2.0-only */
/* Turns the multiboot2 memory map into the page allocator's free ranges. */
#include "arch/x86/memory.h"
#include "arch/x86/paging.h"
#include "boot/lowmem.h"
#include "boot/mb2.h"
#include "lib/palloc.h"
#include "lib/printf.h"

extern char __kernel_start[], __kernel_end[];

static void *identity(u64 pa) { return phys_to_virt(pa); }

static u64 trampoline_page;

u64 memory_trampoline_page(void)
{
	return trampoline_page;
}

/* Chosen while the boot information is still intact: GRUB may have put it, or a module, in
 * low memory under UEFI. */
static void pick_trampoline_page(const struct boot_info *bi, u64 info_pa)
{
	struct lowmem_range busy[2 + MB2_MAX_MODULES];
	u32 n = 0;

	busy[n++] = (struct lowmem_range){ virt_to_phys(__kernel_start), virt_to_phys(__kernel_end) };
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

void memory_init(const struct boot_info *bi, u64 info_pa)
{
	u64 ignored = 0;

	palloc_init(identity);
	for (u32 i = 0; i < bi->nmmap; i++) {
		const struct mb2_mmap_entry *e = &bi->mmap[i];
		if (e->type != MB2_MMAP_AVAILABLE)
			continue;
		u64 end = e->base + e->len;
		/* Umbra touches memory only through its 4 GiB identity map. */
		if (end > HOST_MAPPED_LIMIT) {
			ignored += end - (e->base > HOST_MAPPED_LIMIT ? e->base : HOST_MAPPED_LIMIT);
			end = HOST_MAPPED_LIMIT;
		}
		if (e->base < end)
			palloc_add_free(e->base, end);
	}
	/* The low 1 MiB holds the AP trampoline and, under a BIOS, its data and the EBDA; the
	 * allocator never hands it out either way. */
	palloc_reserve(0, LOWMEM_LIMIT);
	palloc_reserve(virt_to_phys(__kernel_start), virt_to_phys(__kernel_end));
	palloc_reserve(info_pa, info_pa + bi->total_size);
	for (u32 i = 0; i < bi->nmodules; i++)
		palloc_reserve(bi->modules[i].start, bi->modules[i].end);
	palloc_finalize();
	pick_trampoline_page(bi, info_pa);
	kinfo("memory: %lu MiB free of %lu MiB usable", (u64)palloc_free_pages() >> 8,
	      (u64)palloc_total_pages() >> 8);
	if (ignored)
		kinfo(" (%lu MiB above 4 GiB not used)", ignored >> 20);
	kinfo("\n");
	if (bi->mmap_dropped)
		kprintf("memory: %u map entries beyond the first %u not used\n", bi->mmap_dropped,
			MB2_MAX_MMAP);
}
