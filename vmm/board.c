/* SPDX-License-Identifier: GPL-2.0-only */
/* The PC board: one table of port and MMIO ranges, the glue from models to guests, IRQ wiring. */
#include "vmm/board.h"
#include "arch/x86/tsc.h"
#include "lib/string.h"
#include "pv/abi.h"
#include "vmm/console.h"
#include "vmm/ipi.h"
#include "vmm/pci_view.h"
#include "vmm/vm.h"
#include "vmm/reset.h"
#include "vmm/shm.h"

static void note_unmodelled(struct vm *vm, u16 port)
{
	for (u32 i = 0; i < vm->n_unmodelled; i++)
		if (vm->unmodelled[i] == port)
			return;
	if (vm->n_unmodelled < VM_UNMODELLED_MAX)
		vm->unmodelled[vm->n_unmodelled++] = port;
}

/* Messages from the I/O APIC to the local APICs they address, by delivery mode: fixed and
 * lowest priority into the IRR (lowest priority to the first APIC addressed, which hardware
 * may pick too); NMI to the vCPU's NMI path, as an NMI IPI; INIT resets the vCPU as an INIT
 * IPI does; ExtINT takes its vector from the 8259 (its interrupt acknowledge, as QEMU's I/O
 * APIC does when it sends the message) and nothing if the 8259 has none. SMI and the reserved
 * modes reach nothing modelled. A vCPU on another CPU is kicked so it sees it now. */
static void ioapic_deliver(struct vm *vm)
{
	struct ioapic_msg m;

	while (ioapic_take(&vm->board.ioapic, &m)) {
		if (m.delivery == IOAPIC_DM_EXTINT) {
			if (!pic_pending(&vm->board.pic))
				continue;
			m.vector = pic_ack(&vm->board.pic);
		}
		for (u32 i = 0; i < vm->nr_vcpus; i++) {
			struct vcpu *v = &vm->vcpus[i];
			if (!vlapic_match_dest(&v->vlapic, m.dest, m.logical))
				continue;
			switch (m.delivery) {
			case IOAPIC_DM_FIXED:
			case IOAPIC_DM_LOWEST:
				vlapic_set_irq(&v->vlapic, m.vector, m.level);
				break;
			case IOAPIC_DM_EXTINT:
				vlapic_set_irq(&v->vlapic, m.vector, false);
				break;
			case IOAPIC_DM_NMI:
				v->nmi_pending = true;
				break;
			case IOAPIC_DM_INIT:
				if (!ipi_init_signal(v))
					continue;
				break;
			default:
				continue;
			}
			if (i)
				ipi_kick(v);
			if (m.delivery == IOAPIC_DM_LOWEST || m.delivery == IOAPIC_DM_EXTINT)
				break; /* one interrupt, one APIC */
		}
	}
}

/* An ISA line drives both interrupt controllers, as on a PC: the 8259 pair and the I/O APIC. */
static void isa_irq(struct vm *vm, unsigned irq, bool level)
{
	pic_set_irq(&vm->board.pic, irq, level);
	ioapic_set_irq(&vm->board.ioapic, isa_gsi(irq), level);
}

/* PCI INTA, shared by every function: active low and level-triggered at the I/O APIC (as the
 * guest programs a PCI interrupt), an edge for the 8259. */
static void pci_intx(struct vm *vm, bool asserted)
{
	pic_set_irq(&vm->board.pic, PCI_BUS_INTX_IRQ, asserted);
	ioapic_set_irq(&vm->board.ioapic, PCI_BUS_INTX_IRQ, !asserted);
}

/* The UART's interrupt is a level; the PIC sees its edges. Doorbells peers rang are taken
 * here, onto the ivshmem functions' INTA. */
static void wire_irqs(struct vm *vm)
{
	struct board *b = &vm->board;
	bool com1 = uart_irq(&b->com1);
	if (com1 != !!(b->irq_levels & BIT(IRQ_COM1))) {
		b->irq_levels ^= BIT(IRQ_COM1);
		isa_irq(vm, IRQ_COM1, com1);
	}
	if (vm->n_shm)
		shm_fold_intx(vm);
	if (b->pci.n) {
		bool intx = pci_bus_intx(&b->pci);
		if (intx != !!(b->irq_levels & BIT(PCI_BUS_INTX_IRQ))) {
			b->irq_levels ^= BIT(PCI_BUS_INTX_IRQ);
			pci_intx(vm, intx);
		}
	}
	ioapic_deliver(vm);
}

