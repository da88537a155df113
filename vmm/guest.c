/* Guest lifecycle: parse each module's command line, give it memory and a vCPU, run, report. */
#include "vmm/guest.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/percpu.h"
#include "boot/mb2.h"
#include "lib/cmdline.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "vmm/cpuid.h"
#include "arch/x86/fpu.h"
#include "arch/x86/tsc.h"
#include "vmm/bootprof.h"
#include "vmm/console.h"
#include "vmm/loader.h"
#include "vmm/multiboot1.h"
#include "vmm/mmu_host.h"
#include "vmm/options.h"
#include "vmm/stats.h"
#include "vmm/vcpu.h"

#define DEFAULT_MEM_MIB 16
#define MAX_MEM_MIB 1024
#define MAX_TIME_S (30ull * 24 * 3600)

static u32 load_errors;

/* caps=stats,stop: what this guest may do to other guests. */
static bool parse_caps(const char *val, u32 *caps)
{
	static const struct { const char *name; u32 bit; } known[] = {
		{ "stats", UMBRA_CAP_STATS }, { "stop", UMBRA_CAP_STOP } };
	char word[16];

	while (*val) {
		size_t n = 0;
		while (val[n] && val[n] != ',')
			n++;
		if (n == 0 || n >= sizeof(word))
			return false;
		memcpy(word, val, n);
		word[n] = 0;
		unsigned i;
		for (i = 0; i < ARRAY_SIZE(known) && strcmp(word, known[i].name); i++)
			;
		if (i == ARRAY_SIZE(known))
			return false;
		*caps |= known[i].bit;
		val += n + (val[n] == ',');
	}
	return true;
}

static bool parse_guest_options(struct vm *vm, const char *cmdline, u64 *mem_mib, u32 *cpu,
				u32 ncpus, u32 index)
{
	char key[32], val[64];
	const char *cur = cmdline ? cmdline : "";
	u64 n;

	fmt_snprintf(vm->name, sizeof(vm->name), "guest%u", index);
	*mem_mib = DEFAULT_MEM_MIB;
	*cpu = index % ncpus;
	while (cmdline_next(&cur, key, sizeof(key), val, sizeof(val))) {
		if (key[0] == '/' && !val[0])
			continue; /* the module's own path */
		if (!strcmp(key, "--") && !val[0]) {
			/* The rest is the guest's own (a multiboot v1 kernel's command line). */
			while (*cur == ' ' || *cur == '\t')
				cur++;
			if (strlen(cur) >= sizeof(vm->guest_args)) {
				kprintf("guest %s: command line after '--' longer than %u bytes\n",
					vm->name, (unsigned)sizeof(vm->guest_args) - 1);
				return false;
			}
			memcpy(vm->guest_args, cur, strlen(cur) + 1);
			cur += strlen(cur);
			break;
		}
		if (!strcmp(key, "name") && val[0]) {
			fmt_snprintf(vm->name, sizeof(vm->name), "%s", val);
		} else if (!strcmp(key, "mem") && parse_u64(val, &n) && n >= 1 && n <= MAX_MEM_MIB) {
			*mem_mib = n;
		} else if (!strcmp(key, "cpu") && parse_u64(val, &n) && n < ncpus) {
			*cpu = (u32)n;
		} else if (!strcmp(key, "expect") && !strcmp(val, "crash")) {
			vm->expect_crash = true;
		} else if (!strcmp(key, "expect") && !strcmp(val, "stop")) {
			vm->expect_stop = true;
		} else if (!strcmp(key, "expect") && !strcmp(val, "timeout")) {
			vm->expect_timeout = true;
		} else if (!strcmp(key, "time") && parse_u64(val, &n) && n >= 1 && n <= MAX_TIME_S) {
			vm->budget_ns = n * 1000000000ull;
		} else if (!strcmp(key, "caps") && parse_caps(val, &vm->caps)) {
			/* granted */
		} else {
			kprintf("guest %s: unknown or invalid option '%s%s%s'\n", vm->name, key,
				val[0] ? "=" : "", val);
			return false;
		}
	}
	if (*cur) {
		kprintf("guest %s: option too long at '%.24s'\n", vm->name, cur);
		return false;
	}
	fmt_snprintf(vm->cmdline, sizeof(vm->cmdline), "%s", cmdline ? cmdline : "");
	return true;
}

