/* SPDX-License-Identifier: GPL-2.0-only */
/* CMOS/RTC model: the clock counts from a fixed date; register B picks BCD or binary, 12 or 24 h. */
#include "vmm/dev/rtc.h"
#include "lib/string.h"

#define RTC_B_DM 0x04 /* binary, not BCD */
#define RTC_B_24H 0x02

void rtc_reset(struct rtc *r, u64 mem_bytes, u64 high_bytes)
{
	memset(r, 0, sizeof(*r));
	r->mem_bytes = mem_bytes;
	r->high_bytes = high_bytes;
	r->ram[0x0a] = 0x26; /* 32.768 kHz time base, 1024 Hz rate, no update in progress */
	r->ram[0x0b] = RTC_B_24H;
}

/* A clock field in the format register B selects. */
static u8 field(const struct rtc *r, unsigned v)
{
	return (r->ram[0x0b] & RTC_B_DM) ? (u8)v : (u8)(((v / 10) << 4) | (v % 10));
}

static u8 hour(const struct rtc *r, unsigned h)
{
	if (r->ram[0x0b] & RTC_B_24H)
		return field(r, h);
	return (u8)(field(r, h % 12 ? h % 12 : 12) | (h >= 12 ? 0x80 : 0));
}

static u8 reg(const struct rtc *r, u64 now_ns)
{
	u64 secs = now_ns / 1000000000ull;
	u64 ext_kb = r->mem_bytes > (1u << 20) ? (r->mem_bytes >> 10) - 1024 : 0;
	u64 above16 = r->mem_bytes > (16u << 20) ? (r->mem_bytes - (16u << 20)) >> 16 : 0;

	if (ext_kb > 0xfc00)
		ext_kb = 0xfc00; /* the 16-bit field saturates at 63 MiB, as on a PC */
	switch (r->index) {
	case 0x00:
		return field(r, secs % 60);
	case 0x02:
		return field(r, (secs / 60) % 60);
	case 0x04:
		return hour(r, (secs / 3600) % 24);
	case 0x06:
		return 5; /* day of week */
	case 0x07:
		return field(r, 1); /* 2027-01-01 */
	case 0x08:
		return field(r, 1);
	case 0x09:
		return field(r, 27);
	case 0x32:
		return field(r, 20);
	case 0x0c:
		return 0; /* no interrupt flags */
	case 0x0d:
		return 0x80; /* battery good */
	case 0x15:
		return 640 & 0xff; /* base memory, KiB */
	case 0x16:
		return 640 >> 8;
	case 0x17:
	case 0x30:
		return ext_kb & 0xff;
	case 0x18:
	case 0x31:
		return (ext_kb >> 8) & 0xff;
	case 0x34:
		return above16 & 0xff;
	case 0x35:
		return (above16 >> 8) & 0xff;
	case 0x5b:
		return (r->high_bytes >> 16) & 0xff;
	case 0x5c:
		return (r->high_bytes >> 24) & 0xff;
	case 0x5d:
		return (r->high_bytes >> 32) & 0xff;
	default:
		return r->ram[r->index]; /* A, B and the RAM bytes */
	}
}

u8 rtc_read(struct rtc *r, u16 port, u64 now_ns)
{
	return port == 0x70 ? r->index : reg(r, now_ns);
}

void rtc_write(struct rtc *r, u16 port, u8 val)
{
	if (port == 0x70) {
		r->index = val & 0x7f; /* bit 7 is the NMI mask */
		return;
	}
	/* The clock itself, C and D are not set this way; A's update flag is read-only. */
	if (r->index == 0x0a)
		r->ram[0x0a] = val & 0x7f;
	else if (r->index == 0x0b || r->index >= 0x0e)
		r->ram[r->index] = val;
}
