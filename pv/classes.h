/* SPDX-License-Identifier: GPL-2.0-only */
/* Each hypercall's privilege class: the one table Umbra's dispatch and the ABI test both read. */
#ifndef PV_CLASSES_H
#define PV_CLASSES_H

#include "pv/abi.h"

enum hc_class {
	HC_NONE = 0,	/* no such call */
	HC_RESTRICTED,	/* any CPL (paravirt_ops' module subset) */
	HC_PRIVILEGED,	/* guest CPL 0 only */
	HC_CROSS_GUEST, /* CPL 0 and a capability from the caller's caps= */
};

struct hc_class_entry {
	enum hc_class cls;
	unsigned cap; /* HC_CROSS_GUEST: the UMBRA_CAP_* bit needed */
};

extern const struct hc_class_entry hc_classes[UMBRA_HC_COUNT];

#endif
