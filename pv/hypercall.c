/* SPDX-License-Identifier: GPL-2.0-only */
/* Hypercall dispatch and handlers: decode, reject bad input early (changing nothing), act. */
#include "pv/hypercall.h"
#include "arch/x86/cpu.h"
#include "arch/x86/regs.h"
#include "arch/x86/serial.h"
#include "arch/x86/tsc.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "pv/abi.h"
#include "pv/classes.h"
#include "vmm/gmem.h"
#include "vmm/console.h"
#include "vmm/irq.h"
#include "vmm/stats.h"
#include "vmm/vcpu.h"
#include "vmm/ipi.h"
#include "vmm/vm.h"
#include "vmm/shm.h"
#include "vmm/cr.h"

struct hc_args {
	u64 a[4];
};

typedef s64 (*hc_fn)(struct vcpu *v, const struct hc_args *args);

static bool user_mode(const struct vcpu *v)
{
	return v->hw.regs.cpl == 3;
}
static u64 arg64(const struct hc_args *a, int lo)
{
	return (a->a[lo] & 0xffffffffull) | (a->a[lo + 1] << 32);
}

static s64 hc_version(struct vcpu *v, const struct hc_args *a)
{
	(void)v;
	(void)a;
	return UMBRA_ABI_VERSION;
}

/* What a call checks and then acts on is copied out of the guest once, into Umbra's memory,
 * then checked and used there: the guest's other vCPUs run natively meanwhile and may rewrite
 * the buffer between a check and a second read (time of check to time of use). A guest's
 * calls run one at a time, under its lock (exit_handle), so one copy per guest serves them
 * (vm->pv_copy). */
static void *guest_copy(const struct vcpu *v)
{
	return &v->vm->pv_copy;
}

static s64 hc_console_write(struct vcpu *v, const struct hc_args *a)
{
	u64 len = a->a[1];
	char *text = guest_copy(v);

	if (len > UMBRA_CONSOLE_MAX)
		return -UMBRA_E2BIG;
	if (gmem_read_virt(v, a->a[0], text, len, user_mode(v)) < 0)
		return -UMBRA_EFAULT;
	for (u64 i = 0; i < len; i++)
		console_putc(v->vm, text[i]);
	return (s64)len;
}

static s64 hc_console_read(struct vcpu *v, const struct hc_args *a)
{
	u64 gva = a->a[0], len = a->a[1];
	char buf[64];
	u64 n = 0;

	if (len > UMBRA_CONSOLE_MAX)
		return -UMBRA_E2BIG;
	if (len > sizeof(buf))
		len = sizeof(buf);
	/* Probe the buffer before taking input that could then not be delivered. */
	if (len && gmem_read_virt(v, gva, buf, len, user_mode(v)) < 0)
		return -UMBRA_EFAULT;
	/* Typed input reaches the guest with the focus, through its COM1's receiver. */
	console_poll_input(v->vm);
	struct uart *u = &v->vm->board.com1;
	/* LSR bit 0: data ready; RBR is register 0 unless the divisor latch is selected. */
	while (n < len && !(u->lcr & 0x80) && (uart_read(u, 5) & 1))
		buf[n++] = (char)uart_read(u, 0);
	if (n && gmem_write_virt(v, gva, buf, n, user_mode(v)) < 0)
		return -UMBRA_EFAULT;
	return (s64)n;
}

static s64 hc_exit(struct vcpu *v, const struct hc_args *a)
{
	console_flush(v->vm);
	vm_end(v->vm, VM_END_RESULT, ((u32)a->a[0] << 1) | 1, "exit hypercall");
	return 0;
}

static s64 copy_stats(struct vcpu *v, struct vcpu *of, u64 gva, u64 size)
{
	struct umbra_stats st;

	if (size < 8)
		return -UMBRA_EINVAL;
	if (size > sizeof(st))
		size = sizeof(st);
	stats_collect(of, &st);
	st.size = (u32)size;
	if (gmem_write_virt(v, gva, &st, size, user_mode(v)) < 0)
		return -UMBRA_EFAULT;
	return (s64)size;
}

static s64 hc_stats(struct vcpu *v, const struct hc_args *a)
{
	return copy_stats(v, v, a->a[0], a->a[1]);
}

static s64 hc_yield(struct vcpu *v, const struct hc_args *a)
{
	(void)a;
	v->yielded = true;
	return 0;
}