/* A module line starting with for=NAME is a file for guest NAME (its multiboot modules). */
static const char *attached_to(const struct mb2_module *mod, char *name, size_t size)
{
	const char *c = mod->cmdline ? mod->cmdline : "";
	while (*c == ' ')
		c++;
	if (strncmp(c, "for=", 4))
		return NULL;
	c += 4;
	size_t n = 0;
	while (c[n] && c[n] != ' ')
		n++;
	fmt_snprintf(name, size, "%.*s", (int)n, c);
	c += n;
	while (*c == ' ')
		c++;
	return c;
}

/* The files meant for this guest, in the order of their module lines: how many there are,
 * of which the first MB1_MAX_FILES are in f. */
static unsigned collect_files(const struct boot_info *bi, const char *guest, struct mb1_file *f)
{
	char name[VM_NAME_LEN];
	unsigned n = 0;

	for (u32 i = 0; i < bi->nmodules; i++) {
		const char *rest = attached_to(&bi->modules[i], name, sizeof(name));
		if (!rest || strcmp(name, guest))
			continue;
		if (n < MB1_MAX_FILES)
			f[n] = (struct mb1_file){ phys_to_virt(bi->modules[i].start),
						  bi->modules[i].end - bi->modules[i].start, rest };
		n++;
	}
	return n;
}

static bool create_one(struct vm *vm, const struct mb2_module *mod, u32 ncpus, u32 index,
		       const struct boot_info *bi)
{
	struct mb1_file files[MB1_MAX_FILES];
	u64 mem_mib;
	u32 cpu;
	const char *why;
	struct mmu_config cfg = { .pool_max_pages = 0, .maxphyaddr = (u8)cpuid_maxphyaddr(),
				  .nocache = options.nocache,
				  .no_1g = !cpuid_has_1g() };

	vm->id = index;
	if (!parse_guest_options(vm, mod->cmdline, &mem_mib, &cpu, ncpus, index))
		return false;
	if (memslots_init(&vm->mem, mem_mib << 20) < 0) {
		kprintf("guest %s: no room for %lu MiB of guest memory\n", vm->name, mem_mib);
		return false;
	}
	unsigned nfiles = collect_files(bi, vm->name, files);
	if (nfiles > MB1_MAX_FILES) {
		kprintf("guest %s: more than %u files (for=%s)\n", vm->name, MB1_MAX_FILES,
			vm->name);
		memslots_free(&vm->mem);
		return false;
	}
	if (loader_load(vm, phys_to_virt(mod->start), mod->end - mod->start, files, nfiles,
			&why) < 0) {
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
		memslots_free(&vm->mem);
		return false;
	}
	vm->tdp_on = options.tdp;
	if (!vm->budget_ns)
		vm->budget_ns = options.timeout_s * 1000000000ull;
	vm->cpu = cpu;
	vm->vcpu.vm = vm;
	vm->vcpu.id = 0;
	vm->vcpu.cpu = cpu;
	vm->vcpu.asid = index + 1;
	vm->vcpu.regs.opaque = &vm->vcpu; /* the emulator's callbacks find the vCPU through it */
	vlapic_reset(&vm->vcpu.vlapic, 0, true);
	board_reset(vm, monotonic_ns());   /* after the APIC: it wires the APIC to the I/O APIC */
	vm->vcpu.pat = 0x0007040600070406ull;                     /* the reset value */
	vm->vcpu.dr6 = 0xffff0ff0;                                 /* the reset value */
	vm->state = VM_READY;
	kinfo("guest %s: %lu MiB, entry 0x%lx, cpu %u%s%s\n", vm->name, mem_mib, vm->vcpu.regs.rip,
	      cpu, vm->tdp_on ? ", nested paging" : "", vm->expect_crash ? ", expected to crash" : "");
	kdebug("guest %s: command line '%s'\n", vm->name, vm->cmdline);
	return true;
}

