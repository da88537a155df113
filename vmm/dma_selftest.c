/* SPDX-License-Identifier: GPL-2.0-only */
/* A test build's DMA through QEMU's edu devices once the guests have ended: the domain, Umbra's memory, outside the guest, no owner. */
#include "vmm/dma_selftest.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/pci.h"
#include "arch/x86/tsc.h"
#include "lib/palloc.h"
#include "lib/printf.h"
#include "vmm/iommu_domain.h"
#include "vmm/memslot.h"
#include "vmm/pci_assign.h"
#include "vmm/vm.h"

/* QEMU's edu (docs/specs/edu.rst): DMA registers in BAR0, a 4 KiB buffer at bus address
 * 0x40000 of its own, 28-bit DMA addresses. */
/* clang-format off */
#define EDU_VENDOR 0x1234
#define EDU_DEVICE 0x11e8
#define EDU_SRC    0x80
#define EDU_DST    0x88
#define EDU_CNT    0x90
#define EDU_CMD    0x98
#define EDU_RUN    1ull
#define EDU_TO_RAM 2ull
#define EDU_BUF    0x40000ull
#define EDU_REACH  (1ull << 28)

#define PATTERN    0x0123456789abcdefull
#define FILL       0xa5a5a5a5a5a5a5a5ull
/* clang-format on */

static volatile u64 canary = 0x5ca1ab1e0ddba11ull;

/* 8 bytes between bus address bus and the buffer; false when the device never finished (it
 * starts 100 ms of QEMU's clock after the command). The IOMMU's faults are read at once: a
 * VT-d unit with one fault record would drop the next device's. */
static bool edu_dma(volatile u64 *regs, u64 bus, bool to_ram)
{
	regs[EDU_SRC / 8] = to_ram ? EDU_BUF : bus;
	regs[EDU_DST / 8] = to_ram ? bus : EDU_BUF;
	regs[EDU_CNT / 8] = 8;
	regs[EDU_CMD / 8] = EDU_RUN | (to_ram ? EDU_TO_RAM : 0);
	u64 end = rdtsc() + 5 * tsc_hz;
	while (regs[EDU_CMD / 8] & EDU_RUN)
		if (rdtsc() > end)
			return false;
	iommu_poll(true);
	return true;
}

static u64 *guest_word(struct vm *vm, u64 gpa)
{
	return memslots_ptr(&vm->mem, gpa, 8);
}

/* A page of Umbra's, filled, that edu can address and (on a 32 MiB boundary, above the test
 * guests' 16 MiB) no guest address names; 0 when it got none. */
static u64 umbra_page(void)
{
	u64 pa = palloc_alloc_contig(1, 8192);
	if (pa && pa + PAGE_SIZE > EDU_REACH) {
		palloc_free(pa);
		return 0;
	}
	u64 *p = pa ? phys_to_virt(pa) : NULL;
	for (u32 i = 0; p && i < PAGE_SIZE / 8; i++)
		p[i] = FILL;
	return pa;
}

static const char *intact(u64 pa)
{
	const u64 *p = phys_to_virt(pa);
	for (u32 i = 0; i < PAGE_SIZE / 8; i++)
		if (p[i] != FILL)
			return "CHANGED";
	return "intact";
}

static void owned(const char *fn, struct vm *vm, volatile u64 *regs, u64 page)
{
	const struct mmu_slot *first = &vm->mem.slot[0], *last = &vm->mem.slot[vm->mem.n - 1];
	u64 a = (first->base_gfn << PAGE_SHIFT) + PAGE_SIZE, b = a + 0x800;
	*guest_word(vm, a) = PATTERN;
	*guest_word(vm, b) = 0;
	bool done = edu_dma(regs, a, false) && edu_dma(regs, b, true);
	kprintf("dmatest: %s (guest %s): read at 0x%llx and written at 0x%llx through domain %u: %s\n",
		fn, vm->name, (unsigned long long)a, (unsigned long long)b, vm->dma.did,
		!done				? "DMA never completed"
		: *guest_word(vm, b) == PATTERN ? "copied"
						: "NOT copied");
	/* Umbra's own address as a bus address: the domain makes it the guest's, or it faults. */
	u64 self = virt_to_phys((const void *)&canary), before = canary;
	u64 *landing = memslots_find(&vm->mem, self >> PAGE_SHIFT) ? guest_word(vm, self) : NULL;
	if (landing)
		*landing = 0;
	done = self < EDU_REACH && edu_dma(regs, self, true);
	kprintf("dmatest: %s (guest %s): write at 0x%llx, Umbra's own address: Umbra's memory %s%s\n",
		fn, vm->name, (unsigned long long)self, canary == before ? "intact" : "CHANGED",
		done && landing && *landing == PATTERN ? ", the guest's page written" : "");
	/* A page of Umbra's that no guest address reaches: blocked. */
	if (page < (last->base_gfn + last->npages) << PAGE_SHIFT)
		return;
	done = edu_dma(regs, page, true);
	kprintf("dmatest: %s (guest %s): write at 0x%llx, an Umbra page past its memory: %s\n", fn,
		vm->name, (unsigned long long)page, done ? intact(page) : "DMA never completed");
}

void dma_selftest(void)
{
	u64 page = umbra_page();
	for (u32 i = 0; page && i < pci_host.count; i++) {
		const struct pci_func *f = &pci_host.f[i];
		if (f->vendor != EDU_VENDOR || f->device != EDU_DEVICE ||
		    f->bar[0].kind != PCI_BAR_MEM32 ||
		    !paging_map_uncached(f->bar[0].base, PAGE_SIZE))
			continue;
		u32 cmd = pci_host_cfg_read(f->bdf, PCI_COMMAND) & 0xffff; /* status RW1C: 0 */
		pci_host_cfg_write(f->bdf, PCI_COMMAND, cmd | PCI_CMD_MEM | PCI_CMD_MASTER);
		volatile u64 *regs = phys_to_virt(f->bar[0].base);
		char fn[16];
		fmt_snprintf(fn, sizeof(fn), "%02x:%02x.%x", PCI_BUS(f->bdf), PCI_DEV(f->bdf),
			     PCI_FN(f->bdf));
		u8 owner = pci_assign_host.owner[i];
		struct vm *vm = owner != PCI_NO_OWNER ? vm_by_id(owner) : NULL;
		if (vm && vm->dma.root) {
			owned(fn, vm, regs, page);
			continue;
		}
		bool done = edu_dma(regs, page, true);
		kprintf("dmatest: %s (owned by no guest): write at 0x%llx, an Umbra page: %s\n", fn,
			(unsigned long long)page, done ? intact(page) : "DMA never completed");
	}
	if (!page)
		kprintf("dmatest: no page below 256 MiB for the test\n");
}
