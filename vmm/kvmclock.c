/* SPDX-License-Identifier: GPL-2.0-only */
/* The KVM pvclock: the TSC's rate and a system time for Linux, instead of calibration against emulated timers whose every read is an exit. */
#include "vmm/kvmclock.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "lib/assert.h"
#include "lib/string.h"
#include "mmu/mmu.h"
#include "vmm/dev/rtc.h"
#include "vmm/pv_eoi.h"
#include "vmm/vm.h"

#define NSEC 1000000000ull
#define KVM_SIGNATURE_EBX 0x4b4d564bu /* "KVMK" */
#define KVM_SIGNATURE_ECX 0x564b4d56u /* "VMKV" */
#define KVM_SIGNATURE_EDX 0x0000004du /* "M\0\0\0" */
#define KVM_FEATURE_CLOCKSOURCE2 (1u << 3)
#define KVM_FEATURE_CLOCKSOURCE_STABLE_BIT (1u << 24)
#define PVCLOCK_TSC_STABLE 1u
#define ENABLE 1ull

struct pvclock_time {
	u32 version, pad0;
	u64 tsc_timestamp, system_time;
	u32 tsc_to_system_mul;
	s8 tsc_shift;
	u8 flags, pad[2];
};
BUILD_BUG_ON(sizeof(struct pvclock_time) != 32);

struct pvclock_wall {
	u32 version, sec, nsec;
} PACKED;

void kvmclock_cpuid(u32 leaf, u32 out[4])
{
	out[0] = out[1] = out[2] = out[3] = 0;
	if (leaf == KVM_CPUID_BASE) {
		out[0] = KVM_CPUID_FEATURES;
		out[1] = KVM_SIGNATURE_EBX;
		out[2] = KVM_SIGNATURE_ECX;
		out[3] = KVM_SIGNATURE_EDX;
	} else if (leaf == KVM_CPUID_FEATURES) {
		out[0] = KVM_FEATURE_CLOCKSOURCE2 | KVM_FEATURE_CLOCKSOURCE_STABLE_BIT |
			 KVM_FEATURE_PV_EOI;
	}
}

/* The most precise mul (in [2^31, 2^32)) with shift putting tsc_hz << shift just above 1 GHz. */
void kvmclock_scale(u64 tsc_hz, u32 *mul, s8 *shift)
{
	u64 h = tsc_hz ? tsc_hz : 1;
	s8 s = 0;

	while (h <= NSEC) {
		h <<= 1;
		s++;
	}
	while (h > 2 * NSEC) {
		h >>= 1;
		s--;
	}
	*mul = (u32)((NSEC << 32) / h);
	*shift = s;
}

static u64 scaled(u64 tsc, u32 mul, s8 shift)
{
	u64 d = shift >= 0 ? tsc << shift : tsc >> -shift;
	return (u64)(((unsigned __int128)d * mul) >> 32);
}

/* Writes a structure at gpa through the MMU (it may share a page with guest page tables), in
 * aligned 8-byte pieces; false if it is not wholly in one page of RAM or misaligned. */
static bool publish(struct vcpu *v, u64 gpa, const void *p, unsigned len)
{
	if ((gpa & 7) || (gpa & (PAGE_SIZE - 1)) + len > PAGE_SIZE ||
	    !memslots_ptr(&v->vm->mem, gpa, len))
		return false;
	for (unsigned off = 0; off < len; off += 8) {
		u64 piece = 0;
		memcpy(&piece, (const u8 *)p + off, len - off < 8 ? len - off : 8);
		mmu_write(&v->vm->mmu, gpa + off, len - off < 8 ? len - off : 8, piece);
	}
	return true;
}

/* System time is the guest's TSC in ns: the guest's clock starts where its TSC does, and one
 * record stays right for good, since the TSC's rate never changes (TSC_STABLE). */
static void publish_time(struct vcpu *v)
{
	struct pvclock_time t = { .flags = PVCLOCK_TSC_STABLE };

	kvmclock_scale(tsc_hz, &t.tsc_to_system_mul, &t.tsc_shift);
	t.tsc_timestamp = rdtsc() + v->tsc_offset;
	t.system_time = scaled(t.tsc_timestamp, t.tsc_to_system_mul, t.tsc_shift);
	v->kvmclock_version += 2; /* even: a complete record */
	t.version = v->kvmclock_version;
	publish(v, v->kvmclock_msr & ~ENABLE, &t, sizeof(t));
}

/* The wall-clock time at system time 0: the RTC's time now minus the system time now. */
static void publish_wall(struct vcpu *v, u64 gpa)
{
	u32 mul;
	s8 shift;

	kvmclock_scale(tsc_hz, &mul, &shift);
	u64 rtc_ns = RTC_EPOCH_UNIX * NSEC + monotonic_ns();
	u64 system_ns = scaled(rdtsc() + v->tsc_offset, mul, shift);
	u64 boot_ns = rtc_ns > system_ns ? rtc_ns - system_ns : 0;
	struct pvclock_wall w = { .version = 2,
				  .sec = (u32)(boot_ns / NSEC),
				  .nsec = (u32)(boot_ns % NSEC) };

	publish(v, gpa, &w, sizeof(w));
}

bool kvmclock_msr_read(struct vcpu *v, u32 msr, u64 *val)
{
	*val = msr == MSR_KVM_SYSTEM_TIME_NEW ? v->kvmclock_msr : v->wallclock_msr;
	return true;
}

bool kvmclock_msr_write(struct vcpu *v, u32 msr, u64 val)
{
	if (msr == MSR_KVM_WALL_CLOCK_NEW) {
		v->wallclock_msr = val;
		publish_wall(v, val);
		return true;
	}
	v->kvmclock_msr = val;
	if (val & ENABLE)
		publish_time(v);
	return true;
}
