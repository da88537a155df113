/* SPDX-License-Identifier: GPL-2.0-only */
/* A module's line: which guest a file is for (for=NAME), and a guest's own options. */
#include "vmm/guest_options.h"
#include "boot/mb2.h"
#include "lib/cmdline.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "vmm/sched.h"
#include "vmm/shm.h"
#include "vmm/bios.h"

#define DEFAULT_MEM_MIB 16
#define MAX_TIME_S (30ull * 24 * 3600)
/* reboots=: restarts allowed before a reboot loop ends the guest (0: the first reset ends it). */
#define MAX_REBOOTS 1000

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

/* A CPU number past the machine's (a config written for a bigger one, as boot/grub.cfg's
 * demo is) places the guest on the CPUs that exist, with a warning; only a malformed number is
 * refused. */
static u32 cpu_or_fallback(const struct vm *vm, u64 cpu, u32 ncpus)
{
	if (cpu < ncpus)
		return (u32)cpu;
	kprintf("guest %s: warning: cpu %lu beyond this machine's %u CPUs: on cpu %lu instead\n",
		vm->name, cpu, ncpus, cpu % ncpus);
	return (u32)(cpu % ncpus);
}

/* cpus=A,B,...: the physical CPUs the vCPUs are placed on, in order (then round again). */
static bool parse_cpu_list(const struct vm *vm, const char *val, u32 ncpus, u32 *list, u32 *n)
{
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
		list[(*n)++] = cpu_or_fallback(vm, cpu, ncpus);
		val += len + (val[len] == ',');
	}
	if (*val || !*n) {
		*n = old;
		return false;
	}
	return true;
}

/* vcpus=N: at least one, and no more than vcpus_max says (vmm/vm.h: VCPUS_PER_HOST_CPU per
 * CPU, at most VCPUS_PER_GUEST_MAX). */
u32 vcpus_max(u32 ncpus)
{
	u64 m = (u64)ncpus * VCPUS_PER_HOST_CPU;
	return m < VCPUS_PER_GUEST_MAX ? (u32)m : VCPUS_PER_GUEST_MAX;
}

bool guest_options_parse(struct vm *vm, const char *cmdline, u64 *mem_mib, u32 *cpu,
			 u32 ncpus, u32 index)
{
	char key[32], val[64];
	const char *cur = cmdline ? cmdline : "";
	u64 n;

	fmt_snprintf(vm->name, sizeof(vm->name), "guest%u", index);
	vm->nr_vcpus = 1;
	vm->reboots_max = VM_REBOOTS_DEFAULT;
	*mem_mib = DEFAULT_MEM_MIB;
	*cpu = index % ncpus;
	while (cmdline_next(&cur, key, sizeof(key), val, sizeof(val))) {
		if (key[0] == '/' && !val[0])
			continue; /* the module's own path */
		if (!strcmp(key, "--") && !val[0]) {
			/* The rest is the guest's own (a multiboot v1 kernel's command line). */
			while (*cur == ' ' || *cur == '\t')
				cur++;
			/* Kept where the loader left it: its length is the kernel's to limit
			 * (a bzImage's cmdline_size, vmm/linux.c). */
			vm->guest_args = cur;
			cur += strlen(cur);
			break;
		}
		if (!strcmp(key, "name") && val[0]) {
			fmt_snprintf(vm->name, sizeof(vm->name), "%s", val);
		} else if (!strcmp(key, "mem") && parse_mib(val, &n) && n >= 1) {
			/* Its size against what is free and the layout's limit: guest_create. */
			*mem_mib = n;
		} else if (!strcmp(key, "cpu") && parse_u64(val, &n)) {
			*cpu = cpu_or_fallback(vm, n, ncpus);
		} else if (!strcmp(key, "vcpus") && parse_u64(val, &n) && n >= 1) {
			if (n > vcpus_max(ncpus)) {
				if (vcpus_max(ncpus) == VCPUS_PER_GUEST_MAX)
					kprintf("guest %s: vcpus=%lu: at most %u (APIC IDs 0-%u: the "
						"I/O APIC is %u)\n", vm->name, n, VCPUS_PER_GUEST_MAX,
						VCPUS_PER_GUEST_MAX - 1, BOARD_IOAPIC_ID);
				else
					kprintf("guest %s: vcpus=%lu: at most %u (%u per host CPU, %u "
						"CPUs)\n", vm->name, n, vcpus_max(ncpus),
						VCPUS_PER_HOST_CPU, ncpus);
				return false;
			}
			vm->nr_vcpus = (u32)n;
		} else if (!strcmp(key, "cpus") &&
			   parse_cpu_list(vm, val, ncpus, vm->cpus_list, &vm->n_cpus_list)) {
			/* placed below, once vcpus= is known */
		} else if (!strcmp(key, "expect") && !strcmp(val, "crash")) {
			vm->expect_crash = true;
		} else if (!strcmp(key, "expect") && !strcmp(val, "stop")) {
			vm->expect_stop = true;
		} else if (!strcmp(key, "expect") && !strcmp(val, "timeout")) {
			vm->expect_timeout = true;
		} else if (!strcmp(key, "time") && parse_u64(val, &n) && n >= 1 && n <= MAX_TIME_S) {
			vm->budget_ns = n * 1000000000ull;
		} else if (!strcmp(key, "weight") && parse_u64(val, &n) && n >= 1 &&
			   n <= SCHED_WEIGHT_MAX) {
			vm->weight = (u32)n;
		} else if (!strcmp(key, "bios") && (!strcmp(val, "on") || !strcmp(val, "off"))) {
			vm->bios = !strcmp(val, "on") ? BIOS_ON : BIOS_OFF;
		} else if (!strcmp(key, "on_reboot") && (!strcmp(val, "restart") || !strcmp(val, "end"))) {
			vm->on_reboot_end = !strcmp(val, "end");
		} else if (!strcmp(key, "reboots") && parse_u64(val, &n) && n <= MAX_REBOOTS) {
			vm->reboots_max = (u32)n;
		} else if (!strcmp(key, "caps") && parse_caps(val, &vm->caps)) {
			/* granted */
		} else if (!strcmp(key, "shm")) {
			if (!shm_join(vm, val))
				return false;
		} else if (!strcmp(key, "pci")) {
			if (!pci_assign_parse(val, &vm->pci)) {
				kprintf("guest %s: %s\n", vm->name, vm->pci.error);
				return false;
			}
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
	vm->cmdline = cmdline ? cmdline : "";
	if (!vm->guest_args)
		vm->guest_args = "";
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
