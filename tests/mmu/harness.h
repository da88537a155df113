/* SPDX-License-Identifier: GPL-2.0-only */
/* Host harness for mmu/: guest memory in slots, platform ops, a software CPU and a reference walker. */
#ifndef TESTS_MMU_HARNESS_H
#define TESTS_MMU_HARNESS_H

#include <stdio.h>
#include "mmu/mmu.h"

#define H_MAX_SLOTS 4
#define H_MAX_VCPUS 4
#define H_OLD_MAX 2048
#define H_TLB_ENTRIES 32

struct h_slot {
	struct mmu_slot s;
	u8 *mem; /* what the MMU and the software CPU see */
	u8 *ref; /* the reference machine's copy */
	u64 hpa_base;
};

/* Guest control state, mirrored in the reference machine. */
struct h_ctl {
	u64 cr0, cr4, efer, cr3;
	u64 pdptes[4]; /* the reference machine's PAE PDPTE cache */
};

/* One translation in a vCPU's modelled hardware TLB: what a walk of the shadow gave, kept until
 * the MMU asks that vCPU to flush (ops->flush_tlb), as with tagged TLBs (ASID/VPID). */
struct h_tlbe {
	u64 vpn;      /* gva >> 12, +1 (0: empty) */
	u64 hpa;      /* host frame */
	bool w, u, x; /* rights combined over the shadow walk */
};

struct harness {
	struct mmu_vm vm;
	struct mmu_vcpu vcpu[H_MAX_VCPUS];
	struct h_ctl ctl[H_MAX_VCPUS];
	unsigned nvcpus;
	struct h_slot slot[H_MAX_SLOTS];
	unsigned nslots;
	/* Host pages handed to the MMU: fake hpas below 4 GiB, index -> pointer. */
	void **hpages;
	unsigned nhpages, hpages_live;
	unsigned *hfree;
	unsigned nhfree;
	long page_limit; /* < 0: unlimited */
	u64 flushes;
	u64 flush_waits; /* write protections that completed their flushes at once */
	struct h_tlbe tlb[H_MAX_VCPUS][H_TLB_ENTRIES];
	u64 tlb_hits;  /* accesses the modelled TLB served */
	bool from_tlb; /* the last software-CPU access was a TLB hit */
	/* Per-access trace used by the differential checks. */
	u64 touched[16];
	unsigned ntouched;
	u64 emulated_writes, shadow_faults;
	u64 ctl_mismatches; /* CR3/mode loads where the MMU and the reference disagreed */
	/* The reference TLB, per vCPU: every value a guest entry held since that vCPU's last flush
	 * that covers it (what its TLB may still use), and the undo log of one reference access. */
	struct h_old {
		u64 gpa, val;
		unsigned size;
	} old[H_MAX_VCPUS][H_OLD_MAX];
	unsigned nold[H_MAX_VCPUS];
	struct h_old undo[16];
	unsigned nundo;
	bool logging;
	u64 leaf_gpa;	/* the last reference walk's 4 KiB leaf entry, or ~0 */
	u64 stale_hits; /* accesses the MMU served from an older entry, as a TLB may */
};

/* Access kinds. */
enum { ACC_READ, ACC_WRITE, ACC_FETCH };

struct h_access {
	u64 gva;
	int kind;
	bool user, ac;
	unsigned size; /* 1, 2, 4, 8; never crosses a page */
	u64 value;     /* to write */
};

enum { R_OK, R_FAULT, R_MMIO, R_ERROR };

struct h_result {
	int kind;
	u64 value; /* read */
	u32 ec;
	u64 cr2;
	u64 gpa; /* MMIO */
	u64 at;	 /* R_OK: the guest-physical address accessed */
};

static inline struct h_access acc_of(u64 gva, int kind, bool user, u64 value)
{
	struct h_access a = { .gva = gva, .kind = kind, .user = user, .size = 8, .value = value };

	return a;
}

void h_init(struct harness *h, const struct mmu_config *cfg, unsigned nvcpus);
void h_fini(struct harness *h);
void h_add_slot(struct harness *h, u64 base_gfn, u64 npages);
/* A device's memory BAR (mmu/platform.h): mapped uncached, never read as a page table. */
void h_add_device_slot(struct harness *h, u64 base_gfn, u64 npages);

/* Physical writes by the "hypervisor" (loader, setup) on both machines, through mmu_write. */
void h_phys_write(struct harness *h, u64 gpa, unsigned len, u64 value);
u64 h_phys_read(struct harness *h, u64 gpa, unsigned len, bool ref);

/* Guest control changes on both machines. Returns the MMU's return code. */
int h_set_mode(struct harness *h, unsigned v, u64 cr0, u64 cr4, u64 efer, u64 cr3);
int h_set_cr3(struct harness *h, unsigned v, u64 cr3);
void h_invlpg(struct harness *h, unsigned v, u64 gva);
/* A whole-TLB flush without a CR3 load (the PV flush). */
void h_flush(struct harness *h, unsigned v);

/* One access through the shadow (software CPU) and through the reference walker. */
void h_cpu_access(struct harness *h, unsigned v, const struct h_access *a, struct h_result *r);
void h_ref_access(struct harness *h, unsigned v, const struct h_access *a, struct h_result *r);
/* Both, compared (outcome, value, and the page-table words the reference walk touched).
 * Returns true when they agree; describes the difference in msg. */
bool h_check_access(struct harness *h, unsigned v, const struct h_access *a, char *msg, size_t n);
/* Every translation vCPU v's modelled TLB holds (for gva's page only, unless gva is ~0) gives no
 * more than the guest's tables allow v (the current entries, or older leaf values v has not
 * flushed yet). Returns true when so; describes the first excess in msg. */
bool h_check_tlb(struct harness *h, unsigned v, u64 gva, char *msg, size_t n);
/* Full comparison of both memories. */
bool h_mem_equal(struct harness *h, u64 *where);

unsigned h_audit(struct harness *h, bool print);

/* Internal to the harness files. */
void ref_tlb_flush(struct harness *h, unsigned v);
void ref_tlb_invlpg(struct harness *h, unsigned v, u64 gva);
u8 *h_hpa_ptr(struct harness *h, u64 hpa, bool want_guest);
u8 *h_gpa_ptr(struct harness *h, u64 gpa, bool ref);
u64 h_hpa_to_gpa(struct harness *h, u64 hpa);
bool h_tlb_allows(const struct harness *h, unsigned v, const struct h_tlbe *e,
		  const struct h_access *a);

#endif
