/* SPDX-License-Identifier: GPL-2.0-only */
/* Attack guest (share): vCPUs that only compute, buying CPU time on a shared CPU with vcpus=. */
/* Every vCPU spins with interrupts on (Bochs' SVM preempts a guest only with IF=1) until the
 * guest's budget ends (started with expect=timeout time=T); with vcpus=N the BSP starts the
 * APs by VCPU_START first. cases.sh compares the CPU time Umbra's report gives each guest
 * (`guest NAME: cpu: time_ms=`): a guest's share of a CPU must not grow with its vCPUs.
 * Natively there is nothing to share: it passes at once. */
#include "tests/attack/attack.h"

const char guest_name[] = GUEST_NAME;

static uint8_t ap_stack[8][64] __attribute__((aligned(16))); /* one each: the call's return */

static void spin(void)
{
	irq_on();
	for (;;)
		asm volatile("pause");
}

void test_main(void)
{
	struct umbra_vcpu_info vi;

	if (!on_umbra) {
		skip_note("share (spins until its budget)");
		return;
	}
	if (umbra_hypercall(UMBRA_HC_VCPU_INFO, (ulong)&vi, 0))
		fail("VCPU_INFO failed");
	for (uint32_t i = 1; i < vi.nr_vcpus; i++) {
		long r = atk_vcpu_start(i, spin, ap_stack[i % 8] + sizeof(ap_stack[0]));
		if (r)
			fail("VCPU_START %u returned %ld", i, r);
	}
	kprintf("share: %u vCPUs spinning\n", vi.nr_vcpus);
	pic_remap(0x20, 0x28); /* every 8259 line masked: nothing may interrupt the spin */
	spin();
}
