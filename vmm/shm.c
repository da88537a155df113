/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared regions: declared once, zeroed at boot, the same guest-physical place in every member. */
#include "vmm/shm.h"
#include "arch/x86/paging.h"
#include "lib/cmdline.h"
#include "lib/palloc.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "vmm/dev/pci_msi.h"
#include "vmm/ipi.h"
#include "vmm/msi.h"
#include "vmm/vm.h"

/*
 * A region's memory is Umbra's for the whole run: members end, are stopped or reboot, and the
 * others keep their view; nothing is freed while any could still use it, and all guests are
 * created at boot. Members are numbered in module order, which every guest's line can see.
 *
 * A doorbell is a bit per vector in the target's port (struct shm_port), set by the ringer's
 * CPU with an atomic OR: ringing one already set coalesces into it (an edge-triggered line's
 * behaviour), so a guest ringing in a loop sends at most one kick per delivery and its peer
 * takes at most one interrupt per vector per look, however fast it rings; the ringer only
 * spends its own time. The target's CPU takes the bits under its own lock when it next looks
 * at its interrupts (the ringer makes sure it looks: dev_gen, then a kick).
 */
struct shm_region {
	char name[SHM_NAME_LEN];
	u64 bytes;
	u64 bar; /* its BAR2: the power of two that holds it */
	u64 hpa;
	u64 gpa;
	bool ok; /* memory and a place given (shm_init) */
	u32 n;
	struct shm_port *member[SHM_MEMBERS];
};

_Static_assert(UMBRA_SHM_VECTORS == IVSHMEM_VECTORS, "a doorbell vector is an MSI-X entry");

static struct shm_region regions[SHM_REGIONS];
static u32 n_regions;

static struct shm_region *by_name(const char *name, size_t len)
{
	for (u32 i = 0; i < n_regions; i++)
		if (strlen(regions[i].name) == len && !memcmp(regions[i].name, name, len))
			return &regions[i];
	return NULL;
}

bool shm_declare(const char *val)
{
	const char *colon = strchr(val, ':');
	size_t len = colon ? (size_t)(colon - val) : strlen(val);
	u64 bytes;

	if (!colon || !len || len >= SHM_NAME_LEN) {
		kprintf("umbra: shm=%s: expected shm=NAME:SIZE (a name of 1-%u characters)\n", val,
			SHM_NAME_LEN - 1);
		return false;
	}
	if (!parse_size(colon + 1, &bytes) || !bytes || (bytes & (PAGE_SIZE - 1))) {
		kprintf("umbra: shm=%s: the size must be a non-zero multiple of 4 KiB (K, M or G)\n",
			val);
		return false;
	}
	if (by_name(val, len)) {
		kprintf("umbra: shm=%s: region %.*s is declared twice\n", val, (int)len, val);
		return false;
	}
	if (n_regions == SHM_REGIONS) {
		kprintf("umbra: shm=%s: more than %u regions\n", val, SHM_REGIONS);
		return false;
	}
	struct shm_region *r = &regions[n_regions++];
	memcpy(r->name, val, len);
	r->name[len] = 0;
	r->bytes = bytes;
	return true;
}

void shm_init(void)
{
	u64 next = PCI_BUS_FIXED_BASE;

	for (u32 i = 0; i < n_regions; i++) {
		struct shm_region *r = &regions[i];
		u64 npages = r->bytes >> PAGE_SHIFT;
		r->bar = PAGE_SIZE;
		while (r->bar < r->bytes)
			r->bar <<= 1;
		u64 at = ALIGN_UP(next, r->bar);
		if (at >= PCI_BUS_HOLE_END || r->bar > PCI_BUS_HOLE_END - at) {
			kprintf("umbra: shm %s refused: no room for %lu KiB in the guests' PCI hole "
				"(0x%llx-0x%llx)\n",
				r->name, r->bytes >> 10, (unsigned long long)PCI_BUS_FIXED_BASE,
				(unsigned long long)PCI_BUS_HOLE_END);
			continue;
		}
		r->hpa = palloc_alloc_contig(npages, npages >= 512 ? 512 : 1);
		if (!r->hpa) {
			kprintf("umbra: shm %s refused: %lu KiB asked, %lu KiB free\n", r->name,
				r->bytes >> 10, (u64)palloc_free_pages() << 2);
			continue;
		}
		r->gpa = at;
		r->ok = true;
		next = at + r->bar;
		kprintf("umbra: shm %s: %lu KiB at 0x%llx in every guest that has it\n", r->name,
			r->bytes >> 10, (unsigned long long)r->gpa);
	}
}

