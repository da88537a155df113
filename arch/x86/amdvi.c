/* SPDX-License-Identifier: GPL-2.0-only */
/* The AMD-Vi driver: one IOMMU brought up with every device blocked, devices pointed at domains, the event log read. */
#include "arch/x86/amdvi.h"

/* Reads of a unit that never answers: the bound on every wait (under QEMU a command completes
 * when its tail is written, so the first read sees it). */
#define AMDVI_SPINS 1000000u
#define RING_BYTES (AMDVI_RING_ENTRIES * sizeof(struct amdvi_rec))

static u32 rd32(const struct amdvi_unit *u, u32 off)
{
	return *(volatile u32 *)(u->regs + off);
}
static u64 rd64(const struct amdvi_unit *u, u32 off)
{
	return *(volatile u64 *)(u->regs + off);
}

/* The tables and commands are plain memory: written before the register that hands them over. */
static void wr32(struct amdvi_unit *u, u32 off, u32 v)
{
	__asm__ volatile("" ::: "memory");
	*(volatile u32 *)(u->regs + off) = v;
}

static void wr64(struct amdvi_unit *u, u32 off, u64 v)
{
	__asm__ volatile("" ::: "memory");
	*(volatile u64 *)(u->regs + off) = v;
}

static int fail(struct amdvi_unit *u, const char *why)
{
	u->error = why;
	return -1;
}

static void answer(const struct amdvi_unit *u)
{
	if (u->model)
		u->model(u->regs);
}

/* Until (status & mask) == want; false after AMDVI_SPINS reads. */
static bool wait_status(const struct amdvi_unit *u, u32 mask, u32 want)
{
	for (u32 i = 0; i < AMDVI_SPINS; i++) {
		answer(u);
		if ((rd32(u, AMDVI_REG_STATUS) & mask) == want)
			return true;
	}
	return false;
}

/* Where the unit reads next. QEMU shows the end of the ring rather than 0 after it wraps. */
static u32 cmd_head(const struct amdvi_unit *u)
{
	return (u32)((rd32(u, AMDVI_REG_CMD_HEAD) & AMDVI_PTR_MASK) % RING_BYTES);
}

/* Queues c; with the ring full, hands the unit what is queued and waits (bounded) for room. */
static bool queue(struct amdvi_unit *u, struct amdvi_rec c)
{
	if (amdvi_ring_put(u->cmd, &u->cmd_tail, cmd_head(u), c))
		return true;
	wr64(u, AMDVI_REG_CMD_TAIL, u->cmd_tail);
	for (u32 i = 0; i < AMDVI_SPINS; i++) {
		answer(u);
		if (amdvi_ring_put(u->cmd, &u->cmd_tail, cmd_head(u), c))
			return true;
	}
	return false;
}

/* Hands over the queued commands behind a COMPLETION_WAIT that stores a new sequence number;
 * true once the store landed, so every command before it has completed. */
static bool run_queued(struct amdvi_unit *u)
{
	u->seq++;
	if (!queue(u, amdvi_cmd_wait(u->sem_pa, u->seq)))
		return false;
	wr64(u, AMDVI_REG_CMD_TAIL, u->cmd_tail);
	for (u32 i = 0; i < AMDVI_SPINS; i++) {
		answer(u);
		if (*u->sem == u->seq)
			return true;
	}
	return false;
}

/* Every cached device entry and translation: INVALIDATE_IOMMU_ALL where the unit has it,
 * else each device entry and domain 0 (a guest's domain is invalidated when it is attached). */
static bool invalidate_all(struct amdvi_unit *u)
{
	if (u->efr & AMDVI_EFR_IA) {
		if (!queue(u, amdvi_cmd_inv_all()))
			return false;
	} else {
		for (u32 rid = 0; rid <= u->last; rid++)
			if (!queue(u, amdvi_cmd_inv_dte((u16)rid)))
				return false;
		if (!queue(u, amdvi_cmd_inv_domain(0)))
			return false;
	}
	return run_queued(u);
}

