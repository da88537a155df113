/* SPDX-License-Identifier: GPL-2.0-only */
/* QEMU TCG plugin: counts the instructions Umbra runs per VM exit (#VMEXIT to VMRUN) and guests'. */
/*
 * Loaded by tests/bench/plugin.sh into `qemu-system-x86_64 -plugin`, with the addresses it needs
 * from umbra.elf (the plugin knows nothing of Umbra's layout itself):
 *   vmrun=ADDR     the VMRUN instruction of svm_world_switch: the last host instruction of an exit
 *   ret=ADDR       the instruction after it, where #VMEXIT resumes the host: an exit's first
 *   text=LO-HI     Umbra's code; a host instruction outside it is counted apart (a sanity check)
 *   tag=KIND:ADDR  an exit that runs the instruction at ADDR (a function's entry) is of KIND;
 *                  repeated, earlier tags win over later ones (a PT write also takes the #PF path)
 *   mark=ADDR      writes a mark line each time it runs (the STATS hypercall: the bench guest's
 *                  snapshots), so a workload's exits are those between two marks
 *   record=ADDR    writes "R cpu seq kind umbra_insns" each time it runs in an exit (Umbra's
 *                  trace_record: seq numbers the records per CPU as Umbra's trace ring does, the
 *                  count is the exit's Umbra instructions so far, through the block at ADDR; the
 *                  kind so far), so tests/trace/convert.py gives each traced exit its count
 *   profile=KIND   also writes "P ADDR N" lines: the instructions exits of KIND ran per block start
 *                  address, summed (tests/bench/insns.py symbolizes them: where an exit's time goes)
 *   profile_max=N  ... only of the exits of at most N instructions (the common case, not the rare
 *                  slow one)
 *   profile_min=N  ... only of the exits of at least N instructions (the rare slow one: a batch)
 *   out=FILE       the trace: "E cpu kind umbra_insns guest_insns_before" per exit, "M cpu exit#"
 *                  per mark, and a closing "T" line with the totals
 * Guests are linked at the same addresses as Umbra (1 MiB), so the address alone does not say who
 * runs: the plugin follows the world switch instead. Host/guest state flips at the VMRUN and at
 * its return point, each recognised by address and by its bytes (0f 01 d8, then fa: CLI), which
 * no guest code runs at that address. Counts are per translation block, taken when the block
 * starts: Umbra's blocks run to their end (nothing faults in them), so its counts are exact; a
 * guest block cut short by a fault counts its remaining instructions too (an upper bound).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_TAGS 32
#define MAX_CPUS 64
#define KIND_NONE MAX_TAGS

static uint64_t vmrun_at, ret_at, text_lo, text_hi, mark_at = ~0ull, record_at = ~0ull;
static struct {
	char kind[16];
	uint64_t addr;
} tags[MAX_TAGS];
static unsigned ntags;
static FILE *out;
static char profile_kind[16];
static uint64_t profile_max = ~0ull, profile_min;

/* The profile: blocks run in the current exit, then summed per address for exits of KIND. */
#define PROF_EXIT (1u << 18)
#define PROF_SLOTS (1u << 16)
static struct {
	uint64_t addr, n;
} prof_exit[PROF_EXIT], prof[PROF_SLOTS];
static unsigned prof_len;
static int profiling;

struct cpu_state {
	int in_guest, started;	/* started: the first #VMEXIT has happened */
	unsigned kind;		/* best (lowest) tag index seen in this exit */
	uint64_t umbra, guest;	/* this exit's Umbra instructions, the guest's before it */
	uint64_t exits;		/* exits completed */
	uint64_t records;	/* record= runs: Umbra's trace records written on this CPU */
	uint64_t boot, outside; /* host instructions before the first exit; outside Umbra's text */
	uint64_t umbra_total, guest_total;
};
static struct cpu_state cpus[MAX_CPUS];

