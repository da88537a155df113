/* SPDX-License-Identifier: GPL-2.0-only */
/* A test build's DMA through QEMU's edu devices once the guests have ended (tests/pci, UMBRA_TEST_DMA). */
#ifndef VMM_DMA_SELFTEST_H
#define VMM_DMA_SELFTEST_H

/* Each edu function: owned, it copies through its guest's domain and writes at Umbra's own
 * address and at an Umbra page outside the guest; owned by none, it writes at that page.
 * Prints what landed; the faults are the IOMMU's to report. */
void dma_selftest(void);

#endif
