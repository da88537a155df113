/* SPDX-License-Identifier: GPL-2.0-only */
/* The 8254 interval timer (ports 0x40-0x43) and port 0x61's gate and OUT bits, as a pure model. */
#ifndef VMM_DEV_PIT_H
#define VMM_DEV_PIT_H

#include "lib/types.h"

#define PIT_HZ 1193182ull

/* One stretch of counting that begins with a load of the counting element (CE). Ticks are
 * counted from the channel's start_ns: tick t begins at start_ns + ceil(t * 1e9 / PIT_HZ). */
struct pit_seg {
	s64 base;     /* the tick at which the CE holds n (c = tick - base clocks later) */
	u32 n;	      /* the count loaded, 1..65536 (10000 in BCD); modes 2, 3: the period */
	bool fired;   /* modes 0, 1, 4, 5: terminal count was reached before base */
	bool pre_out; /* OUT before base (from the write or trigger until the load) */
};

struct pit_channel {
	u8 mode; /* 0-5 (6 and 7 run as 2 and 3) */
	u8 ctrl; /* control word bits 5-0 as written: the status byte's low bits */
	u8 rw;	 /* access: 1 LSB, 2 MSB, 3 LSB then MSB */
	bool bcd;
	bool gate;
	u16 reload;	 /* the count written (0 means 0x10000, or 10000 in BCD) */
	bool have_count; /* a count was written since the control word */
	bool running;	 /* the CE follows seg (and next); else it holds hold and hold_out */
	u64 start_ns;	 /* tick 0: the count write, trigger, gate edge or resume */
	struct pit_seg seg;
	struct pit_seg next; /* modes 2 and 3: a count written while counting takes over at the */
	s64 next_from;	     /* end of the current period (half-period in mode 3), tick next_from */
	bool has_next;
	u32 hold; /* the CE while stopped, and until a new count's first clock */
	bool hold_out, hold_fired;
	u64 load_ns;  /* null count until then (~0: until a trigger or gate edge loads it) */
	u16 latch;    /* counter latch */
	bool latched; /* latch holds a value not yet fully read */
	u8 status;    /* read-back status latch */
	bool status_latched;
	u8 read_step, write_step; /* LSB/MSB flip-flops for access mode 3 */
	u8 write_lsb;		  /* the LSB written while waiting for the MSB */
};

struct pit {
	struct pit_channel ch[3];
	u8 port61;	 /* bits 0 (gate 2) and 1 (speaker data) as written */
	u64 irq_done_ns; /* channel 0 rising edges up to here have been reported */
	bool irq0_edge;	 /* an edge seen before a reprogramming of channel 0, not reported yet */
};

/* Power-on (undefined on the chip; chosen): every channel in mode 0, LSB-then-MSB access,
 * binary, no count loaded (null count set), OUT low; gates 0 and 1 high, gate 2 low (port
 * 0x61 = 0).
 * A count is loaded into the CE at the first clock after it is written (or after the
 * trigger / gate edge): mode 0's OUT rises N + 1 ticks after the write, as on the chip.
 * Until that clock the counter still reads its previous value. Count 0 is 0x10000 (10000 in
 * BCD); BCD counting is modelled. A count of 1 (illegal in modes 2 and 3) runs as 2. Not
 * modelled: the sub-tick phase of the clock (each load starts a fresh tick grid). */
void pit_reset(struct pit *p, u64 now_ns);
/* Ports 0x40-0x43 and 0x61; anything else (and 0x43, write-only) reads 0xff and is ignored.
 * Time is in ns of the guest's clock (any monotonic clock: the host tests pass a fake one).
 * Gates 0 and 1 are always high; gate 2 is port 0x61 bit 0. A gate low stops counting in
 * modes 0, 2, 3 and 4 (OUT forced high in 2 and 3; 0 and 4 resume where they stopped); its
 * rising edge reloads modes 1, 2, 3 and 5. Port 0x61 reads bits 0-1 as written, bit 4 the
 * refresh toggle (flips every 15.085 us of now_ns), bit 5 OUT2, the rest 0. */
u8 pit_read(struct pit *p, u16 port, u64 now_ns);
void pit_write(struct pit *p, u16 port, u8 val, u64 now_ns);
/* Did channel 0's OUT rise (IRQ0 edge) since the last call? Several edges count as one (a
 * guest that was not running loses ticks, as on a loaded machine). */
bool pit_irq0_due(struct pit *p, u64 now_ns);
/* When channel 0's OUT next rises after now (absolute ns; the first ns at which the tick
 * has begun, so pit_irq0_due then is true), or 0 if it never will (mode 0 or 4 after the
 * terminal count, no count, gate low). Returns now if an edge is already waiting for
 * pit_irq0_due (one that came before channel 0 was reprogrammed). */
u64 pit_next_irq0_ns(const struct pit *p, u64 now_ns);
/* Channel n's OUT now (for tests, and port 0x61 bit 5 for channel 2). */
bool pit_out(const struct pit *p, unsigned n, u64 now_ns);

#endif