/* The guest ended the PCI INTA's interrupt (at the I/O APIC or the 8259): the host functions
 * Umbra masked for it are unmasked, and the INTA falls until one raises its host line again. */
static void inta_eoi(struct vm *vm)
{
	if (pci_bus_intx_eoi(&vm->board.pci)) {
		vm->intx_eois++;
		wire_irqs(vm);
	}
}

/* The end of a level-triggered interrupt: the I/O APIC's Remote IRR cleared; when it was the
 * PCI INTA's, the host functions Umbra masked for it are unmasked (one still asserting raises
 * its host line again, and so its INTA). */
static void level_eoi(void *ctx, u8 vector)
{
	struct vm *vm = ctx;
	struct board *b = &vm->board;

	/* The INTA's level first: the EOI must not find it still high and send it again. */
	if ((b->ioapic.redir[PCI_BUS_INTX_IRQ] & IOAPIC_RTE_VECTOR) == vector)
		inta_eoi(vm);
	ioapic_eoi(&b->ioapic, vector);
	ioapic_deliver(vm);
}

/* ---- glue: each model behind the (vcpu, port, size, value) shape of the table ---- */
static u32 pic_port_in(struct vcpu *v, u16 port, unsigned size)
{
	(void)size;
	return pic_read(&v->vm->board.pic, port);
}

/* The INTA's IRQ in service at the slave 8259. */
#define INTA_ISR(b) ((b)->pic.chip[1].isr & BIT(PCI_BUS_INTX_IRQ - 8))

static void pic_port_out(struct vcpu *v, u16 port, unsigned size, u32 val)
{
	(void)size;
	struct board *b = &v->vm->board;
	bool inta = INTA_ISR(b);
	pic_write(&b->pic, port, (u8)val);
	if (inta && !INTA_ISR(b))
		inta_eoi(v->vm);
	wire_irqs(v->vm);
}

static u32 pit_port_in(struct vcpu *v, u16 port, unsigned size)
{
	(void)size;
	return pit_read(&v->vm->board.pit, port, monotonic_ns());
}

static void pit_port_out(struct vcpu *v, u16 port, unsigned size, u32 val)
{
	(void)size;
	pit_write(&v->vm->board.pit, port, (u8)val, monotonic_ns());
}

static u32 com1_port_in(struct vcpu *v, u16 port, unsigned size)
{
	struct vm *vm = v->vm;
	(void)size;
	/* A guest polling LSR/RBR sees what was typed without waiting for the poll timer. */
	console_poll_input(vm);
	u8 val = uart_read(&vm->board.com1, port & 7);
	wire_irqs(vm);
	return val;
}

static void com1_port_out(struct vcpu *v, u16 port, unsigned size, u32 val)
{
	(void)size;
	uart_write(&v->vm->board.com1, port & 7, (u8)val);
	wire_irqs(v->vm);
}

static void com1_tx(void *ctx, u8 byte)
{
	console_putc(ctx, (char)byte);
}

static u32 rtc_port_in(struct vcpu *v, u16 port, unsigned size)
{
	(void)size;
	return rtc_read(&v->vm->board.rtc, port, monotonic_ns());
}

static void rtc_port_out(struct vcpu *v, u16 port, unsigned size, u32 val)
{
	(void)size;
	rtc_write(&v->vm->board.rtc, port, (u8)val);
}

/* The ACPI PM block takes whole accesses (a 32-bit timer read in bytes could tear); bytes
 * past its end float high like any unmodelled port. */
static unsigned pm_bytes(u16 port, unsigned size)
{
	unsigned off = port - ACPI_PM_BASE;
	return size < ACPI_PM_LEN - off ? size : ACPI_PM_LEN - off;
}

static u32 pm_port_in(struct vcpu *v, u16 port, unsigned size)
{
	unsigned n = pm_bytes(port, size);
	u32 val = acpi_pm_read(&v->vm->board.pm, port - ACPI_PM_BASE, n, monotonic_ns());

	for (unsigned i = n; i < size; i++)
		val |= 0xffu << (i * 8);
	return val;
}

