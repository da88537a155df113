/* SPDX-License-Identifier: GPL-2.0-only */
/* Command-line words (key=value or key) and the number parsers their values need. */
#ifndef LIB_CMDLINE_H
#define LIB_CMDLINE_H

#include "lib/types.h"

/*
 * Reads the next word at *cursor into key and val (val is "" for a bare key)
 * and advances *cursor past it. Returns false at the end of the line, and also
 * when the key or value does not fit: then *cursor is left on that word, so
 * **cursor != '\0' after the loop means "word too long" and *cursor shows it.
 */
bool cmdline_next(const char **cursor, char *key, size_t ksz, char *val, size_t vsz);

/*
 * Value of the last occurrence of key (later words override earlier ones).
 * False when key is absent or its value does not fit in vsz (val is then "").
 */
bool cmdline_get(const char *cmdline, const char *key, char *val, size_t vsz);

/* The value of one hex digit (either case), or -1. */
int hex_digit(char c);
/* Decimal or 0x-prefixed hex, the whole string, no sign, no overflow. */
bool parse_u64(const char *s, u64 *out);
/* parse_u64 with an optional K, M or G suffix (binary multiples, either case). */
bool parse_size(const char *s, u64 *out);
/* A memory size in MiB: a plain number is MiB (512), a K, M or G suffix a binary unit (6G,
 * 512M, 1048576K); refused unless a whole number of MiB whose bytes fit in 64 bits. */
bool parse_mib(const char *s, u64 *mib);

#endif
