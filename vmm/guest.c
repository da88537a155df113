/* SPDX-License-Identifier: GPL-2.0-only */
/* Guests from multiboot2 modules: each gets its memory, its image loaded, its MMU and a vCPU. */
#include "vmm/guest.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/percpu.h"
#include "boot/mb2.h"
#include "lib/palloc.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "vmm/cpuid.h"
#include "arch/x86/fpu.h"
#include "arch/x86/tsc.h"
#include "vmm/load/bios.h"
#include "vmm/bootprof.h"
#include "vmm/iommu_domain.h"
#include "vmm/load/loader.h"
#include "vmm/boot_files.h"
#include "vmm/mmu_host.h"
#include "vmm/options.h"
#include "vmm/pci_view.h"
#include "vmm/guest_options.h"
#include "vmm/vcpu.h"
#include "vmm/board.h"
#include "vmm/shm.h"

static u32 load_errors;
/* ASIDs/VPIDs handed out so far, one per vCPU (SVM with fewer shares its last one, flushing
 * at every entry). A VPID has 16 bits and 0 is the host's: no more vCPUs than that. */
static u32 asids;
#define VCPU_TAGS_MAX 0xffffu

u32 guests_rejected(void)
{
	return load_errors;
}

/* The files meant for this guest, in the order of their module lines: how many there are,
 * of which the first MB1_MAX_FILES are in f. */
static unsigned collect_files(const struct boot_info *bi, const char *guest, struct mb1_file *f)
{
	char name[VM_NAME_LEN];
	unsigned n = 0;

	for (u32 i = 0; i < bi->nmodules; i++) {
		const char *rest = guest_options_attached_to(&bi->modules[i], name, sizeof(name));
		if (!rest || strcmp(name, guest))
			continue;
		if (n < MB1_MAX_FILES)
			f[n] = (struct mb1_file){ phys_to_virt(bi->modules[i].start),
						  bi->modules[i].end - bi->modules[i].start, rest };
		n++;
	}
	return n;
}

/* Static placement: vCPU i on cpus='s i-th entry (round again if shorter), else spread from
 * the guest's CPU onwards. */
static void place_vcpus(struct vm *vm, u32 ncpus)
{
	const struct vm_config *c = &vm->config;
	for (u32 i = 0; i < vm->nr_vcpus; i++)
		vm->vcpus[i].cpu =
			c->n_cpus_list ? c->cpus_list[i % c->n_cpus_list] : (c->cpu + i) % ncpus;
}