static void pm_port_out(struct vcpu *v, u16 port, unsigned size, u32 val)
{
	struct acpi_pm *pm = &v->vm->board.pm;

	acpi_pm_write(pm, port - ACPI_PM_BASE, pm_bytes(port, size), val, monotonic_ns());
	if (pm->soft_off) {
		console_flush(v->vm);
		vm_end(v->vm, VM_END_POWEROFF, 0, "ACPI soft-off (S5)");
	}
}

/* The two ways a PC's chipset resets the machine: the 8042's reset line and port 0xCF9. */
static u32 kbc_port_in(struct vcpu *v, u16 port, unsigned size)
{
	(void)size;
	return kbc_read(&v->vm->board.kbc, port);
}

static void kbc_port_out(struct vcpu *v, u16 port, unsigned size, u32 val)
{
	(void)size;
	if (kbc_write(&v->vm->board.kbc, port, (u8)val))
		vm_reset_request(v, VM_RESET_KBC);
}

static u32 rcr_port_in(struct vcpu *v, u16 port, unsigned size)
{
	(void)port, (void)size;
	return rcr_read(&v->vm->board.rcr);
}

static void rcr_port_out(struct vcpu *v, u16 port, unsigned size, u32 val)
{
	(void)port, (void)size;
	if (rcr_write(&v->vm->board.rcr, (u8)val))
		vm_reset_request(v, VM_RESET_RCR);
}

/* PCI configuration mechanism #1 (vmm/dev/pci_bus.c); of 0xCF8-0xCFB only the dword at 0xCF8
 * is its address register, narrower accesses there reach nothing modelled. */
static u32 pci_port_in(struct vcpu *v, u16 port, unsigned size)
{
	if (port < 0xcfc && !(port == 0xcf8 && size == 4))
		note_unmodelled(v->vm, port);
	return pci_bus_read(&v->vm->board.pci, port, size);
}

static void pci_port_out(struct vcpu *v, u16 port, unsigned size, u32 val)
{
	if (port < 0xcfc && !(port == 0xcf8 && size == 4))
		note_unmodelled(v->vm, port);
	pci_bus_write(&v->vm->board.pci, port, size, val);
	wire_irqs(v->vm); /* the command register's INTx disable */
}

static void post_port_out(struct vcpu *v, u16 port, unsigned size, u32 val)
{
	(void)v, (void)port, (void)size, (void)val; /* POST codes: accepted, nothing to see */
}

/* isa-debug-exit: the guest's result, (value << 1) | 1 as QEMU's device exits with. */
static void result_port_out(struct vcpu *v, u16 port, unsigned size, u32 val)
{
	(void)port, (void)size;
	console_flush(v->vm);
	vm_end(v->vm, VM_END_RESULT, (val << 1) | 1, "result port");
}

struct pio_range {
	u16 first, last;
	bool any_width; /* takes 2- and 4-byte accesses itself (else split into bytes) */
	u32 (*in)(struct vcpu *v, u16 port, unsigned size); /* NULL: reads as unmodelled */
	void (*out)(struct vcpu *v, u16 port, unsigned size, u32 val);
};

static const struct pio_range pio_table[] = {
	{ 0x20, 0x21, false, pic_port_in, pic_port_out },
	{ 0x40, 0x43, false, pit_port_in, pit_port_out },
	{ KBC_DATA, KBC_DATA, false, kbc_port_in, kbc_port_out },
	{ 0x61, 0x61, false, pit_port_in,
	  pit_port_out }, /* gate 2 and OUT 2 live in the PIT model */
	{ KBC_CMD, KBC_CMD, false, kbc_port_in, kbc_port_out },
	{ 0x70, 0x71, false, rtc_port_in, rtc_port_out },
	{ 0x80, 0x80, false, NULL, post_port_out },
	{ 0xa0, 0xa1, false, pic_port_in, pic_port_out },
	{ UMBRA_RESULT_PORT, UMBRA_RESULT_PORT, true, NULL, result_port_out },
	{ 0x3f8, 0x3ff, false, com1_port_in, com1_port_out },
	{ 0x4d0, 0x4d1, false, pic_port_in, pic_port_out }, /* ELCR */
	{ ACPI_PM_BASE, ACPI_PM_BASE + ACPI_PM_LEN - 1, true, pm_port_in, pm_port_out },
	{ 0xcf8, 0xcf8, true, pci_port_in, pci_port_out },
	{ RCR_PORT, RCR_PORT, false, rcr_port_in, rcr_port_out },
	{ 0xcfa, 0xcff, true, pci_port_in, pci_port_out },
};

