/* mb1 kernel for the gdb tests (tests/gdb): a small call chain and globals for gdb to inspect. */
#include "tests/mb1/mb1.h"

const char guest_name[] = "gdbtarget";

/* gdb sets answer to 42 to let the loop end; counter is watched. */
volatile int answer = 1;
volatile int counter;

__attribute__((noinline)) int step_inner(int a)
{
	counter = counter + a;
	return a * 3;
}

__attribute__((noinline)) int step_outer(int a)
{
	return step_inner(a + 1) + 1;
}

void test_main(void)
{
	int total = 0;
	/* Bounded: without gdb the kernel ends (and fails) instead of spinning forever; loops=0
	 * (the monitor's test) spins until stopped. */
	ulong loops = mb1_arg_num("loops", 20000000);
	for (ulong i = 0; (!loops || i < loops) && answer != 42; i++)
		total += step_outer(i & 7);
	kprintf("answer=%d counter=%d total=%d\n", answer, counter, total);
	CHECK(answer == 42, "gdb did not set answer (it is %d)", answer);
}
