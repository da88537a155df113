/* SPDX-License-Identifier: GPL-2.0-only */
/* AMD-Vi: the IOMMU's registers, its in-memory formats (device table, I/O page tables, commands, events) and the driver's interface. */
#ifndef ARCH_X86_AMDVI_H
#define ARCH_X86_AMDVI_H

#include "arch/x86/iommu_pt.h"
#include "lib/types.h"

/* MMIO registers (AMD IOMMU spec 48882 rev 3, 3.4); the block is 16 KiB. */
/* clang-format off */
#define AMDVI_REG_DEVTAB     0x0000
#define AMDVI_REG_CMDBUF     0x0008
#define AMDVI_REG_EVTLOG     0x0010
#define AMDVI_REG_CONTROL    0x0018
#define AMDVI_REG_EXCL_BASE  0x0020
#define AMDVI_REG_EFR        0x0030
#define AMDVI_REG_CMD_HEAD   0x2000
#define AMDVI_REG_CMD_TAIL   0x2008
#define AMDVI_REG_EVT_HEAD   0x2010
#define AMDVI_REG_EVT_TAIL   0x2018
#define AMDVI_REG_STATUS     0x2020
#define AMDVI_REGS_SPAN      0x4000

/* The capability block in the IOMMU's PCI configuration space (3.3.1): its header dword. */
#define AMDVI_CAP_ID         0x0f                  /* Secure Device */
#define AMDVI_CAP_TYPE_IOMMU 3
#define AMDVI_CAP_IS_IOMMU(h) (((h) & 0xff) == AMDVI_CAP_ID && (((h) >> 16) & 7) == AMDVI_CAP_TYPE_IOMMU)
#define AMDVI_CAP_EFRSUP     (1u << 27)            /* the Extended Feature register exists */

/* Control register. */
#define AMDVI_CTL_IOMMU_EN   (1ull << 0)
#define AMDVI_CTL_EVTLOG_EN  (1ull << 2)
#define AMDVI_CTL_EVTINT_EN  (1ull << 3)
#define AMDVI_CTL_WAITINT_EN (1ull << 4)
#define AMDVI_CTL_COHERENT   (1ull << 10)          /* its table and ring accesses snoop caches */
#define AMDVI_CTL_CMDBUF_EN  (1ull << 12)
/* Status register: the first three are write-1-to-clear. */
#define AMDVI_STS_EVT_OVERFLOW (1u << 0)
#define AMDVI_STS_EVT_INT      (1u << 1)
#define AMDVI_STS_WAIT_INT     (1u << 2)
#define AMDVI_STS_EVT_RUN      (1u << 3)
#define AMDVI_STS_CMD_RUN      (1u << 4)
/* Extended Feature register. */
#define AMDVI_EFR_IA         (1ull << 6)           /* INVALIDATE_IOMMU_ALL */

/* The command buffer and the event log: one 4 KiB page each, 256 entries of 16 bytes
 * (ComLen/EventLen 8 in bits 59:56 of their base registers, the smallest allowed); the head
 * and tail registers hold byte offsets (bits 18:4). */
#define AMDVI_RING_LOG2      8
#define AMDVI_RING_ENTRIES   (1u << AMDVI_RING_LOG2)
#define AMDVI_RING_LEN(log2) ((u64)(log2) << 56)
#define AMDVI_PTR_MASK       0x7fff0u
#define AMDVI_ADDR_MASK      0x000ffffffffff000ull
/* clang-format on */

/* A command or an event log entry: 128 bits. */
struct amdvi_rec {
	u64 lo, hi;
};

/* Command opcodes (2.4, bits 63:60 of the first quadword). */
/* clang-format off */
#define AMDVI_CMD_COMPLETION_WAIT  0x1
#define AMDVI_CMD_INV_DEVTAB_ENTRY 0x2
#define AMDVI_CMD_INV_IOMMU_PAGES  0x3
#define AMDVI_CMD_INV_IOMMU_ALL    0x8
#define AMDVI_CMD_OP(c)            ((u32)((c).lo >> 60))
#define AMDVI_WAIT_STORE           1ull            /* COMPLETION_WAIT.S: store hi to the address */
#define AMDVI_INV_S                1ull            /* INVALIDATE_IOMMU_PAGES: a range... */
#define AMDVI_INV_PDE              2ull            /* ...its directory entries too */
#define AMDVI_INV_ALL_PAGES        0x7ffffffffffff000ull   /* with S: every page of the domain */
/* clang-format on */

struct amdvi_rec amdvi_cmd_wait(u64 store_pa, u64 data);
struct amdvi_rec amdvi_cmd_inv_dte(u16 rid);
struct amdvi_rec amdvi_cmd_inv_domain(u16 did);
struct amdvi_rec amdvi_cmd_inv_all(void);
/* Puts c at byte offset *tail of a ring of AMDVI_RING_ENTRIES, advancing *tail with
 * wraparound; false, nothing written, when that would reach head (the ring is full). */
bool amdvi_ring_put(struct amdvi_rec *ring, u32 *tail, u32 head, struct amdvi_rec c);

/* Device table entry (2.2.2): 256 bits, indexed by requester ID. */
struct amdvi_dte {
	u64 q[4];
};
/* clang-format off */
#define AMDVI_DTE_V        (1ull << 0)
#define AMDVI_DTE_TV       (1ull << 1)
#define AMDVI_DTE_MODE(m)  ((u64)(m) << 9)         /* 0: no translation, 1-6: levels */
#define AMDVI_DTE_MODE_OF(q0) ((u32)((q0) >> 9) & 7)
#define AMDVI_DTE_IR       (1ull << 61)
#define AMDVI_DTE_IW       (1ull << 62)
#define AMDVI_DTE_DID(q1)  ((u16)(q1))