static bool create_one(struct vm *vm, const struct mb2_module *mod, u32 ncpus, u32 index,
		       const struct boot_info *bi)
{
	struct mb1_file files[MB1_MAX_FILES];
	struct vm_config config;
	u32 cpu;
	const char *why;
	struct mmu_config cfg = { .pool_max_pages = 0,
				  .maxphyaddr = (u8)cpuid_maxphyaddr(&cpuid_host),
				  .nocache = options.nocache,
				  .no_1g = !cpuid_has_1g(&cpuid_host) };

	vm->id = index;
	vm->cpuid = cpuid_host;
	if (!guest_options_parse(&config, mod->cmdline, ncpus, index))
		return false;
	if (!config.budget_ns)
		config.budget_ns = options.timeout_s * 1000000000ull;
	vm_configure(vm, &config);
	const struct vm_config *c = &vm->config;
	u64 mem_mib = c->mem_mib;
	if (!shm_join(vm))
		return false;
	if (vm->nr_vcpus > VCPU_TAGS_MAX - asids) {
		kprintf("guest %s: no ASID/VPID left for its %u vCPUs (%u in all)\n", vm->name,
			vm->nr_vcpus, VCPU_TAGS_MAX);
		return false;
	}
	if (!vm_alloc_vcpus(vm)) {
		kprintf("guest %s: no memory for its %u vCPUs (%lu KiB; %lu KiB free)\n", vm->name,
			vm->nr_vcpus, vm_vcpus_bytes(vm->nr_vcpus) >> 10,
			(u64)palloc_free_pages() << (PAGE_SHIFT - 10));
		return false;
	}
	place_vcpus(vm, ncpus);
	cpu = vm->vcpus[0].cpu;
	if (c->pci.n && index >= PCI_NO_OWNER) {
		kprintf("guest %s: pci= only for the first %u guests (its index is %u)\n", vm->name,
			PCI_NO_OWNER, index);
		return false;
	}
	struct pci_assign_req refused;
	if (!pci_assign_check(&pci_assign_host, &c->pci, (u8)index, &refused)) {
		kprintf("guest %s: %s\n", vm->name, refused.error);
		return false;
	}
	/* Checked here, not in the parser: what is free depends on the guests made before. */
	u64 free_mib = palloc_free_pages() >> (20 - PAGE_SHIFT);
	if (mem_mib > free_mib) {
		kprintf("guest %s: mem=%lu MiB but only %lu MiB are free\n", vm->name, mem_mib,
			free_mib);
		return false;
	}
	/* RAM past the hole ends at 4 GiB + (mem - 3 GiB), which the guest's width must reach. */
	u64 max_mib = ((1ull << cfg.maxphyaddr) - (MEMSLOT_HIGH_BASE - MEMSLOT_LOW_MAX)) >> 20;
	if (mem_mib > max_mib) {
		kprintf("guest %s: mem=%lu MiB but a guest with %u physical address bits has at most "
			"%lu MiB\n",
			vm->name, mem_mib, cfg.maxphyaddr, max_mib);
		return false;
	}
	if (memslots_init(&vm->mem, mem_mib << 20) < 0) {
		kprintf("guest %s: no room for %lu MiB of guest memory (%lu MiB free, but the first "
			"%lu MiB must be one run and the rest in at most %u runs)\n",
			vm->name, mem_mib, free_mib, vm->mem.low_bytes >> 20, MAX_MEMSLOTS - 1);
		return false;
	}
	unsigned nfiles = collect_files(bi, vm->name, files);
	if (nfiles > MB1_MAX_FILES) {
		kprintf("guest %s: more than %u files (for=%s)\n", vm->name, MB1_MAX_FILES,
			vm->name);
		memslots_free(&vm->mem);
		return false;
	}
	vm->image = phys_to_virt(mod->start);
	vm->image_size = mod->end - mod->start;
	memcpy(vm->files, files, sizeof(files));
	vm->nfiles = nfiles;
	if (loader_load(vm, vm->image, vm->image_size, files, nfiles, &why) < 0) {
		kprintf("guest %s: bad image: %s\n", vm->name, why);
		memslots_free(&vm->mem);
		return false;
	}
	if (mmu_vm_init(&vm->mmu, &mmu_host_ops, vm, &cfg) < 0) {
		kprintf("guest %s: no memory for its MMU\n", vm->name);
		memslots_free(&vm->mem);
		return false;
	}
	/* Filled lazily: a 64 MiB guest takes 32 nested faults, with 2 MiB pages. */
	if (options.tdp && tdp_init(&vm->tdp, &mmu_host_ops, vm, virt->tdp_format) < 0) {
		kprintf("guest %s: no memory for its nested page table\n", vm->name);
		mmu_vm_destroy(&vm->mmu);
		mmu_host_release_deferred(vm);
		memslots_free(&vm->mem);
		return false;
	}
	vm->tdp_on = options.tdp;
	if (!iommu_domain_create(vm)) {
		if (vm->tdp_on)
			tdp_destroy(&vm->tdp);
		mmu_vm_destroy(&vm->mmu);
		mmu_host_release_deferred(vm);
		memslots_free(&vm->mem);
		return false;
	}
	vm->cpu = cpu;
	for (u32 i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];
		v->vm = vm;
		v->id = i;
		v->hw.name = vm->name;
		v->hw.cpu = v->cpu;
		v->hw.pdptes = v->mmu.pdptes;
		v->hw.check_entry = options.audit;
		v->hw.asid = ++asids;  /* unique per vCPU: several share a CPU */
		v->hw.regs.opaque = v; /* the emulator's callbacks find the vCPU through it */
		vlapic_reset(&v->vlapic, i, i == 0);
		v->hw.pat = PAT_RESET;
		v->dr6 = 0xffff0ff0; /* the reset value */
		v->power = i ? VCPU_WAIT_SIPI : VCPU_ON;
	}
	board_reset(vm, monotonic_ns()); /* after the APICs: it wires them to the I/O APIC */
	if (vm->bios_on)
		bios_start_devices(vm, monotonic_ns());
	pci_assign_commit(&pci_assign_host, &c->pci, (u8)index);
	for (u32 k = 0; k < c->pci.n; k++) {
		u16 bdf = c->pci.bdf[k];
		const struct pci_func *hf = &pci_host.f[pci_find(&pci_host, bdf)];
		const struct iommu_unit *u = iommu_for(&iommu_host, hf->rid);
		const char *caveat = pci_assign_caveat(hf);
		kprintf("guest %s: owns PCI %02x:%02x.%x (%s%s)\n", vm->name, PCI_BUS(bdf),
			PCI_DEV(bdf), PCI_FN(bdf),
			options.iommu_off || !u ? ""
			: u->kind == IOMMU_VTD	? "VT-d"
						: "AMD-Vi",
			options.iommu_off || !u ? "iommu=off: DMA unconfined" : " covers it");
		if (caveat)
			kprintf("guest %s: WARNING: PCI %02x:%02x.%x is %s\n", vm->name,
				PCI_BUS(bdf), PCI_DEV(bdf), PCI_FN(bdf), caveat);
	}
	shm_commit(vm);
	pci_view_attach(vm);
	vm->state = VM_READY;
	kinfo("guest %s: %lu MiB, entry 0x%lx, cpu %u, vcpus %u%s%s\n", vm->name, mem_mib,
	      vm->vcpus[0].hw.regs.rip, cpu, vm->nr_vcpus, vm->tdp_on ? ", nested paging" : "",
	      c->expect_crash ? ", expected to crash" : "");
	kdebug("guest %s: command line '%s'\n", vm->name, c->cmdline);
	kdebug("guest %s: RAM at host 0x%lx\n", vm->name, vm->mem.hpa[0]);
	if (vm->mem.bytes > vm->mem.low_bytes)
		kinfo("guest %s: RAM above 4 GiB: %lu MiB at 0x%lx-0x%lx, from %u host runs\n",
		      vm->name, (vm->mem.bytes - vm->mem.low_bytes) >> 20, (u64)MEMSLOT_HIGH_BASE,
		      memslots_high_end(&vm->mem) - 1, vm->mem.n - 1);
	return true;
}

