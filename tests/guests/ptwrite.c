/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest test: page-table entries rewritten by every instruction form the emulator handles. */
/* MOV, XCHG, CMPXCHG/8B/16B, LOCK ALU, BTS/BTR/BTC, REP STOS/MOVS both ways, halves; each
 * followed by an access that must reach the new frame. */
#include "tests/guests/lib/guest.h"

const char guest_name[] = GUEST_NAME;

/* Fixed frames, so MOV-immediate forms can carry whole entries as constants. F1 = F0 | bit 12,
 * so single-bit and arithmetic forms move an entry between them. */
#define F0 0xc00000u
#define F1 0xc01000u
#define NENT 4	/* entries a multi-entry form writes */
#define FIRST 8 /* first test entry: leaves room below for the bit-string form */

/* Entry transitions: present -> present (bit 12 set, then clear), not present -> present (no
 * INVLPG needed), present -> not present. A is preset so the accesses leave entries alone. */
#define PW (PTE_A | PTE_W | PTE_P)
#define NP (PTE_A | PTE_W)
static const uint32_t pair_old[4] = { F0 | PW, F1 | PW, F0 | NP, F0 | PW };
static const uint32_t pair_new[4] = { F1 | PW, F0 | PW, F0 | PW, F0 | NP };
#define SETS ((1u << 0) | (1u << 2)) /* new has old's bits and one more */
#define CLEARS ((1u << 1) | (1u << 3))
#define ALL 0xfu

enum kind {
	MOV,
	MOVI,
	XCHG,
	CMPXCHG,
	OR,
	AND,
	XOR,
	ADD,
	SUB,
	BTS,
	BTR,
	BTC,
	BTS_STR,
	BTR_STR,
	STOS,
	STOS_ZERO,
	MOVS,
	MOVS_DOWN,
	CX8,
	CX16,
	HALVES_LH,
	HALVES_HL
};
struct op {
	const char *name;
	enum kind k;
	int width; /* bytes per store (4 on an 8-byte entry: its low half) */
	int n;	   /* entries written */
	unsigned pairs;
	int same; /* every entry gets the same new value */
};

static struct aspace as;
static unsigned long cases;

static uint64_t alt(uint64_t v, int i)
{
	return v ^ (i & 1 ? 0x1000u : 0);
}
static unsigned bit_of(uint64_t x)
{
	return (unsigned)__builtin_ctzll(x);
}

#define MOVI_CASES(insn, cons) \
	switch (pair) { \
	case 0: \
		asm volatile(insn " %1, (%0)" : : "r"(e), cons(F1 | PW) : "memory"); \
		break; \
	case 1: \
	case 2: \
		asm volatile(insn " %1, (%0)" : : "r"(e), cons(F0 | PW) : "memory"); \
		break; \
	default: \
		asm volatile(insn " %1, (%0)" : : "r"(e), cons(F0 | NP) : "memory"); \
		break; \
	}
#define CONS_I(v) "i"(v)
#define CONS_E(v) "e"(v)

/* One store of width W (type T, suffix S) by the read-modify-write and exchange forms. */
/* clang-format off */
#define RMW_FORMS(T, S)                                                                       \
	do {                                                                                  \
		T o = (T)old[0], nv = (T)new[0], r = nv;                                      \
		volatile T *p = e;                                                            \
		unsigned char ok;                                                             \
		switch (op->k) {                                                              \
		case MOV: asm volatile("mov" S " %1, (%0)" : : "r"(p), "r"(nv) : "memory"); break; \
		case XCHG:                                                                    \
			asm volatile("xchg" S " %0, (%1)" : "+r"(r) : "r"(p) : "memory");      \
			CHECK(r == o, "%s returned %llx, entry held %llx", op->name,          \
			      (unsigned long long)r, (unsigned long long)o);                 \
			break;                                                                \
		case CMPXCHG:                                                                 \
			r = o;                                                                \
			asm volatile("lock cmpxchg" S " %3, (%2); setz %1"                     \
				     : "+a"(r), "=q"(ok) : "r"(p), "r"(nv) : "memory", "cc");  \
			CHECK(ok, "%s did not match", op->name);                              \
			break;                                                                \
		case OR: asm volatile("lock or" S " %1, (%0)" : : "r"(p), "r"((T)(nv & ~o)) : "memory", "cc"); break; \
		case AND: asm volatile("lock and" S " %1, (%0)" : : "r"(p), "r"((T)(nv | ~o)) : "memory", "cc"); break; \
		case XOR: asm volatile("lock xor" S " %1, (%0)" : : "r"(p), "r"((T)(nv ^ o)) : "memory", "cc"); break; \
		case ADD: asm volatile("lock add" S " %1, (%0)" : : "r"(p), "r"((T)(nv - o)) : "memory", "cc"); break; \
		case SUB: asm volatile("lock sub" S " %1, (%0)" : : "r"(p), "r"((T)(o - nv)) : "memory", "cc"); break; \
		case BTS: asm volatile("bts" S " %1, (%0)" : : "r"(p), "r"((T)bit_of(o ^ nv)) : "memory", "cc"); break; \
		case BTR: asm volatile("lock btr" S " %1, (%0)" : : "r"(p), "r"((T)bit_of(o ^ nv)) : "memory", "cc"); break; \
		case BTC: asm volatile("btc" S " %1, (%0)" : : "r"(p), "r"((T)bit_of(o ^ nv)) : "memory", "cc"); break; \
		/* The register forms address a bit string: start one unit below the entry. */ \
		case BTS_STR: asm volatile("lock bts" S " %1, (%0)" : : "r"(p - 1), "r"((T)(bit_of(o ^ nv) + 8 * sizeof(T))) : "memory", "cc"); break; \
		case BTR_STR: asm volatile("btr" S " %1, (%0)" : : "r"(p - 1), "r"((T)(bit_of(o ^ nv) + 8 * sizeof(T))) : "memory", "cc"); break; \
		default: fail("%s: no " #T " form", op->name);                                \
		}                                                                             \
	} while (0)
/* clang-format on */

static void apply(const struct op *op, void *e, const uint64_t *old, const uint64_t *new, int pair)
{
	ulong cnt, si, di;
	static uint64_t src[2 * NENT];
	switch (op->k) {
	case MOVI:
		if (op->width == 4) {
			MOVI_CASES("movl", CONS_I)
		} else {
#ifdef __x86_64__
			MOVI_CASES("movq", CONS_E)
#endif
		}
		return;
	case STOS:
	case STOS_ZERO:
	case MOVS:
	case MOVS_DOWN: {
		/* Build the stored image in dwords or qwords, then one REP instruction writes it. */
		int units = op->n * as.bytes / op->width;
		for (int i = 0; i < op->n; i++) {
			if (as.bytes == 4)
				((uint32_t *)src)[i] = (uint32_t) new[i];
			else
				src[i] = new[i];
		}
		cnt = (ulong)units;
		di = (ulong)e;
		if (op->k == STOS || op->k == STOS_ZERO) {
			ulong v = op->k == STOS_ZERO ? 0 : (ulong) new[0];
			if (op->width == 4)
				asm volatile("rep stosl" : "+D"(di), "+c"(cnt) : "a"(v) : "memory");
#ifdef __x86_64__
			else
				asm volatile("rep stosq" : "+D"(di), "+c"(cnt) : "a"(v) : "memory");
#endif
			return;
		}
		si = (ulong)src;
		if (op->k == MOVS_DOWN) {
			si += (ulong)(units - 1) * op->width;
			di += (ulong)(units - 1) * op->width;
			asm volatile("std");
		}
		if (op->width == 4)
			asm volatile("rep movsl" : "+S"(si), "+D"(di), "+c"(cnt) : : "memory");
#ifdef __x86_64__
		else
			asm volatile("rep movsq" : "+S"(si), "+D"(di), "+c"(cnt) : : "memory");
#endif
		asm volatile("cld");
		return;
	}
	case CX8: {
		/* Two 4-byte entries or one 8-byte entry. */
		uint64_t o = as.bytes == 4 ? (old[0] | old[1] << 32) : old[0];
		uint64_t nv = as.bytes == 4 ? (new[0] | new[1] << 32) : new[0];
		uint32_t lo = (uint32_t)o, hi = (uint32_t)(o >> 32);
		unsigned char ok;
		asm volatile("lock cmpxchg8b (%4); setz %2"
			     : "+a"(lo), "+d"(hi), "=q"(ok)
			     : "b"((uint32_t)nv), "r"(e), "c"((uint32_t)(nv >> 32))
			     : "memory", "cc");
		CHECK(ok, "cmpxchg8b did not match");
		return;
	}
#ifdef __x86_64__
	case CX16: {
		uint64_t lo = old[0], hi = old[1];
		unsigned char ok;
		asm volatile("lock cmpxchg16b (%4); setz %2"
			     : "+a"(lo), "+d"(hi), "=q"(ok)
			     : "b"(new[0]), "r"(e), "c"(new[1])
			     : "memory", "cc");
		CHECK(ok, "cmpxchg16b did not match");
		return;
	}
#endif
	case HALVES_LH:
	case HALVES_HL: {
		volatile uint32_t *h = e;
		if (op->k == HALVES_LH) {
			h[0] = (uint32_t) new[0];
			h[1] = (uint32_t)(new[0] >> 32);
		} else {
			h[1] = (uint32_t)(new[0] >> 32);
			h[0] = (uint32_t) new[0];
		}
		return;
	}
	default:
		break;
	}
	if (op->width == 4)
		RMW_FORMS(uint32_t, "l");
#ifdef __x86_64__
	else
		RMW_FORMS(uint64_t, "q");
#endif
}

/* The read-modify-write and exchange forms, for one store width. */
/* clang-format off */
#define RMW_OPS(W, B)                                                                         \
	{ "mov r" B, MOV, W, 1, ALL, 0 },          { "mov imm32 to m" B, MOVI, W, 1, ALL, 0 }, \
	{ "xchg r" B, XCHG, W, 1, ALL, 0 },        { "lock cmpxchg r" B, CMPXCHG, W, 1, ALL, 0 }, \
	{ "lock or m" B, OR, W, 1, SETS, 0 },      { "lock and m" B, AND, W, 1, CLEARS, 0 },  \
	{ "lock xor m" B, XOR, W, 1, ALL, 0 },     { "lock add m" B, ADD, W, 1, ALL, 0 },     \
	{ "lock sub m" B, SUB, W, 1, ALL, 0 },     { "bts m" B, BTS, W, 1, SETS, 0 },         \
	{ "lock btr m" B, BTR, W, 1, CLEARS, 0 },  { "btc m" B, BTC, W, 1, ALL, 0 },          \
	{ "lock bts m" B " bit-string", BTS_STR, W, 1, SETS, 0 },                             \
	{ "btr m" B " bit-string", BTR_STR, W, 1, CLEARS, 0 }
/* clang-format on */

static const struct op ops4[] = {
	RMW_OPS(4, "32"),
	{ "cmpxchg8b", CX8, 8, 0, ALL, 0 },
	{ "rep movsd", MOVS, 4, NENT, ALL, 0 },
	{ "rep movsd DF=1", MOVS_DOWN, 4, NENT, ALL, 0 },
};
/* Only with 4-byte entries: a dword is a whole entry. */
static const struct op ops_32[] = { { "rep stosd", STOS, 4, NENT, ALL, 1 } };
/* Only with 8-byte entries. */
static const struct op ops_8[] = {
	{ "two halves low first", HALVES_LH, 4, 1, ALL, 0 },
	{ "two halves high first", HALVES_HL, 4, 1, ALL, 0 },
	{ "rep stosd zero", STOS_ZERO, 4, NENT, 1u << 3, 1 },
};
#ifdef __x86_64__
static const struct op ops_64[] = {
	RMW_OPS(8, "64"),
	{ "rep stosq", STOS, 8, NENT, ALL, 1 },
	{ "rep movsq", MOVS, 8, NENT, ALL, 0 },
	{ "rep movsq DF=1", MOVS_DOWN, 8, NENT, ALL, 0 },
};
#endif

static ulong va_of(int i)
{
	return TEST_VA + (ulong)(FIRST + i) * PAGE_SIZE;
}

static void run_op(const struct op *op)
{
	int n = op->n ? op->n : (op->k == CX8 && as.bytes == 4 ? 2 : 1);
	void *e0 = pt_entry(&as, va_of(0), 1, 0);
	for (int pair = 0; pair < 4; pair++) {
		if (!(op->pairs & (1u << pair)))
			continue;
		uint64_t old[NENT], new[NENT];
		for (int i = 0; i < n; i++) {
			old[i] = alt(pair_old[pair], i);
			new[i] = op->k == STOS_ZERO ? 0 : alt(pair_new[pair], op->same ? 0 : i);
			pte_set(&as, pt_entry(&as, va_of(i), 1, 0), old[i]);
			invlpg(va_of(i));
			/* Loads the old translation into the TLB where there is one. */
			expect_maps(va_of(i), old[i] & PTE_P ? (ulong)(old[i] & PTE_ADDR) : 0,
				    op->name);
		}
		apply(op, e0, old, new, pair);
		for (int i = 0; i < n; i++) {
			void *e = pt_entry(&as, va_of(i), 1, 0);
			CHECK(pte_get(&as, e) == new[i],
			      "%s pair %d: entry %d holds %llx, expected %llx", op->name, pair, i,
			      (unsigned long long)pte_get(&as, e), (unsigned long long)new[i]);
			/* A not-present entry cannot be cached: then no INVLPG is needed. */
			if (old[i] & PTE_P)
				invlpg(va_of(i));
			expect_maps(va_of(i), new[i] & PTE_P ? (ulong)(new[i] & PTE_ADDR) : 0,
				    op->name);
			cases++;
		}
	}
}

#define RUN_ALL(tbl) \
	for (size_t i = 0; i < sizeof(tbl) / sizeof(tbl[0]); i++) \
	run_op(&tbl[i])

void test_main(void)
{
	if (ram_bytes < F1 + PAGE_SIZE)
		fail("needs %u MiB of RAM", (F1 >> 20) + 1);
	as_init(&as, GUEST_MODE);
	map_page(&as, va_of(0), F0, 1, PTE_P | PTE_W); /* builds the test page table */
	if (page_alloc_top() > F0)
		fail("allocator reached the fixed frames");
	frame_mark(F0);
	frame_mark(F1);
	as_activate(&as);
	RUN_ALL(ops4);
	if (as.bytes == 4) {
		RUN_ALL(ops_32);
	} else {
		RUN_ALL(ops_8);
	}
#ifdef __x86_64__
	RUN_ALL(ops_64);
	if (cpu.cx16)
		run_op(&(struct op){ "cmpxchg16b", CX16, 16, 2, ALL, 0 });
	else
		kprintf("skipped: cmpxchg16b not offered\n");
#endif
	kprintf("cases: %s %lu entry rewrites checked\n", pmode_name[as.mode], cases);
}
