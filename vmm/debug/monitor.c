/* SPDX-License-Identifier: GPL-2.0-only */
/* The monitor: commands that look inside guests and pause, stop or focus them (Ctrl-A c, monitor=). */
#include "vmm/debug/monitor.h"
#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/paging.h"
#include "arch/x86/percpu.h"
#include "arch/x86/regs.h"
#include "arch/x86/tsc.h"
#include "lib/cmdline.h"
#include "lib/palloc.h"
#include "lib/printf.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "vmm/console.h"
#include "vmm/debug/gdbstub.h"
#include "vmm/ipi.h"
#include "vmm/options.h"
#include "vmm/stats.h"
#include "vmm/trace.h"
#include "vmm/vm_lock.h"

#define MON_LINE 96
#define MON_WORDS 4

/* The line being typed (under the console's input lock) and the one waiting to run. */
static char queued[MON_LINE];
static bool queued_ready;   /* atomics: set by the input side, taken by one CPU */
static spinlock_t run_lock; /* one command at a time */

static struct vm *find_vm(const char *name)
{
	struct vm *vm = name ? vm_by_name(name) : NULL;
	if (!vm)
		kprintf("monitor: no guest called '%s'\n", name ? name : "");
	return vm;
}

static const char *state_name(const struct vm *vm)
{
	if (vm_ended(vm))
		return vm_end_name(vm->end);
	if (vm->state == VM_READY)
		return "ready";
	if (vm->vcpus[0].debug_stop)
		return "held-by-gdb";
	return __atomic_load_n(&vm->paused, __ATOMIC_RELAXED) ? "paused" : "running";
}

static void cmd_guests(void)
{
	for_each_vm(vm)
	{
		struct mmu_stats st;
		vm_lock(vm);
		mmu_stats(&vm->mmu, &st);
		vm_unlock(vm);
		kprintf("monitor: guest %s state=%s cpu=%u exits=%lu faults_fixed=%lu "
			"faults_to_guest=%lu shadow_pages=%lu zapped=%lu paging=%s%s%s\n",
			vm->name, state_name(vm), vm->cpu, vm->vcpus[0].exits_total,
			st.faults_fixed, st.faults_guest, vm->mmu.npages, st.pages_zapped,
			vm->tdp_on ? "nested" : "shadow", gdbstub_attached(vm) ? " gdb" : "",
			console_has_focus(vm) ? " focus" : "");
	}
}

/* Where the allocator's pages are: free, guests' RAM, shadow pools, and the rest, which is
 * Umbra's own (nested tables, frame arrays, vCPU state, logs). Read without locks: a snapshot. */
static void cmd_mem(void)
{
	u64 ram = 0, pools = 0, n = 0;
	for_each_vm(vm)
	{
		for (u32 s = 0; s < vm->mem.n; s++)
			ram += vm->mem.slot[s].npages;
		pools += __atomic_load_n(&vm->mmu.pool_used, __ATOMIC_RELAXED);
		n++;
	}
	u64 total = palloc_total_pages(), free = palloc_free_pages();
	u64 used = total - free, umbra = used > ram + pools ? used - ram - pools : 0;
	kprintf("monitor: memory: %lu MiB free of %lu MiB; guests' RAM %lu MiB (%lu guests), "
		"shadow pools %lu KiB, Umbra's own %lu KiB\n",
		free >> 8, total >> 8, ram >> 8, n, pools * 4, umbra * 4);
}

/* The registers as last saved (a running guest's are a snapshot from its last exit: pause it
 * first for a still picture). Segments are left out: on VMX only the guest's own CPU may read
 * them. */
static void cmd_regs(struct vm *vm)
{
	const struct x86_emu_ctx *r = &vm->vcpus[0].hw.regs;
	kprintf("monitor: %s vcpu0 (%s) rip=0x%lx rflags=0x%lx cpl=%d\n", vm->name, state_name(vm),
		r->rip, r->rflags, r->cpl);
	vcpu_print_regs(&vm->vcpus[0], "monitor:");
}

static void print_entry(const char *table, int level, u64 idx, u64 at, u64 e)
{
	kprintf("monitor:   %s L%d [%3lu] @0x%lx = 0x%lx%s%s%s%s%s%s\n", table, level, idx, at, e,
		e & PTE_P ? " P" : " not-present", e & PTE_W ? " W" : "", e & PTE_U ? " U" : "",
		e & PTE_A ? " A" : "", e & PTE_D ? " D" : "", e & PTE_PS ? " PS" : "");
}