u32 guests_create(const struct boot_info *bi, u32 ncpus)
{
	char owner[VM_NAME_LEN];

	cpuid_init();
	if (options.tdp && !(virt->tdp_supported && virt->tdp_supported())) {
		kprintf("umbra: mmu=tdp refused: this CPU has no nested paging for %s; the guests run "
			"with shadow paging\n", virt->name);
		options.tdp = false;
	}
	for (u32 i = 0; i < bi->nmodules && nr_vms < MAX_VMS; i++) {
		struct vm *vm = &vms[nr_vms];
		if (attached_to(&bi->modules[i], owner, sizeof(owner)))
			continue;
		if (create_one(vm, &bi->modules[i], ncpus, nr_vms, bi)) {
			nr_vms++;
		} else {
			memset(vm, 0, sizeof(*vm));
			load_errors++;
		}
	}
	if (bi->nmodules > MAX_VMS)
		kprintf("umbra: %u modules beyond %u guests ignored\n", bi->nmodules - MAX_VMS, MAX_VMS);
	/* A file for a guest that does not exist would otherwise vanish without a word. */
	for (u32 i = 0; i < bi->nmodules; i++) {
		if (!attached_to(&bi->modules[i], owner, sizeof(owner)))
			continue;
		u32 g;
		for (g = 0; g < nr_vms && strcmp(vms[g].name, owner); g++)
			;
		if (g == nr_vms) {
			kprintf("umbra: module for=%s names no guest (ignored)\n", owner);
			load_errors++;
		}
	}
	return nr_vms;
}

static bool guest_passed(const struct vm *vm)
{
	if (vm->audit_errors)
		return false;
	if (vm->expect_crash)
		return vm->end == VM_END_SHUTDOWN || vm->end == VM_END_FATAL;
	if (vm->expect_stop)
		return vm->end == VM_END_STOPPED;
	if (vm->expect_timeout)
		return vm->end == VM_END_TIMEOUT;
	/* A clean soft-off is how an operating system ends on its own, as QEMU exits 0 on it. */
	return (vm->end == VM_END_RESULT && vm->status == ((0x10u << 1) | 1)) ||
	       vm->end == VM_END_POWEROFF;
}

