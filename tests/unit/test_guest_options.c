/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests for vmm/guest_options.c: module lines into struct vm_config, and every refusal. */
#include <string.h>
#include "tests/unit/harness.h"
#include "boot/mb2.h"
#include "vmm/load/bios.h"
#include "vmm/guest_options.h"
#include "vmm/reset.h"

static struct vm_config cfg;

/* Parses line as guest `index` of a machine with ncpus CPUs: it must succeed, saying nothing. */
static void good(const char *line, u32 ncpus, u32 index)
{
	harness_log_reset();
	assert_true(guest_options_parse(&cfg, line, ncpus, index));
	assert_string_equal(harness_log, "");
}

/* ... it must be refused with exactly this one message. */
static void bad(const char *line, u32 ncpus, const char *message)
{
	harness_log_reset();
	assert_false(guest_options_parse(&cfg, line, ncpus, 0));
	assert_string_equal(harness_log, message);
}

static void test_defaults(void **state)
{
	(void)state;
	memset(&cfg, 0xa5, sizeof(cfg)); /* nothing of an earlier line may stay */
	good(NULL, 4, 6);
	assert_string_equal(cfg.name, "guest6");
	assert_int_equal(cfg.mem_mib, 16);
	assert_int_equal(cfg.cpu, 2); /* round robin: index modulo the CPUs */
	assert_int_equal(cfg.nr_vcpus, 1);
	assert_int_equal(cfg.n_cpus_list, 0);
	assert_false(cfg.expect_crash || cfg.expect_stop || cfg.expect_timeout);
	assert_int_equal(cfg.budget_ns, 0); /* guest creation puts Umbra's timeout= in */
	assert_int_equal(cfg.weight, 0);
	assert_int_equal(cfg.bios, BIOS_DEFAULT);
	assert_false(cfg.on_reboot_end);
	assert_int_equal(cfg.reboots_max, VM_REBOOTS_DEFAULT);
	assert_int_equal(cfg.caps, 0);
	assert_int_equal(cfg.pci.n, 0);
	assert_int_equal(cfg.n_shm, 0);
	assert_string_equal(cfg.cmdline, "");
	assert_string_equal(cfg.guest_args, "");
	good("/boot/guest.elf", 1, 0);
	assert_string_equal(cfg.name, "guest0");
	assert_int_equal(cfg.cpu, 0);
}

static void test_every_option(void **state)
{
	(void)state;
	const char *line = "/boot/web.elf name=web mem=2G cpu=1 vcpus=3 cpus=1,0 expect=crash "
			   "time=5 weight=200 bios=off on_reboot=end reboots=0 caps=stats,stop "
			   "shm=ring shm=log:ro pci=00:05.0,02:1f.7 --  console=ttyS0 quiet";
	good(line, 2, 7);
	assert_string_equal(cfg.name, "web");
	assert_int_equal(cfg.mem_mib, 2048);
	assert_int_equal(cfg.cpu, 1);
	assert_int_equal(cfg.nr_vcpus, 3);
	assert_int_equal(cfg.n_cpus_list, 2);
	assert_int_equal(cfg.cpus_list[0], 1);
	assert_int_equal(cfg.cpus_list[1], 0);
	assert_true(cfg.expect_crash);
	assert_false(cfg.expect_stop || cfg.expect_timeout);
	assert_int_equal(cfg.budget_ns, 5000000000ull);
	assert_int_equal(cfg.weight, 200);
	assert_int_equal(cfg.bios, BIOS_OFF);
	assert_true(cfg.on_reboot_end);
	assert_int_equal(cfg.reboots_max, 0);
	assert_int_equal(cfg.caps, UMBRA_CAP_STATS | UMBRA_CAP_STOP);
	assert_int_equal(cfg.n_shm, 2);
	assert_string_equal(cfg.shm[0].name, "ring");
	assert_false(cfg.shm[0].ro);
	assert_string_equal(cfg.shm[1].name, "log");
	assert_true(cfg.shm[1].ro);
	assert_int_equal(cfg.pci.n, 2);
	assert_int_equal(cfg.pci.bdf[0], PCI_BDF(0, 5, 0));
	assert_int_equal(cfg.pci.bdf[1], PCI_BDF(2, 0x1f, 7));
	/* Both stay where the line is: the kernel's own arguments are not copied or cut. */
	assert_ptr_equal(cfg.cmdline, line);
	assert_ptr_equal(cfg.guest_args, strstr(line, "console="));

	good("mem=4096K expect=stop", 1, 0);
	assert_int_equal(cfg.mem_mib, 4);
	assert_true(cfg.expect_stop);
	good("mem=3 expect=timeout bios=on on_reboot=restart reboots=1000 time=2592000", 1, 0);
	assert_int_equal(cfg.mem_mib, 3);
	assert_true(cfg.expect_timeout);
	assert_int_equal(cfg.bios, BIOS_ON);
	assert_false(cfg.on_reboot_end);
	assert_int_equal(cfg.reboots_max, 1000);
	assert_int_equal(cfg.budget_ns, 2592000ull * 1000000000ull);
	/* The most vCPUs: 4 per CPU, at most 15. */
	good("vcpus=8", 2, 0);
	assert_int_equal(cfg.nr_vcpus, 8);
	good("vcpus=15", 8, 0);
	assert_int_equal(cfg.nr_vcpus, 15);
	/* A later word wins, a list replaces the one before it. */
	good("name=a name=b cpus=0,1,1 cpus=1", 2, 0);
	assert_string_equal(cfg.name, "b");
	assert_int_equal(cfg.n_cpus_list, 1);
	assert_int_equal(cfg.cpus_list[0], 1);
}