#define ADDR_MASK 0x000ffffffffff000ull

static bool read_guest_entry(struct vm *vm, u64 gpa, unsigned bytes, u64 *e)
{
	const void *p = memslots_ptr(&vm->mem, gpa, bytes);
	if (p)
		memcpy(e, p, bytes);
	return p != NULL;
}

static bool read_shadow_entry(struct vm *vm, u64 hpa, unsigned bytes, u64 *e)
{
	(void)vm;
	(void)bytes;
	*e = *(const u64 *)phys_to_virt(hpa);
	return true;
}

/* Prints the entries for gva from table down to the leaf: bits of the address per level,
 * entries of bytes each; PS ends the walk above level 1 where large says it means a page. */
static void walk_levels(struct vm *vm, const char *which,
			bool (*read)(struct vm *vm, u64 addr, unsigned bytes, u64 *e), u64 table,
			int levels, unsigned bits, unsigned bytes, u64 addr_mask, bool large,
			u64 gva)
{
	for (int level = levels; level >= 1; level--) {
		u64 i = (gva >> (12 + bits * (level - 1))) & ((1u << bits) - 1), e = 0;
		if (!read(vm, table + bytes * i, bytes, &e)) {
			kprintf("monitor:   %s L%d table at 0x%lx is not RAM\n", which, level,
				table);
			return;
		}
		print_entry(which, level, i, table + bytes * i, e);
		if (!(e & PTE_P) || (level > 1 && (e & PTE_PS) && large))
			return;
		table = e & addr_mask;
	}
}

/* The guest's own tables, read from its RAM for display (the translation itself is the MMU's,
 * printed after): levels, index width and entry size by paging mode. */
static void walk_guest(struct vm *vm, u64 gva)
{
	const struct x86_emu_ctx *r = &vm->vcpus[0].hw.regs;
	bool lm = r->efer & EFER_LMA, pae = r->cr4 & CR4_PAE;
	int levels = lm ? 4 : pae ? 3 : 2;
	unsigned bytes = pae ? 8 : 4;
	u64 table = r->cr3 & (pae ? ADDR_MASK : 0xfffff000ull);

	if (pae && !lm) {
		/* The PDPTEs were loaded with CR3 and live in the MMU's context. */
		u64 i = (gva >> 30) & 3, e = vm->vcpus[0].mmu.pdptes[i];
		print_entry("guest", 3, i, table + 8 * i, e);
		if (!(e & PTE_P))
			return;
		table = e & ADDR_MASK;
		levels = 2;
	}
	walk_levels(vm, "guest", read_guest_entry, table, levels, pae ? 9 : 10, bytes,
		    pae ? ADDR_MASK : 0xfffff000ull, pae || (r->cr4 & CR4_PSE), gva);
}

/* The shadow the CPU runs on for gva: 4 levels, or the PAE root of a 32-bit guest. */
static void walk_shadow(struct vm *vm, u64 gva)
{
	u64 table = vm->vcpus[0].hw.root_hpa;
	int levels = 4;

	if (vm->tdp_on) {
		kprintf("monitor:   nested paging: the CPU walks the guest's tables, no shadow\n");
		return;
	}
	if (!table) {
		kprintf("monitor:   no shadow root loaded\n");
		return;
	}
	if (vm->vcpus[0].hw.root_pae) {
		u64 i = (gva >> 30) & 3, e = ((const u64 *)phys_to_virt(table))[i];
		print_entry("shadow", 3, i, table + 8 * i, e);
		if (!(e & PTE_P))
			return;
		table = e & ADDR_MASK;
		levels = 2;
	}
	walk_levels(vm, "shadow", read_shadow_entry, table, levels, 9, 8, ADDR_MASK, true, gva);
}

static void cmd_walk(struct vm *vm, u64 gva)
{
	const struct x86_emu_ctx *r = &vm->vcpus[0].hw.regs;
	u64 gpa;
	u32 ec;

	if (!vm->vcpus[0].mmu.vm) {
		kprintf("monitor: %s never ran: no paging state to walk\n", vm->name);
		return;
	}
	vm_lock(vm);
	kprintf("monitor: walk %s 0x%lx: cr0=0x%lx cr3=0x%lx cr4=0x%lx efer=0x%lx\n", vm->name, gva,
		r->cr0, r->cr3, r->cr4, r->efer);
	if (r->cr0 & CR0_PG)
		walk_guest(vm, gva);
	else
		kprintf("monitor:   guest paging off: gpa = gva\n");
	if (mmu_gva_to_gpa(&vm->vcpus[0].mmu, gva, MMU_ACCESS_PEEK | MMU_ACCESS_AC, &gpa, &ec))
		kprintf("monitor:   guest translation: gpa 0x%lx\n", gpa);
	else
		kprintf("monitor:   guest translation: #PF error code 0x%x\n", ec);
	walk_shadow(vm, gva);
	vm_unlock(vm);
}

