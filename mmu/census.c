/* SPDX-License-Identifier: GPL-2.0-only */
/* A census of the shadow pages for the monitor: how many by level, direct or shadowing, roots. */
#include "mmu/internal.h"

void mmu_census(const struct mmu_vm *vm, struct mmu_census *out)
{
	memset(out, 0, sizeof(*out));
	for (const struct list_head *l = vm->lru.next; l != &vm->lru; l = l->next) {
		const struct mmu_page *sp = container_of(l, struct mmu_page, lru);
		unsigned level = sp->role.level <= 5 ? sp->role.level : 0;
		if (sp->role.direct)
			out->direct[level]++;
		else
			out->shadowing[level]++;
		out->roots += sp->root_count != 0;
		out->parent_links += pset_count(sp->parents);
	}
}
