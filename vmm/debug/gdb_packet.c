/* SPDX-License-Identifier: GPL-2.0-only */
/* The gdb remote serial protocol's framing and hex codecs (no I/O: the stub feeds it bytes). */
#include "lib/cmdline.h"
#include "vmm/debug/gdb_packet.h"

void gdb_rx_reset(struct gdb_rx *rx)
{
	rx->state = GDB_RX_IDLE;
	rx->len = 0;
	rx->sum = 0;
	rx->overflow = false;
}

static void data_byte(struct gdb_rx *rx, char c)
{
	if (rx->len < GDB_PACKET_MAX)
		rx->buf[rx->len++] = c;
	else
		rx->overflow = true;
}

enum gdb_rx_event gdb_rx_byte(struct gdb_rx *rx, u8 c)
{
	/* A '$' always starts a packet: after a lost byte or a gdb that went away mid-packet,
	 * the next one resynchronizes. */
	if (c == '$') {
		gdb_rx_reset(rx);
		rx->state = GDB_RX_DATA;
		return GDB_RX_NONE;
	}
	switch (rx->state) {
	case GDB_RX_IDLE:
		if (c == 0x03)
			return GDB_RX_INTERRUPT;
		return c == '-' ? GDB_RX_NACK : GDB_RX_NONE;
	case GDB_RX_DATA:
		if (c == '#') {
			rx->state = GDB_RX_SUM1;
			return GDB_RX_NONE;
		}
		rx->sum += c;
		if (c == '}')
			rx->state = GDB_RX_ESC;
		else
			data_byte(rx, (char)c);
		return GDB_RX_NONE;
	case GDB_RX_ESC:
		rx->sum += c;
		data_byte(rx, (char)(c ^ 0x20));
		rx->state = GDB_RX_DATA;
		return GDB_RX_NONE;
	case GDB_RX_SUM1:
		rx->sum_hi = c;
		rx->state = GDB_RX_SUM2;
		return GDB_RX_NONE;
	case GDB_RX_SUM2: {
		int hi = hex_digit((char)rx->sum_hi), lo = hex_digit((char)c);
		rx->state = GDB_RX_IDLE;
		if (hi < 0 || lo < 0 || (u8)(hi << 4 | lo) != rx->sum || rx->overflow)
			return GDB_RX_BAD;
		rx->buf[rx->len] = 0;
		return GDB_RX_PACKET;
	}
	}
	return GDB_RX_NONE;
}

int gdb_parse_hex(const char **p, u64 *val)
{
	int n = 0, d;
	u64 v = 0;

	while ((d = hex_digit(**p)) >= 0) {
		if (++n > 16)
			return -1;
		v = v << 4 | (u64)d;
		(*p)++;
	}
	*val = v;
	return n;
}

void gdb_to_hex(char *out, const void *bytes, u32 len)
{
	static const char hex[] = "0123456789abcdef";
	const u8 *b = bytes;
	for (u32 i = 0; i < len; i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
}

bool gdb_from_hex(void *bytes, const char *hex, u32 len)
{
	u8 *b = bytes;
	for (u32 i = 0; i < len; i++) {
		int hi = hex_digit(hex[2 * i]), lo = hi < 0 ? -1 : hex_digit(hex[2 * i + 1]);
		if (lo < 0)
			return false;
		b[i] = (u8)(hi << 4 | lo);
	}
	return true;
}

u32 gdb_frame(char *out, u32 room, const char *data, u32 len)
{
	static const char hex[] = "0123456789abcdef";
	u32 n = 0;
	u8 sum = 0;

	if (room < 4)
		return 0;
	out[n++] = '$';
	for (u32 i = 0; i < len && n + 5 <= room; i++) {
		char c = data[i];
		if (c == '$' || c == '#' || c == '}' || c == '*') {
			out[n++] = '}';
			sum += '}';
			c ^= 0x20;
		}
		out[n++] = c;
		sum += (u8)c;
	}
	out[n++] = '#';
	out[n++] = hex[sum >> 4];
	out[n++] = hex[sum & 15];
	return n;
}
