/* SPDX-License-Identifier: GPL-2.0-only */
/* The MC146818 CMOS clock and RAM (ports 0x70/0x71): a fixed date plus the time since boot. */
#ifndef VMM_DEV_RTC_H
#define VMM_DEV_RTC_H

#include "lib/types.h"

/* The clock reads 2027-01-01 00:00:00 UTC at Umbra's boot (the same instant as Unix time). */
#define RTC_EPOCH_UNIX 1798761600ull

struct rtc {
	u8 index;      /* selected register (port 0x70, without the NMI-mask bit) */
	u8 ram[128];   /* registers A, B and the RAM bytes a guest may write */
	u64 mem_bytes; /* guest RAM below 4 GiB, for the memory-size bytes firmware would have set */
	u64 high_bytes; /* and above 4 GiB (bytes 0x5b-0x5d, in 64 KiB units, as SeaBIOS reads) */
};

void rtc_reset(struct rtc *r, u64 mem_bytes, u64 high_bytes);
/* Ports 0x70 and 0x71; now_ns is the guest's clock (the wall clock starts at Umbra's epoch,
 * 2027-01-01 00:00:00, a Friday). */
u8 rtc_read(struct rtc *r, u16 port, u64 now_ns);
void rtc_write(struct rtc *r, u16 port, u8 val);

#endif