/* I/O page table entries, the host ("v1") format (2.2.3): present, next level (0 in a 4 KiB
 * leaf), address, read and write permission (ANDed down the walk, so directories carry both). */
#define AMDVI_PTE_PR       (1ull << 0)
#define AMDVI_PTE_NEXT(l)  ((u64)(l) << 9)
#define AMDVI_PTE_NEXT_OF(e) ((u32)((e) >> 9) & 7)
#define AMDVI_PTE_IR       (1ull << 61)
#define AMDVI_PTE_IW       (1ull << 62)
/* clang-format on */

/* Requester IDs 0..last need a table of this many 4 KiB pages: a power of two, 1 to 512
 * (DevTabBar.Size is the count less one). */
u32 amdvi_devtab_pages(u16 last);
/* A domain is an I/O page table (built by iommu_pt_* in this format). */
extern const struct iommu_pt_format amdvi_pt_format;
/* Translated through d, reads and writes allowed as its leaves say; no interrupt remapping. */
struct amdvi_dte amdvi_dte_domain(const struct iommu_pt *d);
/* A requester nobody owns: every DMA of it faults and is logged (see amdvi_tables.c). */
struct amdvi_dte amdvi_dte_blocked(u64 empty_table);

/* Event log entries (2.5): a code in bits 63:60 of the first quadword. */
/* clang-format off */
#define AMDVI_EVT_ILLEGAL_DTE       0x1
#define AMDVI_EVT_IO_PAGE_FAULT     0x2
#define AMDVI_EVT_DEVTAB_HW_ERROR   0x3
#define AMDVI_EVT_PAGETAB_HW_ERROR  0x4
#define AMDVI_EVT_ILLEGAL_COMMAND   0x5
#define AMDVI_EVT_COMMAND_HW_ERROR  0x6
#define AMDVI_EVT_CODES             16
/* IO_PAGE_FAULT flags (bits 27:16 of the second dword): the ones the report names. */
#define AMDVI_EVF_I   (1u << 3)    /* an interrupt request, not a memory access */
#define AMDVI_EVF_PR  (1u << 4)    /* the page (or DTE) was present */
#define AMDVI_EVF_RW  (1u << 5)    /* a write (meaningful with PR) */
#define AMDVI_EVF_PE  (1u << 6)    /* the rights did not allow it */
/* clang-format on */

struct amdvi_event {
	u8 code;
	u16 rid;   /* requester ID (device ID) */
	u16 did;   /* domain ID, in the events that carry one */
	u16 flags; /* AMDVI_EVF_* */
	bool write;
	u64 addr;
};
void amdvi_event_decode(struct amdvi_rec rec, struct amdvi_event *e);
const char *amdvi_event_name(u8 code);
/* Whether the event is a device's access the IOMMU blocked (it names the requester). */
bool amdvi_event_is_dma(u8 code);

/* One IOMMU as the driver runs it. */
struct amdvi_unit {
	volatile u8 *regs;
	u64 base;
	u32 cap; /* the capability header dword */
	u64 efr; /* 0 without one (CAP.EFRSup clear) */
	u8 levels;
	u16 last; /* highest requester ID the device table holds */
	u64 devtab_pa, cmd_pa, evt_pa, sem_pa, empty_pa;
	u32 devtab_pages;
	struct amdvi_dte *devtab;
	struct amdvi_rec *cmd;
	const volatile struct amdvi_rec *evt;
	volatile u64 *sem; /* where COMPLETION_WAIT stores */
	u64 seq;	   /* the value the last COMPLETION_WAIT stores */
	u32 cmd_tail, evt_head;
	bool on;
	u32 domains;
	u64 lost; /* event log overflows: events the unit dropped */
	u64 events[AMDVI_EVT_CODES];
	const char *error; /* why the unit was left off */
	/* Host tests only: the register block's answer, run before each read of a wait (NULL
	 * on hardware, which answers by itself). */
	void (*model)(volatile u8 *regs);
};

/*
 * Checks the capability header, reads the Extended Features, gives the unit a device table
 * whose every entry blocks DMA and logs it, a command buffer and an event log (polled: its
 * interrupt stays off), enables it and invalidates its caches. Every wait is bounded: a unit
 * that does not answer gets u->error and -1, and is left off with nothing allocated.
 */
int amdvi_unit_init(struct amdvi_unit *u, volatile void *regs, u64 base, u32 cap, u16 last,
		    const struct iommu_mem *m, void (*model)(volatile u8 *regs));
/* Points requester ID rid at domain d and invalidates; -1 with u->error when rid is beyond
 * the table, already has a domain, or the unit did not complete the invalidation. */
int amdvi_attach(struct amdvi_unit *u, u16 rid, const struct iommu_pt *d);
/* Gives rid the blocking entry again (a guest refused after some of its devices attached). */
void amdvi_detach(struct amdvi_unit *u, u16 rid);
/* Hands each logged event to report once and consumes it; never allocates. Counts them in
 * u->events by code; an overflow is counted in u->lost and the log restarted. */
u32 amdvi_poll_events(struct amdvi_unit *u, void (*report)(void *ctx, const struct amdvi_event *e),
		      void *ctx);

#endif
