/* SPDX-License-Identifier: GPL-2.0-only */
/* The gdb remote serial protocol's framing ($data#cs, acks, Ctrl-C) and hex codecs; host-testable. */
#ifndef VMM_DEBUG_GDB_PACKET_H
#define VMM_DEBUG_GDB_PACKET_H

#include "lib/types.h"

/* The largest packet taken (announced as PacketSize): longer ones are refused with a '-'. */
#define GDB_PACKET_MAX 4096

enum gdb_rx_state { GDB_RX_IDLE, GDB_RX_DATA, GDB_RX_ESC, GDB_RX_SUM1, GDB_RX_SUM2 };

struct gdb_rx {
	enum gdb_rx_state state;
	char buf[GDB_PACKET_MAX + 1]; /* the packet's data, NUL-terminated once complete */
	u32 len;
	u8 sum;	   /* running checksum of the data as sent */
	u8 sum_hi; /* the first checksum digit */
	bool overflow;
};

/* What one received byte completed. */
enum gdb_rx_event {
	GDB_RX_NONE,	  /* nothing yet (or an ack) */
	GDB_RX_PACKET,	  /* a packet with a good checksum is in buf/len: ack it with '+' */
	GDB_RX_BAD,	  /* a packet with a bad checksum or too long: answer '-' */
	GDB_RX_INTERRUPT, /* Ctrl-C outside a packet */
	GDB_RX_NACK,	  /* '-': gdb wants the last reply again */
};

void gdb_rx_reset(struct gdb_rx *rx);
enum gdb_rx_event gdb_rx_byte(struct gdb_rx *rx, u8 c);

/* Parses hex digits at *p (at most 16, so the value cannot overflow) and moves *p past them.
 * Returns how many were read: 0 means none (and *val is 0), and more than 16 digits fail. */
int gdb_parse_hex(const char **p, u64 *val);
/* Writes len bytes as 2*len hex digits (no NUL). */
void gdb_to_hex(char *out, const void *bytes, u32 len);
/* Reads 2*len hex digits into len bytes; false on a bad digit. */
bool gdb_from_hex(void *bytes, const char *hex, u32 len);
/* Frames data as "$data#cs" into out (room for len + 4); returns the framed length. Bytes gdb
 * treats specially ($ # } *) are escaped, so room for 2 * len + 4 is needed in general. */
u32 gdb_frame(char *out, u32 room, const char *data, u32 len);

#endif