static void cmd_shadow(struct vm *vm)
{
	struct mmu_stats st;
	vm_lock(vm);
	mmu_stats(&vm->mmu, &st);
	kprintf("monitor: shadow %s: mode=%s pages=%lu pool=%lu/%lu pages rmap_descs=%lu "
		"root=0x%lx%s\n",
		vm->name,
		vm->tdp_on	      ? "nested"
		: vm->mmu.cfg.nocache ? "nocache"
				      : "shadow",
		vm->mmu.npages, vm->mmu.pool_used, vm->mmu.cfg.pool_max_pages, st.rmap_desc_in_use,
		vm->vcpus[0].hw.root_hpa, vm->vcpus[0].hw.root_pae ? " (pae)" : "");
	kprintf("monitor:   shadowed=%lu zapped=%lu reclaimed=%lu root_hits=%lu root_misses=%lu "
		"writes_emulated=%lu flood_zaps=%lu prefetched=%lu\n",
		st.pages_shadowed, st.pages_zapped, st.pages_reclaimed, st.root_hits,
		st.root_misses, st.writes_emulated, st.flood_zaps, st.prefetched);
	struct mmu_census c;
	mmu_census(&vm->mmu, &c);
	kprintf("monitor:   by level (shadowing+direct): L5 %lu+%lu L4 %lu+%lu L3 %lu+%lu L2 %lu+%lu "
		"L1 %lu+%lu; roots=%lu parent_links=%lu\n",
		c.shadowing[5], c.direct[5], c.shadowing[4], c.direct[4], c.shadowing[3],
		c.direct[3], c.shadowing[2], c.direct[2], c.shadowing[1], c.direct[1], c.roots,
		c.parent_links);
	vm_unlock(vm);
}

static void cmd_audit(struct vm *vm)
{
	char buf[160] = "";
	vm_lock(vm);
	unsigned errors = mmu_audit(&vm->mmu, buf, sizeof(buf));
	vm_unlock(vm);
	kprintf("monitor: audit %s: %u errors%s%s\n", vm->name, errors, errors ? ": " : "", buf);
}

/* Its CPU may be asleep until a far deadline, or deep in a slice: it looks at the flag now. */
static void kick(struct vm *vm)
{
	if (vm->cpu != (u32)this_cpu_index())
		lapic_send_fixed(percpus[vm->cpu].apic_id, KICK_VECTOR);
}

static void cmd_pause(struct vm *vm, bool pause)
{
	if (vm_ended(vm)) {
		kprintf("monitor: %s has ended\n", vm->name);
		return;
	}
	__atomic_store_n(&vm->paused, pause, __ATOMIC_RELEASE);
	kick(vm);
	kprintf("monitor: %s %s\n", vm->name, pause ? "paused" : "resumed");
}

/* The board's NMI button (QEMU's `nmi`): an edge on every vCPU's LINT1, an NMI where its LVT
 * says so (as the BIOS leaves it), into the same one latch as the guest's own NMIs. */
static void cmd_nmi(struct vm *vm)
{
	u32 sent = 0;

	if (vm_ended(vm)) {
		kprintf("monitor: %s has ended\n", vm->name);
		return;
	}
	vm_lock(vm);
	for (u32 i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *t = &vm->vcpus[i];
		if (!vlapic_lint1_nmi(&t->vlapic))
			continue;
		t->nmi_pending = true;
		ipi_kick(t);
		sent++;
	}
	vm->dev_gen++; /* a vCPU of this CPU looks at its events before it enters again */
	vm_unlock(vm);
	kprintf("monitor: nmi %s: LINT1 delivers an NMI on %u of %u vCPUs\n", vm->name, sent,
		vm->nr_vcpus);
}

static void cmd_log(struct vm *vm)
{
	vm_lock(vm);
	console_log_print(vm, "monitor");
	vm_unlock(vm);
}

/* top: exits per second by guest and reason, as kvm_stat shows them, redrawn each second on a
 * cleared screen until `top` again. The counters are read without the guests' locks: a frame
 * may miss the exits in flight, the next one counts them. */
