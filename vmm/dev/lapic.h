/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest's local APIC: registers (xAPIC MMIO and x2APIC MSRs), priorities, EOI, the timer. */
#ifndef VMM_DEV_LAPIC_H
#define VMM_DEV_LAPIC_H

#include "lib/types.h"
#include "arch/x86/regs.h"

#define VLAPIC_BASE APIC_DEFAULT_BASE /* where reset puts the guest's xAPIC page */
/* The model's APIC bus: one timer tick per ns before the divider (as KVM's). */
#define VLAPIC_BUS_HZ 1000000000ull

/* clang-format off */
struct vlapic {
	u64 base_msr;              /* IA32_APIC_BASE: address, BSP, EXTD (x2APIC), enable */
	u32 id;                    /* the APIC ID (xAPIC: shown in bits 24-31; x2APIC: 32 bits) */
	u32 hw_id;                 /* the initial APIC ID: the x2APIC ID, kept across resets */
	u32 tpr, ldr, dfr, svr, icr_lo, icr_hi;
	u32 esr;                   /* what the ESR reads: errors up to its last write */
	u32 esr_pending;           /* errors since the last ESR write */
	u32 lvt[7];                /* CMCI (not exposed: max LVT 5), timer, thermal, perf,
	                            * LINT0, LINT1, error */
	u32 timer_init, timer_div;
	u32 irr[8], isr[8], tmr[8];/* 256 bits each, bit v of word v / 32 */
	u64 timer_start_ns;        /* one-shot/periodic: when the current count began */
	u64 timer_next_ns;         /* when the timer fires next (0: not armed); the current
	                            * count is derived from it */
	u64 tsc_deadline;          /* IA32_TSC_DEADLINE as the guest wrote it (guest TSC) */
	bool lint0_in;             /* the LINT0 input (the 8259's INTR) as last sampled */
	/* Called with the vector when a level-triggered interrupt is EOIed (the broadcast to
	 * the I/O APIC); NULL after vlapic_reset, then set by the board; kept when the guest
	 * disables the APIC. */
	void (*level_eoi)(void *ctx, u8 vector);
	void *eoi_ctx;
	/* Called for each valid ICR write (low word, destination: 8-bit xAPIC or 32-bit x2APIC
	 * ID) to deliver it to the APICs it reaches (vlapic_ipi_reaches); set by the board and
	 * kept across resets. NULL: an IPI can reach this APIC alone. */
	void (*ipi)(void *ctx, u32 icr_lo, u32 dest);
	void *ipi_ctx;
};
/* clang-format on */

/* ICR delivery modes (bits 8-10). */
enum {
	VLAPIC_DM_FIXED = 0,
	VLAPIC_DM_LOWEST = 1,
	VLAPIC_DM_SMI = 2,
	VLAPIC_DM_NMI = 4,
	VLAPIC_DM_INIT = 5,
	VLAPIC_DM_SIPI = 6
};
#define VLAPIC_ICR_LEVEL_ASSERT (1u << 14)
#define VLAPIC_ICR_TRIGGER_LEVEL (1u << 15)

/* Power-on state for APIC id, then what the BIOS leaves (SeaBIOS: software-enabled, LINT0
 * ExtINT, LINT1 NMI), so a kernel booted like qemu -kernel finds the same APIC. */
void vlapic_reset(struct vlapic *l, u32 id, bool bsp);

/* xAPIC MMIO: off is the offset in the 4 KiB page, 16-byte aligned 32-bit registers. Only
 * while hardware-enabled in xAPIC mode (else reads 0, writes are dropped). Unimplemented
 * offsets log ESR "illegal register address", as the chip does. */
u32 vlapic_read(struct vlapic *l, u32 off, u64 now_ns);
void vlapic_write(struct vlapic *l, u32 off, u32 val, u64 now_ns);
/* x2APIC MSRs 0x800-0x8ff: false means #GP (not in x2APIC mode, reserved or read-only
 * register, reserved bits set), as the SDM specifies. */
bool vlapic_msr_read(struct vlapic *l, u32 msr, u64 *val, u64 now_ns);
bool vlapic_msr_write(struct vlapic *l, u32 msr, u64 val, u64 now_ns);
/* IA32_APIC_BASE: false means #GP (reserved bits, those at or above the guest's MAXPHYADDR
 * included; an invalid x2APIC transition). The xAPIC page moves with the
 * base. Disabling resets the APIC to its power-on state. */