u32 guests_create(const struct boot_info *bi, u32 ncpus)
{
	char owner[VM_NAME_LEN];

	cpuid_policy_init(&cpuid_host, cpuid);
	if (options.tdp && !(virt->tdp_supported && virt->tdp_supported())) {
		kprintf("umbra: mmu=tdp refused: this CPU has no nested paging for %s; the guests run "
			"with shadow paging\n",
			virt->name);
		options.tdp = false;
	}
	kinfo("guests: each takes %lu KiB of state, %lu bytes per vCPU and %lu per 4 KiB of its RAM "
	      "(the MMU's frame table), besides its RAM and MMU pool\n",
	      vm_state_bytes() >> 10, (u64)sizeof(struct vcpu), (u64)sizeof(struct mmu_frame));
	for (u32 i = 0; i < bi->nmodules; i++) {
		if (guest_options_attached_to(&bi->modules[i], owner, sizeof(owner)))
			continue;
		/* As many guests as memory allows: each one's state comes from the page allocator,
		 * so a module past that is refused alone, saying so, and the others still run. */
		struct vm *vm = vm_alloc();
		if (!vm) {
			kprintf("umbra: module %u: no memory for a guest's state (%lu KiB; %lu KiB "
				"free)\n",
				i, vm_state_bytes() >> 10,
				(u64)palloc_free_pages() << (PAGE_SHIFT - 10));
			load_errors++;
			continue;
		}
		if (create_one(vm, &bi->modules[i], ncpus, nr_vms, bi)) {
			vm_add(vm);
		} else {
			vm_free(vm);
			load_errors++;
		}
	}
	if (bi->modules_dropped)
		kprintf("umbra: %u modules beyond %u ignored\n", bi->modules_dropped,
			MB2_MAX_MODULES);
	/* A file for a guest that does not exist would otherwise vanish without a word. */
	for (u32 i = 0; i < bi->nmodules; i++) {
		if (!guest_options_attached_to(&bi->modules[i], owner, sizeof(owner)))
			continue;
		if (!vm_by_name(owner)) {
			kprintf("umbra: module for=%s names no guest (ignored)\n", owner);
			load_errors++;
		}
	}
	return nr_vms;
}
