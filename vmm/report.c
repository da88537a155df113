/* SPDX-License-Identifier: GPL-2.0-only */
/* Reports: each guest's at its end, the summary line, panic, and the end of the run. */
#include "vmm/report.h"
#include "arch/x86/console.h"
#include "vmm/dma_selftest.h"
#include "vmm/iommu_domain.h"
#include "arch/x86/cpu.h"
#include "arch/x86/percpu.h"
#include "arch/x86/poweroff.h"
#include "arch/x86/tsc.h"
#include "arch/x86/traps.h"
#include "arch/x86/virt.h"
#include "lib/assert.h"
#include "lib/printf.h"
#include "lib/spinlock.h"
#include "vmm/bootprof.h"
#include "vmm/sched.h"
#include "vmm/guest.h"
#include "vmm/options.h"
#include "vmm/stats.h"
#include "vmm/vm.h"
#include "vmm/vm_lock.h"
#include "vmm/reset.h"
#include "vmm/shm.h"

static u32 finishing;
static const char *summary_extra = "";

void umbra_set_summary_extra(const char *kv)
{
	summary_extra = kv;
}

NORETURN void umbra_finish(bool pass, const char *why)
{
	/* A second CPU failing while the first reports must not print a second summary. */
	if (__atomic_exchange_n(&finishing, 1, __ATOMIC_SEQ_CST))
		halt_forever();
	u32 virt_cpus = 0;
	for (u32 i = 0; i < NR_CPUS; i++)
		virt_cpus += percpus[i].online && percpus[i].virt != NULL;
	kprintf("UMBRA SUMMARY: cpus_online=%u virt=%s virt_cpus=%u %s%sresult=%s reason=%s\n",
		cpus_online, virt ? virt->name : "none", virt_cpus, summary_extra,
		*summary_extra ? " " : "", pass ? "pass" : "fail", why ? why : "none");
	platform_exit(pass);
}

NORETURN void umbra_panic(const char *fmt, va_list ap)
{
	cli();
	kprintf("UMBRA PANIC: cpu=%d: ", this_cpu_index());
	console_vprintf(fmt, ap);
	kprintf("\n");
	backtrace_from((u64)__builtin_frame_address(0));
	umbra_finish(false, "panic");
}

static bool guest_passed(const struct vm *vm)
{
	if (vm->audit_errors)
		return false;
	if (vm->config.expect_crash)
		return vm->end == VM_END_SHUTDOWN || vm->end == VM_END_FATAL;
	if (vm->config.expect_stop)
		return vm->end == VM_END_STOPPED;
	if (vm->config.expect_timeout)
		return vm->end == VM_END_TIMEOUT;
	/* A clean soft-off is how an operating system ends on its own, as QEMU exits 0 on it. */
	return (vm->end == VM_END_RESULT && vm->status == ((UMBRA_RESULT_PASS << 1) | 1)) ||
	       vm->end == VM_END_POWEROFF || vm->end == VM_END_REBOOT;
}

/* " name=count" for every reason counted, or " none". */
static void exit_list(const u64 *exits, char *line, size_t size)
{
	int n = 0;

	for (int i = 0; i < EXIT_REASONS; i++)
		if (exits[i])
			n += fmt_snprintf(line + n, size - n, " %s=%lu", stats_exit_name(i),
					  exits[i]);
	if (!n)
		fmt_snprintf(line, size, " none");
}

