/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest image loading: the formats' table, the firmware tables, Umbra's own boot protocol. */
#include "vmm/load/loader.h"
#include "arch/x86/tsc.h"
#include "lib/string.h"
#include "pv/abi.h"
#include "vmm/load/acpi_tables.h"
#include "vmm/load/bios.h"
#include "vmm/load/linux.h"
#include "vmm/load/mptable.h"
#include "vmm/load/multiboot1.h"
#include "vmm/load/place.h"
#include "vmm/load/pvh.h"
#include "vmm/vm.h"

/* What a PC's firmware leaves for the kernel: the MP table and the ACPI tables, both
 * describing the same board (vmm/dev/board.h). The PCI bus (built after the image is
 * loaded, vmm/pci_view.c) has functions, and so an ECAM window, when pci= or shm= gave any. */
static void firmware_tables_write(struct vm *vm)
{
	const struct acpi_board b = { .cpus = vm->nr_vcpus,
				      .ioapic_id = BOARD_IOAPIC_ID,
				      .ioapic_gpa = (u32)IOAPIC_BASE,
				      .pm_base = ACPI_PM_BASE,
				      .sci_irq = IRQ_SCI,
				      .ecam_gpa = vm->config.pci.n || vm->n_shm
							  ? (u32)PCI_BUS_ECAM_BASE
							  : 0 };
	u8 *acpi = memslots_ptr(&vm->mem, ACPI_TABLES_GPA, ACPI_TABLES_MAX);

	mptable_write(vm);
	if (acpi) /* a guest too small for a BIOS area gets none */
		acpi_tables_build(acpi, ACPI_TABLES_GPA, &b);
}

/* In order: a multiboot header wins over a PVH note, as with QEMU's -kernel. */
static const struct load_format *const formats[] = { &linux_format, &mb1_format, &pvh_format };

int loader_load(struct vm *vm, const u8 *img, u64 size, const struct mb1_file *files,
		unsigned nfiles, const char **why)
{
	u64 ram = vm->mem.low_bytes;
	u64 boot_page = ram - PAGE_SIZE;
	u64 entry = 0, end;
	const struct load_format *fmt = NULL;
	int claim = 0;

	for (unsigned i = 0; i < ARRAY_SIZE(formats) && !claim; i++)
		if ((claim = formats[i]->probe(img, size, why)))
			fmt = formats[i];
	/* First, so that an image loaded over the BIOS area simply replaces it. */
	firmware_tables_write(vm);
	vm->bios_on = bios_wanted(vm->config.bios, fmt && fmt->bios_default);
	if (vm->bios_on)
		bios_write_memory(vm);
	if (claim < 0)
		return -1;
	if (fmt)
		return fmt->load(vm, img, size, files, nfiles, why);
	if (nfiles) {
		*why = "files given to a guest that is not a multiboot v1, PVH or bzImage kernel";
		return -1;
	}
	if (elf_load(vm, img, size, boot_page, PAGE_SIZE, &entry, &end, why) < 0)
		return -1;

	/* Boot information at the top of RAM, the command line right after the structure. */
	struct umbra_boot_info *bi = memslots_ptr(&vm->mem, boot_page, PAGE_SIZE);
	char *cl = (char *)(bi + 1);
	size_t room = PAGE_SIZE - sizeof(*bi) - 1;
	size_t n = strlen(vm->config.cmdline);
	if (n > room)
		n = room;
	memcpy(cl, vm->config.cmdline, n);
	cl[n] = 0;
	*bi = (struct umbra_boot_info){ .magic = UMBRA_BOOT_MAGIC,
					.size = sizeof(*bi),
					.mem_bytes = ram,
					.cmdline_gpa = boot_page + sizeof(*bi),
					.cmdline_len = (u32)n,
					.vcpu_id = 0 };
	memcpy(bi->name, vm->name,
	       sizeof(vm->name) < sizeof(bi->name) ? sizeof(vm->name) : sizeof(bi->name) - 1);
	loader_entry_state(vm, entry, UMBRA_BOOT_MAGIC, (u32)boot_page);
	return 0;
}

int loader_reload(struct vm *vm, const char **why)
{
	if (loader_load(vm, vm->image, vm->image_size, vm->files, vm->nfiles, why) < 0)
		return -1;
	/* A guest that booted on the BIOS's leftovers gets them again, as after a PC's reset. */
	if (vm->bios_on)
		bios_start_devices(vm, monotonic_ns());
	return 0;
}
