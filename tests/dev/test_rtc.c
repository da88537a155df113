/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of the CMOS/RTC model: clock fields in both formats, memory sizes, writable bytes. */
#include "tests/unit/harness.h"
#include "vmm/dev/rtc.h"

#define SEC 1000000000ull

static u8 rd(struct rtc *r, u8 index, u64 now)
{
	rtc_write(r, 0x70, index);
	return rtc_read(r, 0x71, now);
}

static void test_clock_bcd_24h(void **state)
{
	(void)state;
	struct rtc r;
	rtc_reset(&r, 16 << 20, 0);
	u64 now = (13 * 3600 + 45 * 60 + 59) * SEC + 999;
	assert_int_equal(rd(&r, 0x00, now), 0x59);
	assert_int_equal(rd(&r, 0x02, now), 0x45);
	assert_int_equal(rd(&r, 0x04, now), 0x13);
	assert_int_equal(rd(&r, 0x09, now), 0x27);
	assert_int_equal(rd(&r, 0x32, now), 0x20);
	assert_int_equal(rd(&r, 0x06, now), 5);
}

static void test_clock_binary_12h(void **state)
{
	(void)state;
	struct rtc r;
	rtc_reset(&r, 16 << 20, 0);
	rtc_write(&r, 0x70, 0x0b);
	rtc_write(&r, 0x71, 0x04); /* binary, 12-hour */
	u64 now = (13 * 3600 + 5) * SEC;
	assert_int_equal(rd(&r, 0x00, now), 5);
	assert_int_equal(rd(&r, 0x04, now), 0x80 | 1); /* 1 pm */
	assert_int_equal(rd(&r, 0x04, 0), 12);	       /* midnight is 12 am */
	assert_int_equal(rd(&r, 0x09, now), 27);
}

static void test_index_and_nmi_bit(void **state)
{
	(void)state;
	struct rtc r;
	rtc_reset(&r, 16 << 20, 0);
	rtc_write(&r, 0x70, 0x80 | 0x0d);
	assert_int_equal(rtc_read(&r, 0x70, 0), 0x0d);
	assert_int_equal(rtc_read(&r, 0x71, 0), 0x80); /* battery good */
}

static void test_memory_sizes(void **state)
{
	(void)state;
	struct rtc r;
	rtc_reset(&r, 32 << 20, 0);
	u32 ext = rd(&r, 0x17, 0) | rd(&r, 0x18, 0) << 8;
	assert_int_equal(ext, 31 * 1024);
	u32 above16 = rd(&r, 0x34, 0) | rd(&r, 0x35, 0) << 8;
	assert_int_equal(above16, (16 << 20) >> 16);
	rtc_reset(&r, 256 << 20, 0);
	ext = rd(&r, 0x30, 0) | rd(&r, 0x31, 0) << 8;
	assert_int_equal(ext, 0xfc00); /* saturates at 63 MiB */
	assert_int_equal(rd(&r, 0x15, 0) | rd(&r, 0x16, 0) << 8, 640);
	assert_int_equal(rd(&r, 0x5b, 0) | rd(&r, 0x5c, 0) << 8 | rd(&r, 0x5d, 0) << 16, 0);
	/* 3 GiB below the hole and 3 GiB above 4 GiB: the high bytes count 64 KiB units. */
	rtc_reset(&r, 3ull << 30, 3ull << 30);
	assert_int_equal(rd(&r, 0x5b, 0) | rd(&r, 0x5c, 0) << 8 | rd(&r, 0x5d, 0) << 16,
			 (3ull << 30) >> 16);
	assert_int_equal(rd(&r, 0x34, 0) | rd(&r, 0x35, 0) << 8, ((3ull << 30) - (16 << 20)) >> 16);
}

static void test_writable_bytes(void **state)
{
	(void)state;
	struct rtc r;
	rtc_reset(&r, 16 << 20, 0);
	rtc_write(&r, 0x70, 0x40);
	rtc_write(&r, 0x71, 0xa5);
	assert_int_equal(rd(&r, 0x40, 0), 0xa5);
	/* The clock is not set by writes; A's update-in-progress bit is read-only. */
	rtc_write(&r, 0x70, 0x00);
	rtc_write(&r, 0x71, 0x33);
	assert_int_equal(rd(&r, 0x00, 7 * SEC), 0x07);
	rtc_write(&r, 0x70, 0x0a);
	rtc_write(&r, 0x71, 0xff);
	assert_int_equal(rd(&r, 0x0a, 0), 0x7f);
	rtc_write(&r, 0x70, 0x0c);
	rtc_write(&r, 0x71, 0xff);
	assert_int_equal(rd(&r, 0x0c, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock_bcd_24h),	  cmocka_unit_test(test_clock_binary_12h),
		cmocka_unit_test(test_index_and_nmi_bit), cmocka_unit_test(test_memory_sizes),
		cmocka_unit_test(test_writable_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
