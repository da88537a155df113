/* Attack guest (share): vCPUs that only compute, buying CPU time on a shared CPU with vcpus=. */
/* Every vCPU spins with interrupts on (Bochs' SVM preempts a guest only with IF=1) until the
 * guest's budget ends (started with expect=timeout time=T); with vcpus=N the BSP starts the
 * APs by VCPU_START first. cases.sh compares the CPU time Umbra's report gives each guest
 * (`guest NAME: cpu: time_ms=`): a guest's share of a CPU must not grow with its vCPUs.
 * Natively there is nothing to share: it passes at once. */
#include "tests/attack/attack.h"

const char guest_name[] = GUEST_NAME;

static uint8_t ap_stack[64] __attribute__((aligned(16)));

/* The APs' 32-bit entry from VCPU_START: the library's GDT, then spin. */
__asm__(".text\n"
	".globl share_ap_entry\n"
	"share_ap_entry:\n"
	"	lgdt share_gdtd\n"
	"	ljmp $0x08, $1f\n"
	"1:	mov $0x10, %cx\n"
	"	mov %cx, %ds\n mov %cx, %es\n mov %cx, %ss\n"
	"	sti\n"
	"2:	pause\n jmp 2b\n"
	".data\n"
	".align 4\n"
	"share_gdtd: .word 71\n"
	"	.long gdt\n"
	".text\n");
extern char share_ap_entry[];

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
		long r = umbra_hypercall4(UMBRA_HC_VCPU_START, i, (ulong)share_ap_entry,
					  (ulong)(ap_stack + sizeof(ap_stack)), 0);
		if (r)
			fail("VCPU_START %u returned %ld", i, r);
	}
	kprintf("share: %u vCPUs spinning\n", vi.nr_vcpus);
	pic_remap(0x20, 0x28); /* every 8259 line masked: nothing may interrupt the spin */
	irq_on();
	for (;;)
		asm volatile("pause");
}