/* One shm= word of the guest's line, in its order (its form was checked by the parser). */
static bool join_one(struct vm *vm, const struct vm_config_shm *c)
{
	const char *ro = c->ro ? ":ro" : "";
	struct shm_region *r = by_name(c->name, strlen(c->name));

	if (!r) {
		kprintf("guest %s: shm=%s%s: Umbra's line declares no region %s\n", vm->name,
			c->name, ro, c->name);
		return false;
	}
	if (!r->ok) {
		kprintf("guest %s: shm=%s%s: region %s was refused at boot\n", vm->name, c->name,
			ro, r->name);
		return false;
	}
	for (u32 k = 0; k < vm->n_shm; k++)
		if (&regions[vm->shm[k].region] == r) {
			kprintf("guest %s: shm=%s%s: region %s given twice\n", vm->name, c->name,
				ro, r->name);
			return false;
		}
	/* The parser kept the guest within SHM_PER_GUEST. */
	if (r->n == SHM_MEMBERS) {
		kprintf("guest %s: shm=%s%s: more than %u regions per guest or %u guests per region\n",
			vm->name, c->name, ro, SHM_PER_GUEST, SHM_MEMBERS);
		return false;
	}
	vm->shm[vm->n_shm++] = (struct shm_port){ .region = (u8)(r - regions), .ro = c->ro };
	return true;
}

bool shm_join(struct vm *vm)
{
	for (u32 k = 0; k < vm->config.n_shm; k++)
		if (!join_one(vm, &vm->config.shm[k]))
			return false;
	return true;
}

/* ---- the ivshmem function of each region ---- */
static bool vfn_intx(void *ctx)
{
	return ivshmem_intx(&((struct shm_port *)ctx)->dev);
}

static u32 vfn_read(void *ctx, unsigned bar, u64 off, unsigned len)
{
	return ivshmem_read(&((struct shm_port *)ctx)->dev, bar, off, len);
}

static void vfn_write(void *ctx, unsigned bar, u64 off, unsigned len, u32 val)
{
	ivshmem_write(&((struct shm_port *)ctx)->dev, bar, off, len, val);
}

static u32 vfn_cap_read(void *ctx, u16 reg)
{
	return ivshmem_cap_read(&((struct shm_port *)ctx)->dev, reg);
}

static void vfn_cap_write(void *ctx, u16 reg, u32 val, unsigned bytes)
{
	ivshmem_cap_write(&((struct shm_port *)ctx)->dev, reg, val, bytes);
}

static const struct pci_vfn_ops ivshmem_ops = { .intx = vfn_intx,
						.read = vfn_read,
						.write = vfn_write,
						.cap_read = vfn_cap_read,
						.cap_write = vfn_cap_write };

/* An MSI-X message of the guest's ivshmem function, as an assigned function's. */
static void ivshmem_msi(void *ctx, u64 addr, u32 data)
{
	msi_send(((struct shm_port *)ctx)->vm, addr, data);
}

/* The doorbell register: as SHM_RING, but a register write has no result to give, so a bad
 * one is only counted. */
static void doorbell(void *ctx, u16 peer, u16 vector)
{
	struct shm_port *p = ctx;
	if (shm_ring(p->vm, (u64)(p - p->vm->shm), peer, vector) < 0)
		p->refused++;
}

void shm_commit(struct vm *vm)
{
	for (u32 k = 0; k < vm->n_shm; k++) {
		struct shm_port *p = &vm->shm[k];
		struct shm_region *r = &regions[p->region];
		p->vm = vm;
		p->peer_id = (u8)r->n;
		r->member[r->n++] = p;
		ivshmem_reset(&p->dev, p->peer_id, doorbell, ivshmem_msi, p);
		p->vfn = (struct pci_vfn){ .id = IVSHMEM_DEVICE << 16 | IVSHMEM_VENDOR,
					   .class_rev = IVSHMEM_CLASS_REV,
					   .subsystem = 0x1100u << 16 | IVSHMEM_VENDOR,
					   .cap = IVSHMEM_MSIX_CAP,
					   .reset_cmd = PCI_CMD_MEM,
					   .ops = &ivshmem_ops,
					   .ctx = p };
		kprintf("guest %s: shm %s at 0x%llx, %lu KiB, peer %u%s\n", vm->name, r->name,
			(unsigned long long)r->gpa, r->bytes >> 10, p->peer_id,
			p->ro ? ", read-only" : "");
	}
}

void shm_reset(struct vm *vm)
{
	for (u32 k = 0; k < vm->n_shm; k++) {
		struct shm_port *p = &vm->shm[k];
		ivshmem_reset(&p->dev, p->peer_id, doorbell, ivshmem_msi, p);
		memset(p->bound, 0, sizeof(p->bound));
		p->bound_mask = 0;
		__atomic_store_n(&p->rung, 0, __ATOMIC_RELEASE);
	}
}

void shm_pci_attach(struct vm *vm)
{
	struct pci_bus *b = &vm->board.pci;
	for (u32 k = 0; k < vm->n_shm; k++) {
		struct shm_port *p = &vm->shm[k];
		const struct shm_region *r = &regions[p->region];
		struct pci_bar bars[PCI_MAX_BARS] = {
			[0] = { .kind = PCI_BAR_MEM32, .size = IVSHMEM_BAR0_SIZE },
			[1] = { .kind = PCI_BAR_MEM32, .size = IVSHMEM_BAR1_SIZE },
			[2] = { .kind = PCI_BAR_MEM64,
				.prefetch = true,
				.base = r->hpa,
				.size = r->bar },
		};
		u64 fixed[PCI_MAX_BARS] = { [2] = r->gpa };
		int dev = pci_bus_add_virtual(b, &p->vfn, bars, fixed);
		if (dev <= 0) {
			kprintf("guest %s: shm %s: its PCI bus is full: the region is not mapped\n",
				vm->name, r->name);
			continue;
		}
		struct pci_bus_bar *bar2 = &b->fn[dev - 1].bar[2];
		bar2->slot = memslots_dev_add(&vm->mem, r->hpa, r->bytes >> PAGE_SHIFT);
		if (bar2->slot < 0) {
			kprintf("guest %s: shm %s: no memory slot left: the region is not mapped\n",
				vm->name, r->name);
			continue;
		}
		bar2->nslots = 1;
		vm->mem.dev[bar2->slot].shared = true;
		vm->mem.dev[bar2->slot].readonly = p->ro;
	}
}

