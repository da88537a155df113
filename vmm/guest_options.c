/* SPDX-License-Identifier: GPL-2.0-only */
/* A module's line: which guest a file is for (for=NAME), and a guest's own options. */
#include "vmm/guest_options.h"
#include "boot/mb2.h"
#include "lib/cmdline.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "vmm/sched.h"
#include "vmm/load/bios.h"
#include "vmm/reset.h"

#define DEFAULT_MEM_MIB 16
#define MAX_TIME_S (30ull * 24 * 3600)
/* reboots=: restarts allowed before a reboot loop ends the guest (0: the first reset ends it). */
#define MAX_REBOOTS 1000

/* caps=stats,stop: what this guest may do to other guests. */
static bool parse_caps(const char *val, u32 *caps)
{
	static const struct {
		const char *name;
		u32 bit;
	} known[] = { { "stats", UMBRA_CAP_STATS }, { "stop", UMBRA_CAP_STOP } };
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

/* A CPU number past the machine's (a config written for a bigger one, as boot/grub.cfg's
 * demo is) places the guest on the CPUs that exist, with a warning; only a malformed number is
 * refused. */
static u32 cpu_or_fallback(const struct vm_config *cfg, u64 cpu, u32 ncpus)
{
	if (cpu < ncpus)
		return (u32)cpu;
	kprintf("guest %s: warning: cpu %lu beyond this machine's %u CPUs: on cpu %lu instead\n",
		cfg->name, cpu, ncpus, cpu % ncpus);
	return (u32)(cpu % ncpus);
}

/* cpus=A,B,...: the physical CPUs the vCPUs are placed on, in order (then round again). */
static bool parse_cpu_list(struct vm_config *cfg, const char *val, u32 ncpus)
{
	u32 *list = cfg->cpus_list, *n = &cfg->n_cpus_list;
	u32 old = *n;
	*n = 0;
	while (*val) {
		u64 cpu;
		size_t len = 0;
		char word[8];
		while (val[len] && val[len] != ',')
			len++;
		if (len == 0 || len >= sizeof(word) || *n == VCPUS_PER_GUEST_MAX)
			break;
		memcpy(word, val, len);
		word[len] = 0;
		if (!parse_u64(word, &cpu))
			break;
		list[(*n)++] = cpu_or_fallback(cfg, cpu, ncpus);
		val += len + (val[len] == ',');
	}
	if (*val || !*n) {
		*n = old;
		return false;
	}
	return true;
}

/* vcpus=N: at least one, and no more than vcpus_max says (vmm/vm_config.h: VCPUS_PER_HOST_CPU per
 * CPU, at most VCPUS_PER_GUEST_MAX). */
u32 vcpus_max(u32 ncpus)
{
	u64 m = (u64)ncpus * VCPUS_PER_HOST_CPU;
	return m < VCPUS_PER_GUEST_MAX ? (u32)m : VCPUS_PER_GUEST_MAX;
}

/* shm=NAME or shm=NAME:ro: its form and the per-guest limit; the region itself is looked up
 * when the guest is created (shm_join), in the same order, with the same messages. */
static bool parse_shm(struct vm_config *cfg, const char *val)
{
	const char *colon = strchr(val, ':');
	size_t len = colon ? (size_t)(colon - val) : strlen(val);

	if (colon && strcmp(colon, ":ro")) {
		kprintf("guest %s: shm=%s: expected shm=NAME or shm=NAME:ro\n", cfg->name, val);
		return false;
	}
	/* shm_declare takes no longer name, so no region has this one. */
	if (len >= SHM_NAME_LEN) {
		kprintf("guest %s: shm=%s: Umbra's line declares no region %.*s\n", cfg->name, val,
			(int)len, val);
		return false;
	}
	if (cfg->n_shm == SHM_PER_GUEST) {
		kprintf("guest %s: shm=%s: more than %u regions per guest or %u guests per region\n",
			cfg->name, val, SHM_PER_GUEST, SHM_MEMBERS);
		return false;
	}
	struct vm_config_shm *s = &cfg->shm[cfg->n_shm++];
	memcpy(s->name, val, len);
	s->name[len] = 0;
	s->ro = colon != NULL;
	return true;
}

bool guest_options_parse(struct vm_config *cfg, const char *cmdline, u32 ncpus, u32 index)
{
	char key[32], val[64];
	const char *cur = cmdline ? cmdline : "";
	u64 n;

	*cfg = (struct vm_config){ .mem_mib = DEFAULT_MEM_MIB,
				   .cpu = index % ncpus,
				   .nr_vcpus = 1,
				   .reboots_max = VM_REBOOTS_DEFAULT };
	fmt_snprintf(cfg->name, sizeof(cfg->name), "guest%u", index);
	while (cmdline_next(&cur, key, sizeof(key), val, sizeof(val))) {
		if (key[0] == '/' && !val[0])
			continue; /* the module's own path */
		if (!strcmp(key, "--") && !val[0]) {
			/* The rest is the guest's own (a multiboot v1 kernel's command line). */
			while (*cur == ' ' || *cur == '\t')
				cur++;
			/* Kept where the loader left it: its length is the kernel's to limit
			 * (a bzImage's cmdline_size, vmm/load/linux.c). */
			cfg->guest_args = cur;
			cur += strlen(cur);
			break;
		}
		if (!strcmp(key, "name") && val[0]) {
			fmt_snprintf(cfg->name, sizeof(cfg->name), "%s", val);
		} else if (!strcmp(key, "mem") && parse_mib(val, &n) && n >= 1) {
			/* Its size against what is free and the layout's limit: guest_create. */
			cfg->mem_mib = n;
		} else if (!strcmp(key, "cpu") && parse_u64(val, &n)) {
			cfg->cpu = cpu_or_fallback(cfg, n, ncpus);
		} else if (!strcmp(key, "vcpus") && parse_u64(val, &n) && n >= 1) {
			if (n > vcpus_max(ncpus)) {
				if (vcpus_max(ncpus) == VCPUS_PER_GUEST_MAX)
					kprintf("guest %s: vcpus=%lu: at most %u (APIC IDs 0-%u: the "
						"I/O APIC is %u)\n",
						cfg->name, n, VCPUS_PER_GUEST_MAX,
						VCPUS_PER_GUEST_MAX - 1, BOARD_IOAPIC_ID);
				else
					kprintf("guest %s: vcpus=%lu: at most %u (%u per host CPU, %u "
						"CPUs)\n",
						cfg->name, n, vcpus_max(ncpus), VCPUS_PER_HOST_CPU,
						ncpus);
				return false;
			}
			cfg->nr_vcpus = (u32)n;
		} else if (!strcmp(key, "cpus") && parse_cpu_list(cfg, val, ncpus)) {
			/* placed by guest creation, once vcpus= is known */
		} else if (!strcmp(key, "expect") && !strcmp(val, "crash")) {
			cfg->expect_crash = true;
		} else if (!strcmp(key, "expect") && !strcmp(val, "stop")) {
			cfg->expect_stop = true;
		} else if (!strcmp(key, "expect") && !strcmp(val, "timeout")) {
			cfg->expect_timeout = true;
		} else if (!strcmp(key, "time") && parse_u64(val, &n) && n >= 1 &&
			   n <= MAX_TIME_S) {
			cfg->budget_ns = n * 1000000000ull;
		} else if (!strcmp(key, "weight") && parse_u64(val, &n) && n >= 1 &&
			   n <= SCHED_WEIGHT_MAX) {
			cfg->weight = (u32)n;
		} else if (!strcmp(key, "bios") && (!strcmp(val, "on") || !strcmp(val, "off"))) {
			cfg->bios = !strcmp(val, "on") ? BIOS_ON : BIOS_OFF;
		} else if (!strcmp(key, "on_reboot") &&
			   (!strcmp(val, "restart") || !strcmp(val, "end"))) {
			cfg->on_reboot_end = !strcmp(val, "end");
		} else if (!strcmp(key, "reboots") && parse_u64(val, &n) && n <= MAX_REBOOTS) {
			cfg->reboots_max = (u32)n;
		} else if (!strcmp(key, "caps") && parse_caps(val, &cfg->caps)) {
			/* granted */
		} else if (!strcmp(key, "shm")) {
			if (!parse_shm(cfg, val))
				return false;
		} else if (!strcmp(key, "pci")) {
			if (!pci_assign_parse(val, &cfg->pci)) {
				kprintf("guest %s: %s\n", cfg->name, cfg->pci.error);
				return false;
			}
		} else {
			kprintf("guest %s: unknown or invalid option '%s%s%s'\n", cfg->name, key,
				val[0] ? "=" : "", val);
			return false;
		}
	}
	if (*cur) {
		kprintf("guest %s: option too long at '%.24s'\n", cfg->name, cur);
		return false;
	}
	cfg->cmdline = cmdline ? cmdline : "";
	if (!cfg->guest_args)
		cfg->guest_args = "";
	return true;
}

const char *guest_options_attached_to(const struct mb2_module *mod, char *name, size_t size)
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
