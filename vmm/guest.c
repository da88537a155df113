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
#include "arch/x86/lapic.h"
#include "vmm/ioport.h"
#include "vmm/loader.h"
#include "vmm/multiboot1.h"
#include "vmm/mmu_host.h"
#include "vmm/options.h"
#include "vmm/stats.h"
#include "vmm/vcpu.h"

#define DEFAULT_MEM_MIB 16
#define MAX_MEM_MIB 1024
#define SLICE_MS 10
#define SLICE_TSC 20000000ull /* also checked at every exit */

struct vm vms[MAX_VMS];
u32 nr_vms;
static u32 vms_ended;
static u32 load_errors;

void vm_end(struct vm *vm, enum vm_end how, u32 status, const char *detail)
{
	if (vm->state == VM_ENDED)
		return;
	vm->end = how;
	vm->status = status;
	vm->end_detail = detail;
	vm->state = VM_ENDED;
	__atomic_add_fetch(&vms_ended, 1, __ATOMIC_SEQ_CST);
}

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
			fmt_snprintf(vm->guest_args, sizeof(vm->guest_args), "%s", cur);
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

/* The files meant for this guest, in the order of their module lines. */
static unsigned collect_files(const struct boot_info *bi, const char *guest, struct mb1_file *f)
{
	char name[VM_NAME_LEN];
	unsigned n = 0;

	for (u32 i = 0; i < bi->nmodules && n < MB1_MAX_FILES; i++) {
		const char *rest = attached_to(&bi->modules[i], name, sizeof(name));
		if (rest && !strcmp(name, guest))
			f[n++] = (struct mb1_file){ phys_to_virt(bi->modules[i].start),
						    bi->modules[i].end - bi->modules[i].start, rest };
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
				  .nocache = options.nocache };

	vm->id = index;
	if (!parse_guest_options(vm, mod->cmdline, &mem_mib, &cpu, ncpus, index))
		return false;
	if (memslots_init(&vm->mem, mem_mib << 20) < 0) {
		kprintf("guest %s: no room for %lu MiB of guest memory\n", vm->name, mem_mib);
		return false;
	}
	unsigned nfiles = collect_files(bi, vm->name, files);
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
	vm->cpu = cpu;
	vm->vcpu.vm = vm;
	vm->vcpu.id = 0;
	vm->vcpu.cpu = cpu;
	vm->vcpu.asid = index + 1;
	vm->vcpu.regs.opaque = &vm->vcpu; /* the emulator's callbacks find the vCPU through it */
	vlapic_reset(&vm->vcpu.vlapic, 0);
	vm->vcpu.apic_base_msr = VLAPIC_BASE | BIT(11) | BIT(8); /* enabled, BSP */
	vm->vcpu.pat = 0x0007040600070406ull;                     /* the reset value */
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

/* First entry on its CPU: the backend's control structure and the MMU context. */
static bool start_vcpu(struct vcpu *v)
{
	struct vm *vm = v->vm;

	if (virt->vcpu_create(v) < 0 || mmu_vcpu_init(&v->mmu, &vm->mmu) < 0) {
		vm_end(vm, VM_END_FATAL, 0, "no memory for the vCPU");
		return false;
	}
	fpu_init_state(v->fpu);
	const struct x86_emu_ctx *r = &v->regs;
	if (mmu_reset_context(&v->mmu, r->cr0, r->cr4, r->efer, r->cr3) < 0) {
		vm_end(vm, VM_END_FATAL, 0, "no memory for the MMU context");
		return false;
	}
	if (vm->tdp_on)
		virt->tdp_enable(v, tdp_root_hpa(&vm->tdp));
	else
		virt->update_paging(v);
	vm->state = VM_RUNNING;
	return true;
}

/* The tick this CPU needs: none for one busy guest, a slice for several, 1 ms while a guest
 * waits for its timer (the tick is what notices the deadline). */
static u32 wanted_tick_ms(u32 me, u32 mine)
{
	for (u32 i = 0; i < nr_vms; i++) {
		const struct vcpu *v = &vms[i].vcpu;
		if (vms[i].cpu == me && vms[i].state != VM_ENDED && (v->timer_deadline || v->halted))
			return 1;
	}
	return mine > 1 ? SLICE_MS : 0;
}

void guests_run_this_cpu(void)
{
	u32 me = this_cpu()->index, mine = 0, tick = 0;

	for (u32 i = 0; i < nr_vms; i++)
		mine += vms[i].cpu == me;
	for (;;) {
		bool any = false, ran = false;
		for (u32 i = 0; i < nr_vms; i++) {
			struct vm *vm = &vms[i];
			if (vm->cpu != me || vm->state == VM_ENDED)
				continue;
			any = true;
			if (vm->state == VM_READY && !start_vcpu(&vm->vcpu))
				continue;
			fpu_restore(vm->vcpu.fpu);
			ran |= vcpu_run_slice(&vm->vcpu, rdtsc() + SLICE_TSC);
			fpu_save(vm->vcpu.fpu);
			if (vm->state == VM_ENDED)
				console_flush(vm);
		}
		if (!any)
			break;
		u32 want = wanted_tick_ms(me, mine);
		if (want != tick)
			lapic_timer_periodic(tick = want);
		/* Everyone here is waiting: sleep until the tick (interrupts on only in hlt). */
		if (!ran && tick)
			__asm__ volatile("sti; hlt; cli" ::: "memory");
	}
	lapic_timer_periodic(0);
}

static const char *end_name(enum vm_end e)
{
	static const char *const n[] = { "none", "result", "halted", "triple-fault", "fatal",
					 "load-error", "stopped" };
	return n[e];
}

static bool guest_passed(const struct vm *vm)
{
	if (vm->audit_errors)
		return false;
	if (vm->expect_crash)
		return vm->end == VM_END_SHUTDOWN || vm->end == VM_END_FATAL;
	if (vm->expect_stop)
		return vm->end == VM_END_STOPPED;
	return vm->end == VM_END_RESULT && vm->status == ((0x10u << 1) | 1);
}

static void report_one(struct vm *vm)
{
	struct umbra_stats st;
#define EXIT_NAME(name, short_name) #short_name,
	static const char *const rn[UMBRA_EXIT_REASONS] = { UMBRA_EXIT_REASON_LIST(EXIT_NAME) };
#undef EXIT_NAME
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
	kprintf("guest %s: ended=%s status=%u (%s)%s%s exits=%lu\n", vm->name, end_name(vm->end),
		vm->status, vm->end_detail ? vm->end_detail : "-",
		vm->expect_crash ? " expected-crash" : vm->expect_stop ? " expected-stop" : "",
		guest_passed(vm) ? " PASS" : " FAIL",
		st.exits_total);
	for (int i = 0; i < UMBRA_EXIT_REASONS; i++)
		if (st.exits[i])
			n += fmt_snprintf(line + n, sizeof(line) - n, " %s=%lu", rn[i], st.exits[i]);
	kprintf("guest %s: exits:%s\n", vm->name, n ? line : " none");
	kprintf("guest %s: mmu: faults_fixed=%lu faults_to_guest=%lu shadowed=%lu zapped=%lu "
		"reclaimed=%lu writes_emulated=%lu flood_zaps=%lu misaligned_zaps=%lu "
		"root_hits=%lu root_misses=%lu unemulated=%lu audit_errors=%lu\n",
		vm->name, st.mmu.faults_fixed, st.mmu.faults_to_guest, st.mmu.pages_shadowed,
		st.mmu.pages_zapped, st.mmu.pages_reclaimed, st.mmu.writes_emulated,
		st.mmu.flood_zaps, st.mmu.misaligned_zaps, st.mmu.root_cache_hits,
		st.mmu.root_cache_misses, st.mmu.unshadowed_unemulated, vm->audit_errors);
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
	u32 passed = 0, failed = 0, crashed = 0, stopped = 0;
	u64 exits = 0;

	while (__atomic_load_n(&vms_ended, __ATOMIC_SEQ_CST) < nr_vms)
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
		else
			passed++;
	}
	/* Rejected modules were reported when they were loaded; they never ran. */
	fmt_snprintf(summary, size, "guests=%u guests_passed=%u guests_failed=%u guests_crashed=%u "
		     "guests_stopped=%u guests_rejected=%u exits=%lu", nr_vms, passed, failed, crashed,
		     stopped, load_errors, exits);
	return failed == 0;
}
