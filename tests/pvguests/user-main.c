/* SPDX-License-Identifier: GPL-2.0-only */
/* PV test guest: guest user mode (CPL 3) through pv_mod_ops, refused every privileged call. */
#include "tests/pvguests/pvtest.h"

const char guest_name[] = GUEST_NAME;
void user_tests(void);

void test_main(void)
{
	pvt_space_init(GUEST_MODE);
	pv_init();
	irq_install();
	user_tests();
	pvt_finish();
}