static const struct pio_range *pio_find(u16 port)
{
	for (unsigned i = 0; i < ARRAY_SIZE(pio_table); i++)
		if (port >= pio_table[i].first && port <= pio_table[i].last)
			return &pio_table[i];
	return NULL;
}

static u32 pio_in1(struct vcpu *v, u16 port, unsigned size)
{
	const struct pio_range *r = pio_find(port);
	if (r && r->in)
		return r->in(v, port, size);
	note_unmodelled(v->vm, port);
	return size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
}

static bool pio_out1(struct vcpu *v, u16 port, unsigned size, u32 val)
{
	const struct pio_range *r = pio_find(port);
	if (r && r->out) {
		r->out(v, port, size, val);
		return true;
	}
	note_unmodelled(v->vm, port);
	return false;
}

u32 board_pio_in(struct vcpu *v, u16 port, unsigned size)
{
	const struct pio_range *r = pio_find(port);
	u32 val = 0;
	if (pci_view_pio(v->vm, port, size, &val, false))
		return val;
	if (size == 1 || (r && r->any_width))
		return pio_in1(v, port, size);
	for (unsigned i = 0; i < size; i++)
		val |= (pio_in1(v, (u16)(port + i), 1) & 0xff) << (8 * i);
	return val;
}

void board_pio_out(struct vcpu *v, u16 port, unsigned size, u32 val)
{
	const struct pio_range *r = pio_find(port);
	/* Exactly size bytes leave the CPU: an OUT of AL never shows AH to a device. */
	if (size < 4)
		val &= (1u << (size * 8)) - 1;
	if (pci_view_pio(v->vm, port, size, &val, true))
		return;
	if (size == 1 || (r && r->any_width)) {
		pio_out1(v, port, size, val);
		return;
	}
	/* Exactly size bytes, each to its own port; a byte that ended the guest ends the rest. */
	for (unsigned i = 0; i < size && !vm_ended(v->vm); i++)
		pio_out1(v, (u16)(port + i), 1, (val >> (8 * i)) & 0xff);
}

/* ---- MMIO: the I/O APIC page, and the local APIC page (where IA32_APIC_BASE puts it) while
 * the APIC is enabled in xAPIC mode ---- */
static void note_unbacked(struct vcpu *v, u64 gpa)
{
	struct vm *vm = v->vm;
	u64 page = gpa & ~(PAGE_SIZE - 1);

	/* The APIC page of a disabled (or x2APIC) APIC answers nothing, as on the CPU: the guest
	 * chose that, and the APIC is modelled, so the page is not one to report. */
	if (page == (v->vlapic.base_msr & ~(PAGE_SIZE - 1)))
		return;
	for (u32 i = 0; i < vm->n_mmio_unclaimed; i++)
		if (vm->mmio_unclaimed[i].gpa == gpa) {
			vm->mmio_unclaimed[i].count++;
			return;
		}
	if (vm->n_mmio_unclaimed < VM_UNMODELLED_MAX) {
		vm->mmio_unclaimed[vm->n_mmio_unclaimed].gpa = gpa;
		vm->mmio_unclaimed[vm->n_mmio_unclaimed++].count = 1;
		return;
	}
	vm->mmio_unclaimed_other++;
}

/* The I/O APIC's registers are read and written as whole dwords (the datasheet requires it);
 * a narrower or wider access sees or writes the dword's low bytes. */
static bool ioapic_mmio(u64 gpa)
{
	return gpa - IOAPIC_BASE < PAGE_SIZE;
}

/* A CPU's own local APIC comes first: a base moved over the I/O APIC's page hides it from
 * that CPU alone, as on the chip. */
void board_mmio_read(struct vcpu *v, u64 gpa, void *buf, unsigned len)
{
	u32 off;

	vm_devices_touched(v->vm);
	if (vlapic_mmio_hit(&v->vlapic, gpa, &off)) {
		/* Registers are 32 bits on 16-byte boundaries; narrower reads see part of one. */
		u64 val = vlapic_read(&v->vlapic, off & ~0xfu, monotonic_ns()) >> ((off & 3) * 8);
		memcpy(buf, &val, len > 4 ? 4 : len);
		if (len > 4)
			memset((u8 *)buf + 4, 0, len - 4);
		return;
	}
	if (ioapic_mmio(gpa)) {
		u64 val = ioapic_mmio_read(&v->vm->board.ioapic, (u32)(gpa - IOAPIC_BASE));
		memcpy(buf, &val, len);
		return;
	}
	if (pci_view_mmio_read(v->vm, gpa, buf, len)) {
		wire_irqs(v->vm); /* a status register read acknowledges */
		return;
	}
	note_unbacked(v, gpa);
	memset(buf, 0xff, len);
}