/* A CPU past the machine's is a warning, not a refusal: the guest goes round to one it has. */
static void test_cpu_fallback(void **state)
{
	(void)state;
	harness_log_reset();
	assert_true(guest_options_parse(&cfg, "name=big cpu=5", 2, 0));
	assert_int_equal(cfg.cpu, 1);
	assert_string_equal(harness_log, "guest big: warning: cpu 5 beyond this machine's 2 CPUs: "
					 "on cpu 1 instead\n");
	harness_log_reset();
	assert_true(guest_options_parse(&cfg, "cpus=0,6", 4, 0));
	assert_int_equal(cfg.n_cpus_list, 2);
	assert_int_equal(cfg.cpus_list[1], 2);
	assert_non_null(strstr(harness_log, "cpu 6 beyond this machine's 4 CPUs: on cpu 2"));
}

/* Each bad line, the CPUs of the machine it is parsed on, and its one message. */
static const struct {
	const char *line;
	u32 ncpus;
	const char *message;
} refusals[] = {
	{ "bogus=1", 1, "guest guest0: unknown or invalid option 'bogus=1'\n" },
	/* The name given so far names the guest in the message. */
	{ "name=db mem=0", 1, "guest db: unknown or invalid option 'mem=0'\n" },
	{ "name= x", 1, "guest guest0: unknown or invalid option 'name'\n" },
	{ "mem=lots", 1, "guest guest0: unknown or invalid option 'mem=lots'\n" },
	{ "cpu=-1", 1, "guest guest0: unknown or invalid option 'cpu=-1'\n" },
	{ "vcpus=0", 1, "guest guest0: unknown or invalid option 'vcpus=0'\n" },
	{ "vcpus=9", 2, "guest guest0: vcpus=9: at most 8 (4 per host CPU, 2 CPUs)\n" },
	{ "vcpus=16", 8,
	  "guest guest0: vcpus=16: at most 15 (APIC IDs 0-14: the I/O APIC is "
	  "15)\n" },
	{ "cpus=", 1, "guest guest0: unknown or invalid option 'cpus'\n" },
	{ "cpus=0,,1", 2, "guest guest0: unknown or invalid option 'cpus=0,,1'\n" },
	{ "cpus=0,x", 2, "guest guest0: unknown or invalid option 'cpus=0,x'\n" },
	{ "cpus=0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1", 2,
	  "guest guest0: unknown or invalid option 'cpus=0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1'\n" },
	{ "expect=win", 1, "guest guest0: unknown or invalid option 'expect=win'\n" },
	{ "time=0", 1, "guest guest0: unknown or invalid option 'time=0'\n" },
	{ "time=2592001", 1, "guest guest0: unknown or invalid option 'time=2592001'\n" },
	{ "weight=0", 1, "guest guest0: unknown or invalid option 'weight=0'\n" },
	{ "weight=65536", 1, "guest guest0: unknown or invalid option 'weight=65536'\n" },
	{ "bios=maybe", 1, "guest guest0: unknown or invalid option 'bios=maybe'\n" },
	{ "on_reboot=halt", 1, "guest guest0: unknown or invalid option 'on_reboot=halt'\n" },
	{ "reboots=1001", 1, "guest guest0: unknown or invalid option 'reboots=1001'\n" },
	{ "caps=stats,fly", 1, "guest guest0: unknown or invalid option 'caps=stats,fly'\n" },
	{ "caps=,stats", 1, "guest guest0: unknown or invalid option 'caps=,stats'\n" },
	{ "shm=ok:rw", 1, "guest guest0: shm=ok:rw: expected shm=NAME or shm=NAME:ro\n" },
	{ "shm=abcdefghijklmnop", 1,
	  "guest guest0: shm=abcdefghijklmnop: Umbra's line declares "
	  "no region abcdefghijklmnop\n" },
	{ "shm=a shm=b shm=c:ro shm=d shm=e", 1,
	  "guest guest0: shm=e: more than 4 regions per "
	  "guest or 16 guests per region\n" },
	{ "pci=00:05", 1,
	  "guest guest0: pci=00:05: '00:05' is not BB:DD.F (hex bus, device <= "
	  "1f, function <= 7)\n" },
	{ "pci=00:05.0,00:05.0", 1, "guest guest0: pci=00:05.0,00:05.0: 00:05.0 given twice\n" },
	{ "name=long caps=stats,stop,stats,stop,stats,stop,stats,stop,stats,stop,stats,stop", 1,
	  "guest long: option too long at 'caps=stats,stop,stats,st'\n" },
	/* A refusal stops at the first bad word: nothing after it is reported. */
	{ "bogus mem=0", 1, "guest guest0: unknown or invalid option 'bogus'\n" },
};

static void test_refusals(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
		bad(refusals[i].line, refusals[i].ncpus, refusals[i].message);
}

static void test_attached_to(void **state)
{
	(void)state;
	char name[VM_NAME_LEN];
	struct mb2_module file = { .cmdline = "  for=web  /data/index.html  -v" };
	struct mb2_module own = { .cmdline = "/boot/web.elf name=web" };
	struct mb2_module none = { .cmdline = NULL };

	assert_string_equal(guest_options_attached_to(&file, name, sizeof(name)),
			    "/data/index.html  -v");
	assert_string_equal(name, "web");
	assert_null(guest_options_attached_to(&own, name, sizeof(name)));
	assert_null(guest_options_attached_to(&none, name, sizeof(name)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),     cmocka_unit_test(test_every_option),
		cmocka_unit_test(test_cpu_fallback), cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_attached_to),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
