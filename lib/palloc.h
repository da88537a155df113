/* SPDX-License-Identifier: GPL-2.0-only */
/* Physical page allocator: a bitmap over usable RAM, built once from the boot memory map. */
#ifndef LIB_PALLOC_H
#define LIB_PALLOC_H

#include "lib/types.h"

#define PALLOC_MAX_RANGES 32
/* Runs of at least this many pages (a 2 MiB page) are placed from the top of memory. */
#define PALLOC_LARGE_PAGES 512

/*
 * Boot order: palloc_init, then any palloc_add_free/palloc_reserve calls in any
 * order, then palloc_finalize; only then may pages be allocated and freed.
 * p2v translates a physical address to a pointer the kernel can write through.
 */
void palloc_init(void *(*p2v)(u64 pa));
/* Usable RAM [start, end), rounded inward to pages; physical page 0 is never used. */
void palloc_add_free(u64 start, u64 end);
/* Removes [start, end), rounded outward to pages, from the free ranges. */
void palloc_reserve(u64 start, u64 end);
/* Boot only: takes npages contiguous free pages ending at or below `below` (the highest such
 * place) out of the free ranges for the caller to keep; 0 when none fits. */
u64 palloc_boot_take(size_t npages, u64 below);
/* Places the bitmap in free memory; panics when no range can hold it. */
void palloc_finalize(void);

/* One zeroed 4 KiB page, or 0 when memory is exhausted. */
u64 palloc_alloc(void);
/* npages contiguous zeroed pages starting on a multiple of align_pages pages, or 0. */
u64 palloc_alloc_contig(size_t npages, size_t align_pages);
/* Returns one page; panics on a double free or an address that was never allocatable. */
void palloc_free(u64 pa);

size_t palloc_free_pages(void);
/* Pages available to allocate right after finalize (free RAM less the bitmap). */
size_t palloc_total_pages(void);
/* Pages the bitmap itself takes (one bit per page of the span the free ranges cover). */
size_t palloc_bitmap_pages(void);

#endif
