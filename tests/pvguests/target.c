/* SPDX-License-Identifier: GPL-2.0-only */
/* PV test guest: runs until another guest stops it (booted with expect=stop). */
#include "tests/pvguests/pvtest.h"

const char guest_name[] = GUEST_NAME;

void test_main(void)
{
	pv_init();
	if (!pv_on_umbra)
		fail("pv-target only makes sense on Umbra");
	kprintf("pv-target: waiting to be stopped\n");
	/* Yielding keeps its exits growing, which the stopper checks. */
	for (;;)
		HC(YIELD, 0, 0, 0, 0);
}
