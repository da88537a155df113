/* Summary line, panic, and the end of the run. */
#include "vmm/report.h"
#include "arch/x86/cpu.h"
#include "arch/x86/percpu.h"
#include "arch/x86/poweroff.h"
#include "arch/x86/traps.h"
#include "arch/x86/virt.h"
#include "lib/assert.h"
#include "lib/printf.h"

void console_vprintf(const char *fmt, va_list ap);

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
