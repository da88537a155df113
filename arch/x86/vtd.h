/* SPDX-License-Identifier: GPL-2.0-only */
/* Intel VT-d remapping hardware: its registers, its in-memory tables, fault records, and the driver's interface. */
#ifndef ARCH_X86_VTD_H
#define ARCH_X86_VTD_H

#include "arch/x86/iommu_pt.h"
#include "lib/types.h"

/* Register offsets (VT-d spec 11.4). */
/* clang-format off */
#define VTD_REG_VER    0x00
#define VTD_REG_CAP    0x08
#define VTD_REG_ECAP   0x10
#define VTD_REG_GCMD   0x18
#define VTD_REG_GSTS   0x1c
#define VTD_REG_RTADDR 0x20
#define VTD_REG_CCMD   0x28
#define VTD_REG_FSTS   0x34
#define VTD_REG_FECTL  0x38

/* CAP and ECAP fields. */
#define VTD_CAP_ND(c)    ((u32)((c) & 7))                        /* 2^(4 + 2 ND) domains */
#define VTD_CAP_SAGAW(c) ((u32)(((c) >> 8) & 0x1f))              /* bit 1: 3 levels, bit 2: 4 */
#define VTD_CAP_MGAW(c)  ((u32)(((c) >> 16) & 0x3f) + 1)         /* address width in bits */
#define VTD_CAP_FRO(c)   ((u32)(((c) >> 24) & 0x3ff) * 16)       /* first fault record */
#define VTD_CAP_NFR(c)   ((u32)(((c) >> 40) & 0xff) + 1)         /* fault records */
#define VTD_ECAP_QI      (1ull << 1)                             /* queued invalidation */
#define VTD_ECAP_IRO(e)  ((u32)(((e) >> 8) & 0x3ff) * 16)        /* IOTLB registers */

/* GCMD commands and the GSTS bits that report them. */
#define VTD_GCMD_TE   (1u << 31)
#define VTD_GCMD_SRTP (1u << 30)
#define VTD_GSTS_TES  (1u << 31)
#define VTD_GSTS_RTPS (1u << 30)
/* Enables GCMD keeps (TE, QIE, IRE, CFI): a command is written with these, never the one-shots. */
#define VTD_GSTS_KEEP 0x86800000u

/* Context-command register: invalidate, global granularity. */
#define VTD_CCMD_ICC    (1ull << 63)
#define VTD_CCMD_GLOBAL (1ull << 61)
/* IOTLB invalidate register (at ECAP.IRO + 8): invalidate, global, drain reads and writes. */
#define VTD_IOTLB_IVT    (1ull << 63)
#define VTD_IOTLB_GLOBAL (1ull << 60)
#define VTD_IOTLB_DR     (1ull << 49)
#define VTD_IOTLB_DW     (1ull << 48)

/* Fault event control: interrupt masked (the fault log is polled). */
#define VTD_FECTL_IM    (1u << 31)
/* Fault status: overflow, pending, index of the first pending record. */
#define VTD_FSTS_PFO    (1u << 0)
#define VTD_FSTS_PPF    (1u << 1)
#define VTD_FSTS_FRI(s) (((s) >> 8) & 0xff)
/* clang-format on */

/* A root, context or fault record: 128 bits. */
struct vtd_entry {
	u64 lo, hi;
};

/* clang-format off */
#define VTD_PRESENT   1ull
#define VTD_ADDR_MASK 0x000ffffffffff000ull
/* clang-format on */
/* Second-level entries: read, write (a non-leaf entry needs both to let either through). */
#define VTD_SL_R 1ull
#define VTD_SL_W 2ull

/* Levels the unit's SAGAW allows, preferring 4; 0 when it supports neither 3 nor 4. */
u8 vtd_levels(u64 cap);
/* A domain is a second-level page table (built by iommu_pt_* in this format). */
extern const struct iommu_pt_format vtd_sl_format;
struct vtd_entry vtd_root_entry(u64 context_table);
/* Legacy mode, untranslated requests through the second-level table only (TT 0). */
struct vtd_entry vtd_context_entry(const struct iommu_pt *d);

/* A decoded primary fault record (VT-d 11.4.14). */
struct vtd_fault {
	u16 sid; /* requester ID */
	u8 reason;
	bool read; /* else a write */
	u64 addr;  /* page address of the faulting request */
};
/* False when the record holds no fault (F clear). */
bool vtd_fault_decode(struct vtd_entry rec, struct vtd_fault *f);
const char *vtd_fault_reason(u8 reason);

/* One remapping unit as the driver runs it. */
struct vtd_unit {
	volatile u8 *regs;
	u64 base;
	u64 cap, ecap;
	u8 levels;
	u32 fro, nfr, iro;
	u64 root_pa;
	struct vtd_entry *root;
	bool on;	   /* translation enabled */
	u64 lost;	   /* faults the unit dropped (overflow) */
	const char *error; /* why the unit was left off */
	/* Host tests only: the register block's answer to a command, run before each read of a
	 * wait (NULL on hardware, which answers by itself). */
	void (*model)(volatile u8 *regs);
};

/* Register block bytes the driver touches, from CAP and ECAP. */
u32 vtd_regs_span(u64 cap, u64 ecap);
/*
 * Reads CAP/ECAP, gives the unit an empty root table (every request faults), invalidates its
 * caches and enables translation. Every wait is bounded: a unit that does not answer gets
 * u->error and -1, and is left off.
 */
int vtd_unit_init(struct vtd_unit *u, volatile void *regs, u64 base, const struct iommu_mem *m,
		  void (*model)(volatile u8 *regs));
/* Points requester ID rid at domain d, allocating its bus's context table; -1 with u->error
 * when no page is left or rid already has a context entry. Invalidates the caches. */
int vtd_attach(struct vtd_unit *u, const struct iommu_mem *m, u16 rid, const struct iommu_pt *d);
/* Takes rid's context entry away again (a guest refused after some of its devices attached). */
void vtd_detach(struct vtd_unit *u, const struct iommu_mem *m, u16 rid);
/* Hands each recorded fault to report once, clears it; never allocates. Returns the count. */
u32 vtd_poll_faults(struct vtd_unit *u, void (*report)(void *ctx, const struct vtd_fault *f),
		    void *ctx);

#endif
