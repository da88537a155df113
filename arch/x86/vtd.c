/* SPDX-License-Identifier: GPL-2.0-only */
/* The VT-d driver: one remapping unit brought up, devices pointed at domains, faults read and cleared. */
#include "arch/x86/vtd.h"

/* Reads of a unit that never answers: the bound on every wait (under QEMU a command completes
 * at the first read). */
#define VTD_SPINS 1000000u
#define ECAP_COHERENT 1ull /* ECAP.C: the unit snoops the CPU's caches when it walks tables */

static u32 rd32(const struct vtd_unit *u, u32 off)
{
	return *(volatile u32 *)(u->regs + off);
}
static u64 rd64(const struct vtd_unit *u, u32 off)
{
	return *(volatile u64 *)(u->regs + off);
}
static void wr32(struct vtd_unit *u, u32 off, u32 v)
{
	*(volatile u32 *)(u->regs + off) = v;
}
static void wr64(struct vtd_unit *u, u32 off, u64 v)
{
	*(volatile u64 *)(u->regs + off) = v;
}

/* Until (reg & mask) == want, the register 8 bytes wide or 4; false after VTD_SPINS reads. */
static bool wait_for(const struct vtd_unit *u, u32 off, bool wide, u64 mask, u64 want)
{
	for (u32 i = 0; i < VTD_SPINS; i++) {
		if (u->model)
			u->model(u->regs);
		if (((wide ? rd64(u, off) : rd32(u, off)) & mask) == want)
			return true;
	}
	return false;
}

/* A unit that does not snoop reads the tables from memory: write the lines back. */
static void sync_lines(const struct vtd_unit *u, const void *p, u64 len)
{
	if (u->ecap & ECAP_COHERENT)
		return;
	for (u64 off = 0; off < len; off += 64)
		__asm__ volatile("clflush %0" ::"m"(*((const volatile char *)p + off)));
	__asm__ volatile("mfence" ::: "memory");
}

static void sync_tables(const struct vtd_unit *u, const struct iommu_mem *m, u64 pa, u32 level)
{
	const u64 *t = m->p2v(m->ctx, pa);
	sync_lines(u, t, 4096);
	for (u32 i = 0; level > 1 && i < 512; i++)
		if (t[i] & (VTD_SL_R | VTD_SL_W))
			sync_tables(u, m, t[i] & VTD_ADDR_MASK, level - 1);
}

static int fail(struct vtd_unit *u, const char *why)
{
	u->error = why;
	return -1;
}

static bool command(struct vtd_unit *u, u32 cmd, u32 status)
{
	wr32(u, VTD_REG_GCMD, (rd32(u, VTD_REG_GSTS) & VTD_GSTS_KEEP) | cmd);
	return wait_for(u, VTD_REG_GSTS, false, status, status);
}

/* Global context-cache then IOTLB invalidation, through the registers. */
static int invalidate(struct vtd_unit *u)
{
	wr64(u, VTD_REG_CCMD, VTD_CCMD_ICC | VTD_CCMD_GLOBAL);
	if (!wait_for(u, VTD_REG_CCMD, true, VTD_CCMD_ICC, 0))
		return fail(u, "context-cache invalidation never completed");
	wr64(u, u->iro + 8, VTD_IOTLB_IVT | VTD_IOTLB_GLOBAL | VTD_IOTLB_DR | VTD_IOTLB_DW);
	if (!wait_for(u, u->iro + 8, true, VTD_IOTLB_IVT, 0))
		return fail(u, "IOTLB invalidation never completed");
	return 0;
}

u32 vtd_regs_span(u64 cap, u64 ecap)
{
	u32 faults = VTD_CAP_FRO(cap) + 16 * VTD_CAP_NFR(cap), iotlb = VTD_ECAP_IRO(ecap) + 16;
	return faults > iotlb ? faults : iotlb;
}

