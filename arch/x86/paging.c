/* SPDX-License-Identifier: GPL-2.0-only */
/* Builds Umbra's final page tables, replacing the all-writable early map from boot/entry.S. */
#include "arch/x86/paging.h"
#include "arch/x86/cpu.h"
#include "lib/palloc.h"
#include "lib/printf.h"
#include "lib/string.h"

static u64 pml4[512] __attribute__((aligned(4096)));
static u64 pdpt[512] __attribute__((aligned(4096)));
static u64 pd[4][512] __attribute__((aligned(4096)));
#define LOW_PTS 4
static u64 pt_low[LOW_PTS][512] __attribute__((aligned(4096))); /* first 8 MiB by 4 KiB page */

static size_t high_table_pages;

extern char __kernel_start[], __text_end[], __rodata_end[], __kernel_end[];

#define LAPIC_REGION APIC_DEFAULT_BASE

static u64 low_page_flags(u64 pa)
{
	if (pa == 0)
		return 0; /* NULL dereferences fault instead of reading the IVT */
	if (pa >= (u64)__kernel_start && pa < (u64)__text_end)
		return PTE_P; /* text: read-only, executable */
	if (pa >= (u64)__text_end && pa < (u64)__rodata_end)
		return PTE_P | PTE_NX;
	return PTE_P | PTE_W | PTE_NX;
}

void paging_init(void)
{
	/* NX must be on before any entry uses it, on this CPU and (via the trampoline) on APs. */
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);

	for (u64 i = 0; i < LOW_PTS * 512; i++)
		pt_low[i / 512][i % 512] = (i << PAGE_SHIFT) | low_page_flags(i << PAGE_SHIFT);
	for (u64 i = 0; i < 4; i++) {
		pdpt[i] = virt_to_phys(pd[i]) | PTE_P | PTE_W;
		for (u64 j = 0; j < 512; j++) {
			u64 pa = (i << 30) | (j << 21);
			u64 f = PTE_P | PTE_W | PTE_PS | PTE_NX;
			if (pa >= (LAPIC_REGION & ~0x1fffffull) && pa < LAPIC_REGION + 0x200000)
				f |= PTE_PCD | PTE_PWT;
			pd[i][j] = pa | f;
		}
	}
	for (int i = 0; i < LOW_PTS; i++)
		pd[0][i] = virt_to_phys(pt_low[i]) | PTE_P | PTE_W;
	pml4[0] = virt_to_phys(pdpt) | PTE_P | PTE_W;

	/* The kernel must fit in the 4 KiB-mapped low region for its W^X split to hold. */
	if ((u64)__kernel_end > LOW_PTS * 0x200000ull)
		kprintf("warning: kernel ends at 0x%lx, beyond the 4 KiB-mapped region\n",
			(u64)__kernel_end);
	write_cr3(virt_to_phys(pml4));
}

/* The AP trampoline runs from its low page until it jumps to text; the page is chosen from
 * the memory map after the tables are built. */
void paging_allow_exec(u64 pa)
{
	if (pa == 0 || pa >= LOW_PTS * 0x200000ull)
		return;
	u64 i = pa >> PAGE_SHIFT;
	pt_low[i / 512][i % 512] &= ~PTE_NX;
	invlpg(pa);
}

bool paging_map_uncached(u64 pa, u64 len)
{
	if (!len || pa + len < pa || pa + len > HOST_MAPPED_LIMIT)
		return false;
	for (u64 a = ALIGN_DOWN(pa, 0x200000ull); a < pa + len; a += 0x200000ull) {
		u64 *pde = &pd[a >> 30][(a >> 21) & 511];
		if (!(*pde & PTE_PS))
			return false; /* the 4 KiB-mapped low region holds Umbra, never a device */
	}
	for (u64 a = ALIGN_DOWN(pa, 0x200000ull); a < pa + len; a += 0x200000ull)
		pd[a >> 30][(a >> 21) & 511] |= PTE_PCD | PTE_PWT;
	write_cr3(read_cr3());
	return true;
}

/* A zeroed table page for the map above 4 GiB, from free RAM below 4 GiB (mapped already). */
static u64 *table_at(u64 *entry)
{
	if (!(*entry & PTE_P)) {
		u64 t = palloc_boot_take(1, HOST_MAPPED_LIMIT);
		if (!t)
			return NULL;
		memset(phys_to_virt(t), 0, PAGE_SIZE);
		high_table_pages++;
		*entry = t | PTE_P | PTE_W;
	}
	return phys_to_virt(*entry & PTE_ADDR);
}

u64 paging_map_ram(u64 start, u64 end)
{
	if (start < HOST_MAPPED_LIMIT || (start | end) & (LARGE_PAGE_SIZE - 1))
		return start;
	if (end > HOST_MAP_END)
		end = HOST_MAP_END;
	u64 a;
	for (a = start; a < end; a += LARGE_PAGE_SIZE) {
		u64 *pdpt_hi = table_at(&pml4[a >> 39]);
		u64 *pd_hi = pdpt_hi ? table_at(&pdpt_hi[(a >> 30) & 511]) : NULL;
		if (!pd_hi)
			break;
		pd_hi[(a >> 21) & 511] = a | PTE_P | PTE_W | PTE_PS | PTE_NX;
	}
	return a;
}

size_t paging_high_table_pages(void)
{
	return high_table_pages;
}

u64 paging_host_cr3(void)
{
	return virt_to_phys(pml4);
}