static s64 hc_time(struct vcpu *v, const struct hc_args *a)
{
	struct umbra_time t = { .tsc_hz = tsc_hz, .monotonic_ns = monotonic_ns() };
	if (gmem_write_virt(v, a->a[0], &t, sizeof(t), user_mode(v)) < 0)
		return -UMBRA_EFAULT;
	return 0;
}

static s64 hc_block(struct vcpu *v, const struct hc_args *a)
{
	u64 ns = arg64(a, 0);

	if (ns > UMBRA_TIMER_MAX_NS)
		return -UMBRA_EINVAL;
	if (irq_pending(v))
		return 1; /* an event is already waiting */
	v->halted = true;
	v->blocking = true;
	v->block_deadline = rdtsc() + ns_to_tsc(ns) + 1; /* never before ns have passed */
	return 0;					 /* replaced by the wake-up's value */
}

static s64 hc_timer_set(struct vcpu *v, const struct hc_args *a)
{
	u64 vector = a->a[0], ns = arg64(a, 1);

	if (vector == 0) {
		v->timer_deadline = 0;
		return 0;
	}
	/* Vectors 0-31 are the architecture's exceptions. */
	if (vector < 32 || vector > 255 || ns > UMBRA_TIMER_MAX_NS)
		return -UMBRA_EINVAL;
	v->timer_vector = (u8)vector;
	v->timer_deadline = rdtsc() + ns_to_tsc(ns ? ns : 1) + 1;
	return 0;
}

/* The guest's page-table entry size: 4 bytes only in 2-level 32-bit paging. */
static unsigned pte_size(const struct vcpu *v)
{
	return (v->hw.regs.cr4 & CR4_PAE) || (v->hw.regs.efer & EFER_LMA) ? 8 : 4;
}

static bool in_ram(const struct vcpu *v, u64 gpa, u64 len)
{
	return memslots_ptr(&v->vm->mem, gpa, len) != NULL;
}

/* A batch is copied once (guest_copy), every record of the copy validated, then the copy
 * applied, so a bad record changes nothing and what is applied is what was validated. check
 * returns 0 or the first bad record's error; apply returns the count or an error. Each loops
 * over the records itself: a call per record would cost more than most records' work. */
struct batch {
	struct vcpu *v;
	u64 gva, count;
	unsigned size; /* of one record */
	s64 (*check)(struct vcpu *v, const void *recs, u64 n, void *ctx);
	s64 (*apply)(struct vcpu *v, const void *recs, u64 n, void *ctx);
	void *ctx;
};

static s64 run_batch(const struct batch *b)
{
	s64 err;

	if (b->count > UMBRA_MMU_BATCH_MAX)
		return -UMBRA_E2BIG;
	if (gmem_read_virt(b->v, b->gva, guest_copy(b->v), b->count * b->size, user_mode(b->v)) < 0)
		return -UMBRA_EFAULT;
	if ((err = b->check(b->v, guest_copy(b->v), b->count, b->ctx)) < 0)
		return err;
	return b->apply(b->v, guest_copy(b->v), b->count, b->ctx);
}

/* An MMU_UPDATE call: the entry size, fixed for the call, the one table page every entry is in
 * (~0: not so, or not known), and the MMU's record of the writes. */
struct update_ctx {
	struct mmu_batch mmu;
	unsigned size;
	u64 page;
};

/* Whether the page at gpa is in RAM, remembering the last page that was (*memo; ~0: none): a
 * batch mostly writes one table, and fork's entries mostly map few frames. */
static bool page_in_ram(const struct vcpu *v, u64 page, u64 *memo)
{
	if (page == *memo)
		return true;
	if (!in_ram(v, page, PAGE_SIZE))
		return false;
	*memo = page;
	return true;
}

/* The usual batch, a pass over one table (fork's), is settled by the OR and the AND of its
 * words, three instructions an entry: all its entries are in one page if the two agree above
 * bit 11, aligned if the OR's low bits are clear, and every entry's frame is at most the OR's
 * frame, so inside RAM if the RAM from 0 reaches past that (non-present entries are held to it
 * too: stricter than needed, and then the entries are checked one by one). */
static bool check_one_table(struct vcpu *v, const struct umbra_mmu_update *u, u64 n,
			    struct update_ctx *c)
{
	const u64 addr_mask = c->size == 8 ? 0x000ffffffffff000ull : 0xfffff000ull;
	u64 ptr_or = 0, ptr_and = ~0ull, val_or = 0;

#pragma GCC unroll 8
	for (u64 i = 0; i < n; i++) {
		ptr_or |= u[i].ptr;
		ptr_and &= u[i].ptr;
		val_or |= u[i].val;
	}
	if (!n || ((ptr_or ^ ptr_and) & ~0xfffull) || (ptr_or & (c->size - 1)) ||
	    (c->size == 4 && (val_or >> 32)) || !in_ram(v, ptr_and & ~0xfffull, PAGE_SIZE) ||
	    !in_ram(v, 0, (val_or & addr_mask) + PAGE_SIZE))
		return false;
	c->page = ptr_and & ~0xfffull;
	return true;
}

