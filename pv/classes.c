/* SPDX-License-Identifier: GPL-2.0-only */
/* Hypercall privilege classes, after paravirt_ops' split of the module ops (restricted subset). */
#include "pv/classes.h"

/* The class letters of pv/abi.h's list. */
#define HC_CLASS_R HC_RESTRICTED
#define HC_CLASS_P HC_PRIVILEGED
#define HC_CLASS_C HC_CROSS_GUEST

#define HC_ENTRY(nr, name, cls, cap) [nr] = { HC_CLASS_##cls, cap },
const struct hc_class_entry hc_classes[UMBRA_HC_COUNT] = { UMBRA_HYPERCALLS(HC_ENTRY) };
#undef HC_ENTRY

/* Numbered from 1 without gaps: each call's number is at most the count of calls. */
#define HC_DENSE(nr, name, cls, cap) _Static_assert(nr < UMBRA_HC_COUNT, #name " beyond the count");
UMBRA_HYPERCALLS(HC_DENSE)
#undef HC_DENSE