static struct {
	bool on;
	u64 last_tsc;
} top; /* and each guest's vm->top_last: the counts at the last frame */

static void top_frame(void)
{
	u64 now = rdtsc(), ms = tsc_to_ns(now - top.last_tsc) / 1000000;
	char line[400];

	kprintf("\x1b[H\x1b[Jmonitor: top: exits per second over %lu ms ('top' again stops)\n", ms);
	for_each_vm(vm)
	{
		u64 total = 0;
		int n = 0;
		for (u32 r = 0; r < EXIT_REASONS; r++) {
			u64 c = 0;
			for (u32 j = 0; j < vm->nr_vcpus; j++)
				c += __atomic_load_n(&vm->vcpus[j].exits[r], __ATOMIC_RELAXED);
			u64 rate = ms ? (c - vm->top_last[r]) * 1000 / ms : 0;
			vm->top_last[r] = c;
			total += rate;
			if (rate && n < (int)sizeof(line) - 40)
				n += fmt_snprintf(line + n, sizeof(line) - (u32)n, " %s=%lu",
						  stats_exit_name(r), rate);
		}
		line[n] = 0;
		kprintf("monitor: top %s %s total=%lu%s\n", vm->name, state_name(vm), total, line);
	}
	top.last_tsc = now;
}

static void cmd_top(void)
{
	top.on = !top.on;
	if (top.on)
		top_frame();
	else
		kprintf("monitor: top stopped\n");
}

static void cmd_help(struct vm *vm, const char *arg);

static void do_guests(struct vm *vm, const char *arg)
{
	(void)vm;
	(void)arg;
	cmd_guests();
}
static void do_top(struct vm *vm, const char *arg)
{
	(void)vm;
	(void)arg;
	cmd_top();
}
static void do_mem(struct vm *vm, const char *arg)
{
	(void)vm;
	(void)arg;
	cmd_mem();
}
static void do_regs(struct vm *vm, const char *arg)
{
	(void)arg;
	cmd_regs(vm);
}
static void do_shadow(struct vm *vm, const char *arg)
{
	(void)arg;
	cmd_shadow(vm);
}
static void do_audit(struct vm *vm, const char *arg)
{
	(void)arg;
	cmd_audit(vm);
}
static void do_pause(struct vm *vm, const char *arg)
{
	(void)arg;
	cmd_pause(vm, true);
}
static void do_resume(struct vm *vm, const char *arg)
{
	(void)arg;
	cmd_pause(vm, false);
}
static void do_log(struct vm *vm, const char *arg)
{
	(void)arg;
	cmd_log(vm);
}
static void do_nmi(struct vm *vm, const char *arg)
{
	(void)arg;
	cmd_nmi(vm);
}
static void do_focus(struct vm *vm, const char *arg)
{
	(void)arg;
	console_focus_set(vm);
}

static void do_trace(struct vm *vm, const char *arg)
{
	if (!strcmp(arg, "dump"))
		trace_dump(vm);
	else if (!strcmp(arg, "on") || !strcmp(arg, "off")) {
		if (trace_enable(vm, arg[1] == 'n'))
			kprintf("monitor: trace %s %s\n", vm->name, arg);
	} else
		kprintf("monitor: trace %s: '%s' is not on, off or dump\n", vm->name, arg);
}

static void do_walk(struct vm *vm, const char *arg)
{
	u64 gva;
	if (!parse_u64(arg, &gva))
		kprintf("monitor: '%s' is not an address (a number, 0x for hex)\n", arg);
	else
		cmd_walk(vm, gva);
}

static void do_stop(struct vm *vm, const char *arg)
{
	(void)arg;
	if (vm_end(vm, VM_END_STOPPED, 0, "stopped from the monitor"))
		kprintf("monitor: %s stopped\n", vm->name);
	else
		kprintf("monitor: %s had ended already\n", vm->name);
}