static s64 check_update(struct vcpu *v, const void *recs, u64 n, void *ctx)
{
	const struct umbra_mmu_update *u = recs;
	struct update_ctx *c = ctx;
	const unsigned size = c->size;
	const u64 addr_mask = size == 8 ? 0x000ffffffffff000ull : 0xfffff000ull;
	u64 ptr_page = ~0ull, val_page = ~0ull;

	if (check_one_table(v, u, n, c))
		return 0;
	for (u64 i = 0; i < n; i++) {
		u64 ptr = u[i].ptr, val = u[i].val;

		/* Aligned, an entry lies within its page: the page in RAM is the entry in RAM. */
		if (ptr & (size - 1))
			return -UMBRA_EINVAL;
		if (!page_in_ram(v, ptr & ~0xfffull, &ptr_page))
			return -UMBRA_EFAULT;
		if (size == 4 && (val >> 32))
			return -UMBRA_EINVAL;
		if ((val & PTE_P) && !page_in_ram(v, val & addr_mask, &val_page))
			return -UMBRA_EFAULT;
	}
	return 0;
}

/* Stores the checked entries, each in one aligned store as the guest's own would be (its other
 * vCPUs may walk the table meanwhile), the host address found once per table page. A batch in
 * one page (c->page) names its table to the MMU once and notes each entry without a check. */
/* clang-format off */
#define APPLY_UPDATES(type)                                                                     \
	if (c->page != ~0ull) {                                                                 \
		uintptr_t base = (uintptr_t)memslots_ptr(&v->vm->mem, c->page, PAGE_SIZE) -      \
				 c->page;                                                       \
		mmu_batch_table(mmu, b, c->page >> PAGE_SHIFT);                                 \
		_Pragma("GCC unroll 4")                                                         \
		for (u64 i = 0; i < n; i++) {                                                   \
			u64 ptr = u[i].ptr;                                                     \
			__atomic_store_n((type *)(base + ptr), (type)u[i].val, __ATOMIC_RELAXED);\
			mmu_batch_note_in(b, (unsigned)ptr, sizeof(type));                      \
		}                                                                               \
	} else                                                                                  \
		for (u64 i = 0; i < n; i++) {                                                   \
			u64 ptr = u[i].ptr, val = u[i].val;                                     \
			if ((ptr & ~0xfffull) != page) {                                        \
				page = ptr & ~0xfffull;                                         \
				hva = memslots_ptr(&v->vm->mem, page, PAGE_SIZE); /* checked */ \
			}                                                                       \
			__atomic_store_n((type *)(hva + (ptr & 0xfff)), (type)val,              \
					 __ATOMIC_RELAXED);                                     \
			mmu_batch_note(mmu, b, ptr, sizeof(type));                              \
		}
/* clang-format on */

static s64 apply_update(struct vcpu *v, const void *recs, u64 n, void *ctx)
{
	const struct umbra_mmu_update *u = recs;
	struct update_ctx *c = ctx;
	struct mmu_batch *b = &c->mmu;
	struct mmu_vm *mmu = &v->vm->mmu;
	u64 page = ~0ull;
	u8 *hva = NULL;

	/* Shadows of the tables are dropped, none is made writable. */
	if (c->size == 8)
		APPLY_UPDATES(u64)
	else
		APPLY_UPDATES(u32)
	return (s64)n;
}

static s64 hc_mmu_update(struct vcpu *v, const struct hc_args *a)
{
	struct update_ctx c = { .size = pte_size(v), .page = ~0ull };
	struct batch b = {
		v, a->a[0], a->a[1], sizeof(struct umbra_mmu_update), check_update, apply_update, &c
	};
	s64 r;

	mmu_batch_begin(&c.mmu);
	r = run_batch(&b);
	mmu_batch_end(&v->vm->mmu, &c.mmu);
	return r;
}

