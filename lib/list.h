/* SPDX-License-Identifier: GPL-2.0-only */
/* Intrusive circular doubly linked list: nodes live inside the objects they link. */
#ifndef LIB_LIST_H
#define LIB_LIST_H

#include "lib/types.h"

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) \
	{ \
		&(name), &(name) \
	}

static inline void list_init(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline void list_insert_between(struct list_head *n, struct list_head *prev,
				       struct list_head *next)
{
	n->prev = prev;
	n->next = next;
	prev->next = n;
	next->prev = n;
}

/* Adds n right after the head (stack order). */
static inline void list_add(struct list_head *n, struct list_head *h)
{
	list_insert_between(n, h, h->next);
}

/* Adds n just before the head (queue order). */
static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	list_insert_between(n, h->prev, h);
}

/* Unlinks n and leaves it self-linked so a second del or an empty test is harmless. */
static inline void list_del(struct list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	list_init(n);
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)

/* clang-format off */
#define list_for_each_entry(pos, head, member) \
	for (pos = list_entry((head)->next, __typeof__(*pos), member); \
	     &pos->member != (head); \
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))
/* clang-format on */

/* Safe against removing pos inside the loop body. */
/* clang-format off */
#define list_for_each_entry_safe(pos, tmp, head, member) \
	for (pos = list_entry((head)->next, __typeof__(*pos), member), \
	     tmp = list_entry(pos->member.next, __typeof__(*pos), member); \
	     &pos->member != (head); \
	     pos = tmp, tmp = list_entry(tmp->member.next, __typeof__(*pos), member))
/* clang-format on */

#endif
