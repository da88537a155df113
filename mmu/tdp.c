/* SPDX-License-Identifier: GPL-2.0-only */
/* Two-dimensional paging: the nested table, filled lazily from the memory slots (see tdp.h). */
#include "mmu/tdp.h"
#include "arch/x86/regs.h"

#define TDP_ENTRIES 512
#define TDP_LEVELS 4
#define LARGE_PAGES (TDP_ENTRIES) /* 4 KiB frames in a 2 MiB leaf */
#define LARGE_SIZE (LARGE_PAGES * PAGE_SIZE)

/*
 * The hardware sees only host-physical addresses in the entries and the host gives no way back
 * to a pointer, so each table carries its own descriptor: the entry page and, above level 1, a
 * page of pointers to the descriptors below.
 */
struct tdp_node {
	u64 *hw;
	u64 hw_hpa;
	struct tdp_node **kid;
	u64 kid_hpa;
};

/* Descriptors are carved from pages and freed only at teardown: tables are never dropped. */
struct tdp_node_page {
	struct tdp_node_page *next;
	u64 hpa;
	unsigned used;
	struct tdp_node node[];
};
#define NODES_PER_PAGE ((PAGE_SIZE - sizeof(struct tdp_node_page)) / sizeof(struct tdp_node))

static unsigned index_at(u64 gpa, unsigned level)
{
	return (unsigned)(gpa >> (PAGE_SHIFT + 9 * (level - 1))) & (TDP_ENTRIES - 1);
}

static u64 rights(const struct tdp *t)
{
	return t->fmt.present | t->fmt.write | t->fmt.exec | t->fmt.user;
}

static bool is_present(const struct tdp *t, u64 e)
{
	return (e & t->fmt.present) != 0;
}

static struct tdp_node *node_new(struct tdp *t, unsigned level)
{
	struct tdp_node_page *np = t->node_pages;
	u64 hpa;
	if (!np || np->used == NODES_PER_PAGE) {
		np = t->ops->alloc_page(t->ctx, &hpa);
		if (!np)
			return NULL;
		np->hpa = hpa;
		np->next = t->node_pages;
		t->node_pages = np;
	}
	struct tdp_node *n = &np->node[np->used];
	n->hw = t->ops->alloc_page(t->ctx, &n->hw_hpa);
	if (!n->hw)
		return NULL;
	if (level > 1) {
		n->kid = t->ops->alloc_page(t->ctx, &n->kid_hpa);
		if (!n->kid) {
			t->ops->free_page(t->ctx, n->hw, n->hw_hpa);
			return NULL;
		}
	}
	np->used++;
	t->stats.tables++;
	/* cppcheck-suppress returnDanglingLifetime ; alloc_page stores the page's address through
	 * &hpa, it does not return a pointer into hpa */
	return n;
}

int tdp_init(struct tdp *t, const struct mmu_platform_ops *ops, void *ctx,
	     const struct tdp_format *fmt)
{
	*t = (struct tdp){ .ops = ops, .ctx = ctx, .fmt = *fmt, .last_mapped_gpa = ~0ull };
	t->root = node_new(t, TDP_LEVELS);
	if (!t->root) {
		tdp_destroy(t);
		return -1;
	}
	t->root_hpa = t->root->hw_hpa;
	return 0;
}

static void node_free(struct tdp *t, struct tdp_node *n, unsigned level)
{
	if (n->kid) {
		for (unsigned i = 0; i < TDP_ENTRIES; i++)
			if (n->kid[i])
				node_free(t, n->kid[i], level - 1);
		t->ops->free_page(t->ctx, n->kid, n->kid_hpa);
	}
	t->ops->free_page(t->ctx, n->hw, n->hw_hpa);
}

void tdp_destroy(struct tdp *t)
{
	if (t->root)
		node_free(t, t->root, TDP_LEVELS);
	while (t->node_pages) {
		struct tdp_node_page *np = t->node_pages;
		t->node_pages = np->next;
		t->ops->free_page(t->ctx, np, np->hpa);
	}
	t->root = NULL;
	t->root_hpa = 0;
	t->stats.tables = 0;
}

/* The table at `level` covering gpa, created on the way down; NULL without memory. */
static struct tdp_node *table_for(struct tdp *t, u64 gpa, unsigned level)
{
	struct tdp_node *n = t->root;
	for (unsigned l = TDP_LEVELS; l > level; l--) {
		unsigned i = index_at(gpa, l);
		if (!n->kid[i]) {
			struct tdp_node *k = node_new(t, l - 1);
			if (!k)
				return NULL;
			/* The CPU may walk the parent at any time: link the child only once it is
			 * complete (zeroed). */
			n->kid[i] = k;
			n->hw[i] = k->hw_hpa | rights(t) | t->fmt.table_extra;
		}
		n = n->kid[i];
	}
	return n;
}