static void report_one(struct vm *vm)
{
	struct umbra_stats st;
	char line[320];
	int n = 0;

	if (vm->end == VM_END_FATAL || vm->end == VM_END_SHUTDOWN || vm->end == VM_END_REBOOT_LOOP)
		vcpu_dump(&vm->vcpus[0]);
	/* audit=1 checked what each fault changed; once the guest is gone, check everything. */
	if (options.audit && vm->state == VM_ENDED && vm->vcpus[0].hw.arch) {
		char buf[160];
		vm_lock(vm);
		unsigned errors = mmu_audit(&vm->mmu, buf, sizeof(buf));
		vm_unlock(vm);
		if (errors)
			kprintf("guest %s: MMU AUDIT (final, full): %u errors: %s\n", vm->name,
				errors, buf);
		vm->audit_errors += errors;
	}
	stats_collect(&vm->vcpus[0], &st);
	kprintf("guest %s: ended=%s status=%u (%s)%s%s exits=%lu\n", vm->name, vm_end_name(vm->end),
		vm->status, vm->end_detail ? vm->end_detail : "-",
		vm->config.expect_crash	    ? " expected-crash"
		: vm->config.expect_stop    ? " expected-stop"
		: vm->config.expect_timeout ? " expected-timeout"
					    : "",
		guest_passed(vm) ? " PASS" : " FAIL", st.exits_total);
	exit_list(st.exits, line, sizeof(line));
	kprintf("guest %s: exits:%s\n", vm->name, line);
	/* Its CPU time (turns on its CPUs, all vCPUs), the weight it had, and each vCPU's. */
	n = 0;
	for (u32 i = 0; i < vm->nr_vcpus && vm->nr_vcpus > 1; i++)
		n += fmt_snprintf(line + n, sizeof(line) - (size_t)n, " vcpu%u=%lu", i,
				  tsc_to_ns(vm->vcpus[i].cpu_tsc) / 1000000);
	line[n] = 0;
	u64 waited = vm->end_tsc == ~0ull ? 0 : vm_budget_end(vm) - vm->end_tsc;
	kprintf("guest %s: cpu: time_ms=%lu weight=%u waited_ms=%lu%s\n", vm->name,
		tsc_to_ns(vm->cpu_tsc) / 1000000,
		vm->config.weight ? vm->config.weight : SCHED_WEIGHT_DEFAULT,
		tsc_to_ns(waited) / 1000000, line);
	if (vm->restarts || vm->config.on_reboot_end || vm->end == VM_END_REBOOT_LOOP) {
		vm_restart_text(vm, line, sizeof(line));
		kprintf("guest %s: reset:%s\n", vm->name, line);
	}
	/* With several vCPUs, each one's share, and what they did to each other. */
	if (vm->nr_vcpus > 1) {
		for (u32 i = 0; i < vm->nr_vcpus; i++) {
			const struct vcpu *v = &vm->vcpus[i];
			exit_list(v->exits, line, sizeof(line));
			kprintf("guest %s: vcpu%u: cpu=%u %s exits=%lu:%s\n", vm->name, i, v->cpu,
				v->hw.arch ? "started" : "never-started", v->exits_total, line);
		}
		kprintf("guest %s: smp: vcpus=%u ipis=%lu remote_flushes=%lu\n", vm->name,
			vm->nr_vcpus, vm->ipis, vm->remote_flushes);
		/* The one VM-wide lock: how often its exits found another vCPU (or the monitor,
		 * gdb, a peer's STATS_OF) holding it, by the kind of exit that waited. */
		u64 waits[EXIT_REASONS] = { 0 };
		for (u32 i = 0; i < vm->nr_vcpus; i++)
			for (int r = 0; r < EXIT_REASONS; r++)
				waits[r] += vm->vcpus[i].lock_waits[r];
		exit_list(waits, line, sizeof(line));
		kprintf("guest %s: lock: taken=%lu contended=%lu spins=%lu waits:%s\n", vm->name,
			vm->lock_taken, vm->lock_contended, vm->lock_spins, line);
	}
	bootprof_report(&vm->vcpus[0], vm->name);
	shm_report(vm);
	char mmu[640]; /* 16 counters of at most 37 characters */
	n = 0;
#define MMU_STAT_TEXT(field, name) \
	n += fmt_snprintf(mmu + n, sizeof(mmu) - n, " " #name "=%lu", st.mmu.field);
	UMBRA_MMU_STATS(MMU_STAT_TEXT)
#undef MMU_STAT_TEXT
	kprintf("guest %s: mmu:%s audit_errors=%lu\n", vm->name, mmu, vm->audit_errors);
	u64 offered = 0, taken = 0;
	for (u32 i = 0; i < vm->nr_vcpus; i++) {
		offered += vm->vcpus[i].pv_eoi_offered;
		taken += vm->vcpus[i].pv_eoi_taken;
	}
	if (offered)
		kprintf("guest %s: pv-eoi: offered=%lu taken=%lu\n", vm->name, offered, taken);
	if (vm->dma.root)
		kprintf("guest %s: iommu: domain=%u mapped_mib=%lu dma_faults=%lu\n", vm->name,
			vm->dma.did, vm->dma.mapped >> 20, vm->dma_faults);
	if (vm->board.pci.n)
		kprintf("guest %s: msi: delivered=%lu dropped=%lu\n", vm->name, vm->msis,
			vm->msis_dropped);
	bool intx = false;
	for (u32 d = 0; d < vm->board.pci.n; d++)
		intx |= vm->board.pci.fn[d].intx_routed;
	if (intx)
		kprintf("guest %s: intx: raised=%lu eois=%lu\n", vm->name, vm->intx_raised,
			vm->intx_eois);
	for (u32 d = 0; d < vm->board.pci.n; d++) {
		const struct pci_msix *x = &vm->board.pci.fn[d].msix;
		if (x->off)
			kprintf("guest %s: msix: 00:%02x.0 entries=%u bad_accesses=%lu\n", vm->name,
				d + 1, x->x.n, x->x.bad);
	}
	if (vm->tdp_on)
		kprintf("guest %s: tdp: faults_filled=%lu faults_mmio=%lu faults_mapped=%lu "
			"large_pages=%lu small_pages=%lu tables=%lu\n",
			vm->name, vm->tdp.stats.faults_filled, vm->tdp.stats.faults_mmio,
			vm->tdp.stats.faults_mapped, vm->tdp.stats.large_pages,
			vm->tdp.stats.small_pages, vm->tdp.stats.tables);
	if (vm->n_unmodelled) {
		n = 0;
		for (u32 i = 0; i < vm->n_unmodelled; i++)
			n += fmt_snprintf(line + n, sizeof(line) - n, " 0x%x", vm->unmodelled[i]);
		kprintf("guest %s: unmodelled ports:%s\n", vm->name, line);
	}
	if (vm->n_mmio_unclaimed) {
		n = 0;
		for (u32 i = 0; i < vm->n_mmio_unclaimed; i++)
			n += fmt_snprintf(line + n, sizeof(line) - n, " 0x%lx*%lu",
					  vm->mmio_unclaimed[i].gpa, vm->mmio_unclaimed[i].count);
		if (vm->mmio_unclaimed_other)
			n += fmt_snprintf(line + n, sizeof(line) - n, " others*%lu",
					  vm->mmio_unclaimed_other);
		kprintf("guest %s: unclaimed mmio (address*accesses):%s\n", vm->name, line);
	}
	if (vm->mmio_ud)
		kprintf("guest %s: mmio instructions not emulated (#UD): %lu\n", vm->name,
			vm->mmio_ud);
}

bool guests_wait_and_report(char *summary, size_t size)
{
	u32 passed = 0, failed = 0, crashed = 0, stopped = 0, timedout = 0;
	u64 exits = 0;

	/* Every guest's CPU lets go of it (parks it) once it has ended for good. */
	for_each_vm(vm) while (!__atomic_load_n(&vm->parked, __ATOMIC_ACQUIRE)) cpu_relax();
#ifdef UMBRA_TEST_DMA /* check-pci's own build (tests/pci/suite.mk) */
	dma_selftest();
#endif
	iommu_poll(true); /* the faults of the last few ms, before they are counted */
	for_each_vm(vm)
	{
		report_one(vm);
		for (u32 j = 0; j < vm->nr_vcpus; j++)
			exits += vm->vcpus[j].exits_total;
		if (!guest_passed(vm))
			failed++;
		else if (vm->config.expect_crash)
			crashed++;
		else if (vm->config.expect_stop)
			stopped++;
		else if (vm->config.expect_timeout)
			timedout++;
		else
			passed++;
	}
	iommu_domains_report();
	/* Rejected modules were reported when they were loaded; they never ran. */
	fmt_snprintf(summary, size,
		     "guests=%u guests_passed=%u guests_failed=%u guests_crashed=%u "
		     "guests_stopped=%u guests_timedout=%u guests_rejected=%u exits=%lu",
		     nr_vms, passed, failed, crashed, stopped, timedout, guests_rejected(), exits);
	return failed == 0;
}
