/* SPDX-License-Identifier: GPL-2.0-only */
/* Pointer sets for reverse maps and parent chains: empty, one pointer, or a chain of descriptors. */
#include "mmu/internal.h"

/*
 * Most frames have at most one writable mapping and most shadow pages one parent, so the set is
 * a single word until a second member arrives; then the word (tagged with bit 0) points to a
 * chain of descriptors. Only the head descriptor may be partly filled, so removal moves the
 * head's last member into the hole and the chain never has gaps.
 */
#define PSET_N 7
#define PSET_TAG 1ul

struct pset_desc {
	u64 *e[PSET_N];
	struct pset_desc *next;
};

_Static_assert(sizeof(struct pset_desc) == 64, "descriptor fills a cache line");

static inline bool is_chain(uintptr_t set)
{
	return set & PSET_TAG;
}
static inline struct pset_desc *chain(uintptr_t set)
{
	return (struct pset_desc *)(set & ~PSET_TAG);
}

static unsigned head_fill(const struct pset_desc *d)
{
	unsigned n = 0;

	while (n < PSET_N && d->e[n])
		n++;
	return n;
}

void pset_add(uintptr_t *set, u64 *p, struct mmu_objcache *cache, struct mmu_slab *slab)
{
	struct pset_desc *d;
	unsigned n;

	ASSERT(p && !((uintptr_t)p & PSET_TAG));
	if (!*set) {
		*set = (uintptr_t)p;
		return;
	}
	if (!is_chain(*set)) {
		d = cache_take(cache, slab);
		d->e[0] = (u64 *)*set;
		d->e[1] = p;
		*set = (uintptr_t)d | PSET_TAG;
		return;
	}
	d = chain(*set);
	n = head_fill(d);
	if (n < PSET_N) {
		d->e[n] = p;
		return;
	}
	d = cache_take(cache, slab);
	d->e[0] = p;
	d->next = chain(*set);
	*set = (uintptr_t)d | PSET_TAG;
}

void pset_remove(uintptr_t *set, u64 *p, struct mmu_slab *slab)
{
	struct pset_desc *head, *d;
	unsigned last, i;

	if (!is_chain(*set)) {
		ASSERT(*set == (uintptr_t)p);
		*set = 0;
		return;
	}
	head = chain(*set);
	for (d = head; d; d = d->next)
		for (i = 0; i < PSET_N && d->e[i]; i++)
			if (d->e[i] == p)
				goto found;
	panic("pset: %p not in set", (void *)p);
found:
	last = head_fill(head) - 1;
	d->e[i] = head->e[last];
	head->e[last] = NULL;
	if (last == 0) {
		*set = head->next ? (uintptr_t)head->next | PSET_TAG : 0;
		slab_free(slab, head);
		head = chain(*set);
		if (!*set)
			return;
	}
	/* Back to the one-pointer form when a single member is left. */
	if (!head->next && !head->e[1]) {
		*set = (uintptr_t)head->e[0];
		slab_free(slab, head);
	}
}

/* Whether p is an entry of table marked in marks, unmarking it if so. Inlined: a call per
 * member would cost as much as the test. */
static inline __attribute__((always_inline)) bool take_marked(const u64 *p, const u64 *table,
							      union spt_marks *marks)
{
	uintptr_t off = (uintptr_t)p - (uintptr_t)table; /* a byte offset: index off / 8 */

	if (off >= SPT_ENTRIES * 8 || !marks->b[off >> 3])
		return false;
	marks->b[off >> 3] = 0;
	return true;
}

/* One pass packs the members kept towards the head, in order; the descriptors left empty at the
 * end are freed, and a last, partly filled one becomes the head (only the head may be partly
 * filled). The writer never passes the reader, so it only writes slots already read. */
void pset_remove_marked(uintptr_t *set, struct mmu_slab *slab, const u64 *table,
			union spt_marks *marks)
{
	struct pset_desc *head, *r, *w, *wprev = NULL, *rest;
	unsigned i, wi = 0;

	if (!is_chain(*set)) {
		if (*set && take_marked((u64 *)*set, table, marks))
			*set = 0;
		return;
	}
	head = w = chain(*set);
	for (r = head; r; r = r->next)
		for (i = 0; i < PSET_N; i++) {
			u64 *p = r->e[i];

			if (!p)
				break;
			if (take_marked(p, table, marks))
				continue;
			if (wi == PSET_N) {
				wprev = w;
				w = w->next;
				wi = 0;
			}
			w->e[wi++] = p;
		}
	/* Nothing written: every member went, and every descriptor goes. */
	rest = wi ? w->next : head;
	if (wi) {
		for (i = wi; i < PSET_N; i++)
			w->e[i] = NULL;
		w->next = NULL;
	}
	while (rest) {
		struct pset_desc *next = rest->next;

		slab_free(slab, rest);
		rest = next;
	}
	if (!wi) {
		*set = 0;
		return;
	}
	if (wi < PSET_N && w != head) {
		wprev->next = NULL;
		w->next = head;
		head = w;
	}
	*set = (uintptr_t)head | PSET_TAG;
	/* Back to the one-pointer form when a single member is left. */
	if (!head->next && !head->e[1]) {
		*set = (uintptr_t)head->e[0];
		slab_free(slab, head);
	}
}

struct pset_iter pset_iter_start(uintptr_t set)
{
	struct pset_iter it = { 0, NULL, 0 };

	if (is_chain(set))
		it.d = chain(set);
	else
		it.single = set;
	return it;
}

u64 *pset_iter_next(struct pset_iter *it)
{
	u64 *p;

	if (it->single) {
		p = (u64 *)it->single;
		it->single = 0;
		return p;
	}
	while (it->d) {
		if (it->i < PSET_N && it->d->e[it->i])
			return it->d->e[it->i++];
		it->d = it->d->next;
		it->i = 0;
	}
	return NULL;
}

bool pset_contains(uintptr_t set, const u64 *p)
{
	u64 *q;

	PSET_FOR_EACH(set, it, q)
	if (q == p)
		return true;
	return false;
}

unsigned pset_count(uintptr_t set)
{
	unsigned n = 0;
	u64 *q;

	PSET_FOR_EACH(set, it, q)
	n++;
	return n;
}

void pset_drain(uintptr_t *set, struct mmu_slab *slab, void (*fn)(void *arg, u64 *p), void *arg)
{
	struct pset_desc *d, *next;
	u64 *q;

	PSET_FOR_EACH(*set, it, q)
	fn(arg, q);
	if (is_chain(*set))
		for (d = chain(*set); d; d = next) {
			next = d->next;
			slab_free(slab, d);
		}
	*set = 0;
}
