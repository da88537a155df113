/* SPDX-License-Identifier: GPL-2.0-only */
/* Freestanding printf engine: streams to a callback; snprintf is one such callback. */
#include "lib/printf.h"

struct fmt_out {
	void (*out)(char c, void *arg);
	void *arg;
	int n;
};

static void put(struct fmt_out *o, char c)
{
	o->out(c, o->arg);
	o->n++;
}

static void pad(struct fmt_out *o, char c, int count)
{
	while (count-- > 0)
		put(o, c);
}

/* Emits prefix then body right- or left-justified in width; zero padding goes between them. */
static void emit(struct fmt_out *o, const char *prefix, const char *body, int len, int width,
		 bool left, bool zero)
{
	int plen = 0;
	while (prefix[plen])
		plen++;
	int fill = width - plen - len;
	if (!left && !zero)
		pad(o, ' ', fill);
	for (int i = 0; i < plen; i++)
		put(o, prefix[i]);
	if (!left && zero)
		pad(o, '0', fill);
	for (int i = 0; i < len; i++)
		put(o, body[i]);
	if (left)
		pad(o, ' ', fill);
}

/* Width and precision saturate instead of overflowing int on a silly format. */
static int digit_into(int v, char c)
{
	return v >= 100000 ? v : v * 10 + (c - '0');
}

enum len_mod { LEN_HH, LEN_H, LEN_INT, LEN_L, LEN_LL, LEN_Z };

static u64 arg_unsigned(va_list *ap, enum len_mod m)
{
	switch (m) {
	case LEN_HH:
		return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_H:
		return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_L:
		return va_arg(*ap, unsigned long);
	case LEN_LL:
		return va_arg(*ap, unsigned long long);
	case LEN_Z:
		return va_arg(*ap, size_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

static s64 arg_signed(va_list *ap, enum len_mod m)
{
	switch (m) {
	case LEN_HH:
		return (signed char)va_arg(*ap, int);
	case LEN_H:
		return (short)va_arg(*ap, int);
	case LEN_L:
		return va_arg(*ap, long);
	case LEN_LL:
		return va_arg(*ap, long long);
	case LEN_Z:
		return (s64)va_arg(*ap, size_t);
	default:
		return va_arg(*ap, int);
	}
}

int fmt_vcbprintf(void (*out)(char c, void *arg), void *arg, const char *fmt, va_list ap)
{
	struct fmt_out o = { out, arg, 0 };
	va_list args;
	/* va_copy lets the helpers take a va_list pointer portably. */
	va_copy(args, ap);

	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		bool left = false, zero = false, alt = false;
		for (;; fmt++) {
			if (*fmt == '-')
				left = true;
			else if (*fmt == '0')
				zero = true;
			else if (*fmt == '#')
				alt = true;
			else
				break;
		}
		int width = 0, prec = -1;
		if (*fmt == '*') {
			width = va_arg(args, int);
			if (width < 0) {
				left = true;
				width = -width;
			}
			fmt++;
		}
		for (; *fmt >= '0' && *fmt <= '9'; fmt++)
			width = digit_into(width, *fmt);
		if (*fmt == '.') {
			prec = 0;
			fmt++;
			if (*fmt == '*') {
				prec = va_arg(args, int);
				fmt++;
			}
			for (; *fmt >= '0' && *fmt <= '9'; fmt++)
				prec = digit_into(prec, *fmt);
		}
		enum len_mod m = LEN_INT;
		if (*fmt == 'h') {
			m = fmt[1] == 'h' ? LEN_HH : LEN_H;
			fmt += m == LEN_HH ? 2 : 1;
		} else if (*fmt == 'l') {
			m = fmt[1] == 'l' ? LEN_LL : LEN_L;
			fmt += m == LEN_LL ? 2 : 1;
		} else if (*fmt == 'z') {
			m = LEN_Z;
			fmt++;
		}

		char digits[24];
		const char *prefix = "";
		u64 v;
		unsigned base = 10;
		bool upper = false;
		switch (*fmt) {
		case 'd':
		case 'i': {
			s64 sv = arg_signed(&args, m);
			v = sv < 0 ? -(u64)sv : (u64)sv;
			if (sv < 0)
				prefix = "-";
			goto number;
		}
		case 'u':
			v = arg_unsigned(&args, m);
			goto number;
		case 'X':
			upper = true;
			/* fallthrough */
		case 'x':
			base = 16;
			v = arg_unsigned(&args, m);
			if (alt && v)
				prefix = upper ? "0X" : "0x";
			goto number;
		case 'p':
			base = 16;
			prefix = "0x";
			v = (uintptr_t)va_arg(args, void *);
			goto number;
		number : {
			int len = 0;
			char *end = digits + sizeof(digits);
			do {
				unsigned d = v % base;
				*--end = (char)(d < 10 ? '0' + d : (upper ? 'A' : 'a') + d - 10);
				v /= base;
				len++;
			} while (v);
			emit(&o, prefix, end, len, width, left, zero);
			break;
		}
		case 's': {
			const char *s = va_arg(args, const char *);
			if (!s)
				s = "(null)";
			int len = 0;
			while (s[len] && (prec < 0 || len < prec))
				len++;
			emit(&o, "", s, len, width, left, false);
			break;
		}
		case 'c':
			digits[0] = (char)va_arg(args, int);
			emit(&o, "", digits, 1, width, left, false);
			break;
		case '%':
			put(&o, '%');
			break;
		case '\0':
			/* A lone '%' at the end: show it, and stop before the terminator. */
			put(&o, '%');
			fmt--;
			break;
		default:
			/* Unknown conversion: show it verbatim so the mistake is visible in the log. */
			put(&o, '%');
			put(&o, *fmt);
			break;
		}
	}
	va_end(args);
	return o.n;
}

struct buf_sink {
	char *buf;
	size_t size;
	size_t pos;
};

static void buf_put(char c, void *arg)
{
	struct buf_sink *b = arg;
	if (b->pos + 1 < b->size)
		b->buf[b->pos++] = c;
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct buf_sink b = { buf, size, 0 };
	int n = fmt_vcbprintf(buf_put, &b, fmt, ap);
	if (size)
		buf[b.pos] = '\0';
	return n;
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