static void report_one(struct vm *vm)
{
	struct umbra_stats st;
	char line[320];
	int n = 0;

	if (vm->end == VM_END_FATAL || vm->end == VM_END_SHUTDOWN)
		vcpu_dump(&vm->vcpu);
	/* audit=1 checked what each fault changed; once the guest is gone, check everything. */
	if (options.audit && vm->state == VM_ENDED && vm->vcpu.arch) {
		char buf[160];
		spin_lock(&vm->lock);
		unsigned errors = mmu_audit(&vm->mmu, buf, sizeof(buf));
		spin_unlock(&vm->lock);
		if (errors)
			kprintf("guest %s: MMU AUDIT (final, full): %u errors: %s\n", vm->name, errors,
				buf);
		vm->audit_errors += errors;
	}
	stats_collect(&vm->vcpu, &st);
	kprintf("guest %s: ended=%s status=%u (%s)%s%s exits=%lu\n", vm->name, vm_end_name(vm->end),
		vm->status, vm->end_detail ? vm->end_detail : "-",
		vm->expect_crash ? " expected-crash" : vm->expect_stop ? " expected-stop" :
		vm->expect_timeout ? " expected-timeout" : "",
		guest_passed(vm) ? " PASS" : " FAIL",
		st.exits_total);
	for (int i = 0; i < UMBRA_EXIT_REASONS; i++)
		if (st.exits[i])
			n += fmt_snprintf(line + n, sizeof(line) - n, " %s=%lu", stats_exit_name(i),
					  st.exits[i]);
	kprintf("guest %s: exits:%s\n", vm->name, n ? line : " none");
	bootprof_report(&vm->vcpu, vm->name);
	kprintf("guest %s: mmu: faults_fixed=%lu faults_to_guest=%lu shadowed=%lu zapped=%lu "
		"reclaimed=%lu writes_emulated=%lu flood_zaps=%lu misaligned_zaps=%lu "
		"root_hits=%lu root_misses=%lu prefetched=%lu unsyncs=%lu resyncs=%lu unemulated=%lu "
		"audit_errors=%lu\n",
		vm->name, st.mmu.faults_fixed, st.mmu.faults_to_guest, st.mmu.pages_shadowed,
		st.mmu.pages_zapped, st.mmu.pages_reclaimed, st.mmu.writes_emulated,
		st.mmu.flood_zaps, st.mmu.misaligned_zaps, st.mmu.root_cache_hits,
		st.mmu.root_cache_misses, st.mmu.prefetched, st.mmu.unsyncs, st.mmu.resyncs,
		st.mmu.unshadowed_unemulated,
		vm->audit_errors);
	if (vm->tdp_on)
		kprintf("guest %s: tdp: faults_filled=%lu faults_mmio=%lu faults_mapped=%lu "
			"large_pages=%lu small_pages=%lu tables=%lu\n", vm->name,
			vm->tdp.stats.faults_filled, vm->tdp.stats.faults_mmio,
			vm->tdp.stats.faults_mapped, vm->tdp.stats.large_pages,
			vm->tdp.stats.small_pages, vm->tdp.stats.tables);
	if (vm->n_unmodelled) {
		n = 0;
		for (u32 i = 0; i < vm->n_unmodelled; i++)
			n += fmt_snprintf(line + n, sizeof(line) - n, " 0x%x", vm->unmodelled[i]);
		kprintf("guest %s: unmodelled ports:%s\n", vm->name, line);
	}
	if (vm->n_mmio_unmodelled) {
		n = 0;
		for (u32 i = 0; i < vm->n_mmio_unmodelled; i++)
			n += fmt_snprintf(line + n, sizeof(line) - n, " 0x%lx", vm->mmio_unmodelled[i]);
		kprintf("guest %s: unmodelled mmio pages:%s\n", vm->name, line);
	}
}

bool guests_wait_and_report(char *summary, size_t size)
{
	u32 passed = 0, failed = 0, crashed = 0, stopped = 0, timedout = 0;
	u64 exits = 0;

	/* Every guest's CPU lets go of it (parks it) once it has ended for good. */
	for (u32 i = 0; i < nr_vms; i++)
		while (!__atomic_load_n(&vms[i].parked, __ATOMIC_ACQUIRE))
			cpu_relax();
	for (u32 i = 0; i < nr_vms; i++) {
		struct vm *vm = &vms[i];
		report_one(vm);
		exits += vm->vcpu.exits_total;
		if (!guest_passed(vm))
			failed++;
		else if (vm->expect_crash)
			crashed++;
		else if (vm->expect_stop)
			stopped++;
		else if (vm->expect_timeout)
			timedout++;
		else
			passed++;
	}
	/* Rejected modules were reported when they were loaded; they never ran. */
	fmt_snprintf(summary, size, "guests=%u guests_passed=%u guests_failed=%u guests_crashed=%u "
		     "guests_stopped=%u guests_timedout=%u guests_rejected=%u exits=%lu", nr_vms,
		     passed, failed, crashed, stopped, timedout, load_errors, exits);
	return failed == 0;
}