static s64 check_op(struct vcpu *v, const struct umbra_mmu_op *o)
{
	if (o->reserved || o->op < UMBRA_MMUOP_NEW_CR3 || o->op > UMBRA_MMUOP_FLUSH_ALL)
		return -UMBRA_EINVAL;
	if (o->op == UMBRA_MMUOP_NEW_CR3 && !in_ram(v, o->arg & ~0xfffull, PAGE_SIZE))
		return -UMBRA_EFAULT;
	if (o->op == UMBRA_MMUOP_FLUSH_ALL && o->arg)
		return -UMBRA_EINVAL;
	return 0;
}

static bool apply_op(struct vcpu *v, const struct umbra_mmu_op *o, s64 *err)
{
	switch (o->op) {
	case UMBRA_MMUOP_NEW_CR3:
		/* A bad PDPTE is the one thing only the load itself can find. */
		if (!vcpu_set_cr3(v, o->arg)) {
			v->hw.pending.valid = false; /* reported as an error, not a fault */
			*err = -UMBRA_EINVAL;
			return false;
		}
		return true;
	case UMBRA_MMUOP_INVLPG:
		mmu_invlpg(&v->mmu, o->arg);
		/* With nested paging the CPU's TLB holds the guest's own translation. */
		if (v->vm->tdp_on)
			v->hw.tlb_flush = true;
		return true;
	default:
		/* Out-of-sync shadows catch up with the guest's tables, as a TLB would reload. */
		if (!v->vm->tdp_on)
			mmu_flush_tlb(&v->mmu);
		v->hw.tlb_flush = true;
		return true;
	}
}

static s64 check_ops(struct vcpu *v, const void *recs, u64 n, void *ctx)
{
	const struct umbra_mmu_op *o = recs;
	s64 err;

	(void)ctx;
	for (u64 i = 0; i < n; i++)
		if ((err = check_op(v, &o[i])) < 0)
			return err;
	return 0;
}

static s64 apply_ops(struct vcpu *v, const void *recs, u64 n, void *ctx)
{
	const struct umbra_mmu_op *o = recs;
	s64 err = 0;

	(void)ctx;
	for (u64 i = 0; i < n; i++)
		if (!apply_op(v, &o[i], &err))
			return err;
	return (s64)n;
}

/* One op, the common call (a kernel's CR3 switch or flush, standing in for one exit): read
 * into this stack once, checked and applied as a batch's would be, without its two passes. */
static s64 mmu_op1(struct vcpu *v, u64 gva)
{
	struct umbra_mmu_op o;
	s64 err;

	if (gmem_read_virt(v, gva, &o, sizeof(o), user_mode(v)) < 0)
		return -UMBRA_EFAULT;
	if ((err = check_op(v, &o)) < 0)
		return err;
	return apply_op(v, &o, &err) ? 1 : err;
}

static s64 hc_mmu_op(struct vcpu *v, const struct hc_args *a)
{
	if (a->a[1] == 1)
		return mmu_op1(v, a->a[0]);
	struct batch b = { v,	      a->a[0],	 a->a[1], sizeof(struct umbra_mmu_op),
			   check_ops, apply_ops, NULL };
	return run_batch(&b);
}

static s64 hc_vcpu_info(struct vcpu *v, const struct hc_args *a)
{
	struct umbra_vcpu_info info = { .guest_id = v->vm->id,
					.vcpu_id = v->id,
					.nr_vcpus = v->vm->nr_vcpus,
					.cpu = v->hw.cpu,
					.nr_guests = nr_vms,
					.caps = v->vm->config.caps };
	memcpy(info.name, v->vm->name, sizeof(v->vm->name));
	if (gmem_write_virt(v, a->a[0], &info, sizeof(info), user_mode(v)) < 0)
		return -UMBRA_EFAULT;
	return 0;
}

static s64 hc_stats_of(struct vcpu *v, const struct hc_args *a)
{
	struct vm *t = vm_by_id(a->a[0]);
	if (!t)
		return -UMBRA_EINVAL;
	return copy_stats(v, &t->vcpus[0], a->a[1], a->a[2]);
}

static s64 hc_stop_guest(struct vcpu *v, const struct hc_args *a)
{
	struct vm *t = vm_by_id(a->a[0]);
	if (!t || t == v->vm)
		return -UMBRA_EINVAL;
	/* Two guests stopping the same one: the first wins, the other learns nothing more. */
	if (vm_end(t, VM_END_STOPPED, 0, "stopped by another guest"))
		kprintf("guest %s: stopped by guest %s\n", t->name, v->vm->name);
	return 0;
}

