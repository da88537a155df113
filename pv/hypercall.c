/* The hypercall table: each call's class (restricted or privileged) and its handler. */
#include "pv/hypercall.h"
#include "lib/string.h"
#include "lib/printf.h"
#include "pv/abi.h"
#include "vmm/gmem.h"
#include "vmm/ioport.h"
#include "vmm/stats.h"
#include "vmm/vm.h"

enum hc_class { HC_RESTRICTED, HC_PRIVILEGED };

struct hc_args {
	u64 a[4];
};

typedef s64 (*hc_fn)(struct vcpu *v, const struct hc_args *args);

static s64 hc_version(struct vcpu *v, const struct hc_args *a)
{
	(void)v;
	(void)a;
	return UMBRA_ABI_VERSION;
}

static s64 hc_console_write(struct vcpu *v, const struct hc_args *a)
{
	char buf[256];
	u64 gva = a->a[0], len = a->a[1];

	if (len > UMBRA_CONSOLE_MAX)
		return -UMBRA_E2BIG;
	/* Check the whole buffer before printing any of it: a bad call changes nothing. */
	for (u64 off = 0; off < len; off += sizeof(buf)) {
		u64 n = len - off < sizeof(buf) ? len - off : sizeof(buf);
		if (gmem_read_virt(v, gva + off, buf, n, v->regs.cpl == 3) < 0)
			return -UMBRA_EFAULT;
	}
	for (u64 off = 0; off < len; off += sizeof(buf)) {
		u64 n = len - off < sizeof(buf) ? len - off : sizeof(buf);
		gmem_read_virt(v, gva + off, buf, n, v->regs.cpl == 3);
		for (u64 i = 0; i < n; i++)
			ioport_out(v->vm, 0x3f8, 1, (u8)buf[i]);
	}
	return (s64)len;
}

static s64 hc_exit(struct vcpu *v, const struct hc_args *a)
{
	console_flush(v->vm);
	vm_end(v->vm, VM_END_RESULT, ((u32)a->a[0] << 1) | 1, "exit hypercall");
	return 0;
}

static s64 hc_stats(struct vcpu *v, const struct hc_args *a)
{
	struct umbra_stats st;
	u64 gva = a->a[0], size = a->a[1];

	if (size < sizeof(u32) * 2)
		return -UMBRA_EINVAL;
	if (size > sizeof(st))
		size = sizeof(st);
	stats_collect(v, &st);
	st.size = (u32)size;
	if (gmem_write_virt(v, gva, &st, size, v->regs.cpl == 3) < 0)
		return -UMBRA_EFAULT;
	return (s64)size;
}

static const struct {
	hc_fn fn;
	enum hc_class cls;
} calls[] = {
	[UMBRA_HC_VERSION] = { hc_version, HC_RESTRICTED },
	[UMBRA_HC_CONSOLE_WRITE] = { hc_console_write, HC_RESTRICTED },
	[UMBRA_HC_EXIT] = { hc_exit, HC_PRIVILEGED },
	[UMBRA_HC_STATS] = { hc_stats, HC_RESTRICTED },
};

void pv_hypercall(struct vcpu *v)
{
	u64 *g = v->regs.gpr;
	bool wide = v->regs.efer & BIT(10); /* EFER.LMA: 64-bit arguments only in long mode */
	u64 mask = wide ? ~0ull : 0xffffffffull;
	u64 nr = g[X86_RAX] & mask;
	struct hc_args args = { { g[X86_RBX] & mask, g[X86_RCX] & mask, g[X86_RDX] & mask,
				  g[X86_RSI] & mask } };
	s64 ret;

	if (nr >= ARRAY_SIZE(calls) || !calls[nr].fn)
		ret = -UMBRA_ENOSYS;
	else if (calls[nr].cls == HC_PRIVILEGED && v->regs.cpl != 0)
		ret = -UMBRA_EPERM;
	else
		ret = calls[nr].fn(v, &args);
	g[X86_RAX] = (u64)ret & mask;
}