/* ---- doorbells ---- */
s64 shm_ring(struct vm *from, u64 k, u64 peer, u64 vector)
{
	if (k >= from->n_shm)
		return -UMBRA_ENOENT;
	struct shm_port *p = &from->shm[k];
	const struct shm_region *r = &regions[p->region];
	if (vector >= UMBRA_SHM_VECTORS)
		return -UMBRA_EINVAL;
	if (peer >= r->n || vm_ended(r->member[peer]->vm))
		return -UMBRA_ENOENT;
	struct shm_port *t = r->member[peer];
	u32 bit = 1u << vector;
	p->rings++;
	if (__atomic_fetch_or(&t->rung, bit, __ATOMIC_ACQ_REL) & bit) {
		p->coalesced++;
		return 1;
	}
	__atomic_add_fetch(&t->vm->dev_gen, 1, __ATOMIC_RELEASE);
	ipi_kick(&t->vm->vcpus[0]);
	return 0;
}

s64 shm_bind(struct vm *vm, u64 k, u64 vector, u64 idt)
{
	if (k >= vm->n_shm)
		return -UMBRA_ENOENT;
	/* Vectors 0-31 are the architecture's exceptions. */
	if (vector >= UMBRA_SHM_VECTORS || (idt && (idt < 32 || idt > 255)))
		return -UMBRA_EINVAL;
	struct shm_port *p = &vm->shm[k];
	p->bound[vector] = (u8)idt;
	if (idt)
		p->bound_mask |= 1u << vector;
	else
		p->bound_mask &= ~(1u << vector);
	vm_devices_touched(vm);
	return 0;
}

s64 shm_info(const struct vm *vm, u64 k, struct umbra_shm_info *out)
{
	if (k >= vm->n_shm)
		return -UMBRA_ENOENT;
	const struct shm_port *p = &vm->shm[k];
	const struct shm_region *r = &regions[p->region];
	*out = (struct umbra_shm_info){ .gpa = r->gpa,
					.size = r->bytes,
					.peer_id = p->peer_id,
					.peers = r->n,
					.flags = p->ro ? UMBRA_SHM_RO : 0,
					.vectors = UMBRA_SHM_VECTORS };
	memcpy(out->name, r->name, sizeof(out->name));
	return 0;
}

static u32 rung(const struct shm_port *p)
{
	return __atomic_load_n(&p->rung, __ATOMIC_ACQUIRE);
}

bool shm_irq_pending(const struct vcpu *v)
{
	if (v->id)
		return false;
	for (u32 k = 0; k < v->vm->n_shm; k++)
		if (rung(&v->vm->shm[k]) & v->vm->shm[k].bound_mask)
			return true;
	return false;
}

u8 shm_irq_ack(struct vcpu *v)
{
	for (u32 k = 0; k < v->vm->n_shm; k++) {
		struct shm_port *p = &v->vm->shm[k];
		u32 bits = rung(p) & p->bound_mask;
		if (!bits)
			continue;
		u32 bit = bits & -bits;
		__atomic_fetch_and(&p->rung, ~bit, __ATOMIC_ACQ_REL);
		p->taken++;
		return p->bound[__builtin_ctz(bit)];
	}
	return 0;
}

void shm_fold_intx(struct vm *vm)
{
	for (u32 k = 0; k < vm->n_shm; k++) {
		struct shm_port *p = &vm->shm[k];
		if (!(rung(p) & ~p->bound_mask))
			continue;
		u32 got = __atomic_fetch_and(&p->rung, p->bound_mask, __ATOMIC_ACQ_REL) &
			  ~p->bound_mask;
		if (!got)
			continue;
		p->taken += (u64)__builtin_popcount(got);
		for (unsigned v = 0; v < UMBRA_SHM_VECTORS; v++)
			if (got & BIT(v))
				ivshmem_notify(&p->dev, v);
	}
}

bool shm_may_ring(const struct vm *vm)
{
	return vm->n_shm != 0;
}

void shm_report(const struct vm *vm)
{
	for (u32 k = 0; k < vm->n_shm; k++) {
		const struct shm_port *p = &vm->shm[k];
		kprintf("guest %s: shm %s peer %u: rang %lu (coalesced %lu, refused %lu), took %lu\n",
			vm->name, regions[p->region].name, p->peer_id, p->rings, p->coalesced,
			p->refused, p->taken);
	}
}