/* A block's userdata: instruction count, the VMRUN's position + 1 (0: none), starts an exit. */
/* clang-format off */
#define UD_N(u) ((uint32_t)((u) & 0xffff))
/* clang-format on */
#define UD_VMRUN(u) ((uint32_t)(((u) >> 16) & 0xffff))
#define UD_RET(u) ((uint32_t)(((u) >> 32) & 1))
#define UD_OUTSIDE(u) ((uint32_t)(((u) >> 33) & 1))
/* The block's address in the top bits: Umbra's code is below 4 GiB. */
#define UD_ADDR_SHIFT 34
static uint64_t ud_addr(uint64_t u)
{
	return u >> UD_ADDR_SHIFT;
}

static struct cpu_state *cpu(unsigned idx)
{
	return &cpus[idx < MAX_CPUS ? idx : MAX_CPUS - 1];
}

static const char *kind_name(unsigned k)
{
	return k < ntags ? tags[k].kind : "other";
}

static void prof_add(void)
{
	for (unsigned i = 0; i < prof_len; i++) {
		uint64_t a = prof_exit[i].addr;
		for (unsigned h = (unsigned)(a * 0x9e3779b1u) % PROF_SLOTS, k = 0; k < PROF_SLOTS;
		     h = (h + 1) % PROF_SLOTS, k++) {
			if (prof[h].addr == a || !prof[h].n) {
				prof[h].addr = a;
				prof[h].n += prof_exit[i].n;
				break;
			}
		}
	}
}

static void block_exec(unsigned idx, void *udata)
{
	uint64_t u = (uint64_t)(uintptr_t)udata;
	struct cpu_state *c = cpu(idx);

	if (UD_RET(u) && c->in_guest) { /* #VMEXIT: an exit starts */
		c->in_guest = 0;
		c->started = 1;
		c->umbra = 0;
		c->kind = KIND_NONE;
	}
	if (c->in_guest) {
		c->guest += UD_N(u);
		c->guest_total += UD_N(u);
		return;
	}
	uint32_t n = UD_VMRUN(u) ? UD_VMRUN(u) : UD_N(u);
	if (UD_OUTSIDE(u) && c->started)
		c->outside += n;
	if (!c->started) {
		c->boot += n;
	} else {
		c->umbra += n;
		c->umbra_total += n;
		if (profiling && prof_len < PROF_EXIT)
			prof_exit[prof_len++] = (typeof(prof_exit[0])){ ud_addr(u), n };
	}
	if (!UD_VMRUN(u))
		return;
	if (c->started) {
		fprintf(out, "E %u %s %" PRIu64 " %" PRIu64 "\n", idx, kind_name(c->kind), c->umbra,
			c->guest);
		c->exits++;
		if (profiling && !strcmp(kind_name(c->kind), profile_kind) &&
		    c->umbra <= profile_max && c->umbra >= profile_min)
			prof_add();
		prof_len = 0;
	}
	c->guest = 0;
	c->in_guest = 1;
}

static void tag_exec(unsigned idx, void *udata)
{
	struct cpu_state *c = cpu(idx);
	unsigned k = (unsigned)(uintptr_t)udata;
	if (!c->in_guest && c->started && k < c->kind)
		c->kind = k;
}

static void mark_exec(unsigned idx, void *udata)
{
	(void)udata;
	struct cpu_state *c = cpu(idx);
	if (!c->in_guest && c->started)
		fprintf(out, "M %u %" PRIu64 "\n", idx, c->exits);
}

static void record_exec(unsigned idx, void *udata)
{
	(void)udata;
	struct cpu_state *c = cpu(idx);
	if (!c->in_guest && c->started)
		fprintf(out, "R %u %" PRIu64 " %s %" PRIu64 "\n", idx, c->records++,
			kind_name(c->kind), c->umbra);
}

static int bytes_are(struct qemu_plugin_insn *insn, const char *b, size_t n)
{
	return qemu_plugin_insn_size(insn) == n && !memcmp(qemu_plugin_insn_data(insn), b, n);
}

