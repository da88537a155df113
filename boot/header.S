/* SPDX-License-Identifier: GPL-2.0-only */
/* The multiboot2 header: asks GRUB for the memory map, ACPI RSDP, command line and modules. */
#define MB2_MAGIC 0xe85250d6
#define MB2_ARCH_I386 0

	.section .multiboot, "a"
	.balign 8
mb2_header:
	.long MB2_MAGIC
	.long MB2_ARCH_I386
	.long mb2_header_end - mb2_header
	.long -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))

	/* Information request: cmdline(1), modules(3), mmap(6), old RSDP(14), new RSDP(15), and
	 * under UEFI the firmware's memory map (17), which GRUB gives once it has exited boot
	 * services (no EFI boot-services tag here: Umbra wants the machine to itself). */
	.balign 8
info_req:
	.short 1, 0
	.long info_req_end - info_req
	.long 1, 3, 6, 14, 15, 17
info_req_end:

	/* Modules page-aligned so guest images can be mapped or copied by frame. */
	.balign 8
	.short 6, 0
	.long 8

	.balign 8
	.short 0, 0
	.long 8
mb2_header_end:
