/* SPDX-License-Identifier: GPL-2.0-only */
/* An MSI-X table and its pending bits as a function presents them to its guest. */
#include "vmm/dev/msix.h"

void msix_reset(struct msix *x, struct msix_entry *table, unsigned n)
{
	*x = (struct msix){ .table = table, .n = (u16)(n < MSIX_MAX ? n : MSIX_MAX) };
	for (unsigned v = 0; v < x->n; v++)
		table[v] = (struct msix_entry){ .ctrl = MSIX_ENTRY_MASKED };
}

bool msix_masked(const struct msix *x, unsigned v)
{
	return (x->ctrl & MSIX_MASKALL) || (x->table[v].ctrl & MSIX_ENTRY_MASKED);
}

u64 msix_addr(const struct msix *x, unsigned v)
{
	return (u64)x->table[v].addr_hi << 32 | x->table[v].addr_lo;
}

/* A dword or a qword at its own alignment: what the spec lets software use. */
static bool whole(u64 off, unsigned len)
{
	return (len == 4 || len == 8) && !(off & (len - 1));
}

static u64 slice(u64 val, u64 off, unsigned len)
{
	val >>= 8 * (off & 3);
	return len >= 8 ? val : val & ((1ull << (8 * len)) - 1);
}

u64 msix_table_read(struct msix *x, u64 off, unsigned len)
{
	bool past = off >= (u64)x->n * MSIX_ENTRY_SIZE;
	if (!whole(off, len) || past)
		x->bad++;
	if (past || (len > 4 && !whole(off, len)) || (len <= 4 && (off & 3) + len > 4))
		return 0;
	const u32 *f = &((const u32 *)x->table)[off / 4];
	if (len == 8)
		return (u64)f[1] << 32 | f[0];
	return slice(*f, off, len);
}

static void field_write(struct msix_entry *e, unsigned field, u32 val)
{
	switch (field) {
	case 0:
		e->addr_lo = val & ~3u;
		break;
	case 1:
		e->addr_hi = val;
		break;
	case 2:
		e->data = val;
		break;
	default:
		e->ctrl = val & MSIX_ENTRY_MASKED;
		break;
	}
}

int msix_table_write(struct msix *x, u64 off, unsigned len, u64 val)
{
	if (!whole(off, len) || off >= (u64)x->n * MSIX_ENTRY_SIZE) {
		x->bad++;
		return -1;
	}
	struct msix_entry *e = &x->table[off / MSIX_ENTRY_SIZE];
	unsigned field = (unsigned)(off % MSIX_ENTRY_SIZE) / 4;
	field_write(e, field, (u32)val);
	if (len == 8)
		field_write(e, field + 1, (u32)(val >> 32));
	return (int)(off / MSIX_ENTRY_SIZE);
}

u64 msix_pba_read(struct msix *x, u64 off, unsigned len, u64 host)
{
	if (!whole(off, len))
		x->bad++;
	if (off >= 8 || (len > 4 && !whole(off, len)) || (len <= 4 && (off & 3) + len > 4))
		return 0;
	u64 bits = x->pba | host;
	if (x->n < 64)
		bits &= (1ull << x->n) - 1;
	return len == 8 ? bits : slice(bits >> (off & 4) * 8, off, len);
}

void msix_set_ctrl(struct msix *x, u16 ctrl)
{
	x->ctrl = ctrl & (MSIX_ENABLE | MSIX_MASKALL);
}

bool msix_fire(struct msix *x, unsigned v)
{
	if (!(x->ctrl & MSIX_ENABLE) || v >= x->n)
		return false;
	if (!msix_masked(x, v))
		return true;
	x->pba |= 1ull << v;
	return false;
}

int msix_take_pending(struct msix *x)
{
	if (!(x->ctrl & MSIX_ENABLE))
		return -1;
	for (u64 bits = x->pba; bits; bits &= bits - 1) {
		unsigned v = (unsigned)__builtin_ctzll(bits);
		if (!msix_masked(x, v)) {
			x->pba &= ~(1ull << v);
			return (int)v;
		}
	}
	return -1;
}