/* Can gfn's whole aligned 2 MiB be one leaf: inside slot s, on aligned contiguous host frames? */
static bool fits_large(const struct tdp *t, const struct mmu_slot *s, u64 gfn)
{
	u64 base = gfn & ~(u64)(LARGE_PAGES - 1);
	/* A device's frames take 4 KiB leaves: tdp_unmap clears leaves and splits nothing. */
	if (s->device || base < s->base_gfn || base + LARGE_PAGES > s->base_gfn + s->npages)
		return false;
	u64 hpa = t->ops->gfn_to_hpa(t->ctx, s, base);
	if (hpa & (LARGE_SIZE - 1))
		return false;
	/* The slot interface promises nothing about contiguity: check every frame. */
	for (u64 i = 1; i < LARGE_PAGES; i++)
		if (t->ops->gfn_to_hpa(t->ctx, s, base + i) != hpa + (i << PAGE_SHIFT))
			return false;
	return true;
}

/* Maps gfn (and, when it can, its whole 2 MiB); returns the frames covered, 0 without memory. */
static u64 map_frame(struct tdp *t, const struct mmu_slot *s, u64 gfn)
{
	u64 gpa = gfn << PAGE_SHIFT;
	u64 leaf = (s->readonly ? rights(t) & ~t->fmt.write : rights(t)) |
		   (slot_uncached(s) ? t->fmt.leaf_uc : t->fmt.leaf_extra);
	struct tdp_node *pd = table_for(t, gpa, 2);
	if (!pd)
		return 0;
	unsigned i = index_at(gpa, 2);
	u64 base = gfn & ~(u64)(LARGE_PAGES - 1);
	if (!pd->kid[i]) {
		/* A large leaf is never split: every frame inside one is mapped already. */
		if (is_present(t, pd->hw[i]))
			return LARGE_PAGES - (gfn - base);
		if (t->fmt.large && fits_large(t, s, gfn)) {
			pd->hw[i] = t->ops->gfn_to_hpa(t->ctx, s, base) | leaf | t->fmt.large;
			t->stats.large_pages++;
			return LARGE_PAGES - (gfn - base);
		}
	}
	struct tdp_node *pt = table_for(t, gpa, 1);
	if (!pt)
		return 0;
	pt->hw[index_at(gpa, 1)] = t->ops->gfn_to_hpa(t->ctx, s, gfn) | leaf;
	t->stats.small_pages++;
	return 1;
}

bool tdp_lookup(const struct tdp *t, u64 gpa, u64 *hpa)
{
	const struct tdp_node *n = t->root;
	if (!n || gpa >> (PAGE_SHIFT + 9 * TDP_LEVELS))
		return false;
	for (unsigned l = TDP_LEVELS; l >= 1; l--) {
		u64 e = n->hw[index_at(gpa, l)];
		if (!is_present(t, e))
			return false;
		if (l == 1 || (l == 2 && !n->kid[index_at(gpa, l)])) {
			u64 off = gpa & ((PAGE_SIZE << (9 * (l - 1))) - 1);
			*hpa = (e & PTE_ADDR & ~((PAGE_SIZE << (9 * (l - 1))) - 1)) + off;
			return true;
		}
		n = n->kid[index_at(gpa, l)];
	}
	return false;
}

enum tdp_result tdp_fault(struct tdp *t, u64 gpa)
{
	u64 gfn = gpa >> PAGE_SHIFT, page = gpa & ~(PAGE_SIZE - 1), hpa;
	const struct mmu_slot *s =
		gpa >> (PAGE_SHIFT + 9 * TDP_LEVELS) ? NULL : t->ops->gfn_to_slot(t->ctx, gfn);
	if (!s) {
		t->last_mapped_gpa = ~0ull;
		t->stats.faults_mmio++;
		return TDP_MMIO;
	}
	if (tdp_lookup(t, gpa, &hpa)) {
		/* A read-only slot's page faults when mapped only on a store: the host's to emulate. */
		if (s->readonly) {
			t->stats.faults_mmio++;
			return TDP_MMIO;
		}
		t->stats.faults_mapped++;
		if (t->last_mapped_gpa == page)
			return TDP_EBROKEN;
		t->last_mapped_gpa = page;
		return TDP_MAPPED;
	}
	t->last_mapped_gpa = ~0ull;
	if (!map_frame(t, s, gfn))
		return TDP_ENOMEM;
	t->stats.faults_filled++;
	return TDP_FILLED;
}

u64 tdp_unmap(struct tdp *t, u64 gfn, u64 npages)
{
	u64 cleared = 0;
	for (u64 g = gfn; g < gfn + npages; g++) {
		u64 gpa = g << PAGE_SHIFT;
		const struct tdp_node *n = t->root;
		for (unsigned l = TDP_LEVELS; n && l > 1; l--)
			n = n->kid[index_at(gpa, l)];
		if (!n || !is_present(t, n->hw[index_at(gpa, 1)]))
			continue;
		/* cppcheck-suppress constVariablePointer ; the entry page is written, not the node */
		n->hw[index_at(gpa, 1)] = 0;
		cleared++;
	}
	t->last_mapped_gpa = ~0ull;
	return cleared;
}

int tdp_map_all(struct tdp *t)
{
	const struct mmu_slot *s;
	for (unsigned i = 0; (s = t->ops->slot_at(t->ctx, i)); i++)
		for (u64 gfn = s->base_gfn; gfn < s->base_gfn + s->npages;) {
			u64 n = map_frame(t, s, gfn);
			if (!n)
				return -1;
			gfn += n;
		}
	return 0;
}
