/* SPDX-License-Identifier: GPL-2.0-only */
/* Command-line words and number parsers: bounded copies, errors returned, never overflow. */
#include "lib/cmdline.h"
#include "lib/string.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

struct word {
	const char *key, *eq, *end; /* eq == end when the word has no '=' */
};

static const char *skip_space(const char *p)
{
	while (is_space(*p))
		p++;
	return p;
}

/* Splits the word at p (not at a space or NUL) without copying. */
static struct word split(const char *p)
{
	struct word w = { p, NULL, p };
	while (*w.end && !is_space(*w.end)) {
		if (*w.end == '=' && !w.eq)
			w.eq = w.end;
		w.end++;
	}
	if (!w.eq)
		w.eq = w.end;
	return w;
}

static bool copy_out(char *dst, size_t sz, const char *from, const char *to)
{
	size_t n = (size_t)(to - from);
	if (!sz || n >= sz)
		return false;
	memcpy(dst, from, n);
	dst[n] = '\0';
	return true;
}

static const char *value_of(struct word w)
{
	return w.eq < w.end ? w.eq + 1 : w.end;
}

bool cmdline_next(const char **cursor, char *key, size_t ksz, char *val, size_t vsz)
{
	const char *p = skip_space(*cursor);
	*cursor = p;
	if (!*p)
		return false;
	struct word w = split(p);
	if (!copy_out(key, ksz, w.key, w.eq) || !copy_out(val, vsz, value_of(w), w.end))
		return false;
	*cursor = w.end;
	return true;
}

bool cmdline_get(const char *cmdline, const char *key, char *val, size_t vsz)
{
	size_t klen = strlen(key);
	const char *found = NULL, *found_end = NULL;
	for (const char *p = skip_space(cmdline); *p; p = skip_space(p)) {
		struct word w = split(p);
		if ((size_t)(w.eq - w.key) == klen && !memcmp(w.key, key, klen)) {
			found = value_of(w);
			found_end = w.end;
		}
		p = w.end;
	}
	if (found && copy_out(val, vsz, found, found_end))
		return true;
	if (vsz)
		val[0] = '\0';
	return false;
}

int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool parse_u64(const char *s, u64 *out)
{
	unsigned base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	u64 v = 0;
	for (; *s; s++) {
		int h = hex_digit(*s);
		if (h < 0 || (unsigned)h >= base)
			return false;
		unsigned d = (unsigned)h;
		if (v > (~0ull - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

bool parse_size(const char *s, u64 *out)
{
	char num[24];
	size_t len = strlen(s);
	unsigned shift = 0;
	if (len) {
		switch (s[len - 1]) {
		case 'K':
		case 'k':
			shift = 10;
			break;
		case 'M':
		case 'm':
			shift = 20;
			break;
		case 'G':
		case 'g':
			shift = 30;
			break;
		}
	}
	if (shift)
		len--;
	u64 v;
	if (!copy_out(num, sizeof(num), s, s + len) || !parse_u64(num, &v))
		return false;
	if (v > (~0ull >> shift))
		return false;
	*out = v << shift;
	return true;
}

bool parse_mib(const char *s, u64 *mib)
{
	size_t len = strlen(s);
	char unit = len ? (char)(s[len - 1] | 0x20) : 0;
	u64 v;
	if (unit == 'k' || unit == 'm' || unit == 'g') {
		if (!parse_size(s, &v) || (v & ((1ull << 20) - 1)))
			return false;
		*mib = v >> 20;
		return true;
	}
	if (!parse_u64(s, &v) || v > (~0ull >> 20))
		return false;
	*mib = v;
	return true;
}
