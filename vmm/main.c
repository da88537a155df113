/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbra's C entry: brings up the machine, every CPU's virtualization, then runs the guests. */
#include "arch/x86/acpi.h"
#include "arch/x86/ioapic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/iommu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/memory.h"
#include "arch/x86/paging.h"
#include "arch/x86/pci.h"
#include "arch/x86/percpu.h"
#include "arch/x86/serial.h"
#include "arch/x86/smp.h"
#include "arch/x86/traps.h"
#include "arch/x86/tsc.h"
#include "arch/x86/virt.h"
#include "boot/mb2.h"
#include "lib/assert.h"
#include "lib/printf.h"
#include "lib/spinlock.h"
#include "vmm/console.h"
#include "vmm/debug/debug.h"
#include "vmm/debug/gdbstub.h"
#include "vmm/debug/monitor.h"
#include "vmm/guest.h"
#include "vmm/options.h"
#include "vmm/iommu_domain.h"
#include "vmm/load/loader.h"
#include "vmm/pci_assign.h"
#include "vmm/report.h"
#include "vmm/restart.h"
#include "vmm/shm.h"
#include "vmm/sched.h"
#include "vmm/trace.h"

/* Bound on what we trust of total_size before parsing validates it. */
#define MB2_INFO_MAX (1u << 20)

static struct boot_info boot_info;
static struct acpi_cpus acpi_cpus;

static const void *acpi_map(u64 pa, size_t len, void *ctx)
{
	(void)ctx;
	if (pa + len < pa || pa + len > HOST_MAPPED_LIMIT)
		return NULL;
	return phys_to_virt(pa);
}

/* Runs on every CPU, BSP first, then each AP before it counts as online. */
static void cpu_setup_virt(void)
{
	struct percpu *pc = this_cpu();

	/* FXSAVE/FXRSTOR of guest FPU state needs the OS-support bits on the host side too. */
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);

	if (virt->cpu_enable(pc) == 0)
		kinfo("cpu%u: apic_id=%u %s\n", pc->index, pc->apic_id, pc->virt_info);
	else
		kprintf("cpu%u: apic_id=%u %s unavailable: %s\n", pc->index, pc->apic_id,
			virt->name, pc->virt_error);
}

static volatile bool guests_ready;

static void ap_wait_for_work(void)
{
	while (!guests_ready)
		cpu_relax();
	if (this_cpu()->virt)
		sched_run_this_cpu();
	/* Done: park with interrupts off (INIT or NMI still reach it). */
	halt_forever();
}

static void find_cpus(void)
{
	const void *rsdp = boot_info.rsdp_new ? boot_info.rsdp_new : boot_info.rsdp_old;
	size_t len = boot_info.rsdp_new ? boot_info.rsdp_new_len : boot_info.rsdp_old_len;

	if (!rsdp || acpi_find_cpus(rsdp, len, acpi_map, NULL, &acpi_cpus) < 0) {
		kprintf("acpi: %s: running on the boot CPU only\n",
			rsdp ? acpi_cpus.error : "no RSDP from the boot loader");
		acpi_cpus.count = 0;
		acpi_cpus.lapic_base = APIC_DEFAULT_BASE;
	}
	if (acpi_cpus.dropped)
		kprintf("acpi: %u CPUs beyond %u ignored\n", acpi_cpus.dropped, NR_CPUS);
	kinfo("acpi: %u CPUs in the MADT (%s), lapic at 0x%lx\n", acpi_cpus.count,
	      acpi_cpus.used_xsdt ? "XSDT" : "RSDT", acpi_cpus.lapic_base);
}

void kmain(u32 magic, u32 info_pa);
void kmain(u32 magic, u32 info_pa)
{
	struct percpu *bsp = &percpus[0];
	const char *why;

	panic_set_handler(umbra_panic);
	serial_init();
	idt_init();
	percpu_init(bsp, 0, 0);
	percpu_load(bsp);
	kprintf("Umbra shadow-paging hypervisor\n");
	/* Its FIFO mode is the firmware's (arch/x86/serial.c): with FIFOs off, each byte out costs a
	 * status read too. */
	kprintf("console: COM1, 115200 8N1, FIFOs %s\n", serial_tx_fifo() > 1 ? "on" : "off");

	if (magic != MB2_BOOTLOADER_MAGIC)
		panic("not booted by a multiboot2 loader (magic 0x%x)", magic);
	const void *info = phys_to_virt(info_pa);
	if (mb2_parse(info, MB2_INFO_MAX, &boot_info) < 0)
		panic("bad multiboot2 information: %s", boot_info.error);
	options_parse(boot_info.cmdline);

	paging_init();
	memory_init(&boot_info, info_pa);
	find_cpus();
	host_ioapic_init(&acpi_cpus);
	const void *rsdp = boot_info.rsdp_new ? boot_info.rsdp_new : boot_info.rsdp_old;
	size_t rsdp_len = boot_info.rsdp_new ? boot_info.rsdp_new_len : boot_info.rsdp_old_len;
	pci_host_init(rsdp, rsdp_len, acpi_map);
	iommu_host_init(rsdp, rsdp_len, acpi_map, &pci_host);
	pci_assign_init(&pci_assign_host, &pci_host, &iommu_host, options.iommu_off, COM1_BASE);
	iommu_domains_init(options.iommu_off);
	if (options.iommu_off) {
		kprintf("umbra: ************************************************************\n");
		kprintf("umbra: iommu=off: devices given with pci= are NOT confined: their DMA\n");
		kprintf("umbra: can read and write any memory, Umbra's and other guests'.\n");
		kprintf("umbra: ************************************************************\n");
	}
	tsc_calibrate();
	kinfo("tsc: %lu kHz\n", tsc_hz / 1000);
	lapic_init(acpi_cpus.lapic_base);
	lapic_enable();
	lapic_timer_init();
	kinfo("timer: %s\n", lapic_timer_mode());
	bsp->apic_id = lapic_id();
	cpus_online = 1;
	bsp->online = true;

#ifdef UMBRA_TEST_FAULT
	/* Build option for the harness self-test: a NULL write must end as a failed run. */
	*(volatile u64 *)0 = 0xdead;
#endif

	virt = virt_select(&why);
	if (!virt) {
		kprintf("umbra: no hardware virtualization on this CPU (%s)\n", why);
		umbra_finish(false, "no-virtualization");
	}
	cpu_setup_virt();
	u32 max = options.max_cpus ? options.max_cpus : NR_CPUS;
	smp_boot_aps(&acpi_cpus, max, cpu_setup_virt, ap_wait_for_work);

	bool ok = true;
	for (u32 i = 0; i < cpus_online; i++)
		ok &= percpus[i].virt != NULL;
	if (!ok)
		umbra_finish(false, "virt-enable-failed");

	shm_init();
	vm_restart_set_reload(loader_reload);
	debug_register();
	u32 n = guests_create(&boot_info, cpus_online);
	iommu_domains_print();
	console_focus_init(options.console[0] ? options.console : NULL);
	if (options.gdb[0])
		gdbstub_init(options.gdb, options.gdbwait, monitor_queue);
	if (options.trace[0])
		trace_init(options.trace);
	guests_ready = true;
	sched_run_this_cpu();
	static char guest_summary[200];
	bool guests_ok = guests_wait_and_report(guest_summary, sizeof(guest_summary));
	umbra_set_summary_extra(guest_summary);
	umbra_finish(guests_ok, n ? (guests_ok ? "guests-done" : "guest-failed") : "no-guests");
}
