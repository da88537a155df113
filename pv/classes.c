/* Hypercall privilege classes, after paravirt_ops' split of the module ops (restricted subset). */
#include "pv/classes.h"

const struct hc_class_entry hc_classes[UMBRA_HC_COUNT] = {
	[UMBRA_HC_VERSION] = { HC_RESTRICTED, 0 },
	[UMBRA_HC_CONSOLE_WRITE] = { HC_RESTRICTED, 0 },
	[UMBRA_HC_EXIT] = { HC_PRIVILEGED, 0 },
	[UMBRA_HC_STATS] = { HC_RESTRICTED, 0 },
	[UMBRA_HC_CONSOLE_READ] = { HC_RESTRICTED, 0 },
	[UMBRA_HC_YIELD] = { HC_RESTRICTED, 0 },
	[UMBRA_HC_TIME] = { HC_RESTRICTED, 0 },
	[UMBRA_HC_BLOCK] = { HC_PRIVILEGED, 0 },
	[UMBRA_HC_TIMER_SET] = { HC_PRIVILEGED, 0 },
	[UMBRA_HC_MMU_UPDATE] = { HC_PRIVILEGED, 0 },
	[UMBRA_HC_MMU_OP] = { HC_PRIVILEGED, 0 },
	[UMBRA_HC_VCPU_INFO] = { HC_RESTRICTED, 0 },
	[UMBRA_HC_STATS_OF] = { HC_CROSS_GUEST, UMBRA_CAP_STATS },
	[UMBRA_HC_STOP_GUEST] = { HC_CROSS_GUEST, UMBRA_CAP_STOP },
};
