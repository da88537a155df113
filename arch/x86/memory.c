/* Turns the multiboot2 memory map into the page allocator's free ranges. */
#include "arch/x86/memory.h"
#include "arch/x86/paging.h"
#include "boot/mb2.h"
#include "lib/palloc.h"
#include "lib/printf.h"

extern char __kernel_start[], __kernel_end[];

static void *identity(u64 pa) { return phys_to_virt(pa); }

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
	/* The low 1 MiB holds the AP trampoline, BIOS data and the EBDA. */
	palloc_reserve(0, 0x100000);
	palloc_reserve(virt_to_phys(__kernel_start), virt_to_phys(__kernel_end));
	palloc_reserve(info_pa, info_pa + bi->total_size);
	for (u32 i = 0; i < bi->nmodules; i++)
		palloc_reserve(bi->modules[i].start, bi->modules[i].end);
	palloc_finalize();
	kinfo("memory: %lu MiB free of %lu MiB usable", (u64)palloc_free_pages() >> 8,
	      (u64)palloc_total_pages() >> 8);
	if (ignored)
		kinfo(" (%lu MiB above 4 GiB not used)", ignored >> 20);
	kinfo("\n");
}
