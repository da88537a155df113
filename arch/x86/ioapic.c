/* SPDX-License-Identifier: GPL-2.0-only */
/* The host's I/O APICs: the redirection entries of the device interrupts Umbra takes itself. */
#include "arch/x86/ioapic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "lib/printf.h"
#include "lib/spinlock.h"

#define IOREGSEL 0x00
#define IOWIN 0x10
#define IOAPIC_VER 0x01
#define IOAPIC_REDIR(n) (0x10 + 2 * (n))

#define RTE_POLARITY_LOW BIT(13)
#define RTE_LEVEL BIT(15)
#define RTE_MASKED BIT(16)

static struct {
	volatile u32 *regs;
	u32 gsi_base, pins;
} units[ACPI_MAX_IOAPICS];
static u32 n_units;
static struct acpi_iso isos[ACPI_MAX_ISOS];
static u32 n_isos;
/* IOREGSEL and IOWIN are one access in two writes: taken with interrupts off, so the handler
 * that masks an input (host_ioapic_mask) never waits for the code it interrupted. */
static spinlock_t lock = SPINLOCK_INIT;

/* Interrupts off, and whether they were on. */
static bool irqs_off(void)
{
	bool on = read_rflags() & BIT(9);
	cli();
	return on;
}

static u32 reg_read(u32 u, u32 reg)
{
	units[u].regs[IOREGSEL / 4] = reg;
	return units[u].regs[IOWIN / 4];
}

static void reg_write(u32 u, u32 reg, u32 val)
{
	units[u].regs[IOREGSEL / 4] = reg;
	units[u].regs[IOWIN / 4] = val;
}

void host_ioapic_init(const struct acpi_cpus *madt)
{
	u32 n = madt->n_ioapics < ACPI_MAX_IOAPICS ? madt->n_ioapics : ACPI_MAX_IOAPICS;
	if (madt->n_ioapics > n)
		kprintf("ioapic: %u I/O APICs beyond %u ignored\n", madt->n_ioapics - n, n);
	for (u32 i = 0; i < n; i++) {
		const struct acpi_ioapic *a = &madt->ioapic[i];
		if (!paging_map_uncached(a->base, 0x1000)) {
			kprintf("ioapic: I/O APIC %u at 0x%llx is beyond Umbra's map: not used\n",
				a->id, (unsigned long long)a->base);
			continue;
		}
		units[n_units].regs = phys_to_virt(a->base);
		units[n_units].gsi_base = a->gsi_base;
		units[n_units].pins = (reg_read(n_units, IOAPIC_VER) >> 16 & 0xff) + 1;
		kinfo("ioapic: I/O APIC %u at 0x%llx, GSIs %u-%u\n", a->id,
		      (unsigned long long)a->base, a->gsi_base,
		      a->gsi_base + units[n_units].pins - 1);
		n_units++;
	}
	n_isos = madt->n_isos;
	for (u32 i = 0; i < n_isos; i++)
		isos[i] = madt->iso[i];
}

u32 host_ioapic_count(void)
{
	return n_units;
}

u32 host_ioapic_isa_gsi(u8 irq, u16 *flags)
{
	for (u32 i = 0; i < n_isos; i++)
		if (isos[i].irq == irq) {
			*flags = isos[i].flags;
			return isos[i].gsi;
		}
	*flags = 0;
	return irq;
}

/* The unit with input gsi, and the input's index in it; false if none has it. */
static bool find(u32 gsi, u32 *unit, u32 *pin)
{
	for (u32 u = 0; u < n_units; u++)
		if (gsi >= units[u].gsi_base && gsi - units[u].gsi_base < units[u].pins) {
			*unit = u;
			*pin = gsi - units[u].gsi_base;
			return true;
		}
	return false;
}

bool host_ioapic_has(u32 gsi)
{
	u32 u, p;
	return find(gsi, &u, &p);
}

void host_ioapic_route(u32 gsi, u8 vector, u32 apic_id, bool active_low)
{
	u32 u, p;
	if (!find(gsi, &u, &p))
		return;
	bool on = irqs_off();
	spin_lock(&lock);
	reg_write(u, IOAPIC_REDIR(p), RTE_MASKED);
	reg_write(u, IOAPIC_REDIR(p) + 1, (apic_id & 0xff) << 24);
	reg_write(u, IOAPIC_REDIR(p),
		  vector | RTE_LEVEL | RTE_MASKED | (active_low ? RTE_POLARITY_LOW : 0));
	spin_unlock(&lock);
	if (on)
		sti();
}

void host_ioapic_mask(u32 gsi, bool mask)
{
	u32 u, p;
	if (!find(gsi, &u, &p))
		return;
	bool on = irqs_off();
	spin_lock(&lock);
	u32 lo = reg_read(u, IOAPIC_REDIR(p));
	reg_write(u, IOAPIC_REDIR(p), mask ? lo | RTE_MASKED : lo & ~RTE_MASKED);
	spin_unlock(&lock);
	if (on)
		sti();
}