static void block_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t u = n > 0xffff ? 0xffff : n;
	uint64_t start = qemu_plugin_tb_vaddr(tb);
	if (start < (1ull << (64 - UD_ADDR_SHIFT)))
		u |= start << UD_ADDR_SHIFT;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		if (va < text_lo || va >= text_hi)
			u |= 1ull << 33;
		if (va == vmrun_at && bytes_are(insn, "\x0f\x01\xd8", 3) && !UD_VMRUN(u))
			u |= (uint64_t)(i + 1) << 16;
		if (i == 0 && va == ret_at && bytes_are(insn, "\xfa", 1))
			u |= 1ull << 32;
		for (unsigned t = 0; t < ntags; t++)
			if (va == tags[t].addr)
				qemu_plugin_register_vcpu_insn_exec_cb(insn, tag_exec,
								       QEMU_PLUGIN_CB_NO_REGS,
								       (void *)(uintptr_t)t);
		if (va == mark_at)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_exec,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		if (va == record_at)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, record_exec,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, block_exec, QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(uintptr_t)u);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id, (void)p;
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		struct cpu_state *c = &cpus[i];
		if (!c->started && !c->boot)
			continue;
		fprintf(out,
			"T %u exits=%" PRIu64 " umbra=%" PRIu64 " guest=%" PRIu64 " boot=%" PRIu64
			" outside_text=%" PRIu64 "\n",
			i, c->exits, c->umbra_total, c->guest_total, c->boot, c->outside);
	}
	for (unsigned i = 0; profiling && i < PROF_SLOTS; i++)
		if (prof[i].n)
			fprintf(out, "P 0x%" PRIx64 " %" PRIu64 "\n", prof[i].addr, prof[i].n);
	fclose(out);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	*v = strtoull(s, &end, 0);
	return end != s && (*end == 0 || *end == '-');
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
					   char **argv)
{
	const char *path = NULL;

	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "exitcount: needs qemu-system-x86_64\n");
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *colon;
		int ok = 0;
		if (!strncmp(a, "vmrun=", 6))
			ok = parse_u64(a + 6, &vmrun_at);
		else if (!strncmp(a, "ret=", 4))
			ok = parse_u64(a + 4, &ret_at);
		else if (!strncmp(a, "mark=", 5))
			ok = parse_u64(a + 5, &mark_at);
		else if (!strncmp(a, "record=", 7))
			ok = parse_u64(a + 7, &record_at);
		else if (!strncmp(a, "text=", 5))
			ok = parse_u64(a + 5, &text_lo) && strchr(a, '-') &&
			     parse_u64(strchr(a, '-') + 1, &text_hi);
		else if (!strncmp(a, "profile=", 8) && strlen(a + 8) < sizeof(profile_kind))
			ok = (profiling = 1, strcpy(profile_kind, a + 8), 1);
		else if (!strncmp(a, "profile_max=", 12))
			ok = parse_u64(a + 12, &profile_max);
		else if (!strncmp(a, "profile_min=", 12))
			ok = parse_u64(a + 12, &profile_min);
		else if (!strncmp(a, "out=", 4))
			ok = *(path = a + 4) != 0;
		else if (!strncmp(a, "tag=", 4) && (colon = strchr(a + 4, ':')) &&
			 ntags < MAX_TAGS && (size_t)(colon - (a + 4)) < sizeof(tags[0].kind)) {
			memcpy(tags[ntags].kind, a + 4, (size_t)(colon - (a + 4)));
			ok = parse_u64(colon + 1, &tags[ntags++].addr);
		}
		if (!ok) {
			fprintf(stderr, "exitcount: bad argument '%s'\n", a);
			return -1;
		}
	}
	if (!vmrun_at || !ret_at || !path || text_hi <= text_lo) {
		fprintf(stderr, "exitcount: vmrun=, ret=, text= and out= are required\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	qemu_plugin_register_vcpu_tb_trans_cb(id, block_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
