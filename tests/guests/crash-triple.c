/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest test: deliberately triple-faults (empty IDT, then a divide error); never passes. */
#include "tests/guests/lib/guest.h"

const char guest_name[] = GUEST_NAME;

void test_main(void)
{
	static const struct __attribute__((packed)) {
		uint16_t limit;
		ulong base;
	} empty = { 0, 0 };
	kprintf("%s: loading an empty IDT and dividing by zero\n", guest_name);
	asm volatile("lidt %0" : : "m"(empty));
	/* In asm: the compiler folds a C division whose divisor it can see through. */
	asm volatile("xor %%ecx, %%ecx; mov $1, %%eax; xor %%edx, %%edx; div %%ecx"
		     :
		     :
		     : "eax", "ecx", "edx");
	fail("still running after the divide error");
}