static void free_tables(struct amdvi_unit *u, const struct iommu_mem *m)
{
	for (u32 i = 0; u->devtab_pa && i < u->devtab_pages; i++)
		m->free(m->ctx, u->devtab_pa + 4096ull * i);
	const u64 pages[] = { u->cmd_pa, u->evt_pa, u->sem_pa, u->empty_pa };
	for (u32 i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		if (pages[i])
			m->free(m->ctx, pages[i]);
	u->devtab_pa = u->cmd_pa = u->evt_pa = u->sem_pa = u->empty_pa = 0;
	u->devtab = NULL;
}

static int alloc_tables(struct amdvi_unit *u, const struct iommu_mem *m)
{
	u->devtab_pages = amdvi_devtab_pages(u->last);
	u->devtab_pa = m->alloc_contig(m->ctx, u->devtab_pages);
	u->cmd_pa = m->alloc(m->ctx);
	u->evt_pa = m->alloc(m->ctx);
	u->sem_pa = m->alloc(m->ctx);
	u->empty_pa = m->alloc(m->ctx);
	if (!u->devtab_pa || !u->cmd_pa || !u->evt_pa || !u->sem_pa || !u->empty_pa)
		return -1;
	u->devtab = m->p2v(m->ctx, u->devtab_pa);
	u->cmd = m->p2v(m->ctx, u->cmd_pa);
	u->evt = m->p2v(m->ctx, u->evt_pa);
	u->sem = m->p2v(m->ctx, u->sem_pa);
	/* The whole table, past the requester IDs asked for: a device the walk missed is blocked too. */
	u->last = (u16)(u->devtab_pages * (4096 / sizeof(struct amdvi_dte)) - 1);
	const struct amdvi_dte blocked = amdvi_dte_blocked(u->empty_pa);
	for (u32 rid = 0; rid <= u->last; rid++)
		u->devtab[rid] = blocked;
	return 0;
}

#define CONTROL_ON \
	(AMDVI_CTL_IOMMU_EN | AMDVI_CTL_COHERENT | AMDVI_CTL_EVTLOG_EN | AMDVI_CTL_CMDBUF_EN)

int amdvi_unit_init(struct amdvi_unit *u, volatile void *regs, u64 base, u32 cap, u16 last,
		    const struct iommu_mem *m, void (*model)(volatile u8 *regs))
{
	*u = (struct amdvi_unit){
		.regs = regs, .base = base, .cap = cap, .last = last, .levels = 4, .model = model
	};
	if (!AMDVI_CAP_IS_IOMMU(cap))
		return fail(u, "its PCI capability is not an IOMMU's");
	if (rd64(u, AMDVI_REG_CONTROL) == ~0ull)
		return fail(u, "registers read as all ones");
	if (cap & AMDVI_CAP_EFRSUP)
		u->efr = rd64(u, AMDVI_REG_EFR);
	/* The tables' bases may change only with the unit off (firmware may have left it on);
	 * interrupts stay off from here: the log is polled. */
	wr64(u, AMDVI_REG_CONTROL, 0);
	if (!wait_status(u, AMDVI_STS_CMD_RUN | AMDVI_STS_EVT_RUN, 0))
		return fail(u, "command buffer or event log never stopped");
	if (alloc_tables(u, m) < 0) {
		free_tables(u, m);
		return fail(u, "no memory for its tables");
	}
	wr32(u, AMDVI_REG_STATUS, AMDVI_STS_EVT_OVERFLOW | AMDVI_STS_EVT_INT | AMDVI_STS_WAIT_INT);
	wr64(u, AMDVI_REG_DEVTAB, u->devtab_pa | (u->devtab_pages - 1));
	wr64(u, AMDVI_REG_CMDBUF, u->cmd_pa | AMDVI_RING_LEN(AMDVI_RING_LOG2));
	wr64(u, AMDVI_REG_EVTLOG, u->evt_pa | AMDVI_RING_LEN(AMDVI_RING_LOG2));
	wr64(u, AMDVI_REG_CMD_HEAD, 0);
	wr64(u, AMDVI_REG_CMD_TAIL, 0);
	wr64(u, AMDVI_REG_EVT_HEAD, 0);
	wr64(u, AMDVI_REG_EVT_TAIL, 0);
	/* An exclusion range firmware set would let its addresses through untranslated. */
	wr64(u, AMDVI_REG_EXCL_BASE, 0);
	wr64(u, AMDVI_REG_CONTROL, CONTROL_ON);
	if (!wait_status(u, AMDVI_STS_CMD_RUN, AMDVI_STS_CMD_RUN))
		fail(u, "command buffer never ran (Status.CmdBufRun)");
	else if (!invalidate_all(u))
		fail(u, "COMPLETION_WAIT never stored: commands are not processed");
	u->on = !u->error;
	if (u->on)
		return 0;
	wr64(u, AMDVI_REG_CONTROL, 0);
	free_tables(u, m);
	return -1;
}

int amdvi_attach(struct amdvi_unit *u, u16 rid, const struct iommu_pt *d)
{
	if (!u->on)
		return fail(u, "unit is off");
	if (rid > u->last)
		return fail(u, "requester ID beyond its device table");
	struct amdvi_dte *e = &u->devtab[rid];
	if (e->q[0] != amdvi_dte_blocked(u->empty_pa).q[0])
		return fail(u, "requester ID already has a domain");
	struct amdvi_dte want = amdvi_dte_domain(d);
	/* The domain ID first: the unit may read the entry any time, and until the first
	 * quadword changes it still blocks. */
	e->q[1] = want.q[1];
	e->q[2] = want.q[2];
	e->q[3] = want.q[3];
	__asm__ volatile("" ::: "memory");
	e->q[0] = want.q[0];
	if (!queue(u, amdvi_cmd_inv_dte(rid)) || !queue(u, amdvi_cmd_inv_domain(d->did)) ||
	    !run_queued(u))
		return fail(u, "invalidation never completed (COMPLETION_WAIT)");
	return 0;
}

void amdvi_detach(struct amdvi_unit *u, u16 rid)
{
	if (!u->on || rid > u->last)
		return;
	struct amdvi_dte *e = &u->devtab[rid];
	u16 did = AMDVI_DTE_DID(e->q[1]);
	const struct amdvi_dte blocked = amdvi_dte_blocked(u->empty_pa);
	e->q[0] = blocked.q[0]; /* blocking again before the rest changes */
	__asm__ volatile("" ::: "memory");
	e->q[1] = blocked.q[1];
	e->q[2] = blocked.q[2];
	e->q[3] = blocked.q[3];
	if (queue(u, amdvi_cmd_inv_dte(rid)) && queue(u, amdvi_cmd_inv_domain(did)))
		(void)run_queued(u);
}

u32 amdvi_poll_events(struct amdvi_unit *u, void (*report)(void *ctx, const struct amdvi_event *e),
		      void *ctx)
{
	if (!u->on)
		return 0;
	u32 status = rd32(u, AMDVI_REG_STATUS), n = 0;
	u32 tail = (u32)((rd32(u, AMDVI_REG_EVT_TAIL) & AMDVI_PTR_MASK) % RING_BYTES);
	while (u->evt_head != tail) {
		const volatile struct amdvi_rec *r = &u->evt[u->evt_head / sizeof(*r)];
		struct amdvi_event e;
		amdvi_event_decode((struct amdvi_rec){ r->lo, r->hi }, &e);
		u->events[e.code % AMDVI_EVT_CODES]++;
		report(ctx, &e);
		n++;
		u->evt_head = (u32)((u->evt_head + sizeof(*r)) % RING_BYTES);
	}
	if (n)
		wr64(u, AMDVI_REG_EVT_HEAD, u->evt_head);
	if (status & AMDVI_STS_EVT_OVERFLOW) {
		/* A full log stops logging (2.5.1): counted, cleared, and logging restarted. */
		u->lost++;
		wr64(u, AMDVI_REG_CONTROL, CONTROL_ON & ~AMDVI_CTL_EVTLOG_EN);
		wr32(u, AMDVI_REG_STATUS, AMDVI_STS_EVT_OVERFLOW);
		wr64(u, AMDVI_REG_CONTROL, CONTROL_ON);
	}
	return n;
}