static s64 hc_vcpu_start(struct vcpu *v, const struct hc_args *a)
{
	struct vm *vm = v->vm;
	u64 idx = a->a[0], eip = a->a[1], esp = a->a[2];

	if (idx >= vm->nr_vcpus || idx == v->id)
		return -UMBRA_EINVAL;
	if (eip >= vm->mem.low_bytes || esp > vm->mem.low_bytes || eip > 0xffffffffull)
		return -UMBRA_EFAULT;
	struct vcpu *t = &vm->vcpus[idx];
	if (t->power != VCPU_WAIT_SIPI)
		return -UMBRA_EBUSY;
	vcpu_start_flat32(t, (u32)eip, (u32)esp, (u32)a->a[3]);
	ipi_kick(t);
	return 0;
}

/* Shared regions (vmm/shm.c checks the region, peer and vectors). */
static s64 hc_shm_info(struct vcpu *v, const struct hc_args *a)
{
	struct umbra_shm_info info;
	s64 r = shm_info(v->vm, a->a[0], &info);
	if (r < 0)
		return r;
	if (gmem_write_virt(v, a->a[1], &info, sizeof(info), user_mode(v)) < 0)
		return -UMBRA_EFAULT;
	return 0;
}

static s64 hc_shm_bind(struct vcpu *v, const struct hc_args *a)
{
	return shm_bind(v->vm, a->a[0], a->a[1], a->a[2]);
}

static s64 hc_shm_ring(struct vcpu *v, const struct hc_args *a)
{
	return shm_ring(v->vm, a->a[0], a->a[1], a->a[2]);
}

static const hc_fn handlers[UMBRA_HC_COUNT] = {
	[UMBRA_HC_VERSION] = hc_version,
	[UMBRA_HC_CONSOLE_WRITE] = hc_console_write,
	[UMBRA_HC_EXIT] = hc_exit,
	[UMBRA_HC_STATS] = hc_stats,
	[UMBRA_HC_CONSOLE_READ] = hc_console_read,
	[UMBRA_HC_YIELD] = hc_yield,
	[UMBRA_HC_TIME] = hc_time,
	[UMBRA_HC_BLOCK] = hc_block,
	[UMBRA_HC_TIMER_SET] = hc_timer_set,
	[UMBRA_HC_MMU_UPDATE] = hc_mmu_update,
	[UMBRA_HC_MMU_OP] = hc_mmu_op,
	[UMBRA_HC_VCPU_INFO] = hc_vcpu_info,
	[UMBRA_HC_STATS_OF] = hc_stats_of,
	[UMBRA_HC_STOP_GUEST] = hc_stop_guest,
	[UMBRA_HC_VCPU_START] = hc_vcpu_start,
	[UMBRA_HC_SHM_INFO] = hc_shm_info,
	[UMBRA_HC_SHM_BIND] = hc_shm_bind,
	[UMBRA_HC_SHM_RING] = hc_shm_ring,
};

/* The calls that reach no device model and no interrupt state (the MMU calls, VERSION): after
 * them the vCPU's interrupt look (vmm/run.c) would find what it found before, so they leave
 * it out, as a CR3 load or a page fault does. Any other call may change what a device or the
 * interrupt controllers hold (a timer, a console read, a halt, a doorbell): marked before it
 * runs, as vmm/exit.c marks other exits. */
static bool leaves_devices(u64 nr)
{
	return nr == UMBRA_HC_VERSION || nr == UMBRA_HC_MMU_UPDATE || nr == UMBRA_HC_MMU_OP;
}

void pv_hypercall(struct vcpu *v)
{
	u64 *g = v->hw.regs.gpr;
	u64 mask =
		(v->hw.regs.efer & EFER_LMA) ? ~0ull : 0xffffffffull; /* 32-bit guests: 32 bits */
	u64 nr = g[X86_RAX] & mask;
	struct hc_args args = { { g[X86_RBX] & mask, g[X86_RCX] & mask, g[X86_RDX] & mask,
				  g[X86_RSI] & mask } };
	s64 ret;

	if (!leaves_devices(nr))
		vm_devices_touched(v->vm);
	if (nr >= UMBRA_HC_COUNT || hc_classes[nr].cls == HC_NONE)
		ret = -UMBRA_ENOSYS;
	else if (hc_classes[nr].cls != HC_RESTRICTED && v->hw.regs.cpl != 0)
		ret = -UMBRA_EPERM;
	else if (hc_classes[nr].cls == HC_CROSS_GUEST && !(v->vm->config.caps & hc_classes[nr].cap))
		ret = -UMBRA_EPERM;
	else
		ret = handlers[nr](v, &args);
	g[X86_RAX] = (u64)ret & mask;
}