int vtd_unit_init(struct vtd_unit *u, volatile void *regs, u64 base, const struct iommu_mem *m,
		  void (*model)(volatile u8 *regs))
{
	*u = (struct vtd_unit){ .regs = regs, .base = base, .model = model };
	u->cap = rd64(u, VTD_REG_CAP);
	u->ecap = rd64(u, VTD_REG_ECAP);
	if (u->cap == ~0ull || u->ecap == ~0ull)
		return fail(u, "registers read as all ones");
	u->levels = vtd_levels(u->cap);
	if (!u->levels)
		return fail(u, "SAGAW offers neither 3- nor 4-level tables");
	u->fro = VTD_CAP_FRO(u->cap);
	u->nfr = VTD_CAP_NFR(u->cap);
	u->iro = VTD_ECAP_IRO(u->ecap);
	/* Register invalidation does not work while firmware's invalidation queue is on. */
	if (rd32(u, VTD_REG_GSTS) & (1u << 26))
		return fail(u, "queued invalidation left on by firmware (not supported yet)");
	/* Polled: firmware's fault interrupt, if it unmasked one, would reach Umbra unasked. */
	wr32(u, VTD_REG_FECTL, VTD_FECTL_IM);
	u->root_pa = m->alloc(m->ctx);
	if (!u->root_pa)
		return fail(u, "no page for the root table");
	u->root = m->p2v(m->ctx, u->root_pa);
	sync_lines(u, u->root, 4096);
	wr64(u, VTD_REG_RTADDR, u->root_pa); /* legacy mode: TTM 0 */
	if (!command(u, VTD_GCMD_SRTP, VTD_GSTS_RTPS))
		fail(u, "root table pointer never latched (GSTS.RTPS)");
	else if (!invalidate(u) && !command(u, VTD_GCMD_TE, VTD_GSTS_TES))
		fail(u, "translation never enabled (GSTS.TES)");
	u->on = !u->error;
	if (u->on)
		return 0;
	m->free(m->ctx, u->root_pa);
	u->root = NULL;
	return -1;
}

int vtd_attach(struct vtd_unit *u, const struct iommu_mem *m, u16 rid, const struct iommu_pt *d)
{
	if (!u->on)
		return fail(u, "unit is off");
	if (d->levels != u->levels)
		return fail(u, "domain's table depth is not the unit's");
	if (d->did >= 1u << (4 + 2 * VTD_CAP_ND(u->cap)))
		return fail(u, "domain ID beyond the unit's (CAP.ND)");
	if (!(u->ecap & ECAP_COHERENT))
		sync_tables(u, m, d->root, d->levels);
	struct vtd_entry *re = &u->root[rid >> 8];
	if (!(re->lo & VTD_PRESENT)) {
		u64 ctx = m->alloc(m->ctx);
		if (!ctx)
			return fail(u, "no page for a context table");
		sync_lines(u, m->p2v(m->ctx, ctx), 4096);
		*re = vtd_root_entry(ctx);
		sync_lines(u, re, sizeof(*re));
	}
	struct vtd_entry *ce =
		(struct vtd_entry *)m->p2v(m->ctx, re->lo & VTD_ADDR_MASK) + (rid & 0xff);
	if (ce->lo & VTD_PRESENT)
		return fail(u, "requester ID already has a context entry");
	struct vtd_entry e = vtd_context_entry(d);
	/* The upper half first: the unit may read the entry the moment it is present. */
	ce->hi = e.hi;
	__asm__ volatile("" ::: "memory");
	ce->lo = e.lo;
	sync_lines(u, ce, sizeof(*ce));
	return invalidate(u);
}

void vtd_detach(struct vtd_unit *u, const struct iommu_mem *m, u16 rid)
{
	const struct vtd_entry *re = &u->root[rid >> 8];
	if (!(re->lo & VTD_PRESENT))
		return;
	struct vtd_entry *ce =
		(struct vtd_entry *)m->p2v(m->ctx, re->lo & VTD_ADDR_MASK) + (rid & 0xff);
	ce->lo = 0;
	__asm__ volatile("" ::: "memory");
	ce->hi = 0;
	sync_lines(u, ce, sizeof(*ce));
	(void)invalidate(u);
}

u32 vtd_poll_faults(struct vtd_unit *u, void (*report)(void *ctx, const struct vtd_fault *f),
		    void *ctx)
{
	if (!u->on)
		return 0;
	u32 fsts = rd32(u, VTD_REG_FSTS), n = 0;
	if (!(fsts & (VTD_FSTS_PPF | VTD_FSTS_PFO)))
		return 0;
	/* Records fill round-robin from FRI; each one found is reported, then its F cleared. */
	for (u32 k = 0, i = VTD_FSTS_FRI(fsts) % u->nfr; k < u->nfr; k++, i = (i + 1) % u->nfr) {
		u32 off = u->fro + 16 * i;
		struct vtd_entry rec = { rd64(u, off), rd64(u, off + 8) };
		struct vtd_fault f;
		if (!vtd_fault_decode(rec, &f))
			break;
		report(ctx, &f);
		n++;
		wr32(u, off + 12, 1u << 31); /* F is write-1-to-clear */
	}
	if (fsts & VTD_FSTS_PFO) {
		u->lost++;
		wr32(u, VTD_REG_FSTS, VTD_FSTS_PFO);
	}
	return n;
}