void board_mmio_write(struct vcpu *v, u64 gpa, const void *buf, unsigned len)
{
	u32 off;

	vm_devices_touched(v->vm);
	if (vlapic_mmio_hit(&v->vlapic, gpa, &off)) {
		u32 val = 0;
		memcpy(&val, buf, len > 4 ? 4 : len);
		if (!(off & 0xf))
			vlapic_write(&v->vlapic, off, val, monotonic_ns());
		return;
	}
	if (ioapic_mmio(gpa)) {
		u32 val = 0;
		memcpy(&val, buf, len > 4 ? 4 : len);
		struct board *b = &v->vm->board;
		u64 inta = b->ioapic.redir[PCI_BUS_INTX_IRQ];
		ioapic_mmio_write(&b->ioapic, (u32)(gpa - IOAPIC_BASE), val);
		/* The INTA unmasked: a host function masked for an interrupt that came while it
		 * was masked is looked at again (it may have dropped its line since), so a
		 * stale level is not delivered. */
		if ((inta & IOAPIC_RTE_MASKED) &&
		    !(b->ioapic.redir[PCI_BUS_INTX_IRQ] & IOAPIC_RTE_MASKED) &&
		    pci_bus_intx_eoi(&b->pci))
			wire_irqs(v->vm);
		ioapic_deliver(v->vm);
		return;
	}
	if (pci_view_mmio_write(v->vm, gpa, buf, len)) {
		wire_irqs(v->vm);
		return;
	}
	note_unbacked(v, gpa);
}

/* ---- time ---- */
void board_reset(struct vm *vm, u64 now_ns)
{
	struct board *b = &vm->board;
	pic_reset(&b->pic);
	pit_reset(&b->pit, now_ns);
	uart_reset(&b->com1, com1_tx, vm);
	rtc_reset(&b->rtc, vm->mem.low_bytes, vm->mem.bytes - vm->mem.low_bytes);
	acpi_pm_reset(&b->pm, now_ns);
	kbc_reset(&b->kbc);
	rcr_reset(&b->rcr);
	ioapic_reset(&b->ioapic, BOARD_IOAPIC_ID);
	for (u32 i = 0; i < vm->nr_vcpus; i++) {
		vm->vcpus[i].vlapic.level_eoi = level_eoi;
		vm->vcpus[i].vlapic.eoi_ctx = vm;
		vm->vcpus[i].vlapic.ipi = ipi_send;
		vm->vcpus[i].vlapic.ipi_ctx = &vm->vcpus[i];
	}
	pci_bus_reset(&b->pci);
	shm_reset(vm);
	b->irq_levels = 0;
	/* Before the first reset's pci_view_attach the bus is still empty: its functions to
	 * come are in the configuration. */
	if (vm->n_shm || vm->config.pci.n)
		pci_intx(vm, false); /* idle high, or the active-low pin reads as asserted */
}

void board_update(struct vcpu *v, u64 now_ns)
{
	struct board *b = &v->vm->board;
	if (pit_irq0_due(&b->pit, now_ns)) {
		/* A fresh rising edge; the line then stays high, as OUT0 does between ticks (a
		 * request still unacknowledged from the last tick survives the low-high pulse). */
		isa_irq(v->vm, IRQ_PIT, false);
		isa_irq(v->vm, IRQ_PIT, true);
	}
	console_poll_input(v->vm);
	wire_irqs(v->vm);
	vlapic_timer_update(&v->vlapic, now_ns);
}

u64 board_next_event_ns(struct vcpu *v, u64 now_ns)
{
	struct board *b = &v->vm->board;
	u64 t = deadline_min(pit_next_irq0_ns(&b->pit, now_ns), vlapic_next_event_ns(&v->vlapic));
	if (uart_rx_irq_enabled(&b->com1) && console_has_focus(v->vm))
		t = deadline_min(t, now_ns + CONSOLE_POLL_NS);
	return t;
}