/* Every command once: its words after the name (guest, then address) and what it does. */
static const struct mon_cmd {
	const char *name;
	const char *usage;
	int words; /* 0: no guest; 1: NAME; 2: NAME and one more */
	void (*fn)(struct vm *vm, const char *arg);
} cmds[] = {
	{ "guests", "", 0, do_guests },
	{ "regs", " NAME", 1, do_regs },
	{ "walk", " NAME GVA", 2, do_walk },
	{ "shadow", " NAME", 1, do_shadow },
	{ "audit", " NAME", 1, do_audit },
	{ "pause", " NAME", 1, do_pause },
	{ "resume", " NAME", 1, do_resume },
	{ "stop", " NAME", 1, do_stop },
	{ "focus", " NAME", 1, do_focus },
	{ "log", " NAME", 1, do_log },
	{ "nmi", " NAME", 1, do_nmi },
	{ "top", "", 0, do_top },
	{ "mem", "", 0, do_mem },
	{ "trace", " NAME on|off|dump", 2, do_trace },
	{ "help", "", 0, cmd_help },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static void cmd_help(struct vm *vm, const char *arg)
{
	char line[200];
	int n = 0;
	(void)vm;
	(void)arg;
	for (u32 i = 0; i < NCMDS; i++)
		n += fmt_snprintf(line + n, sizeof(line) - (u32)n, "%s%s%s", i ? " | " : "",
				  cmds[i].name, cmds[i].usage);
	kprintf("monitor: commands: %s; Ctrl-A c leaves the monitor\n", line);
}

void monitor_exec(const char *line)
{
	char w[MON_WORDS][32];
	int n = 0;

	for (const char *p = line; *p && n < MON_WORDS;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		u32 len = 0;
		while (p[len] && p[len] != ' ' && p[len] != '\t')
			len++;
		if (len >= sizeof(w[0])) {
			kprintf("monitor: word too long: '%.16s...'\n", p);
			return;
		}
		memcpy(w[n], p, len);
		w[n++][len] = 0;
		p += len;
	}
	if (!n)
		return;
	const struct mon_cmd *c = NULL;
	for (u32 i = 0; i < NCMDS && !c; i++)
		if (!strcmp(cmds[i].name, w[0]))
			c = &cmds[i];
	if (!c) {
		kprintf("monitor: unknown command '%s'\n", w[0]);
		cmd_help(NULL, NULL);
		return;
	}
	if (n != c->words + 1) {
		kprintf("monitor: usage: %s%s\n", c->name, c->usage);
		return;
	}
	spin_lock(&run_lock);
	struct vm *vm = c->words ? find_vm(w[1]) : NULL;
	if (vm || !c->words)
		c->fn(vm, c->words > 1 ? w[2] : "");
	spin_unlock(&run_lock);
}

bool monitor_queue(const char *line)
{
	u32 len = (u32)strnlen(line, sizeof(queued));
	if (len == sizeof(queued) || __atomic_load_n(&queued_ready, __ATOMIC_ACQUIRE)) {
		kprintf("monitor: busy or too long, line dropped\n");
		return false;
	}
	memcpy(queued, line, len + 1);
	__atomic_store_n(&queued_ready, true, __ATOMIC_RELEASE);
	return true;
}

void monitor_poll(void)
{
	char line[MON_LINE];

	/* top's next frame, from the boot CPU's loop once a second. */
	if (__atomic_load_n(&top.on, __ATOMIC_RELAXED) && this_cpu_index() == 0 &&
	    rdtsc() - top.last_tsc >= ns_to_tsc(1000000000ull)) {
		spin_lock(&run_lock);
		if (top.on)
			top_frame();
		spin_unlock(&run_lock);
	}
	if (console_monitor_line(line, sizeof(line)))
		monitor_queue(line);
	if (!__atomic_load_n(&queued_ready, __ATOMIC_ACQUIRE))
		return;
	spin_lock(&run_lock);
	bool mine = __atomic_load_n(&queued_ready, __ATOMIC_ACQUIRE);
	if (mine)
		memcpy(line, queued, sizeof(line));
	__atomic_store_n(&queued_ready, false, __ATOMIC_RELEASE);
	spin_unlock(&run_lock);
	if (!mine)
		return;
	kprintf("monitor> %s\n", line);
	monitor_exec(line);
}

void monitor_at_end(struct vm *vm)
{
	for (u32 i = 0; i < options.n_monitor; i++) {
		const char *spec = options.monitor[i];
		u32 len = (u32)strlen(vm->name);
		if (strncmp(spec, vm->name, len) || spec[len] != ':')
			continue;
		/* ',' stands for a space: the option is one word on Umbra's line. */
		char line[MON_LINE];
		u32 n = 0;
		for (const char *p = spec + len + 1; *p && n < sizeof(line) - 1; p++)
			line[n++] = *p == ',' ? ' ' : *p;
		line[n] = 0;
		kprintf("monitor> %s\n", line);
		monitor_exec(line);
	}
}
