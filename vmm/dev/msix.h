/* SPDX-License-Identifier: GPL-2.0-only */
/* An MSI-X table and its pending bits as a function presents them to its guest (PCI 3.0, 6.8.2). */
#ifndef VMM_DEV_MSIX_H
#define VMM_DEV_MSIX_H

/*
 * Shared by every function whose MSI-X a guest sees: Umbra's own ivshmem function and the
 * assigned functions (vmm/dev/pci_msix.c). Each entry is four 32-bit fields: the address (bits
 * 1:0 read as zero), its upper half, the data and the vector control (bit 0, the mask; the rest
 * reserved, read as zero). Software must use aligned dwords or qwords (6.8.2.6): anything else
 * written is dropped and counted, as is a write past the table or to the pending bits, which are
 * read-only; a narrower read inside one dword reads its bytes (counted, not refused, since
 * reading changes nothing). Message Control's enable and function mask are the guest's.
 *
 * A message is sent while MSI-X is on and neither the function nor its entry is masked; while
 * masked it waits in its pending bit, once however often it fires, and goes when unmasked
 * (6.8.3.5). The owner asks for what to send (msix_fire, msix_take_pending) and sends it.
 */

#include "lib/types.h"

#define PCI_CAP_MSIX 0x11u
#define MSIX_ENABLE BIT(15)
#define MSIX_MASKALL BIT(14)
#define MSIX_QSIZE 0x7ffu /* Table Size, N - 1 */
#define MSIX_BIR 7u	  /* the BAR indicator of the table and PBA dwords */
#define MSIX_ENTRY_MASKED BIT(0)
#define MSIX_ENTRY_SIZE 16u
enum { MSIX_ADDR_LO = 0, MSIX_ADDR_HI = 4, MSIX_DATA = 8, MSIX_VECTOR_CTRL = 12 }; /* in an entry */
#define MSIX_MAX 64u /* entries a model holds: its pending bits are one u64 */

struct msix_entry {
	u32 addr_lo, addr_hi, data, ctrl;
};

struct msix {
	struct msix_entry *table;
	u16 n;	  /* entries */
	u16 ctrl; /* MSIX_ENABLE | MSIX_MASKALL as the guest wrote them */
	u64 pba;  /* pending bit per entry, set by msix_fire */
	u64 bad;  /* accesses dropped or out of shape (the guest's report) */
};

/* Power-on: MSI-X off, every entry masked and zero, nothing pending (6.8.2.9). */
void msix_reset(struct msix *x, struct msix_entry *table, unsigned n);
bool msix_masked(const struct msix *x, unsigned v);
/* The entry's message, the address whole. */
u64 msix_addr(const struct msix *x, unsigned v);
/* A read of len bytes at off in the table; 0 past it. */
u64 msix_table_read(struct msix *x, u64 off, unsigned len);
/* A write to the table: the entry it changed, or -1 when it was dropped. */
int msix_table_write(struct msix *x, u64 off, unsigned len, u64 val);
/* A read of the pending bits at off (a qword per 64 entries); host: more bits ORed in. */
u64 msix_pba_read(struct msix *x, u64 off, unsigned len, u64 host);
/* Message Control as written (the enable and function mask kept, the rest read-only). */
void msix_set_ctrl(struct msix *x, u16 ctrl);
/* Entry v fires: true when its message is to go now; false when MSI-X is off (nothing sent)
 * or it is masked (then it waits in its pending bit). */
bool msix_fire(struct msix *x, unsigned v);
/* The next entry pending and no longer masked, its bit cleared: to send now; -1 for none. */
int msix_take_pending(struct msix *x);

#endif