bool vlapic_set_base(struct vlapic *l, u64 val, unsigned maxphyaddr);
/* Does the APIC's xAPIC page answer gpa (enabled, xAPIC mode, gpa in the page at its base)?
 * If so, *off is the offset in the page. */
bool vlapic_mmio_hit(const struct vlapic *l, u64 gpa, u32 *off);
/* Is the APIC enabled in IA32_APIC_BASE (it answers MMIO/MSRs and takes interrupts)? */
bool vlapic_hw_enabled(const struct vlapic *l);
bool vlapic_x2apic(const struct vlapic *l);

/* The EOI register's effect: the highest in-service vector ends (a level-triggered one's EOI
 * goes on to the I/O APIC). */
void vlapic_eoi(struct vlapic *l);
/* The in-service vector a guest may EOI lazily, without an exit (KVM's PV EOI): the highest,
 * when it is edge-triggered and nothing waits in the IRR (its EOI then can start no other
 * interrupt, so noticing it at the next exit is soon enough); -1 otherwise. */
int vlapic_lazy_eoi_vector(const struct vlapic *l);

/* CR8 in 64-bit mode is the TPR's priority class (SDM 10.8.6.1): a read gives TPR[7:4], a
 * write of bits 3:0 sets TPR[7:4] and clears TPR[3:0]. The same register as the MMIO and
 * x2APIC TPR, so a kernel may mix them. */
static inline u64 vlapic_cr8(const struct vlapic *l)
{
	return l->tpr >> 4;
}
static inline void vlapic_set_cr8(struct vlapic *l, u64 val)
{
	l->tpr = (u32)(val & 0xf) << 4;
}

/* TSC-deadline mode: the MSR value (guest TSC) and the same instant on the model's clock
 * (the caller converts; tsc 0 disarms). Ignored unless the timer LVT is in TSC-deadline mode.
 * A deadline already past fires at the next vlapic_timer_update. */
void vlapic_set_tsc_deadline(struct vlapic *l, u64 tsc, u64 deadline_ns);

/* A fixed interrupt arrives (IPI, LVT, the I/O APIC): set in IRR (and TMR if level),
 * held there while software-disabled. Vectors 0-15 are refused and logged in ESR (received
 * illegal vector); a hardware-disabled APIC takes nothing. */
void vlapic_set_irq(struct vlapic *l, u8 vector, bool level);
/* Does an interrupt message for dest (physical APIC ID, or logical destination) address
 * this APIC? The broadcast ID addresses all. */
bool vlapic_match_dest(const struct vlapic *l, u32 dest, bool logical);
/* Does an IPI src sends (ICR low word lo, destination dest) reach dst: the shorthand (self,
 * all including self, all excluding self), else dst's physical or logical (flat or cluster)
 * destination; a hardware-disabled dst takes nothing. */
bool vlapic_ipi_reaches(const struct vlapic *src, const struct vlapic *dst, u32 lo, u32 dest);
/* The delivery mode of an ICR low word (VLAPIC_DM_*). */
u32 vlapic_icr_mode(u32 lo);
/* An INIT arrives: every register back to its power-on value but the APIC ID and the base. */
void vlapic_init_signal(struct vlapic *l);
/* The highest vector in IRR whose priority class is above PPR, or -1 (nothing, or the APIC
 * is software- or hardware-disabled). */
int vlapic_pending(const struct vlapic *l);
/* The CPU takes that vector: IRR -> ISR. */
void vlapic_ack(struct vlapic *l, u8 vector);
/* Do the 8259's interrupts reach the CPU (LINT0 unmasked in ExtINT mode, or the APIC
 * hardware-disabled so the PIC is wired straight to INTR)? */
bool vlapic_accepts_extint(const struct vlapic *l);
/* The LINT0 input (the 8259's INTR output) is level now: true on a rising edge while LINT0 is
 * unmasked in NMI mode on an enabled APIC, when the CPU takes an NMI. */
bool vlapic_lint0(struct vlapic *l, bool level);
/* Does an edge on LINT1 (a board's NMI line) reach the CPU as an NMI: its LVT unmasked with
 * NMI delivery, or the APIC hardware-disabled (the pin then goes straight to the CPU's NMI)? */
bool vlapic_lint1_nmi(const struct vlapic *l);
/* Fire the timer if due by now (sets the LVT vector in IRR unless masked; re-arms periodic). */
void vlapic_timer_update(struct vlapic *l, u64 now_ns);
/* When the timer fires next (absolute ns), or 0 if not armed. */
u64 vlapic_next_event_ns(const struct vlapic *l);

#endif
