/* Local APIC register model: registers are kept, IPIs go nowhere, delivery always reads idle. */
#include "vmm/vlapic.h"

enum { ID = 0x20, VERSION = 0x30, TPR = 0x80, APR = 0x90, PPR = 0xa0, EOI = 0xb0, RRD = 0xc0,
       LDR = 0xd0, DFR = 0xe0, SVR = 0xf0, ISR = 0x100, TMR = 0x180, IRR = 0x200, ESR = 0x280,
       LVT_CMCI = 0x2f0, ICR_LO = 0x300, ICR_HI = 0x310, LVT_TIMER = 0x320, LVT_ERROR = 0x370,
       TIMER_INIT = 0x380, TIMER_CUR = 0x390, TIMER_DIV = 0x3e0 };

#define LVT_MASKED (1u << 16)
#define SVR_ENABLE (1u << 8)

/* The LVT registers sit at 0x2f0 and 0x320..0x370: one index for each. */
static int lvt_index(u32 off)
{
	if (off == LVT_CMCI)
		return 0;
	if (off >= LVT_TIMER && off <= LVT_ERROR)
		return 1 + (int)((off - LVT_TIMER) >> 4);
	return -1;
}

void vlapic_reset(struct vlapic *l, u32 id)
{
	*l = (struct vlapic){ .id = id << 24, .dfr = 0xffffffffu, .svr = 0xff };
	for (int i = 0; i < 7; i++)
		l->lvt[i] = LVT_MASKED;
}

u32 vlapic_read(struct vlapic *l, u32 off)
{
	int lvt = lvt_index(off);

	if (lvt >= 0)
		return l->lvt[lvt];
	switch (off) {
	case ID: return l->id;
	case VERSION: return 0x00050014; /* version 0x14, 6 LVT entries (max LVT 5) */
	case TPR: return l->tpr;
	case PPR: return l->tpr; /* nothing in service: the task priority, all 8 bits */
	case LDR: return l->ldr;
	case DFR: return l->dfr;
	case SVR: return l->svr;
	case ESR: return l->esr;
	case ICR_LO: return l->icr_lo & ~(1u << 12); /* delivery status: idle */
	case ICR_HI: return l->icr_hi;
	case TIMER_INIT: return l->timer_init;
	case TIMER_CUR: return 0; /* the model's timer never counts */
	case TIMER_DIV: return l->timer_div;
	default: return 0; /* APR, RRD, ISR, TMR, IRR: nothing is ever in service */
	}
}

void vlapic_write(struct vlapic *l, u32 off, u32 val)
{
	int lvt = lvt_index(off);

	if (lvt >= 0) {
		/* A software-disabled APIC keeps every LVT entry masked. */
		l->lvt[lvt] = (l->svr & SVR_ENABLE) ? val : val | LVT_MASKED;
		return;
	}
	switch (off) {
	case ID: l->id = val & 0xff000000u; break;
	case TPR: l->tpr = val & 0xff; break;
	case LDR: l->ldr = val & 0xff000000u; break;
	case DFR: l->dfr = val | 0x0fffffffu; break;
	case SVR:
		l->svr = val & 0x3ff;
		if (!(l->svr & SVR_ENABLE))
			for (int i = 0; i < 7; i++)
				l->lvt[i] |= LVT_MASKED;
		break;
	case ESR: l->esr = 0; break;
	case ICR_LO: l->icr_lo = val; break;
	case ICR_HI: l->icr_hi = val & 0xff000000u; break;
	case TIMER_INIT: l->timer_init = val; break;
	case TIMER_DIV: l->timer_div = val & 0xb; break;
	default: break; /* EOI and the read-only registers */
	}
}
