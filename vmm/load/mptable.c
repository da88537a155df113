/* SPDX-License-Identifier: GPL-2.0-only */
/* MP table builder (MP spec 1.4): what a kernel reads instead of probing for CPUs and the PIC. */
#include "vmm/load/mptable.h"
#include "arch/x86/cpu.h"
#include "lib/assert.h"
#include "lib/string.h"
#include "vmm/dev/board.h"
#include "vmm/vm.h"

struct mp_floating {
	char sig[4]; /* "_MP_" */
	u32 config_gpa;
	u8 length; /* in 16-byte units */
	u8 revision, checksum;
	u8 feature[5]; /* feature[1] bit 7 clear: virtual-wire mode, no IMCR */
} PACKED;

struct mp_config {
	char sig[4]; /* "PCMP" */
	u16 length;
	u8 revision, checksum;
	char oem[8], product[12];
	u32 oem_table;
	u16 oem_size, entries;
	u32 lapic_addr;
	u16 ext_length;
	u8 ext_checksum, reserved;
} PACKED;

struct mp_cpu {
	u8 type, apic_id, apic_version, flags;
	u32 signature, features;
	u32 reserved[2];
} PACKED;

struct mp_bus {
	u8 type, id;
	char name[6];
} PACKED;

struct mp_ioapic {
	u8 type, id, version, flags;
	u32 addr;
} PACKED;

/* An I/O interrupt (type 3) or local interrupt (type 4) assignment: same layout. */
struct mp_local_irq {
	u8 type, irq_type;
	u16 flags;
	u8 bus, bus_irq, apic_id, lint;
} PACKED;

enum { MP_CPU = 0, MP_BUS = 1, MP_IOAPIC = 2, MP_IO_IRQ = 3, MP_LOCAL_IRQ = 4 };
enum { MP_IRQ_INT = 0, MP_IRQ_NMI = 1, MP_IRQ_EXTINT = 3 };
#define MP_HIGH_LEVEL 0x000d /* polarity active high, trigger level */
#define MP_ISA_IRQS 16
#define MP_CPU_ENABLED 1
#define MP_CPU_BSP 2

BUILD_BUG_ON(sizeof(struct mp_floating) != 16);
BUILD_BUG_ON(sizeof(struct mp_config) != 44);
BUILD_BUG_ON(sizeof(struct mp_cpu) != 20);

void mptable_write(struct vm *vm)
{
	struct {
		struct mp_config hdr;
		struct mp_cpu
			cpu[VCPUS_PER_GUEST_MAX]; /* the first nr_vcpus, then the rest moves up */
		struct mp_bus bus;
		struct mp_ioapic ioapic;
		struct mp_local_irq io[MP_ISA_IRQS - 1];
		struct mp_local_irq lint[2];
	} PACKED t;
	struct mp_floating fp;
	struct cpuid_regs id = cpuid(1, 0);
	u64 config_gpa = MPTABLE_GPA + sizeof(fp);
	void *dst = memslots_ptr(&vm->mem, MPTABLE_GPA, sizeof(fp) + sizeof(t));

	if (!dst)
		return; /* a guest too small for a BIOS area gets none */
	memset(&t, 0, sizeof(t));
	memcpy(t.hdr.sig, "PCMP", 4);
	t.hdr.length = sizeof(t);
	t.hdr.revision = 4;
	memcpy(t.hdr.oem, "UMBRA   ", 8);
	memcpy(t.hdr.product, "UMBRA VM    ", 12);
	t.hdr.entries = (u16)(vm->nr_vcpus + 3 + MP_ISA_IRQS - 1 + 1);
	t.hdr.lapic_addr = (u32)VLAPIC_BASE;
	for (u32 i = 0; i < vm->nr_vcpus; i++)
		t.cpu[i] = (struct mp_cpu){ .type = MP_CPU,
					    .apic_id = (u8)vm->vcpus[i].id,
					    .apic_version = 0x14,
					    .flags = MP_CPU_ENABLED | (i ? 0 : MP_CPU_BSP),
					    .signature = id.eax,
					    .features = id.edx };
	t.bus = (struct mp_bus){ .type = MP_BUS, .id = 0 };
	memcpy(t.bus.name, "ISA   ", 6);
	t.ioapic = (struct mp_ioapic){ .type = MP_IOAPIC,
				       .id = BOARD_IOAPIC_ID,
				       .version = (u8)IOAPIC_VERSION,
				       .flags = 1,
				       .addr = (u32)IOAPIC_BASE };
	/* Every ISA IRQ but 2 (the cascade) on its pin; the SCI is level triggered, active high,
	 * as the MADT says. */
	for (unsigned irq = 0, i = 0; irq < MP_ISA_IRQS; irq++) {
		if (irq == 2)
			continue;
		t.io[i++] = (struct mp_local_irq){ .type = MP_IO_IRQ,
						   .irq_type = MP_IRQ_INT,
						   .flags = irq == IRQ_SCI ? MP_HIGH_LEVEL : 0,
						   .bus = 0,
						   .bus_irq = (u8)irq,
						   .apic_id = BOARD_IOAPIC_ID,
						   .lint = (u8)isa_gsi(irq) };
	}
	/* The 8259's INTR on every CPU's LINT0 (ExtINT), NMI on LINT1: virtual-wire mode. */
	t.lint[0] = (struct mp_local_irq){
		.type = MP_LOCAL_IRQ, .irq_type = MP_IRQ_EXTINT, .apic_id = 0xff, .lint = 0
	};
	t.lint[1] = (struct mp_local_irq){
		.type = MP_LOCAL_IRQ, .irq_type = MP_IRQ_NMI, .apic_id = 0xff, .lint = 1
	};
	/* The processor entries come first, as the spec orders them: close the gap after them. */
	size_t gap = (VCPUS_PER_GUEST_MAX - vm->nr_vcpus) * sizeof(struct mp_cpu);
	size_t len = sizeof(t) - gap;
	memmove(&t.cpu[vm->nr_vcpus], &t.bus, sizeof(t) - offsetof(typeof(t), bus));
	t.hdr.length = (u16)len;
	t.hdr.checksum = checksum8(&t, len);

	fp = (struct mp_floating){ .config_gpa = (u32)config_gpa, .length = 1, .revision = 4 };
	memcpy(fp.sig, "_MP_", 4);
	fp.checksum = checksum8(&fp, sizeof(fp));
	memcpy(dst, &fp, sizeof(fp));
	memcpy((u8 *)dst + sizeof(fp), &t, len);
}
