/* SPDX-License-Identifier: GPL-2.0-only */
/* Memory for the MMU: small-object slabs, the shadow page pool, and per-vCPU preallocated caches. */
#include "mmu/internal.h"

/*
 * The fault path may not allocate (it runs with the VM lock held and must never fail half-way),
 * so mmu_topup fills each vCPU's caches with enough objects for the worst single fault, reclaiming
 * least recently used shadow pages when the pool is at its limit. These minimums are that worst
 * case: a PAE root reload (4 tables) plus a leaf table and its gfn array.
 */
#define FAULT_PAGES 6
#define FAULT_SPS 5
#define FAULT_PARENT_DESCS 4
#define FAULT_RMAP_DESCS 2

struct slab_chunk {
	struct slab_chunk *next;
	u64 hpa;
};

void slab_init(struct mmu_slab *s, u32 objsize)
{
	ASSERT(objsize >= sizeof(struct slab_chunk) && objsize <= PAGE_SIZE / 2);
	memset(s, 0, sizeof(*s));
	s->objsize = objsize;
}

/* A new host page becomes a chunk header (first object slot) and free objects. */
static bool slab_grow(struct mmu_vm *vm, struct mmu_slab *s)
{
	struct slab_chunk *c;
	u64 hpa, off;

	c = vm->ops->alloc_page(vm->ctx, &hpa);
	if (!c)
		return false;
	c->hpa = hpa;
	c->next = s->chunks;
	s->chunks = c;
	for (off = s->objsize; off + s->objsize <= PAGE_SIZE; off += s->objsize) {
		void **obj = (void **)((char *)c + off);

		*obj = s->free;
		s->free = obj;
	}
	return true;
}

void slab_destroy(struct mmu_vm *vm, struct mmu_slab *s)
{
	struct slab_chunk *c, *next;

	for (c = s->chunks; c; c = next) {
		next = c->next;
		vm->ops->free_page(vm->ctx, c, c->hpa);
	}
	s->chunks = NULL;
	s->free = NULL;
}

void slab_free(struct mmu_slab *s, void *obj)
{
	ASSERT(s->live > 0);
	s->live--;
	*(void **)obj = s->free;
	s->free = obj;
}

void *cache_take(struct mmu_objcache *c, struct mmu_slab *s)
{
	void *obj;

	ASSERT(c->n > 0);
	obj = c->obj[--c->n];
	memset(obj, 0, s->objsize);
	s->live++;
	return obj;
}

void *pagecache_take(struct mmu_pagecache *c, u64 *hpa)
{
	ASSERT(c->n > 0);
	c->n--;
	*hpa = c->hpa[c->n];
	return c->va[c->n];
}

void pool_free_page(struct mmu_vm *vm, void *va, u64 hpa)
{
	ASSERT(vm->pool_used > 0);
	vm->pool_used--;
	vm->ops->free_page(vm->ctx, va, hpa);
}

static int objcache_fill(struct mmu_vm *vm, struct mmu_objcache *c, struct mmu_slab *s)
{
	while (c->n < MMU_CACHE_OBJS) {
		void **obj;

		if (!s->free && !slab_grow(vm, s))
			return MMU_ENOMEM;
		obj = s->free;
		s->free = *obj;
		c->obj[c->n++] = obj;
	}
	return MMU_OK;
}

/*
 * With several vCPUs the pool's pages may all sit in the other vCPUs' caches, which reclaim
 * cannot reach: take one of them (it stays counted in the pool). A vCPU's caches are only used
 * by the call its own top-up prepares, under the same hold of the VM lock, and it tops up again
 * before the next one; so a vCPU cannot starve while its siblings hoard.
 */
static bool pagecache_steal(struct mmu_vcpu *vcpu)
{
	struct mmu_pagecache *c = &vcpu->pages;
	struct mmu_vcpu *v;

	for (v = vcpu->vm->vcpus; v; v = v->next) {
		if (v == vcpu || !v->pages.n)
			continue;
		v->pages.n--;
		c->va[c->n] = v->pages.va[v->pages.n];
		c->hpa[c->n++] = v->pages.hpa[v->pages.n];
		return true;
	}
	return false;
}

static int pagecache_fill(struct mmu_vcpu *vcpu)
{
	struct mmu_vm *vm = vcpu->vm;
	struct mmu_pagecache *c = &vcpu->pages;

	while (c->n < MMU_CACHE_PAGES) {
		void *va;

		if (vm->pool_used >= vm->cfg.pool_max_pages && !sp_reclaim_one(vm)) {
			if (pagecache_steal(vcpu))
				continue;
			break;
		}
		va = vm->ops->alloc_page(vm->ctx, &c->hpa[c->n]);
		if (!va)
			break;
		vm->pool_used++;
		c->va[c->n++] = va;
	}
	return c->n >= FAULT_PAGES ? MMU_OK : MMU_ENOMEM;
}

bool vcpu_caches_ready(const struct mmu_vcpu *vcpu)
{
	return vcpu->pages.n >= FAULT_PAGES && vcpu->sps.n >= FAULT_SPS &&
	       vcpu->parent_descs.n >= FAULT_PARENT_DESCS && vcpu->rmap_descs.n >= FAULT_RMAP_DESCS;
}

int mmu_topup(struct mmu_vcpu *vcpu)
{
	struct mmu_vm *vm = vcpu->vm;

	/* Full since the last top-up (most calls: a CR3 load that found its root cached). */
	if (vcpu_caches_full(vcpu))
		return MMU_OK;

	if (objcache_fill(vm, &vcpu->sps, &vm->sp_slab) ||
	    objcache_fill(vm, &vcpu->parent_descs, &vm->parent_slab) ||
	    objcache_fill(vm, &vcpu->rmap_descs, &vm->rmap_slab))
		return MMU_ENOMEM;
	return pagecache_fill(vcpu);
}

static void objcache_release(struct mmu_objcache *c, struct mmu_slab *s)
{
	while (c->n) {
		void **obj = c->obj[--c->n];

		*obj = s->free;
		s->free = obj;
	}
}

void vcpu_caches_release(struct mmu_vcpu *vcpu)
{
	struct mmu_vm *vm = vcpu->vm;
	u64 hpa;
	void *va;

	objcache_release(&vcpu->sps, &vm->sp_slab);
	objcache_release(&vcpu->parent_descs, &vm->parent_slab);
	objcache_release(&vcpu->rmap_descs, &vm->rmap_slab);
	while (vcpu->pages.n) {
		va = pagecache_take(&vcpu->pages, &hpa);
		pool_free_page(vm, va, hpa);
	}
}
