/* SPDX-License-Identifier: GPL-2.0-only */
/* Parses Umbra's command line; every word not understood is reported, none silently ignored. */
#include "vmm/options.h"
#include "lib/cmdline.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "vmm/shm.h"

/* No run goes on forever: a guest that never ends is reported after ten minutes. */
struct umbra_options options = { .timeout_s = 600 };

static bool parse_log(const char *v)
{
	static const char *const names[] = { "quiet", "info", "debug" };
	for (int i = 0; i < 3; i++)
		if (!strcmp(v, names[i])) {
			log_level = i;
			return true;
		}
	return false;
}

static bool parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "1") || !strcmp(v, "on") || !strcmp(v, "yes") || !*v) {
		*out = true;
		return true;
	}
	if (!strcmp(v, "0") || !strcmp(v, "off") || !strcmp(v, "no")) {
		*out = false;
		return true;
	}
	return false;
}

static bool apply(const char *key, const char *val)
{
	u64 n;

	if (!strcmp(key, "log"))
		return parse_log(val);
	if (!strcmp(key, "cpus")) {
		if (!parse_u64(val, &n) || n == 0 || n > 0xffffffffu)
			return false;
		options.max_cpus = (u32)n;
		return true;
	}
	if (!strcmp(key, "timeout"))
		return parse_u64(val, &options.timeout_s) && options.timeout_s >= 1 &&
		       options.timeout_s <= 30ull * 24 * 3600;
	if (!strcmp(key, "console") && val[0] && strlen(val) < sizeof(options.console)) {
		memcpy(options.console, val, strlen(val) + 1);
		return true;
	}
	if (!strcmp(key, "gdb") && val[0] && strlen(val) < sizeof(options.gdb)) {
		memcpy(options.gdb, val, strlen(val) + 1);
		return true;
	}
	if (!strcmp(key, "term") && (!strcmp(val, "raw") || !strcmp(val, "lines"))) {
		options.term_raw = val[0] == 'r';
		return true;
	}
	if (!strcmp(key, "trace") && val[0] && strlen(val) < sizeof(options.trace)) {
		memcpy(options.trace, val, strlen(val) + 1);
		return true;
	}
	if (!strcmp(key, "monitor") && strchr(val, ':') && options.n_monitor < 8) {
		memcpy(options.monitor[options.n_monitor++], val, strlen(val) + 1);
		return true;
	}
	if (!strcmp(key, "gdbarch")) {
		static const char *const archs[] = { "auto", "i386", "x86-64" };
		for (u8 i = 0; i < 3; i++)
			if (!strcmp(val, archs[i])) {
				options.gdbarch = i;
				return true;
			}
		return false;
	}
	if (!strcmp(key, "gdbwait"))
		return parse_bool(val, &options.gdbwait);
	if (!strcmp(key, "audit"))
		return parse_bool(val, &options.audit);
	if (!strcmp(key, "iommu")) {
		if (strcmp(val, "off") && strcmp(val, "on"))
			return false;
		options.iommu_off = !strcmp(val, "off");
		return true;
	}
	if (!strcmp(key, "shm"))
		return shm_declare(val);
	if (!strcmp(key, "mmu")) {
		if (strcmp(val, "shadow") && strcmp(val, "nocache") && strcmp(val, "tdp"))
			return false;
		options.nocache = !strcmp(val, "nocache");
		options.tdp = !strcmp(val, "tdp");
		return true;
	}
	return false;
}

void options_parse(const char *cmdline)
{
	char key[32], val[64];
	const char *cur = cmdline;

	if (!cmdline)
		return;
	while (cmdline_next(&cur, key, sizeof(key), val, sizeof(val))) {
		/* GRUB passes the kernel's path as the first word. */
		if (key[0] == '/' && !val[0])
			continue;
		if (!apply(key, val)) {
			options.unknown++;
			kprintf("umbra: unknown or invalid option '%s%s%s' (ignored)\n", key,
				val[0] ? "=" : "", val);
		}
	}
	if (*cur) {
		options.unknown++;
		kprintf("umbra: option too long at '%.24s' (rest of the command line ignored)\n",
			cur);
	}
}
