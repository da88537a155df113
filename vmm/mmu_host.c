/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbra's side of the MMU platform interface: host pages, guest frames, guest memory, flushes. */
#include "vmm/mmu_host.h"
#include "arch/x86/paging.h"
#include "lib/palloc.h"
#include "lib/string.h"
#include "vmm/remote_flush.h"
#include "vmm/vm.h"

static void *host_alloc_page(void *ctx, u64 *hpa)
{
	(void)ctx;
	u64 pa = palloc_alloc();
	if (!pa)
		return NULL;
	*hpa = pa;
	return phys_to_virt(pa);
}

/* Another vCPU in guest mode may still walk a freed shadow table through its paging-structure
 * caches until the remote flush of this locked operation completes; so with several vCPUs the
 * page waits on the guest's list (linked through itself) and vm_unlock frees it after the wait. */
static void host_free_page(void *ctx, void *va, u64 hpa)
{
	struct vm *vm = ctx;
	if (vm->nr_vcpus < 2) {
		palloc_free(hpa);
		return;
	}
	u64 *link = va;
	link[0] = vm->deferred_free;
	vm->deferred_free = hpa;
}

void mmu_host_release_deferred(struct vm *vm)
{
	while (vm->deferred_free) {
		u64 hpa = vm->deferred_free;
		vm->deferred_free = ((u64 *)phys_to_virt(hpa))[0];
		palloc_free(hpa);
	}
}

static const struct mmu_slot *host_gfn_to_slot(void *ctx, u64 gfn)
{
	return memslots_find(&((struct vm *)ctx)->mem, gfn);
}

static const struct mmu_slot *host_slot_at(void *ctx, unsigned i)
{
	return memslots_at(&((struct vm *)ctx)->mem, i);
}

static u64 host_gfn_to_hpa(void *ctx, const struct mmu_slot *s, u64 gfn)
{
	return memslots_gfn_to_hpa(&((struct vm *)ctx)->mem, s, gfn);
}

/* Guest page-table entries whole (memcpy_whole): another vCPU may rewrite one meanwhile. */
static int host_read_gpa(void *ctx, u64 gpa, void *buf, unsigned len)
{
	void *p = memslots_ptr(&((struct vm *)ctx)->mem, gpa, len);
	if (!p)
		return -1;
	memcpy_whole(buf, p, len);
	return 0;
}

static int host_write_gpa(void *ctx, u64 gpa, const void *buf, unsigned len)
{
	void *p = memslots_ptr(&((struct vm *)ctx)->mem, gpa, len);
	if (!p)
		return -1;
	memcpy_whole(p, buf, len);
	return 0;
}

/* One locked CMPXCHG of the operand's size, as the hardware's own A/D update and a guest's
 * LOCK CMPXCHG are, since the guest may run on another CPU. */
/* clang-format off */
#define HOST_CAS(type, p, old, new_val)                                                          \
	({                                                                                       \
		type o_ = (type)*(old);                                                          \
		bool ok_ = __atomic_compare_exchange_n((type *)(p), &o_, (type)(new_val), false, \
						       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);     \
		*(old) = o_;                                                                     \
		ok_;                                                                             \
	})
/* clang-format on */

static bool host_cmpxchg_gpa(void *ctx, u64 gpa, unsigned len, u64 *old, u64 new_val)
{
	void *p = memslots_ptr(&((struct vm *)ctx)->mem, gpa, len);
	if (!p || (gpa & (len - 1)))
		return false;
	switch (len) {
	case 1:
		return HOST_CAS(u8, p, old, new_val);
	case 2:
		return HOST_CAS(u16, p, old, new_val);
	case 4:
		return HOST_CAS(u32, p, old, new_val);
	case 8:
		return HOST_CAS(u64, p, old, new_val);
	default:
		return false;
	}
}

/* Requested under vm->lock; vm_unlock waits until every vCPU in guest mode has left it. */
static void host_flush_tlb(void *ctx, struct mmu_vcpu *mv)
{
	(void)ctx;
	remote_flush_request(container_of(mv, struct vcpu, mmu));
}

static void host_flush_wait(void *ctx)
{
	remote_flush_wait(ctx);
}

const struct mmu_platform_ops mmu_host_ops = {
	.alloc_page = host_alloc_page,
	.free_page = host_free_page,
	.gfn_to_slot = host_gfn_to_slot,
	.slot_at = host_slot_at,
	.gfn_to_hpa = host_gfn_to_hpa,
	.read_gpa = host_read_gpa,
	.write_gpa = host_write_gpa,
	.cmpxchg_gpa = host_cmpxchg_gpa,
	.flush_tlb = host_flush_tlb,
	.flush_wait = host_flush_wait,
};
