/* SPDX-License-Identifier: GPL-2.0-only */
/* Where a guest's boot spends its exits and time, split at milestones every x86-64 kernel passes. */
#include "vmm/bootprof.h"
#include "arch/x86/cpu.h"
#include "arch/x86/regs.h"
#include "arch/x86/tsc.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "arch/x86/virt.h"
#include "vmm/stats.h"
#include "vmm/vm.h"

static const char *const phase_name[BOOT_PHASES] = { "low", "early", "init" };

const char *bootprof_phase_name(unsigned phase)
{
	return phase < BOOT_PHASES ? phase_name[phase] : "?";
}

/* The furthest milestone the state at this exit shows. */
static enum boot_phase reached(const struct x86_emu_ctx *r)
{
	if (r->cpl == 3)
		return BOOT_USER;
	if (!(r->rip >> 63))
		return BOOT_LOW;
	return r->rflags & RFLAGS_IF ? BOOT_INIT : BOOT_EARLY;
}

/* Which site an exit comes from, for the exits that storm: 0 for the others. */
static u64 site_of(const struct vcpu *v, const struct vexit *x)
{
	u64 detail;
	switch (x->reason) {
	case EXIT_IO:
		detail = x->port;
		break;
	case EXIT_CR_ACCESS:
		detail = x->cr | (u64)x->cr_write << 8;
		break;
	case EXIT_MSR:
		detail = (u32)v->hw.regs.gpr[X86_RCX];
		break;
	default:
		return 0;
	}
	return (u64)x->reason << 48 | detail;
}

static void count_site(struct bootprof *b, u64 key)
{
	if (b->sites[b->last_site].key == key) {
		b->sites[b->last_site].count++;
		return;
	}
	unsigned min = 0;
	for (unsigned i = 0; i < BOOTPROF_SITES; i++) {
		if (b->sites[i].key == key) {
			b->sites[i].count++;
			b->last_site = i;
			return;
		}
		if (b->sites[i].count < b->sites[min].count)
			min = i;
	}
	b->sites[min] = (struct bootprof_site){ key, b->sites[min].count + 1 };
	b->last_site = min;
}

/* Keeps the ended phase's three most counted sites and starts the next phase's count afresh. */
static void end_sites(struct bootprof *b, enum boot_phase p)
{
	for (unsigned k = 0; k < 3; k++) {
		struct bootprof_site *best = NULL;
		for (unsigned i = 0; i < BOOTPROF_SITES; i++)
			if (b->sites[i].count && (!best || b->sites[i].count > best->count))
				best = &b->sites[i];
		if (!best)
			break;
		b->hot[p][k] = *best;
		best->count = 0;
	}
	memset(b->sites, 0, sizeof(b->sites));
}

/* The first exit, or milestones passed: rare, kept out of the per-exit path. */
static __attribute__((noinline)) void advance(struct vcpu *v, enum boot_phase now)
{
	struct bootprof *b = &v->boot;
	u64 tsc = rdtsc();

	if (!b->start_tsc)
		b->start_tsc = tsc;
	/* Milestones passed between two exits end their phases together. */
	for (; b->phase < now; b->phase++) {
		b->end_tsc[b->phase] = tsc;
		memcpy(b->exits[b->phase], v->exits, sizeof(v->exits));
		end_sites(b, b->phase);
	}
}

void bootprof_exit(struct vcpu *v, const struct vexit *x)
{
	struct bootprof *b = &v->boot;

	if (b->phase == BOOT_USER)
		return;
	enum boot_phase now = reached(&v->hw.regs);

	if (!b->start_tsc || b->phase < now) {
		advance(v, now);
		if (b->phase == BOOT_USER)
			return;
	}
	u64 key = site_of(v, x);
	if (key)
		count_site(b, key);
}

/* "io:0x3f8" "cr4:w" "msr:0x1b" */
static int print_site(char *buf, size_t len, const struct bootprof_site *s)
{
	u32 reason = (u32)(s->key >> 48), detail = (u32)s->key;
	if (reason == EXIT_CR_ACCESS)
		return fmt_snprintf(buf, len, "cr%u:%s=%lu", detail & 0xff, detail >> 8 ? "w" : "r",
				    s->count);
	return fmt_snprintf(buf, len, "%s:0x%x=%lu", stats_exit_name(reason), detail, s->count);
}

void bootprof_report(const struct vcpu *v, const char *name)
{
	const struct bootprof *b = &v->boot;
	char line[320];

	if (b->phase == BOOT_LOW)
		return; /* not a kernel that moves to the upper half: no phases to tell apart */
	for (unsigned p = 0; p < BOOT_PHASES && p < b->phase; p++) {
		u64 start = p ? b->end_tsc[p - 1] : b->start_tsc, total = 0;
		int n = 0;
		line[0] = 0;
		for (unsigned i = 0; i < EXIT_REASONS; i++) {
			u64 d = b->exits[p][i] - (p ? b->exits[p - 1][i] : 0);
			total += d;
			if (d)
				n += fmt_snprintf(line + n, sizeof(line) - n, " %s=%lu",
						  stats_exit_name(i), d);
		}
		for (unsigned k = 0; k < 3 && b->hot[p][k].count; k++) {
			n += fmt_snprintf(line + n, sizeof(line) - n, k ? "," : " hot=");
			n += print_site(line + n, sizeof(line) - n, &b->hot[p][k]);
		}
		kprintf("guest %s: boot phase=%s ms=%lu exits=%lu%s\n", name, phase_name[p],
			tsc_to_ns(b->end_tsc[p] - start) / 1000000, total, line);
	}
	if (b->phase == BOOT_USER)
		kprintf("guest %s: boot user_mode_at_ms=%lu\n", name,
			tsc_to_ns(b->end_tsc[BOOT_INIT] - b->start_tsc) / 1000000);
}
