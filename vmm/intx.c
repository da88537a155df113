/* SPDX-License-Identifier: GPL-2.0-only */
/* Assigned functions' INTx: the host line of each, masked at the function until its guest's EOI. */
#include "vmm/intx.h"
#include "arch/x86/devirq.h"
#include "arch/x86/ioapic.h"
#include "arch/x86/pci.h"
#include "arch/x86/percpu.h"
#include "lib/printf.h"
#include "vmm/dev/pci_bus.h"
#include "vmm/ipi.h"
#include "vmm/vm.h"
#include "vmm/vm_lock.h"

#define INTX_LINES 8
#define INTX_LINE_FNS 8
/* A line no function of a guest claims this many times in a row is left masked, as Linux
 * disables an interrupt nobody handles: a device Umbra does not drive holds it high. */
#define INTX_UNCLAIMED_MAX 1000

/* The ISA IRQs of the PC's own devices (timer, keyboard, cascade, COM1 - Umbra's console -,
 * RTC, mouse, FPU): a PCI function's line is never one of them. */
#define ISA_SYSTEM_IRQS (BIT(0) | BIT(1) | BIT(2) | BIT(4) | BIT(8) | BIT(12) | BIT(13))

/* One host input shared by the functions on it (of one guest or several): written while
 * guests are created (n published last), read by whichever CPU its vector arrives on. */
static struct intx_line {
	u32 gsi, cpu; /* its input; the CPU its vector is sent to */
	u8 vector;
	u32 n, unclaimed;
	struct {
		struct vm *vm;
		u8 dev;
	} fn[INTX_LINE_FNS];
} lines[INTX_LINES];
static u32 n_lines;

/* Why the function's INTx cannot reach its guest, or NULL with *gsi and *low set. */
static const char *host_line(u8 line, u32 *gsi, bool *low, char *buf, size_t len)
{
	u16 flags;
	if (!host_ioapic_count())
		return "the host's MADT lists no I/O APIC";
	if (line >= 16 || (ISA_SYSTEM_IRQS & BIT(line))) {
		fmt_snprintf(buf, len, "its firmware routed it to no PCI interrupt (line 0x%02x)",
			     line);
		return buf;
	}
	*gsi = host_ioapic_isa_gsi(line, &flags);
	*low = (flags & ACPI_ISO_POLARITY_LOW) == ACPI_ISO_POLARITY_LOW;
	if (!host_ioapic_has(*gsi)) {
		fmt_snprintf(buf, len, "GSI %u (its line %u) is on no I/O APIC", *gsi, line);
		return buf;
	}
	return NULL;
}

/* The line for gsi, routed at its first function's vCPU 0's CPU; NULL (why set) when full. */
static struct intx_line *line_for(u32 gsi, bool low, struct vm *vm, const char **why)
{
	for (u32 i = 0; i < n_lines; i++) {
		if (lines[i].gsi != gsi)
			continue;
		if (lines[i].n < INTX_LINE_FNS)
			return &lines[i];
		*why = "its host line has as many functions as Umbra takes";
		return NULL;
	}
	if (n_lines == INTX_LINES) {
		*why = "Umbra takes no more host lines";
		return NULL;
	}
	u8 vec = devirq_alloc();
	if (!vec) {
		*why = "no host vector is left";
		return NULL;
	}
	struct intx_line *l = &lines[n_lines];
	l->gsi = gsi;
	l->cpu = vm->vcpus[0].cpu;
	l->vector = vec;
	devirq_set_level(vec, gsi);
	host_ioapic_route(gsi, vec, percpus[l->cpu].apic_id, low);
	__atomic_store_n(&n_lines, n_lines + 1, __ATOMIC_RELEASE);
	return l;
}

void intx_attach(struct vm *vm, unsigned dev, u16 bdf)
{
	u32 r = pci_host_cfg_read(bdf, PCI_INTERRUPT_LINE);
	u8 pin = (u8)(r >> 8), line = (u8)r;
	if (!pin || pin > 4)
		return; /* no INTx to give */
	char buf[80];
	u32 gsi = 0;
	bool low = false;
	const char *why = host_line(line, &gsi, &low, buf, sizeof(buf));
	struct intx_line *l = why ? NULL : line_for(gsi, low, vm, &why);
	if (!l) {
		kprintf("guest %s: PCI %02x:%02x.%x INT%c: %s: MSI only\n", vm->name, PCI_BUS(bdf),
			PCI_DEV(bdf), PCI_FN(bdf), 'A' + pin - 1, why);
		return;
	}
	l->fn[l->n].vm = vm;
	l->fn[l->n].dev = (u8)dev;
	__atomic_store_n(&l->n, l->n + 1, __ATOMIC_RELEASE);
	pci_bus_intx_route(&vm->board.pci, dev);
	kprintf("guest %s: PCI %02x:%02x.%x INT%c: host GSI %u, vector 0x%x: its INTA\n", vm->name,
		PCI_BUS(bdf), PCI_DEV(bdf), PCI_FN(bdf), 'A' + pin - 1, gsi, l->vector);
	host_ioapic_mask(gsi, false);
}

bool intx_serves(u32 cpu)
{
	u32 nl = __atomic_load_n(&n_lines, __ATOMIC_ACQUIRE);
	for (u32 i = 0; i < nl; i++) {
		if (lines[i].cpu != cpu)
			continue;
		u32 n = __atomic_load_n(&lines[i].n, __ATOMIC_ACQUIRE);
		for (u32 k = 0; k < n; k++)
			if (!vm_ended(lines[i].fn[k].vm))
				return true;
	}
	return false;
}

bool intx_arrived(u8 vector)
{
	u32 nl = __atomic_load_n(&n_lines, __ATOMIC_ACQUIRE);
	struct intx_line *l = NULL;
	for (u32 i = 0; i < nl && !l; i++)
		if (lines[i].vector == vector)
			l = &lines[i];
	if (!l)
		return false;
	bool claimed = false;
	u32 n = __atomic_load_n(&l->n, __ATOMIC_ACQUIRE);
	for (u32 i = 0; i < n; i++) {
		struct vm *vm = l->fn[i].vm;
		vm_lock(vm);
		if (!vm_ended(vm) && pci_bus_intx_take(&vm->board.pci, l->fn[i].dev)) {
			claimed = true;
			vm->intx_raised++;
			vm_devices_touched(vm);
			ipi_kick(&vm->vcpus[0]);
		}
		vm_unlock(vm);
	}
	l->unclaimed = claimed ? 0 : l->unclaimed + 1;
	if (l->unclaimed == INTX_UNCLAIMED_MAX) {
		kprintf("intx: GSI %u: %u interrupts in a row no guest's function asserted: the line stays masked\n",
			l->gsi, INTX_UNCLAIMED_MAX);
		return true;
	}
	host_ioapic_mask(l->gsi, false);
	return true;
}
