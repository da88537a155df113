/* SPDX-License-Identifier: GPL-2.0-only */
/* Emulator tests: a table of instructions run against the fake guest, checking registers, flags, memory and RIP. */
#include <string.h>

#include "tests/emul/fake.h"

struct rv {
	u8 r; /* register + 1; 0 ends the list */
	u64 v;
};

#define R(reg, val) \
	{ \
		X86_##reg + 1, (u64)(val) \
	}
#define CODE(s) .code = s, .n = sizeof(s) - 1
#define MEMIN(a, s) .mem_at = (a), .mem = s, .mem_n = sizeof(s) - 1
#define MEMOUT(a, s) .out_at = (a), .mout = s, .out_n = sizeof(s) - 1
#define FL(m, v) .fl_mask = (m), .fl_out = (v)
#define AR RFLAGS_ARITH
#define D 0x2000				/* data */
#define MO64 "\x00\x20\x00\x00\x00\x00\x00\x00" /* moffs64 = D */

struct ecase {
	const char *name;
	u8 mode; /* 0: 64-bit */
	const char *code;
	u8 n;
	struct rv in[6];
	u64 fl_in;
	u32 mem_at;
	const char *mem;
	u8 mem_n;
	int status;
	u8 len;		     /* 0: not checked */
	struct rv out[6];    /* registers that change; all others must not */
	u64 fl_mask, fl_out; /* (rflags & fl_mask) == fl_out; the rest unchanged */
	u32 out_at;
	const char *mout; /* memory that changes; all other memory must not */
	u8 out_n;
	u64 linear; /* first operand: checked when width is non-zero */
	u8 width;
	u64 reps;
	bool incomplete;
	u8 vector; /* X86_EMU_FAULT */
	u32 error;
	u64 fault_addr;
	int writes, cmpxchgs; /* callback counts, checked when non-zero (-1: zero) */
	u32 max_reps;
	int race;
	u8 cpl;
	u64 rip;      /* 0: FAKE_CODE */
	u32 ds_limit; /* 32-bit cases: overrides DS (and ES) limit when non-zero */
};

/* clang-format off */
static const struct ecase cases[] = {
	/* MOV stores */
	{ "mov al,(rdi)", CODE("\x88\x07"), { R(RAX, 0x11223344556677aa), R(RDI, D) }, 0, MEMIN(D, "\x00\x00"), 0, 2, {}, 0, 0, MEMOUT(D, "\xaa\x00"), .linear = D, .width = 1, .writes = 1 },
	{ "mov ah,(rdi)", CODE("\x88\x27"), { R(RAX, 0x77aa), R(RDI, D) }, 0, MEMIN(D, "\x00"), 0, 2, {}, 0, 0, MEMOUT(D, "\x77") },
	{ "mov dh,(rdi)", CODE("\x88\x37"), { R(RDX, 0x1234), R(RSI, 0x5a), R(RDI, D) }, 0, MEMIN(D, "\x00"), 0, 2, {}, 0, 0, MEMOUT(D, "\x12") },
	{ "mov sil,(rdi) rex", CODE("\x40\x88\x37"), { R(RDX, 0x1234), R(RSI, 0x5a), R(RDI, D) }, 0, MEMIN(D, "\x00"), 0, 3, {}, 0, 0, MEMOUT(D, "\x5a") },
	{ "mov ax,(rdi)", CODE("\x66\x89\x07"), { R(RAX, 0x11223344556677aa), R(RDI, D) }, 0, MEMIN(D, "\0\0\0"), 0, 3, {}, 0, 0, MEMOUT(D, "\xaa\x77\0"), .width = 2 },
	{ "mov eax,(rdi)", CODE("\x89\x07"), { R(RAX, 0x11223344556677aa), R(RDI, D) }, 0, MEMIN(D, "\0\0\0\0\0"), 0, 2, {}, 0, 0, MEMOUT(D, "\xaa\x77\x66\x55\0"), .width = 4 },
	{ "mov rax,(rdi)", CODE("\x48\x89\x07"), { R(RAX, 0x11223344556677aa), R(RDI, D) }, 0, MEMIN(D, "\0\0\0\0\0\0\0\0\0"), 0, 3, {}, 0, 0, MEMOUT(D, "\xaa\x77\x66\x55\x44\x33\x22\x11\0"), .width = 8 },
	{ "mov r9,(r8+r10*8+8)", CODE("\x4f\x89\x4c\xd0\x08"), { R(R8, D), R(R9, 0xdeadbeefcafef00d), R(R10, 2) }, 0, MEMIN(D + 24, "\0\0\0\0\0\0\0\0"), 0, 5, {}, 0, 0, MEMOUT(D + 24, "\x0d\xf0\xfe\xca\xef\xbe\xad\xde"), .linear = D + 24, .width = 8 },
	{ "mov rip-relative", CODE("\x89\x05\xfa\x0f\x00\x00"), { R(RAX, 0x01020304) }, 0, MEMIN(D, "\0\0\0\0"), 0, 6, {}, 0, 0, MEMOUT(D, "\x04\x03\x02\x01"), .linear = D },
	{ "mov fs:(rdi)", CODE("\x64\x88\x07"), { R(RAX, 0x99), R(RDI, 0x100) }, 0, MEMIN(0x3100, "\0"), 0, 3, {}, 0, 0, MEMOUT(0x3100, "\x99"), .linear = 0x3100 },
	{ "rex before 66 is ignored", CODE("\x48\x66\x89\x07"), { R(RAX, 0x11223344556677aa), R(RDI, D) }, 0, MEMIN(D, "\0\0\0"), 0, 4, {}, 0, 0, MEMOUT(D, "\xaa\x77\0"), .width = 2 },
	{ "mov crossing a page: one write", CODE("\x48\x89\x07"), { R(RAX, 0x8877665544332211), R(RDI, 0x2ffc) }, 0, MEMIN(0x2ffc, "\0\0\0\0\0\0\0\0"), 0, 3, {}, 0, 0, MEMOUT(0x2ffc, "\x11\x22\x33\x44\x55\x66\x77\x88"), .linear = 0x2ffc, .width = 8, .writes = 1 },
	{ "movb imm", CODE("\xc6\x07\x5a"), { R(RDI, D) }, 0, MEMIN(D, "\0\0"), 0, 3, {}, 0, 0, MEMOUT(D, "\x5a\0") },
	{ "movw imm", CODE("\x66\xc7\x07\x34\x12"), { R(RDI, D) }, 0, MEMIN(D, "\0\0\0"), 0, 5, {}, 0, 0, MEMOUT(D, "\x34\x12\0") },
	{ "movl imm", CODE("\xc7\x07\x78\x56\x34\x12"), { R(RDI, D) }, 0, MEMIN(D, "\0\0\0\0\0"), 0, 6, {}, 0, 0, MEMOUT(D, "\x78\x56\x34\x12\0") },
	{ "movq imm sign-extended", CODE("\x48\xc7\x07\xf0\xff\xff\xff"), { R(RDI, D) }, 0, MEMIN(D, "\0\0\0\0\0\0\0\0"), 0, 7, {}, 0, 0, MEMOUT(D, "\xf0\xff\xff\xff\xff\xff\xff\xff") },
	{ "mov al,moffs", CODE("\xa2" MO64), { R(RAX, 0x42) }, 0, MEMIN(D, "\0"), 0, 9, {}, 0, 0, MEMOUT(D, "\x42"), .linear = D, .width = 1 },
	{ "mov eax,moffs", CODE("\xa3" MO64), { R(RAX, 0x44434241) }, 0, MEMIN(D, "\0\0\0\0"), 0, 9, {}, 0, 0, MEMOUT(D, "\x41\x42\x43\x44") },
	{ "mov rax,moffs", CODE("\x48\xa3" MO64), { R(RAX, 0x4847464544434241) }, 0, MEMIN(D, "\0\0\0\0\0\0\0\0"), 0, 10, {}, 0, 0, MEMOUT(D, "ABCDEFGH") },
	{ "mov ax,moffs", CODE("\x66\xa3" MO64), { R(RAX, 0x4241) }, 0, MEMIN(D, "\0\0\0"), 0, 10, {}, 0, 0, MEMOUT(D, "AB\0") },
	{ "movnti", CODE("\x48\x0f\xc3\x07"), { R(RAX, 0x4847464544434241), R(RDI, D) }, 0, MEMIN(D, "\0\0\0\0\0\0\0\0"), 0, 4, {}, 0, 0, MEMOUT(D, "ABCDEFGH") },
	{ "movnti register: #UD", CODE("\x0f\xc3\xc0"), {}, 0, .status = X86_EMU_UNHANDLED },
	{ "mov ecx,eax (registers)", CODE("\x89\xc8"), { R(RAX, 0xffffffffffffffff), R(RCX, 0x12345678) }, 0, .len = 2, .out = { R(RAX, 0x12345678) } },
	/* loads */
	{ "mov (rdi),al", CODE("\x8a\x07"), { R(RAX, ~0ull), R(RDI, D) }, 0, MEMIN(D, "\x5a"), 0, 2, { R(RAX, 0xffffffffffffff5a) }, .linear = D, .width = 1, .writes = -1 },
	{ "mov (rdi),ah", CODE("\x8a\x27"), { R(RAX, ~0ull), R(RDI, D) }, 0, MEMIN(D, "\x5a"), 0, 2, { R(RAX, 0xffffffffffff5aff) } },
	{ "mov (rdi),ax", CODE("\x66\x8b\x07"), { R(RAX, ~0ull), R(RDI, D) }, 0, MEMIN(D, "\x34\x12"), 0, 3, { R(RAX, 0xffffffffffff1234) } },
	{ "mov (rdi),eax zero-extends", CODE("\x8b\x07"), { R(RAX, ~0ull), R(RDI, D) }, 0, MEMIN(D, "\x78\x56\x34\x12"), 0, 2, { R(RAX, 0x12345678) } },
	{ "mov (rdi),rax", CODE("\x48\x8b\x07"), { R(RDI, D) }, 0, MEMIN(D, "ABCDEFGH"), 0, 3, { R(RAX, 0x4847464544434241) } },
	{ "mov (rdi),r12", CODE("\x4c\x8b\x27"), { R(RDI, D) }, 0, MEMIN(D, "ABCDEFGH"), 0, 3, { R(R12, 0x4847464544434241) } },
	{ "mov moffs,al", CODE("\xa0" MO64), { R(RAX, 0x1100) }, 0, MEMIN(D, "\x5a"), 0, 9, { R(RAX, 0x115a) } },
	{ "mov moffs,eax", CODE("\xa1" MO64), { R(RAX, ~0ull) }, 0, MEMIN(D, "ABCD"), 0, 9, { R(RAX, 0x44434241) } },
	{ "movzx byte", CODE("\x0f\xb6\x07"), { R(RAX, ~0ull), R(RDI, D) }, 0, MEMIN(D, "\x80"), 0, 3, { R(RAX, 0x80) } },
	{ "movzx word to rax", CODE("\x48\x0f\xb7\x07"), { R(RAX, ~0ull), R(RDI, D) }, 0, MEMIN(D, "\x00\x80"), 0, 4, { R(RAX, 0x8000) } },
	{ "movsx byte", CODE("\x0f\xbe\x07"), { R(RAX, ~0ull), R(RDI, D) }, 0, MEMIN(D, "\x80"), 0, 3, { R(RAX, 0xffffff80) } },
	{ "movsx byte to ax", CODE("\x66\x0f\xbe\x07"), { R(RAX, 0x1111111111111111), R(RDI, D) }, 0, MEMIN(D, "\x80"), 0, 4, { R(RAX, 0x111111111111ff80) } },
	{ "movsx word to rax", CODE("\x48\x0f\xbf\x07"), { R(RDI, D) }, 0, MEMIN(D, "\x00\x80"), 0, 4, { R(RAX, 0xffffffffffff8000) } },
	{ "movsxd", CODE("\x48\x63\x07"), { R(RDI, D) }, 0, MEMIN(D, "\x00\x00\x00\x80"), 0, 3, { R(RAX, 0xffffffff80000000) } },
	{ "movsxd without rex.w", CODE("\x63\x07"), { R(RAX, ~0ull), R(RDI, D) }, 0, MEMIN(D, "\x00\x00\x00\x80"), 0, 2, { R(RAX, 0x80000000) } },
	/* ALU on memory and registers */
	{ "add eax,(rdi)", CODE("\x01\x07"), { R(RAX, 1), R(RDI, D) }, 0, MEMIN(D, "\xff\xff\xff\xff"), 0, 2, {}, FL(AR, 0x55), MEMOUT(D, "\0\0\0\0"), .writes = 1 },
	{ "lock add eax,(rdi)", CODE("\xf0\x01\x07"), { R(RAX, 1), R(RDI, D) }, 0, MEMIN(D, "\xff\xff\xff\xff"), 0, 3, {}, FL(AR, 0x55), MEMOUT(D, "\0\0\0\0"), .writes = -1, .cmpxchgs = 1 },
	{ "or", CODE("\x09\x07"), { R(RAX, 0x80000000), R(RDI, D) }, 0, MEMIN(D, "\x01\0\0\0"), 0, 2, {}, FL(AR, RFLAGS_SF), MEMOUT(D, "\x01\0\0\x80") },
	{ "and", CODE("\x21\x07"), { R(RAX, 0x0f0f0f0f), R(RDI, D) }, AR, MEMIN(D, "\xf0\xf0\xf0\xf0"), 0, 2, {}, FL(AR, 0x44), MEMOUT(D, "\0\0\0\0") },
	{ "xor", CODE("\x31\x07"), { R(RAX, 0x12345678), R(RDI, D) }, 0, MEMIN(D, "\x78\x56\x34\x12"), 0, 2, {}, FL(AR, 0x44), MEMOUT(D, "\0\0\0\0") },
	{ "sub", CODE("\x29\x07"), { R(RAX, 1), R(RDI, D) }, 0, MEMIN(D, "\0\0\0\0"), 0, 2, {}, FL(AR, 0x95), MEMOUT(D, "\xff\xff\xff\xff") },
	{ "sbb with CF", CODE("\x19\x07"), { R(RAX, 3), R(RDI, D) }, RFLAGS_CF, MEMIN(D, "\x05\0\0\0"), 0, 2, {}, FL(AR, 0), MEMOUT(D, "\x01\0\0\0") },
	{ "adc with CF", CODE("\x11\x07"), { R(RAX, 0), R(RDI, D) }, RFLAGS_CF, MEMIN(D, "\xff\xff\xff\x7f"), 0, 2, {}, FL(AR, 0x894), MEMOUT(D, "\0\0\0\x80") },
	{ "cmp al,(rdi): no write", CODE("\x38\x07"), { R(RAX, 0x20), R(RDI, D) }, 0, MEMIN(D, "\x10"), 0, 2, {}, FL(AR, 0x85), .writes = -1 },
	{ "cmp (rdi),eax", CODE("\x3b\x07"), { R(RAX, 5), R(RDI, D) }, 0, MEMIN(D, "\x05\0\0\0"), 0, 2, {}, FL(AR, 0x44) },
	{ "add (rdi),eax", CODE("\x03\x07"), { R(RAX, 0xffffffff00000010), R(RDI, D) }, 0, MEMIN(D, "\x20\0\0\0"), 0, 2, { R(RAX, 0x30) }, FL(AR, 0x04) },
	{ "add eax,imm32", CODE("\x05\x01\x00\x00\x00"), { R(RAX, 0x7fffffff) }, 0, .len = 5, .out = { R(RAX, 0x80000000) }, FL(AR, 0x894) },
	{ "add al,imm8", CODE("\x04\xff"), { R(RAX, 0x12340001) }, 0, .len = 2, .out = { R(RAX, 0x12340000) }, FL(AR, 0x55) },
	{ "addb imm (80)", CODE("\x80\x07\xff"), { R(RDI, D) }, 0, MEMIN(D, "\x01"), 0, 3, {}, FL(AR, 0x55), MEMOUT(D, "\x00") },
	{ "subl imm32 (81)", CODE("\x81\x2f\x01\x00\x00\x00"), { R(RDI, D) }, 0, MEMIN(D, "\0\0\0\x80"), 0, 6, {}, FL(AR, 0x814), MEMOUT(D, "\xff\xff\xff\x7f") },
	{ "andl imm8 (83)", CODE("\x83\x27\xfe"), { R(RDI, D) }, AR, MEMIN(D, "\x03\0\0\0"), 0, 3, {}, FL(AR, 0), MEMOUT(D, "\x02\0\0\0") },
	{ "orq $1: pte present", CODE("\x48\x83\x0f\x01"), { R(RDI, D) }, 0, MEMIN(D, "\x00\x10\0\0\0\0\0\0"), 0, 4, {}, FL(AR, 0), MEMOUT(D, "\x01\x10\0\0\0\0\0\0"), .width = 8 },
	{ "lock orq $1", CODE("\xf0\x48\x83\x0f\x01"), { R(RDI, D) }, 0, MEMIN(D, "\x00\x10\0\0\0\0\0\0"), 0, 5, {}, FL(AR, 0), MEMOUT(D, "\x01\x10\0\0\0\0\0\0"), .cmpxchgs = 1, .writes = -1 },
	{ "lock andq $~2", CODE("\xf0\x48\x81\x27\xfd\xff\xff\xff"), { R(RDI, D) }, 0, MEMIN(D, "\x03\x10\0\0\0\0\0\x80"), 0, 8, {}, FL(AR, RFLAGS_SF), MEMOUT(D, "\x01\x10\0\0\0\0\0\x80") },
	{ "lock add lost race: retry", CODE("\xf0\x01\x07"), { R(RAX, 1), R(RDI, D) }, 0, MEMIN(D, "\x10\0\0\0"), X86_EMU_RETRY, 0, {}, 0, 0, MEMOUT(D, "\x50\0\0\0"), .race = 1 },
	{ "addw (66)", CODE("\x66\x01\x07"), { R(RAX, 1), R(RDI, D) }, 0, MEMIN(D, "\xff\x7f\x33"), 0, 3, {}, FL(AR, 0x894), MEMOUT(D, "\x00\x80\x33") },
	{ "test (84): no write", CODE("\x84\x07"), { R(RAX, 0x80), R(RDI, D) }, AR, MEMIN(D, "\x80"), 0, 2, {}, FL(AR, RFLAGS_SF), .writes = -1 },
	{ "test al,imm (a8)", CODE("\xa8\x01"), { R(RAX, 2) }, 0, .len = 2, .fl_mask = AR, .fl_out = 0x44 },
	{ "testb imm (f6)", CODE("\xf6\x07\x80"), { R(RDI, D) }, 0, MEMIN(D, "\x7f"), 0, 3, {}, FL(AR, 0x44) },
	{ "notl: flags kept", CODE("\xf7\x17"), { R(RDI, D) }, 0x41, MEMIN(D, "\x0f\x0f\x0f\x0f"), 0, 2, {}, FL(AR, 0x41), MEMOUT(D, "\xf0\xf0\xf0\xf0") },
	{ "negl 1", CODE("\xf7\x1f"), { R(RDI, D) }, 0, MEMIN(D, "\x01\0\0\0"), 0, 2, {}, FL(AR, 0x95), MEMOUT(D, "\xff\xff\xff\xff") },
	{ "negl 0", CODE("\xf7\x1f"), { R(RDI, D) }, RFLAGS_CF, MEMIN(D, "\0\0\0\0"), 0, 2, {}, FL(AR, 0x44) },
	{ "incb keeps CF", CODE("\xfe\x07"), { R(RDI, D) }, RFLAGS_CF, MEMIN(D, "\x7f"), 0, 2, {}, FL(AR, 0x891), MEMOUT(D, "\x80") },
	{ "decl keeps CF", CODE("\xff\x0f"), { R(RDI, D) }, 0, MEMIN(D, "\0\0\0\0"), 0, 2, {}, FL(AR, 0x94), MEMOUT(D, "\xff\xff\xff\xff") },
	{ "incq", CODE("\x48\xff\x07"), { R(RDI, D) }, 0, MEMIN(D, "\xff\xff\xff\xff\xff\xff\xff\xff"), 0, 3, {}, FL(AR, 0x54), MEMOUT(D, "\0\0\0\0\0\0\0\0") },
	{ "lock decw", CODE("\xf0\x66\xff\x0f"), { R(RDI, D) }, 0, MEMIN(D, "\x01\x00"), 0, 4, {}, FL(AR, 0x44), MEMOUT(D, "\0\0"), .cmpxchgs = 1 },
	{ "32: inc eax (40)", X86_MODE_32, CODE("\x40"), { R(RAX, 0xffffffff) }, 0, .len = 1, .out = { R(RAX, 0) }, FL(AR, 0x54) },
	{ "32: dec ecx (49)", X86_MODE_32, CODE("\x49"), { R(RCX, 0) }, 0, .len = 1, .out = { R(RCX, 0xffffffff) }, FL(AR, 0x94) },
	{ "xadd", CODE("\x0f\xc1\x07"), { R(RAX, 3), R(RDI, D) }, 0, MEMIN(D, "\x05\0\0\0"), 0, 3, { R(RAX, 5) }, FL(AR, 0), MEMOUT(D, "\x08\0\0\0") },
	/* XCHG */
	{ "xchg eax,(rdi)", CODE("\x87\x07"), { R(RAX, 0x11223344), R(RDI, D) }, 0, MEMIN(D, "ABCD"), 0, 2, { R(RAX, 0x44434241) }, 0, 0, MEMOUT(D, "\x44\x33\x22\x11"), .cmpxchgs = 1, .writes = -1 },
	{ "xchg rax,(rdi)", CODE("\x48\x87\x07"), { R(RAX, 0x1122334455667788), R(RDI, D) }, 0, MEMIN(D, "ABCDEFGH"), 0, 3, { R(RAX, 0x4847464544434241) }, 0, 0, MEMOUT(D, "\x88\x77\x66\x55\x44\x33\x22\x11") },
	{ "xchg bl,(rdi)", CODE("\x86\x1f"), { R(RBX, 0x1234), R(RDI, D) }, 0, MEMIN(D, "A"), 0, 2, { R(RBX, 0x1241) }, 0, 0, MEMOUT(D, "\x34") },
	{ "xchg lost race: retry", CODE("\x87\x07"), { R(RAX, 0x11223344), R(RDI, D) }, 0, MEMIN(D, "ABCD"), X86_EMU_RETRY, 0, {}, 0, 0, MEMOUT(D, "\x01" "BCD"), .race = 1 },
	{ "xchg ecx,eax (registers)", CODE("\x91"), {}, 0, .status = X86_EMU_UNHANDLED },
	/* CMPXCHG */
	{ "cmpxchg equal", CODE("\xf0\x0f\xb1\x17"), { R(RAX, 0x44434241), R(RDX, 0x11223344), R(RDI, D) }, RFLAGS_CF, MEMIN(D, "ABCD"), 0, 4, {}, FL(AR, 0x44), MEMOUT(D, "\x44\x33\x22\x11"), .cmpxchgs = 1 },
	{ "cmpxchg different", CODE("\xf0\x0f\xb1\x17"), { R(RAX, 0xffffffff00000001), R(RDX, 7), R(RDI, D) }, 0, MEMIN(D, "\x02\0\0\0"), 0, 4, { R(RAX, 2) }, FL(AR, 0x95) },
	{ "cmpxchg without lock", CODE("\x0f\xb1\x17"), { R(RAX, 2), R(RDX, 7), R(RDI, D) }, 0, MEMIN(D, "\x02\0\0\0"), 0, 3, {}, FL(AR, 0x44), MEMOUT(D, "\x07\0\0\0") },
	{ "cmpxchg rdx,(rdi)", CODE("\x48\x0f\xb1\x17"), { R(RAX, 0x4847464544434241), R(RDX, 0x0102030405060708), R(RDI, D) }, 0, MEMIN(D, "ABCDEFGH"), 0, 4, {}, FL(AR, 0x44), MEMOUT(D, "\x08\x07\x06\x05\x04\x03\x02\x01") },
	{ "cmpxchg byte", CODE("\x0f\xb0\x0f"), { R(RAX, 0x41), R(RCX, 0x5a), R(RDI, D) }, 0, MEMIN(D, "A"), 0, 3, {}, FL(AR, 0x44), MEMOUT(D, "Z") },
	{ "cmpxchg ecx,edx (registers)", CODE("\x0f\xb1\xca"), { R(RAX, 5), R(RCX, 9), R(RDX, 5) }, 0, .len = 3, .out = { R(RDX, 9) }, FL(AR, 0x44) },
	{ "cmpxchg8b equal", CODE("\xf0\x0f\xc7\x0f"), { R(RAX, 0x44434241), R(RDX, 0x48474645), R(RBX, 0x11111111), R(RCX, 0x22222222), R(RDI, D) }, 0, MEMIN(D, "ABCDEFGH"), 0, 4, {}, FL(RFLAGS_ZF, RFLAGS_ZF), MEMOUT(D, "\x11\x11\x11\x11\x22\x22\x22\x22"), .width = 8, .cmpxchgs = 1 },
	{ "cmpxchg8b different", CODE("\xf0\x0f\xc7\x0f"), { R(RAX, ~0ull), R(RDX, ~0ull), R(RBX, 1), R(RCX, 2), R(RDI, D) }, RFLAGS_ZF, MEMIN(D, "ABCDEFGH"), 0, 4, { R(RAX, 0x44434241), R(RDX, 0x48474645) }, FL(RFLAGS_ZF, 0) },
	{ "32: cmpxchg8b", X86_MODE_32, CODE("\x0f\xc7\x0f"), { R(RAX, 0x44434241), R(RDX, 0x48474645), R(RBX, 0x33333333), R(RCX, 0x44444444), R(RDI, D) }, 0, MEMIN(D, "ABCDEFGH"), 0, 3, {}, FL(RFLAGS_ZF, RFLAGS_ZF), MEMOUT(D, "\x33\x33\x33\x33\x44\x44\x44\x44") },
	{ "cmpxchg16b equal", CODE("\xf0\x48\x0f\xc7\x0f"), { R(RAX, 0x4847464544434241), R(RDX, 0x504f4e4d4c4b4a49), R(RBX, 0x1111111111111111), R(RCX, 0x2222222222222222), R(RDI, D) }, 0, MEMIN(D, "ABCDEFGHIJKLMNOP"), 0, 5, {}, FL(RFLAGS_ZF, RFLAGS_ZF), MEMOUT(D, "\x11\x11\x11\x11\x11\x11\x11\x11\x22\x22\x22\x22\x22\x22\x22\x22"), .width = 16 },
	{ "cmpxchg16b different", CODE("\xf0\x48\x0f\xc7\x0f"), { R(RBX, 1), R(RCX, 2), R(RDI, D) }, RFLAGS_ZF, MEMIN(D, "ABCDEFGHIJKLMNOP"), 0, 5, { R(RAX, 0x4847464544434241), R(RDX, 0x504f4e4d4c4b4a49) }, FL(RFLAGS_ZF, 0) },
	{ "cmpxchg16b misaligned: #GP", CODE("\xf0\x48\x0f\xc7\x0f"), { R(RDI, D + 8) }, 0, .status = X86_EMU_FAULT, .vector = VEC_GP },
	{ "cmpxchg8b register: #UD", CODE("\x0f\xc7\xc8"), {}, 0, .status = X86_EMU_FAULT, .vector = VEC_UD },
	/* BT family */
	{ "bts reg small", CODE("\x0f\xab\x07"), { R(RAX, 3), R(RDI, D) }, RFLAGS_CF, MEMIN(D, "\x00"), 0, 3, {}, FL(RFLAGS_CF, 0), MEMOUT(D, "\x08"), .linear = D, .width = 4 },
	{ "bts reg beyond operand", CODE("\x0f\xab\x07"), { R(RAX, 35), R(RDI, D) }, 0, MEMIN(D + 4, "\x08"), 0, 3, {}, FL(RFLAGS_CF, RFLAGS_CF), .linear = D + 4 },
	{ "btr reg negative", CODE("\x0f\xb3\x07"), { R(RAX, ~0ull), R(RDI, D) }, 0, MEMIN(D - 4, "\xff\xff\xff\xff"), 0, 3, {}, FL(RFLAGS_CF, RFLAGS_CF), MEMOUT(D - 4, "\xff\xff\xff\x7f"), .linear = D - 4 },
	{ "btc reg 16-bit", CODE("\x66\x0f\xbb\x07"), { R(RAX, 17), R(RDI, D) }, 0, MEMIN(D + 2, "\x00\x00"), 0, 4, {}, FL(RFLAGS_CF, 0), MEMOUT(D + 2, "\x02\x00"), .linear = D + 2, .width = 2 },
	{ "bts rax=64 64-bit", CODE("\x48\x0f\xab\x07"), { R(RAX, 64), R(RDI, D) }, 0, MEMIN(D + 8, "\x00"), 0, 4, {}, FL(RFLAGS_CF, 0), MEMOUT(D + 8, "\x01"), .linear = D + 8 },
	{ "bt reg: no write", CODE("\x0f\xa3\x07"), { R(RAX, 7), R(RDI, D) }, 0, MEMIN(D, "\x80"), 0, 3, {}, FL(RFLAGS_CF, RFLAGS_CF), .writes = -1 },
	{ "bts imm", CODE("\x0f\xba\x2f\x03"), { R(RDI, D) }, 0, MEMIN(D, "\x00"), 0, 4, {}, FL(RFLAGS_CF, 0), MEMOUT(D, "\x08") },
	{ "bts imm masked", CODE("\x0f\xba\x2f\x23"), { R(RDI, D) }, 0, MEMIN(D, "\x00"), 0, 4, {}, FL(RFLAGS_CF, 0), MEMOUT(D, "\x08"), .linear = D },
	{ "btr imm", CODE("\x0f\xba\x37\x01"), { R(RDI, D) }, 0, MEMIN(D, "\x03"), 0, 4, {}, FL(RFLAGS_CF, RFLAGS_CF), MEMOUT(D, "\x01") },
	{ "btc imm", CODE("\x0f\xba\x3f\x00"), { R(RDI, D) }, 0, MEMIN(D, "\x03"), 0, 4, {}, FL(RFLAGS_CF, RFLAGS_CF), MEMOUT(D, "\x02") },
	{ "bt imm", CODE("\x0f\xba\x27\x01"), { R(RDI, D) }, 0, MEMIN(D, "\x01"), 0, 4, {}, FL(RFLAGS_CF, 0) },
	{ "lock bts imm", CODE("\xf0\x48\x0f\xba\x2f\x3f"), { R(RDI, D) }, 0, MEMIN(D, "\0\0\0\0\0\0\0\0"), 0, 6, {}, FL(RFLAGS_CF, 0), MEMOUT(D, "\0\0\0\0\0\0\0\x80"), .cmpxchgs = 1 },
	{ "bts reg,reg", CODE("\x0f\xab\xc1"), { R(RAX, 35), R(RCX, 0) }, 0, .len = 3, .out = { R(RCX, 8) }, FL(RFLAGS_CF, 0) },
	/* string instructions */
	/* PUSH/POP with a memory operand (a device register on MMIO, say) */
	{ "push (rdi)", CODE("\xff\x37"), { R(RDI, D), R(RSP, D + 24) }, 0, MEMIN(D, "ABCDEFGH\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"), 0, 2, { R(RSP, D + 16) }, 0, 0, MEMOUT(D, "ABCDEFGH\0\0\0\0\0\0\0\0ABCDEFGH") },
	{ "pop (rdi)", CODE("\x8f\x07"), { R(RDI, D), R(RSP, D + 16) }, 0, MEMIN(D, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0ABCDEFGH"), 0, 2, { R(RSP, D + 24) }, 0, 0, MEMOUT(D, "ABCDEFGH\0\0\0\0\0\0\0\0ABCDEFGH") },
	{ "pop 8(rsp) uses rsp after the pop", CODE("\x8f\x44\x24\x08"), { R(RSP, D) }, 0, MEMIN(D, "ABCDEFGH\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"), 0, 4, { R(RSP, D + 8) }, 0, 0, MEMOUT(D, "ABCDEFGH\0\0\0\0\0\0\0\0ABCDEFGH") },
	{ "pushw (rdi)", CODE("\x66\xff\x37"), { R(RDI, D), R(RSP, D + 8) }, 0, MEMIN(D, "AB\0\0\0\0\0\0"), 0, 3, { R(RSP, D + 6) }, 0, 0, MEMOUT(D, "AB\0\0\0\0AB") },
	{ "pop /1 is not pop", CODE("\x8f\x0f"), { R(RDI, D), R(RSP, D + 16) }, 0, .status = X86_EMU_UNHANDLED },
	{ "stosb", CODE("\xaa"), { R(RAX, 0x5a), R(RDI, D) }, 0, MEMIN(D, "\0\0"), 0, 1, { R(RDI, D + 1) }, 0, 0, MEMOUT(D, "\x5a\0"), .reps = 1 },
	{ "rep stosl", CODE("\xf3\xab"), { R(RAX, 0x11223344), R(RCX, 4), R(RDI, D) }, 0, MEMIN(D, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"), 0, 2, { R(RDI, D + 16), R(RCX, 0) }, 0, 0, MEMOUT(D, "\x44\x33\x22\x11\x44\x33\x22\x11\x44\x33\x22\x11\x44\x33\x22\x11\0"), .reps = 4, .writes = 4 },
	{ "rep stosq backwards", CODE("\xf3\x48\xab"), { R(RAX, 0x0102030405060708), R(RCX, 2), R(RDI, D + 8) }, RFLAGS_DF, MEMIN(D, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"), 0, 3, { R(RDI, D - 8), R(RCX, 0) }, 0, 0, MEMOUT(D, "\x08\x07\x06\x05\x04\x03\x02\x01\x08\x07\x06\x05\x04\x03\x02\x01"), .reps = 2 },
	{ "repne stosw acts as rep", CODE("\xf2\x66\xab"), { R(RAX, 0xbbaa), R(RCX, 2), R(RDI, D) }, 0, MEMIN(D, "\0\0\0\0\0"), 0, 3, { R(RDI, D + 4), R(RCX, 0) }, 0, 0, MEMOUT(D, "\xaa\xbb\xaa\xbb\0"), .reps = 2 },
	{ "rep movsb", CODE("\xf3\xa4"), { R(RSI, 0x3000), R(RDI, D), R(RCX, 5) }, 0, MEMIN(0x3000, "HELLO"), 0, 2, { R(RSI, 0x3005), R(RDI, D + 5), R(RCX, 0) }, 0, 0, MEMOUT(D, "HELLO"), .reps = 5 },
	{ "rep movsl backwards", CODE("\xf3\xa5"), { R(RSI, 0x3004), R(RDI, D + 4), R(RCX, 2) }, RFLAGS_DF, MEMIN(0x3000, "ABCDEFGH"), 0, 2, { R(RSI, 0x2ffc), R(RDI, D - 4), R(RCX, 0) }, 0, 0, MEMOUT(D, "ABCDEFGH"), .reps = 2 },
	{ "movsq with fs source", CODE("\x64\x48\xa5"), { R(RSI, 0x100), R(RDI, D) }, 0, MEMIN(0x3100, "12345678"), 0, 3, { R(RSI, 0x108), R(RDI, D + 8) }, 0, 0, MEMOUT(D, "12345678"), .reps = 1 },
	{ "fs stosb still writes es:rdi", CODE("\x64\xaa"), { R(RAX, 0x5a), R(RDI, D) }, 0, MEMIN(D, "\0"), 0, 2, { R(RDI, D + 1) }, 0, 0, MEMOUT(D, "\x5a"), .linear = D, .reps = 1 },
	{ "lodsb", CODE("\xac"), { R(RAX, 0x1100), R(RSI, 0x3000) }, 0, MEMIN(0x3000, "Z"), 0, 1, { R(RAX, 0x115a), R(RSI, 0x3001) }, .reps = 1 },
	{ "rep stos with rcx=0", CODE("\xf3\xab"), { R(RDI, D) }, 0, .len = 2, .reps = 0, .writes = -1 },
	{ "rep stos budget", CODE("\xf3\xaa"), { R(RAX, 0x77), R(RCX, 5), R(RDI, D) }, 0, MEMIN(D, "\0\0\0"), 0, 0, { R(RCX, 3), R(RDI, D + 2) }, 0, 0, MEMOUT(D, "\x77\x77\0"), .reps = 2, .incomplete = true, .max_reps = 2 },
	{ "rep stos into a hole", CODE("\xf3\xab"), { R(RAX, ~0ull), R(RCX, 4), R(RDI, FAKE_HOLE - 8) }, 0, MEMIN(FAKE_HOLE - 8, "\0\0\0\0\0\0\0\0"), X86_EMU_FAULT, 0, { R(RCX, 2), R(RDI, FAKE_HOLE) }, 0, 0, MEMOUT(FAKE_HOLE - 8, "\xff\xff\xff\xff\xff\xff\xff\xff"), .reps = 2, .incomplete = true, .vector = VEC_PF, .error = X86_PF_W, .fault_addr = FAKE_HOLE },
	{ "67 rep stosb uses ecx/edi", CODE("\x67\xf3\xaa"), { R(RAX, 1), R(RCX, 0xffffffff00000002), R(RDI, 0xffffffff00002000) }, 0, MEMIN(D, "\0\0\0"), 0, 3, { R(RCX, 0), R(RDI, D + 2) }, 0, 0, MEMOUT(D, "\x01\x01\0"), .reps = 2 },
	{ "16: rep stosw", X86_MODE_16, CODE("\xf3\xab"), { R(RAX, 0xbbaa), R(RCX, 0x12340001), R(RDI, 0x5678fffe) }, 0, MEMIN(0xfffe, "\0\0"), 0, 2, { R(RCX, 0x12340000), R(RDI, 0x56780000) }, 0, 0, MEMOUT(0xfffe, "\xaa\xbb"), .reps = 1 },
	/* more MOVS/STOS/LODS sizes and directions (REP string copies to and from device memory) */
	{ "rep movsw 66", CODE("\xf3\x66\xa5"), { R(RSI, D), R(RDI, D + 8), R(RCX, 2) }, 0, MEMIN(D, "ABCD\0\0\0\0\0\0\0\0"), 0, 3, { R(RSI, D + 4), R(RDI, D + 12), R(RCX, 0) }, 0, 0, MEMOUT(D + 8, "ABCD"), .reps = 2, .writes = 2 },
	{ "rep movsq backwards", CODE("\xf3\x48\xa5"), { R(RSI, D + 8), R(RDI, D + 24), R(RCX, 2) }, RFLAGS_DF, MEMIN(D, "ABCDEFGHIJKLMNOP"), 0, 3, { R(RSI, D - 8), R(RDI, D + 8), R(RCX, 0) }, 0, 0, MEMOUT(D + 16, "ABCDEFGHIJKLMNOP"), .reps = 2 },
	{ "stosb backwards", CODE("\xaa"), { R(RAX, 0x5a), R(RDI, D + 1) }, RFLAGS_DF, MEMIN(D, "\0\0"), 0, 1, { R(RDI, D) }, 0, 0, MEMOUT(D, "\0\x5a"), .reps = 1 },
	{ "lodsw", CODE("\x66\xad"), { R(RAX, ~0ull), R(RSI, D) }, 0, MEMIN(D, "AB"), 0, 2, { R(RAX, 0xffffffffffff4241), R(RSI, D + 2) }, .reps = 1, .writes = -1 },
	{ "lodsl zero-extends", CODE("\xad"), { R(RAX, ~0ull), R(RSI, D) }, 0, MEMIN(D, "ABCD"), 0, 1, { R(RAX, 0x44434241), R(RSI, D + 4) }, .reps = 1 },
	{ "rep lodsq backwards: last one stays", CODE("\xf3\x48\xad"), { R(RSI, D + 8), R(RCX, 2) }, RFLAGS_DF, MEMIN(D, "ABCDEFGHIJKLMNOP"), 0, 3, { R(RAX, 0x4847464544434241), R(RSI, D - 8), R(RCX, 0) }, .reps = 2 },
	/* CMPS and SCAS: CMP flags, REPE/REPNE end on ZF */
	{ "cmpsb", CODE("\xa6"), { R(RSI, D), R(RDI, D + 8) }, 0, MEMIN(D, "A\0\0\0\0\0\0\0B"), 0, 1, { R(RSI, D + 1), R(RDI, D + 9) }, FL(AR, 0x95), .linear = D, .width = 1, .reps = 1, .writes = -1 },
	{ "cmpsb backwards", CODE("\xa6"), { R(RSI, D), R(RDI, D + 8) }, RFLAGS_DF, MEMIN(D, "B\0\0\0\0\0\0\0A"), 0, 1, { R(RSI, D - 1), R(RDI, D + 7) }, FL(AR, 0), .reps = 1 },
	{ "repe cmpsb stops at a difference", CODE("\xf3\xa6"), { R(RSI, D), R(RDI, D + 8), R(RCX, 8) }, 0, MEMIN(D, "ABCDEFGHABCxEFGH"), 0, 2, { R(RCX, 4), R(RSI, D + 4), R(RDI, D + 12) }, FL(AR, 0x95), .reps = 4, .writes = -1 },
	{ "repe cmpsl all equal", CODE("\xf3\xa7"), { R(RSI, D), R(RDI, D + 8), R(RCX, 2) }, 0, MEMIN(D, "ABCDEFGHABCDEFGH"), 0, 2, { R(RCX, 0), R(RSI, D + 8), R(RDI, D + 16) }, FL(AR, 0x44), .reps = 2 },
	{ "repne cmpsq stops at equality", CODE("\xf2\x48\xa7"), { R(RSI, D), R(RDI, D + 16), R(RCX, 5) }, 0, MEMIN(D, "ABCDEFGHIJKLMNOPxBCDEFGHIJKLMNOP"), 0, 3, { R(RCX, 3), R(RSI, D + 16), R(RDI, D + 32) }, FL(AR, 0x44), .reps = 2 },
	{ "repe cmpsb with rcx=0 keeps flags", CODE("\xf3\xa6"), { R(RSI, D), R(RDI, D + 8) }, RFLAGS_CF | RFLAGS_SF, .len = 2, .reps = 0 },
	{ "repe cmpsb budget: resumes", CODE("\xf3\xa6"), { R(RSI, D), R(RDI, D + 5), R(RCX, 5) }, 0, MEMIN(D, "AAAAAAAAAA"), 0, 0, { R(RCX, 3), R(RSI, D + 2), R(RDI, D + 7) }, FL(AR, 0x44), .reps = 2, .incomplete = true, .max_reps = 2 },
	{ "repe cmpsb difference at the budget: done", CODE("\xf3\xa6"), { R(RSI, D), R(RDI, D + 5), R(RCX, 5) }, 0, MEMIN(D, "ABAAAACAAA"), 0, 2, { R(RCX, 3), R(RSI, D + 2), R(RDI, D + 7) }, FL(AR, 0x95), .reps = 2, .max_reps = 2 },
	{ "cmpsb fs source, es destination", CODE("\x64\xa6"), { R(RSI, 0x100), R(RDI, 0x3108) }, 0, MEMIN(0x3100, "Q\0\0\0\0\0\0\0Q"), 0, 2, { R(RSI, 0x101), R(RDI, 0x3109) }, FL(AR, 0x44), .linear = 0x3100, .width = 1, .reps = 1 },
	{ "rep cmpsb faults after one", CODE("\xf3\xa6"), { R(RSI, FAKE_HOLE - 1), R(RDI, FAKE_HOLE - 2), R(RCX, 4) }, RFLAGS_CF, MEMIN(FAKE_HOLE - 2, "AA"), X86_EMU_FAULT, 0, { R(RCX, 3), R(RSI, FAKE_HOLE), R(RDI, FAKE_HOLE - 1) }, FL(AR, 0x44), .reps = 1, .incomplete = true, .vector = VEC_PF, .error = 0, .fault_addr = FAKE_HOLE },
	{ "scasb", CODE("\xae"), { R(RAX, 0x41), R(RDI, D) }, 0, MEMIN(D, "A"), 0, 1, { R(RDI, D + 1) }, FL(AR, 0x44), .linear = D, .width = 1, .reps = 1, .writes = -1 },
	{ "scasq", CODE("\x48\xaf"), { R(RAX, 0x4847464544434241), R(RDI, D) }, 0, MEMIN(D, "ABCDEFGI"), 0, 2, { R(RDI, D + 8) }, FL(AR, 0x85), .reps = 1 },
	{ "repne scasb finds", CODE("\xf2\xae"), { R(RAX, 0x43), R(RDI, D), R(RCX, 10) }, 0, MEMIN(D, "ABCDEF"), 0, 2, { R(RCX, 7), R(RDI, D + 3) }, FL(AR, 0x44), .reps = 3 },
	{ "repne scasb not found", CODE("\xf2\xae"), { R(RAX, 0x5a), R(RDI, D), R(RCX, 3) }, AR, MEMIN(D, "ABD"), 0, 2, { R(RCX, 0), R(RDI, D + 3) }, FL(AR, 0), .reps = 3 },
	{ "repe scasw backwards", CODE("\xf3\x66\xaf"), { R(RAX, 0x4241), R(RDI, D + 4), R(RCX, 3) }, RFLAGS_DF, MEMIN(D, "xyABAB"), 0, 3, { R(RCX, 0), R(RDI, D - 2) }, FL(AR, 0x95), .reps = 3 },
	{ "repe scasl ignores the segment override", CODE("\x64\xf3\xaf"), { R(RAX, 0x44434241), R(RDI, D), R(RCX, 1) }, 0, MEMIN(D, "ABCD"), 0, 3, { R(RCX, 0), R(RDI, D + 4) }, FL(AR, 0x44), .linear = D, .width = 4, .reps = 1 },
	{ "67 repne scasb uses ecx/edi", CODE("\x67\xf2\xae"), { R(RAX, 0x43), R(RCX, 0xffffffff00000005), R(RDI, 0xffffffff00002000) }, 0, MEMIN(D, "ABC"), 0, 3, { R(RCX, 2), R(RDI, D + 3) }, FL(AR, 0x44), .reps = 3 },
	{ "16: repe cmpsw", X86_MODE_16, CODE("\xf3\xa7"), { R(RSI, 0x56782000), R(RDI, D + 4), R(RCX, 0x12340002) }, 0, MEMIN(D, "ABCDABCE"), 0, 2, { R(RCX, 0x12340000), R(RSI, 0x56782004), R(RDI, D + 8) }, FL(AR, 0x85), .reps = 2 },
	{ "32: repne scasl", X86_MODE_32, CODE("\xf2\xaf"), { R(RAX, 0x12345678), R(RDI, D), R(RCX, 4) }, 0, MEMIN(D, "\0\0\0\0\x78\x56\x34\x12"), 0, 2, { R(RCX, 2), R(RDI, D + 8) }, FL(AR, 0x44), .reps = 2 },
	/* 32-bit and 16-bit forms */
	{ "32: mov eax,(ebx+esi*2+4)", X86_MODE_32, CODE("\x89\x44\x73\x04"), { R(RAX, 0xcafebabe), R(RBX, 0x1ff0), R(RSI, 6) }, 0, MEMIN(D, "\0\0\0\0"), 0, 4, {}, 0, 0, MEMOUT(D, "\xbe\xba\xfe\xca"), .linear = D },
	{ "32: mov moffs32,eax", X86_MODE_32, CODE("\xa3\x00\x20\x00\x00"), { R(RAX, 0x44434241) }, 0, MEMIN(D, "\0\0\0\0"), 0, 5, {}, 0, 0, MEMOUT(D, "ABCD") },
	{ "32: lock or 16-bit addr", X86_MODE_32, CODE("\xf0\x67\x83\x0f\x01"), { R(RBX, D) }, 0, MEMIN(D, "\x00\x10\0\0"), 0, 5, {}, FL(AR, 0), MEMOUT(D, "\x01\x10\0\0") },
	{ "32: past DS limit: #GP", X86_MODE_32, CODE("\x89\x07"), { R(RDI, D) }, 0, .status = X86_EMU_FAULT, .vector = VEC_GP, .ds_limit = D + 2 },
	{ "32: ss past limit: #SS", X86_MODE_32, CODE("\x89\x04\x24"), { R(RSP, D) }, 0, .status = X86_EMU_FAULT, .vector = VEC_SS, .ds_limit = D + 2 },
	{ "32: movsxd is arpl", X86_MODE_32, CODE("\x63\x07"), {}, 0, .status = X86_EMU_UNHANDLED },
	{ "16: mov ax,(bx+si)", X86_MODE_16, CODE("\x89\x00"), { R(RAX, 0x4241), R(RBX, 0x1000), R(RSI, 0x1000) }, 0, MEMIN(D, "\0\0\0"), 0, 2, {}, 0, 0, MEMOUT(D, "AB\0"), .linear = D, .width = 2 },
	{ "16: 66 mov eax,(bp+di)", X86_MODE_16, CODE("\x66\x89\x03"), { R(RAX, 0x44434241), R(RBP, 0x1000), R(RDI, 0x1000) }, 0, MEMIN(D, "\0\0\0\0"), 0, 3, {}, 0, 0, MEMOUT(D, "ABCD") },
	{ "16: movw imm disp16", X86_MODE_16, CODE("\xc7\x06\x00\x20\x34\x12"), {}, 0, MEMIN(D, "\0\0"), 0, 6, {}, 0, 0, MEMOUT(D, "\x34\x12") },
	{ "16: word at 0xffff: #GP", X86_MODE_16, CODE("\x89\x07"), { R(RBX, 0xffff) }, 0, .status = X86_EMU_FAULT, .vector = VEC_GP },
	{ "16: add (bx) flags", X86_MODE_16, CODE("\x01\x07"), { R(RAX, 1), R(RBX, D) }, 0, MEMIN(D, "\xff\xff"), 0, 2, {}, FL(AR, 0x55), MEMOUT(D, "\0\0") },
	/* faults and unhandled */
	{ "write to read-only page: #PF", CODE("\x89\x07"), { R(RDI, FAKE_RO) }, 0, .status = X86_EMU_FAULT, .vector = VEC_PF, .error = X86_PF_W | X86_PF_P, .fault_addr = FAKE_RO },
	{ "user write to hole: #PF", CODE("\x89\x07"), { R(RDI, FAKE_HOLE + 4) }, 0, .status = X86_EMU_FAULT, .vector = VEC_PF, .error = X86_PF_W | X86_PF_U, .fault_addr = FAKE_HOLE + 4, .cpl = 3 },
	{ "read from hole: #PF", CODE("\x8b\x07"), { R(RDI, FAKE_HOLE) }, 0, .status = X86_EMU_FAULT, .vector = VEC_PF, .error = 0, .fault_addr = FAKE_HOLE },
	{ "page-crossing write into hole", CODE("\x48\x89\x07"), { R(RDI, FAKE_HOLE - 4) }, 0, .status = X86_EMU_FAULT, .vector = VEC_PF, .error = X86_PF_W, .fault_addr = FAKE_HOLE, .writes = 1 },
	{ "non-canonical: #GP", CODE("\x48\x89\x07"), { R(RDI, 0x0000800000000000) }, 0, .status = X86_EMU_FAULT, .vector = VEC_GP, .writes = -1 },
	{ "non-canonical stack: #SS", CODE("\x89\x04\x24"), { R(RSP, 0x0000800000000000) }, 0, .status = X86_EMU_FAULT, .vector = VEC_SS },
	{ "ud2", CODE("\x0f\x0b"), {}, 0, .status = X86_EMU_UNHANDLED },
	{ "lock mov: #UD from decode", CODE("\xf0\x89\x07"), { R(RDI, D) }, 0, .status = X86_EMU_FAULT, .vector = VEC_UD },
	{ "16 bytes: #GP from decode", CODE("\x26\x26\x26\x26\x26\x26\x26\x26\x26\x26\x26\x26\x26\x26\x89\x07"), { R(RDI, D) }, 0, .status = X86_EMU_FAULT, .vector = VEC_GP },
	{ "fetch from a hole: #PF", CODE("\x90"), { R(RDI, D) }, 0, .status = X86_EMU_FAULT, .vector = VEC_PF, .error = X86_PF_I, .fault_addr = FAKE_HOLE, .rip = FAKE_HOLE },
	{ "call *(rdi)", CODE("\xff\x17"), { R(RDI, D) }, 0, .status = X86_EMU_UNHANDLED },
	{ "xbegin", CODE("\xc7\xf8\x00\x00\x00\x00"), {}, 0, .status = X86_EMU_UNHANDLED },
	/* Shifts and rotates: OF is checked for a count of 1 only (undefined beyond), AF never. */
	{ "shl dword (rdi),4", CODE("\xc1\x27\x04"), { R(RDI, D) }, 0, MEMIN(D, "\x01\x00\x00\x18"), 0, 3, {}, FL(RFLAGS_CF | RFLAGS_SF | RFLAGS_ZF | RFLAGS_PF, RFLAGS_CF | RFLAGS_SF), MEMOUT(D, "\x10\x00\x00\x80"), .width = 4, .writes = 1 },
	{ "shr byte (rdi),1", CODE("\xd0\x2f"), { R(RDI, D) }, 0, MEMIN(D, "\x81"), 0, 2, {}, FL(RFLAGS_CF | RFLAGS_OF | RFLAGS_SF | RFLAGS_ZF | RFLAGS_PF, RFLAGS_CF | RFLAGS_OF), MEMOUT(D, "\x40") },
	{ "sar word (rdi),cl", CODE("\x66\xd3\x3f"), { R(RDI, D), R(RCX, 3) }, 0, MEMIN(D, "\x04\x80"), 0, 3, {}, FL(RFLAGS_CF | RFLAGS_SF | RFLAGS_ZF | RFLAGS_PF, RFLAGS_CF | RFLAGS_SF | RFLAGS_PF), MEMOUT(D, "\x00\xf0") },
	{ "rol qword (rdi),cl (65: 1)", CODE("\x48\xd3\x07"), { R(RDI, D), R(RCX, 0x41) }, 0, MEMIN(D, "\x01\0\0\0\0\0\0\x80"), 0, 3, {}, FL(RFLAGS_CF | RFLAGS_OF, RFLAGS_CF | RFLAGS_OF), MEMOUT(D, "\x03\0\0\0\0\0\0\0") },
	{ "rcr byte (rdi),1", CODE("\xd0\x1f"), { R(RDI, D) }, RFLAGS_CF, MEMIN(D, "\x02"), 0, 2, {}, FL(RFLAGS_CF | RFLAGS_OF, RFLAGS_OF), MEMOUT(D, "\x81") },
	{ "rcl word (rdi),17: unchanged", CODE("\x66\xc1\x17\x11"), { R(RDI, D) }, RFLAGS_CF, MEMIN(D, "\x34\x12"), 0, 4, {}, FL(RFLAGS_CF | RFLAGS_OF, RFLAGS_CF | RFLAGS_OF), MEMOUT(D, "\x34\x12") },
	{ "shl byte (rdi),32: no flags, no write", CODE("\xc0\x27\x20"), { R(RDI, D) }, AR, MEMIN(D, "\x81"), 0, 3, {}, FL(AR, AR), .writes = -1 },
	{ "shl from a hole: #PF", CODE("\xd1\x27"), { R(RDI, FAKE_HOLE) }, 0, .status = X86_EMU_FAULT, .vector = VEC_PF, .error = 0, .fault_addr = FAKE_HOLE },
	{ "32: shl dword [edi],1", X86_MODE_32, CODE("\xd1\x27"), { R(RDI, D) }, 0, MEMIN(D, "\x00\x00\x00\xc0"), 0, 2, {}, FL(RFLAGS_CF | RFLAGS_OF | RFLAGS_ZF | RFLAGS_SF | RFLAGS_PF, RFLAGS_CF | RFLAGS_SF | RFLAGS_PF), MEMOUT(D, "\x00\x00\x00\x80") },
	{ "16: shr word [bx],cl", X86_MODE_16, CODE("\xd3\x2f"), { R(RBX, D), R(RCX, 4) }, 0, MEMIN(D, "\x18\x00"), 0, 2, {}, FL(RFLAGS_CF | RFLAGS_ZF, RFLAGS_CF), MEMOUT(D, "\x01\x00") },
	/* Group 3 multiplication and division, and IMUL's two- and three-operand forms. */
	{ "mul dword (rdi)", CODE("\xf7\x27"), { R(RAX, 0xffffffff80000000), R(RDX, ~0ull), R(RDI, D) }, 0, MEMIN(D, "\x04\0\0\0"), 0, 2, { R(RAX, 0), R(RDX, 2) }, FL(RFLAGS_CF | RFLAGS_OF, RFLAGS_CF | RFLAGS_OF), .width = 4 },
	{ "imul byte (rdi)", CODE("\xf6\x2f"), { R(RAX, 0x12345678000000ff), R(RDI, D) }, 0, MEMIN(D, "\x80"), 0, 2, { R(RAX, 0x1234567800000080) }, FL(RFLAGS_CF | RFLAGS_OF, RFLAGS_CF | RFLAGS_OF) },
	{ "imul qword (rdi): fits", CODE("\x48\xf7\x2f"), { R(RAX, -3), R(RDI, D) }, RFLAGS_CF | RFLAGS_OF, MEMIN(D, "\x05\0\0\0\0\0\0\0"), 0, 3, { R(RAX, -15), R(RDX, ~0ull) }, FL(RFLAGS_CF | RFLAGS_OF, 0) },
	{ "mul qword (rdi)", CODE("\x48\xf7\x27"), { R(RAX, ~0ull), R(RDI, D) }, 0, MEMIN(D, "\xff\xff\xff\xff\xff\xff\xff\xff"), 0, 3, { R(RAX, 1), R(RDX, ~0ull - 1) }, FL(RFLAGS_CF | RFLAGS_OF, RFLAGS_CF | RFLAGS_OF) },
	{ "div qword (rdi)", CODE("\x48\xf7\x37"), { R(RAX, 0), R(RDX, 1), R(RDI, D) }, 0, MEMIN(D, "\x02\0\0\0\0\0\0\0"), 0, 3, { R(RAX, 0x8000000000000000), R(RDX, 0) } },
	{ "div dword (rdi) by 0: #DE", CODE("\xf7\x37"), { R(RAX, 5), R(RDI, D) }, 0, MEMIN(D, "\0\0\0\0"), .status = X86_EMU_FAULT, .vector = VEC_DE },
	{ "div dword (rdi) overflow: #DE", CODE("\xf7\x37"), { R(RAX, 0), R(RDX, 5), R(RDI, D) }, 0, MEMIN(D, "\x05\0\0\0"), .status = X86_EMU_FAULT, .vector = VEC_DE },
	{ "idiv byte (rdi) -128/-1: #DE", CODE("\xf6\x3f"), { R(RAX, 0xff80), R(RDI, D) }, 0, MEMIN(D, "\xff"), .status = X86_EMU_FAULT, .vector = VEC_DE },
	{ "idiv word (rdi) -7/2", CODE("\x66\xf7\x3f"), { R(RAX, 0xfff9), R(RDX, 0xffff), R(RDI, D) }, 0, MEMIN(D, "\x02\x00"), 0, 3, { R(RAX, 0xfffd), R(RDX, 0xffff) } },
	{ "idiv qword (rdi) min/-1: #DE", CODE("\x48\xf7\x3f"), { R(RAX, 0), R(RDX, 0x8000000000000000), R(RDI, D) }, 0, MEMIN(D, "\xff\xff\xff\xff\xff\xff\xff\xff"), .status = X86_EMU_FAULT, .vector = VEC_DE },
	{ "imul eax,(rdi)", CODE("\x0f\xaf\x07"), { R(RAX, 0xaa00000003), R(RDI, D) }, 0, MEMIN(D, "\xfe\xff\xff\xff"), 0, 3, { R(RAX, 0xfffffffa) }, FL(RFLAGS_CF | RFLAGS_OF, 0) },
	{ "imul rax,(rdi),16", CODE("\x48\x6b\x07\x10"), { R(RAX, 7), R(RDI, D) }, 0, MEMIN(D, "\0\0\0\0\0\0\0\x10"), 0, 4, { R(RAX, 0) }, FL(RFLAGS_CF | RFLAGS_OF, RFLAGS_CF | RFLAGS_OF) },
	{ "imul cx,(rdi),0x1234", CODE("\x66\x69\x0f\x34\x12"), { R(RDI, D) }, 0, MEMIN(D, "\x02\x00"), 0, 5, { R(RCX, 0x2468) }, FL(RFLAGS_CF | RFLAGS_OF, 0) },
	{ "32: mul byte [edi]", X86_MODE_32, CODE("\xf6\x27"), { R(RAX, 0x10), R(RDI, D) }, 0, MEMIN(D, "\x10"), 0, 2, { R(RAX, 0x100) }, FL(RFLAGS_CF | RFLAGS_OF, RFLAGS_CF | RFLAGS_OF) },
	{ "32: idiv dword [edi]", X86_MODE_32, CODE("\xf7\x3f"), { R(RAX, 100), R(RDI, D) }, 0, MEMIN(D, "\xf9\xff\xff\xff"), 0, 2, { R(RAX, 0xfffffff2), R(RDX, 2) } },
	{ "16: div byte [bx]", X86_MODE_16, CODE("\xf6\x37"), { R(RAX, 0x0105), R(RBX, D) }, 0, MEMIN(D, "\x10"), 0, 2, { R(RAX, 0x0510) } },
	{ "16: imul ax,[bx],-1", X86_MODE_16, CODE("\x6b\x07\xff"), { R(RAX, 0x1234), R(RBX, D) }, 0, MEMIN(D, "\x00\x80"), 0, 3, { R(RAX, 0x8000) }, FL(RFLAGS_CF | RFLAGS_OF, RFLAGS_CF | RFLAGS_OF) },
	/* CMOVcc: the source is read whatever the condition; a 32-bit destination is zero-extended
	 * even when nothing moves. */
	{ "cmovz eax,(rdi) taken", CODE("\x0f\x44\x07"), { R(RAX, 0xffffffff11111111), R(RDI, D) }, RFLAGS_ZF, MEMIN(D, "ABCD"), 0, 3, { R(RAX, 0x44434241) }, .width = 4, .writes = -1 },
	{ "cmovz eax,(rdi) not taken", CODE("\x0f\x44\x07"), { R(RAX, 0xffffffff11111111), R(RDI, D) }, 0, MEMIN(D, "ABCD"), 0, 3, { R(RAX, 0x11111111) }, .width = 4 },
	{ "cmovl rax,(rdi)", CODE("\x48\x0f\x4c\x07"), { R(RDI, D) }, RFLAGS_SF, MEMIN(D, "ABCDEFGH"), 0, 4, { R(RAX, 0x4847464544434241) } },
	{ "cmovnz ax,(rdi) not taken", CODE("\x66\x0f\x45\x07"), { R(RAX, 0xffffffffffffffff), R(RDI, D) }, RFLAGS_ZF, MEMIN(D, "AB"), 0, 4, {} },
	{ "cmovz from a hole: #PF untaken", CODE("\x0f\x44\x07"), { R(RDI, FAKE_HOLE) }, 0, .status = X86_EMU_FAULT, .vector = VEC_PF, .fault_addr = FAKE_HOLE },
	{ "16: cmovb ax,[bx]", X86_MODE_16, CODE("\x0f\x42\x07"), { R(RBX, D) }, RFLAGS_CF, MEMIN(D, "AB"), 0, 3, { R(RAX, 0x4241) } },
	/* SETcc: one byte. */
	{ "setnz (rdi)", CODE("\x0f\x95\x07"), { R(RDI, D) }, 0, MEMIN(D, "\xaa\xaa"), 0, 3, {}, 0, 0, MEMOUT(D, "\x01\xaa"), .width = 1, .writes = 1 },
	{ "setbe (rdi)", CODE("\x0f\x96\x07"), { R(RDI, D) }, RFLAGS_CF, MEMIN(D, "\xaa"), 0, 3, {}, 0, 0, MEMOUT(D, "\x01") },
	{ "setg (rdi) under ZF", CODE("\x0f\x9f\x07"), { R(RDI, D) }, RFLAGS_ZF, MEMIN(D, "\xaa"), 0, 3, {}, 0, 0, MEMOUT(D, "\x00") },
	{ "32: setp (edi)", X86_MODE_32, CODE("\x0f\x9a\x07"), { R(RDI, D) }, RFLAGS_PF, MEMIN(D, "\xaa"), 0, 3, {}, 0, 0, MEMOUT(D, "\x01") },
	{ "setc to a read-only page: #PF", CODE("\x0f\x92\x07"), { R(RDI, FAKE_RO) }, 0, .status = X86_EMU_FAULT, .vector = VEC_PF, .error = X86_PF_W | X86_PF_P, .fault_addr = FAKE_RO },
	/* BSF/BSR: the index, ZF; a zero source keeps the destination and sets ZF. */
	{ "bsf eax,(rdi)", CODE("\x0f\xbc\x07"), { R(RAX, ~0ull), R(RDI, D) }, RFLAGS_ZF, MEMIN(D, "\x00\x10\x00\x80"), 0, 3, { R(RAX, 12) }, FL(RFLAGS_ZF, 0), .width = 4 },
	{ "bsr eax,(rdi)", CODE("\x0f\xbd\x07"), { R(RAX, ~0ull), R(RDI, D) }, 0, MEMIN(D, "\x00\x10\x00\x80"), 0, 3, { R(RAX, 31) } },
	{ "bsf of zero: ZF, kept", CODE("\x0f\xbc\x07"), { R(RAX, 0x1234567890), R(RDI, D) }, RFLAGS_CF, MEMIN(D, "\0\0\0\0"), 0, 3, {}, FL(RFLAGS_ZF | RFLAGS_CF, RFLAGS_ZF | RFLAGS_CF) },
	{ "bsr rax,(rdi)", CODE("\x48\x0f\xbd\x07"), { R(RDI, D) }, 0, MEMIN(D, "\0\0\0\0\0\0\0\x40"), 0, 4, { R(RAX, 62) } },
	{ "bsf ax,(rdi)", CODE("\x66\x0f\xbc\x07"), { R(RAX, ~0ull), R(RDI, D) }, 0, MEMIN(D, "\x00\x80"), 0, 4, { R(RAX, 0xffffffffffff000f) } },
	{ "16: bsf ax,[bx]", X86_MODE_16, CODE("\x0f\xbc\x07"), { R(RBX, D) }, 0, MEMIN(D, "\x00\x01"), 0, 3, { R(RAX, 8) } },
	{ "tzcnt eax,(rdi) of zero", CODE("\xf3\x0f\xbc\x07"), { R(RAX, ~0ull), R(RDI, D) }, RFLAGS_ZF, MEMIN(D, "\0\0\0\0"), 0, 4, { R(RAX, 32) }, FL(RFLAGS_CF | RFLAGS_ZF, RFLAGS_CF) },
	{ "lzcnt eax,(rdi)", CODE("\xf3\x0f\xbd\x07"), { R(RAX, ~0ull), R(RDI, D) }, RFLAGS_CF, MEMIN(D, "\x00\x00\x01\x00"), 0, 4, { R(RAX, 15) }, FL(RFLAGS_CF | RFLAGS_ZF, 0) },
	{ "lzcnt ax,(rdi) of 0x8000", CODE("\x66\xf3\x0f\xbd\x07"), { R(RAX, 0xffff), R(RDI, D) }, 0, MEMIN(D, "\x00\x80"), 0, 5, { R(RAX, 0) }, FL(RFLAGS_CF | RFLAGS_ZF, RFLAGS_ZF) },
	{ "bsf from a hole: #PF", CODE("\x0f\xbc\x07"), { R(RDI, FAKE_HOLE) }, 0, .status = X86_EMU_FAULT, .vector = VEC_PF, .fault_addr = FAKE_HOLE },
	/* The flag instructions real-mode code runs between its strings. */
	{ "cld", CODE("\xfc"), {}, RFLAGS_DF | RFLAGS_CF, .len = 1, .fl_mask = RFLAGS_DF, .fl_out = 0 },
	{ "std", CODE("\xfd"), {}, 0, .len = 1, .fl_mask = RFLAGS_DF, .fl_out = RFLAGS_DF },
	{ "clc", CODE("\xf8"), {}, RFLAGS_CF | RFLAGS_ZF, .len = 1, .fl_mask = RFLAGS_CF, .fl_out = 0 },
	{ "stc", CODE("\xf9"), {}, 0, .len = 1, .fl_mask = RFLAGS_CF, .fl_out = RFLAGS_CF },
	{ "cmc", CODE("\xf5"), {}, RFLAGS_CF, .len = 1, .fl_mask = RFLAGS_CF, .fl_out = 0 },
	{ "sahf", CODE("\x9e"), { R(RAX, 0xd5ff) }, RFLAGS_OF, .len = 1, .fl_mask = AR, .fl_out = 0x8d5 },
	{ "lahf", CODE("\x9f"), { R(RAX, 0xffff) }, RFLAGS_CF | RFLAGS_ZF | RFLAGS_SF | RFLAGS_OF, .len = 1, .out = { R(RAX, 0xc3ff) } },
	{ "16: std", X86_MODE_16, CODE("\xfd"), {}, 0, .len = 1, .fl_mask = RFLAGS_DF, .fl_out = RFLAGS_DF },
	/* Stores of system registers (fake_ctx: CR0 = PE|PG, selectors 0). */
	{ "smsw (rdi)", CODE("\x0f\x01\x27"), { R(RDI, D) }, 0, MEMIN(D, "\xaa\xaa\xaa"), 0, 3, {}, 0, 0, MEMOUT(D, "\x01\x00\xaa"), .width = 2 },
	{ "mov (rdi),ds", CODE("\x8c\x1f"), { R(RDI, D) }, 0, MEMIN(D, "\xaa\xaa\xaa"), 0, 2, {}, 0, 0, MEMOUT(D, "\0\0\xaa"), .width = 2 },
	{ "mov (rdi),sreg7: #UD", CODE("\x8c\x3f"), { R(RDI, D) }, 0, .status = X86_EMU_FAULT, .vector = VEC_UD },
	{ "str eax", CODE("\x0f\x00\xc8"), { R(RAX, ~0ull) }, 0, .len = 3, .out = { R(RAX, 0) } },
	{ "16: sldt [bx] in real mode: #UD", X86_MODE_16, CODE("\x0f\x00\x07"), { R(RBX, D) }, 0, .status = X86_EMU_FAULT, .vector = VEC_UD },
	{ "sgdt to a read-only page: #PF", CODE("\x0f\x01\x07"), { R(RDI, FAKE_RO) }, 0, .status = X86_EMU_FAULT, .vector = VEC_PF, .error = X86_PF_W | X86_PF_P, .fault_addr = FAKE_RO },
	/* Still not emulated: LGDT, VMCALL (the exit handler raises #UD on MMIO). */
	{ "lgdt", CODE("\x0f\x01\x17"), { R(RDI, D) }, 0, .status = X86_EMU_UNHANDLED },
	{ "vmcall", CODE("\x0f\x01\xc1"), {}, 0, .status = X86_EMU_UNHANDLED },
	{ "movups without CR4.OSFXSR: #UD", CODE("\x0f\x11\x07"), { R(RDI, D) }, 0, .status = X86_EMU_FAULT, .vector = VEC_UD },
};
/* clang-format on */

static void apply_regs(struct x86_emu_ctx *ctx, const struct rv *list, size_t n)
{
	for (size_t i = 0; i < n && list[i].r; i++)
		ctx->gpr[list[i].r - 1] = list[i].v;
}

static void setup(const struct ecase *c, struct x86_emu_ctx *ctx)
{
	fake_reset();
	fake_ctx(ctx, c->mode ? c->mode : X86_MODE_64);
	fake_code(c->code, c->n);
	if (c->mem_n)
		memcpy(fake.mem + c->mem_at, c->mem, c->mem_n);
	apply_regs(ctx, c->in, ARRAY_SIZE(c->in));
	ctx->rflags |= c->fl_in;
	ctx->seg[X86_FS].base = 0x3000;
	ctx->cpl = c->cpl;
	if (c->rip)
		ctx->rip = c->rip;
	ctx->max_reps = c->max_reps;
	if (c->ds_limit)
		for (int s = 0; s < X86_NR_SREGS; s++)
			if (s != X86_CS)
				ctx->seg[s].limit = c->ds_limit;
	fake.race = c->race;
}

/* Table checks report every failing case instead of stopping at the first. */
#define FAIL(...) \
	do { \
		print_error(__VA_ARGS__); \
		print_error("\n"); \
		return false; \
	} while (0)
#define CHECK(a, b) \
	do { \
		if ((u64)(a) != (u64)(b)) \
			FAIL("%s: %s = %#llx, expected %#llx", c->name, #a, \
			     (unsigned long long)(a), (unsigned long long)(b)); \
	} while (0)

static bool run_case(const struct ecase *c)
{
	static u8 before[FAKE_SIZE];
	struct x86_emu_ctx ctx, want;
	struct x86_emu_result res;
	struct x86_insn in;
	int rc;

	setup(c, &ctx);
	memcpy(before, fake.mem, FAKE_SIZE);
	want = ctx;
	rc = x86_emulate_at_rip(&ctx, &fake_ops, &in, &res);
	if (rc != c->status || res.status != rc)
		FAIL("%s: status %d, expected %d", c->name, rc, c->status);
	if (c->len && in.len != c->len)
		FAIL("%s: len %u, expected %u", c->name, in.len, c->len);

	/* Registers: only the listed ones change; RIP moves only on a completed instruction. */
	if (rc == X86_EMU_OK || (rc == X86_EMU_FAULT && c->reps))
		apply_regs(&want, c->out, ARRAY_SIZE(c->out));
	if (rc == X86_EMU_OK && !c->incomplete)
		want.rip += in.len;
	for (int i = 0; i < X86_NR_GPRS; i++)
		if (ctx.gpr[i] != want.gpr[i])
			FAIL("%s: gpr %d = %#llx, expected %#llx", c->name, i,
			     (unsigned long long)ctx.gpr[i], (unsigned long long)want.gpr[i]);
	if (ctx.rip != want.rip)
		FAIL("%s: rip %#llx, expected %#llx", c->name, (unsigned long long)ctx.rip,
		     (unsigned long long)want.rip);
	/* Finished string iterations before a fault keep their flags too. */
	if ((rc == X86_EMU_OK || (rc == X86_EMU_FAULT && c->reps)) && c->fl_mask)
		want.rflags = (want.rflags & ~c->fl_mask) | c->fl_out;
	if (ctx.rflags != want.rflags)
		FAIL("%s: rflags %#llx, expected %#llx", c->name, (unsigned long long)ctx.rflags,
		     (unsigned long long)want.rflags);

	/* Memory: only the listed bytes change. */
	if (c->out_n)
		memcpy(before + c->out_at, c->mout, c->out_n);
	for (u32 a = 0; a < FAKE_SIZE; a++)
		if (fake.mem[a] != before[a])
			FAIL("%s: mem[%#x] = %#x, expected %#x", c->name, a, fake.mem[a],
			     before[a]);

	if (c->width) {
		CHECK(res.width, c->width);
		if (c->linear)
			CHECK(res.linear, c->linear);
	}
	if (res.reps != c->reps || res.rep_incomplete != c->incomplete)
		FAIL("%s: reps %llu%s, expected %llu", c->name, (unsigned long long)res.reps,
		     res.rep_incomplete ? " (incomplete)" : "", (unsigned long long)c->reps);
	if (rc == X86_EMU_FAULT) {
		if (res.fault.vector != c->vector)
			FAIL("%s: vector %u, expected %u", c->name, res.fault.vector, c->vector);
		if (c->vector == VEC_PF) {
			CHECK(res.fault.error_code, c->error);
			CHECK(res.fault.addr, c->fault_addr);
		} else if (c->vector != VEC_UD && c->vector != VEC_DE) {
			CHECK(res.fault.has_error, true);
			CHECK(res.fault.error_code, 0);
		}
	}
	if (c->writes)
		CHECK(fake.writes, c->writes < 0 ? 0 : c->writes);
	if (c->cmpxchgs)
		CHECK(fake.cmpxchgs, c->cmpxchgs < 0 ? 0 : c->cmpxchgs);
	if (c->writes > 0 && c->width)
		CHECK(fake.last_len, c->width);
	return true;
}

/* One table row. */
static void test_case(void **state)
{
	if (!run_case(*state))
		fail();
}

/* A REP string that the budget cuts short finishes over several calls, like interrupted REP. */
static void test_rep_resumes(void **state)
{
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;
	struct x86_insn in;
	int calls = 0;

	(void)state;
	fake_reset();
	fake_ctx(&ctx, X86_MODE_64);
	fake_code("\xf3\x48\xab", 3);
	ctx.gpr[X86_RCX] = 1000;
	ctx.gpr[X86_RDI] = 0x4000;
	ctx.gpr[X86_RAX] = 0x0101010101010101;
	while (ctx.rip == FAKE_CODE) {
		assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_OK);
		assert_true(res.reps <= X86_EMU_DEFAULT_REPS);
		calls++;
	}
	assert_int_equal(calls, (1000 + X86_EMU_DEFAULT_REPS - 1) / X86_EMU_DEFAULT_REPS);
	assert_int_equal(ctx.gpr[X86_RCX], 0);
	assert_int_equal(ctx.gpr[X86_RDI], 0x4000 + 8000);
	for (u32 a = 0x4000; a < 0x4000 + 8000; a++)
		assert_int_equal(fake.mem[a], 1);
	assert_int_equal(fake.mem[0x4000 + 8000], fake_pattern(0x4000 + 8000));
}

/* MMIO: a read the caller cannot satisfy is unhandled and changes nothing. */
static void test_unhandled_access(void **state)
{
	struct x86_emu_ctx ctx, before;
	struct x86_emu_result res;
	struct x86_insn in;
	static const struct x86_emu_ops no_cmpxchg = { .fetch = NULL };
	u64 v;

	(void)state;
	fake_reset();
	fake_ctx(&ctx, X86_MODE_64);
	fake_code("\x8b\x07", 2);
	ctx.gpr[X86_RDI] = 0x2000;
	before = ctx;
	fake.unhandled_reads = 1;
	assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_UNHANDLED);
	assert_memory_equal(&ctx, &before, sizeof(ctx));

	/* Missing callbacks are unhandled too. */
	assert_int_equal(x86_emulate(&ctx, &no_cmpxchg, &in, &res), X86_EMU_UNHANDLED);

	/* x86_read_rm: LMSW's source operand. */
	fake.unhandled_reads = 0;
	fake_code("\x0f\x01\x37", 3);
	memcpy(fake.mem + 0x2000, "\x0b\x00", 2);
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &res.fault), X86_DEC_OK);
	assert_int_equal(in.kind, X86_K_LMSW);
	assert_int_equal(x86_read_rm(&ctx, &fake_ops, &in, 2, &v, &res), X86_EMU_OK);
	assert_int_equal(v, 0xb);
	fake_code("\x0f\x01\xf1", 3);
	ctx.gpr[X86_RCX] = 0x12345;
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &res.fault), X86_DEC_OK);
	assert_int_equal(x86_read_rm(&ctx, &fake_ops, &in, 2, &v, &res), X86_EMU_OK);
	assert_int_equal(v, 0x2345);

	/* x86_write_rm: SMSW's destination, 2 bytes to memory, the operand size to a register. */
	fake_code("\x0f\x01\x27", 3);
	memcpy(fake.mem + 0x2000, "\xaa\xaa\xaa\xaa", 4);
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &res.fault), X86_DEC_OK);
	assert_int_equal(in.kind, X86_K_SMSW);
	assert_int_equal(x86_write_rm(&ctx, &fake_ops, &in, 2, 0x8005003b, &res), X86_EMU_OK);
	assert_memory_equal(fake.mem + 0x2000, "\x3b\x00\xaa\xaa", 4);
	fake_code("\x48\x0f\x01\xe2", 4);
	ctx.gpr[X86_RDX] = ~0ull;
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &res.fault), X86_DEC_OK);
	assert_int_equal(in.kind, X86_K_SMSW);
	assert_int_equal(x86_write_rm(&ctx, &fake_ops, &in, in.opsize, 0x8005003b, &res),
			 X86_EMU_OK);
	assert_int_equal(ctx.gpr[X86_RDX], 0x8005003b);
	fake_code("\x66\x0f\x01\xe2", 4);
	ctx.gpr[X86_RDX] = ~0ull;
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &res.fault), X86_DEC_OK);
	assert_int_equal(x86_write_rm(&ctx, &fake_ops, &in, in.opsize, 0x8005003b, &res),
			 X86_EMU_OK);
	assert_int_equal(ctx.gpr[X86_RDX], 0xffffffffffff003bull);
	/* A write fault leaves the registers alone and reports the #PF. */
	fake_code("\x0f\x01\x27", 3);
	ctx.gpr[X86_RDI] = FAKE_RO;
	before = ctx;
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &res.fault), X86_DEC_OK);
	assert_int_equal(x86_write_rm(&ctx, &fake_ops, &in, 2, 0x3b, &res), X86_EMU_FAULT);
	assert_int_equal(res.fault.vector, VEC_PF);
	assert_memory_equal(&ctx, &before, sizeof(ctx));
	ctx.gpr[X86_RDI] = 0x2000;

	/* An insn decoded in another mode is refused. */
	fake_code("\x89\x07", 2);
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &res.fault), X86_DEC_OK);
	ctx.seg[X86_CS].attr &= ~X86_SEG_L;
	assert_int_equal(x86_emulate(&ctx, &fake_ops, &in, &res), X86_EMU_UNHANDLED);
}

/* Expand-down data segments allow offsets above the limit only; TF asks for a #DB after the insn. */
static void test_expand_down_and_tf(void **state)
{
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;
	struct x86_insn in;

	(void)state;
	fake_reset();
	fake_ctx(&ctx, X86_MODE_32);
	fake_code("\x89\x07", 2);
	ctx.seg[X86_DS].attr |= X86_SEG_TYPE_EXPDOWN;
	ctx.seg[X86_DS].limit = 0x1fff;
	ctx.gpr[X86_RDI] = 0x2000;
	ctx.rflags |= RFLAGS_TF | RFLAGS_RF;
	assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_OK);
	assert_true(res.single_step);
	assert_false(ctx.rflags & RFLAGS_RF);
	ctx.rip = FAKE_CODE;
	ctx.gpr[X86_RDI] = 0x1ffe;
	assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_FAULT);
	assert_int_equal(res.fault.vector, VEC_GP);
	ctx.seg[X86_DS].attr &= ~X86_SEG_DB; /* 16-bit upper bound */
	ctx.gpr[X86_RDI] = 0xfffe;
	assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_FAULT);
}

/*
 * MOV Sreg, r/m (8E) from memory, the device-register case: the selector read through the
 * memory callback, the descriptor through the GDT with the CPU's checks and faults (shared
 * with the real-mode emulator: arch/x86/segment.c), the accessed bit set, res.seg_loaded; in
 * real mode only selector and base; LDT selectors (TI) through the LDT that LDTR names, #GP(sel)
 * past its limit. CS and the undefined registers #UD. SS's own rules: test_ss_loads.
 */
static void test_mov_to_sreg(void **state)
{
	enum { GDT = 0x3000, LDT = 0x3800 };
	/* clang-format off */
	static const struct { enum x86_mode mode; const char *code; u16 sel; u64 desc; int rc;
			      u8 vector; u16 error; u8 sreg; } cases[] = {
		{ X86_MODE_64, "\x8e\x1f", 0x10, 0x00cf92000000ffff, X86_EMU_OK, 0, 0, X86_DS },
		{ X86_MODE_64, "\x8e\x27", 0x18, 0x12cf92345678ffff, X86_EMU_OK, 0, 0, X86_FS },
		{ X86_MODE_32, "\x8e\x07", 0x10, 0x00cf92000000ffff, X86_EMU_OK, 0, 0, X86_ES },
		{ X86_MODE_32, "\x8e\x2f", 0x00, 0, X86_EMU_OK, 0, 0, X86_GS },
		{ X86_MODE_32, "\x8e\x1f", 0x18, 0x00cf12000000ffff, X86_EMU_FAULT, VEC_NP, 0x18, X86_DS },
		{ X86_MODE_64, "\x8e\x1f", 0x28, 0x00cf98000000ffff, X86_EMU_FAULT, VEC_GP, 0x28, X86_DS },
		{ X86_MODE_64, "\x8e\x1f", 0x50, 0, X86_EMU_FAULT, VEC_GP, 0x50, X86_DS },
		{ X86_MODE_64, "\x8e\x1f", 0x13, 0x00cf92000000ffff, X86_EMU_FAULT, VEC_GP, 0x10, X86_DS },
		{ X86_MODE_64, "\x8e\x0f", 0x10, 0x00cf92000000ffff, X86_EMU_FAULT, VEC_UD, 0, X86_CS },
		{ X86_MODE_64, "\x8e\x37", 0x10, 0x00cf92000000ffff, X86_EMU_FAULT, VEC_UD, 0, X86_DS },
		{ X86_MODE_64, "\x8e\x17", 0x10, 0x00cf92000000ffff, X86_EMU_OK, 0, 0, X86_SS },
		{ X86_MODE_64, "\x8e\x1f", 0x0c, 0x00cf92000000ffff, X86_EMU_OK, 0, 0, X86_DS },
		{ X86_MODE_32, "\x8e\x27", 0x14, 0x12cf92345678ffff, X86_EMU_OK, 0, 0, X86_FS },
		{ X86_MODE_32, "\x8e\x1f", 0x1c, 0x00cf92000000ffff, X86_EMU_FAULT, VEC_GP, 0x1c, X86_DS },
		{ X86_MODE_32, "\x8e\x1f", 0x0c, 0x00cf98000000ffff, X86_EMU_FAULT, VEC_GP, 0x0c, X86_DS },
		{ X86_MODE_32, "\x8e\x1f", 0x0c, 0x00cf12000000ffff, X86_EMU_FAULT, VEC_NP, 0x0c, X86_DS },
		{ X86_MODE_16, "\x8e\x07", 0x1234, 0, X86_EMU_OK, 0, 0, X86_ES },
	};
	/* clang-format on */
	struct x86_emu_ctx ctx, before;
	struct x86_emu_result res;
	struct x86_insn in;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		fake_reset();
		fake_ctx(&ctx, cases[i].mode);
		ctx.gdtr = (struct x86_dtr){ .base = GDT, .limit = 0x4f };
		ctx.ldtr = 0x28;
		ctx.ldt = (struct x86_dtr){ .base = LDT, .limit = 0x17 };
		ctx.gpr[X86_RDI] = ctx.gpr[X86_RBX] = D;
		memcpy(fake.mem + D, &cases[i].sel, 2);
		u64 table = (cases[i].sel & 4) ? LDT : GDT;
		memcpy(fake.mem + table + (cases[i].sel & ~7u), &cases[i].desc, 8);
		fake_code(cases[i].code, 2);
		before = ctx;
		int rc = x86_emulate_at_rip(&ctx, &fake_ops, &in, &res);
		if (rc != cases[i].rc)
			fail_msg("case %zu: status %d, expected %d", i, rc, cases[i].rc);
		if (rc != X86_EMU_OK) {
			assert_memory_equal(ctx.seg, before.seg, sizeof(ctx.seg));
			assert_int_equal(ctx.rip, FAKE_CODE);
			if (rc == X86_EMU_FAULT) {
				assert_int_equal(res.fault.vector, cases[i].vector);
				assert_int_equal(res.fault.error_code, cases[i].error);
			}
			continue;
		}
		const struct x86_seg *sg = &ctx.seg[cases[i].sreg];
		assert_true(res.seg_loaded);
		assert_int_equal(ctx.rip, FAKE_CODE + 2);
		assert_int_equal(sg->sel, cases[i].sel);
		if (cases[i].mode == X86_MODE_16) {
			assert_int_equal(sg->base, 0x12340);
		} else if (!cases[i].sel) {
			assert_false(sg->attr & X86_SEG_P);
		} else {
			assert_int_equal(sg->base, cases[i].sreg == X86_FS ? 0x12345678 : 0);
			assert_int_equal(sg->limit, 0xffffffff);
			assert_int_equal(sg->attr, 0xc93);
			assert_true(fake.mem[table + (cases[i].sel & ~7u) + 5] & 1);
		}
		for (int s = 0; s < X86_NR_SREGS; s++)
			if (s != cases[i].sreg)
				assert_memory_equal(&ctx.seg[s], &before.seg[s],
						    sizeof(ctx.seg[s]));
	}
	/* No LDT loaded (a null LDTR): an LDT selector is #GP(sel) whatever LDTR's cached limit. */
	fake_reset();
	fake_ctx(&ctx, X86_MODE_32);
	ctx.ldt = (struct x86_dtr){ .base = LDT, .limit = 0xffff };
	memcpy(fake.mem + LDT + 8, &(u64){ 0x00cf92000000ffff }, 8);
	memcpy(fake.mem + D, &(u16){ 0x0c }, 2);
	ctx.gpr[X86_RDI] = D;
	fake_code("\x8e\x1f", 2);
	before = ctx;
	assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_FAULT);
	assert_int_equal(res.fault.vector, VEC_GP);
	assert_int_equal(res.fault.error_code, 0x0c);
	assert_memory_equal(ctx.seg, before.seg, sizeof(ctx.seg));
	/* The selector from a hole: #PF, nothing loaded. */
	fake_reset();
	fake_ctx(&ctx, X86_MODE_64);
	ctx.gdtr = (struct x86_dtr){ .base = GDT, .limit = 0x4f };
	ctx.gpr[X86_RDI] = FAKE_HOLE;
	fake_code("\x8e\x1f", 2);
	before = ctx;
	assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_FAULT);
	assert_int_equal(res.fault.vector, VEC_PF);
	assert_memory_equal(ctx.seg, before.seg, sizeof(ctx.seg));
}

/*
 * Loads of SS (MOV SS and POP SS, which start the interrupt and debug shadow: res.mov_ss;
 * LSS, which does not) and the other pops and far-pointer loads, with SS's checks: a null
 * selector #GP(0) but in 64-bit mode below ring 3 with RPL = CPL, RPL and DPL equal to CPL,
 * a writable data segment, #SS(sel) when not present; LDT selectors past the LDT's limit or
 * with no LDT loaded #GP(sel). On a fault nothing changes: segments, registers, RIP.
 */
static void test_ss_loads(void **state)
{
	enum { GDT = 0x3000, LDT = 0x3800, STACK = 0x2800 };
	/* clang-format off */
	static const struct {
		const char *name;
		enum x86_mode mode;
		const char *code;
		u8 len, cpl;
		u16 sel, ldtr;
		u64 desc;
		int rc;
		u8 vector;
		u16 error;
		u8 sreg;
		bool shadow;
	} cases[] = {
		{ "mov ss", X86_MODE_32, "\x8e\x17", 2, 0, 0x10, 0x28, 0x00cf92000000ffff, X86_EMU_OK, 0, 0, X86_SS, true },
		{ "mov ss ring 3", X86_MODE_32, "\x8e\x17", 2, 3, 0x3b, 0x28, 0x00cff2000000ffff, X86_EMU_OK, 0, 0, X86_SS, true },
		{ "mov ss 64", X86_MODE_64, "\x8e\x17", 2, 0, 0x10, 0x28, 0x00cf92000000ffff, X86_EMU_OK, 0, 0, X86_SS, true },
		{ "mov ss from the ldt", X86_MODE_32, "\x8e\x17", 2, 0, 0x0c, 0x28, 0x00cf92000000ffff, X86_EMU_OK, 0, 0, X86_SS, true },
		{ "mov ss null", X86_MODE_32, "\x8e\x17", 2, 0, 0x00, 0x28, 0, X86_EMU_FAULT, VEC_GP, 0, X86_SS, false },
		{ "mov ss null 64", X86_MODE_64, "\x8e\x17", 2, 0, 0x00, 0x28, 0, X86_EMU_OK, 0, 0, X86_SS, true },
		{ "mov ss null 64 ring 3", X86_MODE_64, "\x8e\x17", 2, 3, 0x03, 0x28, 0, X86_EMU_FAULT, VEC_GP, 0, X86_SS, false },
		{ "mov ss null 64 rpl 1", X86_MODE_64, "\x8e\x17", 2, 0, 0x01, 0x28, 0, X86_EMU_FAULT, VEC_GP, 0, X86_SS, false },
		{ "mov ss rpl not cpl", X86_MODE_32, "\x8e\x17", 2, 0, 0x13, 0x28, 0x00cf92000000ffff, X86_EMU_FAULT, VEC_GP, 0x10, X86_SS, false },
		{ "mov ss dpl not cpl", X86_MODE_32, "\x8e\x17", 2, 0, 0x18, 0x28, 0x00cff2000000ffff, X86_EMU_FAULT, VEC_GP, 0x18, X86_SS, false },
		{ "mov ss read-only", X86_MODE_32, "\x8e\x17", 2, 0, 0x18, 0x28, 0x00cf90000000ffff, X86_EMU_FAULT, VEC_GP, 0x18, X86_SS, false },
		{ "mov ss code", X86_MODE_64, "\x8e\x17", 2, 0, 0x18, 0x28, 0x00af9a000000ffff, X86_EMU_FAULT, VEC_GP, 0x18, X86_SS, false },
		{ "mov ss system", X86_MODE_32, "\x8e\x17", 2, 0, 0x18, 0x28, 0x0000820000000067, X86_EMU_FAULT, VEC_GP, 0x18, X86_SS, false },
		{ "mov ss not present", X86_MODE_32, "\x8e\x17", 2, 0, 0x18, 0x28, 0x00cf12000000ffff, X86_EMU_FAULT, VEC_SS, 0x18, X86_SS, false },
		{ "mov ss past the gdt", X86_MODE_32, "\x8e\x17", 2, 0, 0x50, 0x28, 0, X86_EMU_FAULT, VEC_GP, 0x50, X86_SS, false },
		{ "mov ss past the ldt", X86_MODE_32, "\x8e\x17", 2, 0, 0x1c, 0x28, 0x00cf92000000ffff, X86_EMU_FAULT, VEC_GP, 0x1c, X86_SS, false },
		{ "mov ss no ldt", X86_MODE_32, "\x8e\x17", 2, 0, 0x0c, 0x00, 0x00cf92000000ffff, X86_EMU_FAULT, VEC_GP, 0x0c, X86_SS, false },
		{ "mov ss real mode", X86_MODE_16, "\x8e\x17", 2, 0, 0x1234, 0, 0, X86_EMU_OK, 0, 0, X86_SS, true },
		{ "pop ss", X86_MODE_32, "\x17", 1, 0, 0x10, 0x28, 0x00cf92000000ffff, X86_EMU_OK, 0, 0, X86_SS, true },
		{ "pop ss not present", X86_MODE_32, "\x17", 1, 0, 0x18, 0x28, 0x00cf12000000ffff, X86_EMU_FAULT, VEC_SS, 0x18, X86_SS, false },
		/* Not an instruction in 64-bit mode: the decoder leaves it (the exit handler's #UD). */
		{ "pop ss 64", X86_MODE_64, "\x17", 1, 0, 0x10, 0x28, 0x00cf92000000ffff, X86_EMU_UNHANDLED, 0, 0, X86_SS, false },
		{ "pop ds real mode", X86_MODE_16, "\x1f", 1, 0, 0x1234, 0, 0, X86_EMU_OK, 0, 0, X86_DS, false },
		{ "pop es ldt", X86_MODE_32, "\x07", 1, 0, 0x0c, 0x28, 0x00cf92000000ffff, X86_EMU_OK, 0, 0, X86_ES, false },
		{ "pop fs 64", X86_MODE_64, "\x0f\xa1", 2, 0, 0x10, 0x28, 0x00cf92000000ffff, X86_EMU_OK, 0, 0, X86_FS, false },
		{ "pop gs past the ldt", X86_MODE_64, "\x0f\xa9", 2, 0, 0x1c, 0x28, 0, X86_EMU_FAULT, VEC_GP, 0x1c, X86_GS, false },
		{ "lss esp", X86_MODE_32, "\x0f\xb2\x27", 3, 0, 0x10, 0x28, 0x00cf92000000ffff, X86_EMU_OK, 0, 0, X86_SS, false },
		{ "lss null", X86_MODE_32, "\x0f\xb2\x27", 3, 0, 0x00, 0x28, 0, X86_EMU_FAULT, VEC_GP, 0, X86_SS, false },
		{ "lfs rsp 64", X86_MODE_64, "\x48\x0f\xb4\x27", 4, 0, 0x10, 0x28, 0x00cf92000000ffff, X86_EMU_OK, 0, 0, X86_FS, false },
		{ "lgs register: #UD", X86_MODE_32, "\x0f\xb5\xe0", 3, 0, 0x10, 0x28, 0, X86_EMU_FAULT, VEC_UD, 0, X86_GS, false },
		{ "les sp real mode", X86_MODE_16, "\xc4\x27", 2, 0, 0x1234, 0, 0, X86_EMU_OK, 0, 0, X86_ES, false },
		{ "lds esp not present", X86_MODE_32, "\xc5\x27", 2, 0, 0x0c, 0x28, 0x00cf12000000ffff, X86_EMU_FAULT, VEC_NP, 0x0c, X86_DS, false },
	};
	/* clang-format on */
	struct x86_emu_ctx ctx, before;
	struct x86_emu_result res;
	struct x86_insn in;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		bool pop = cases[i].code[0] == 0x07 || cases[i].code[0] == 0x17 ||
			   cases[i].code[0] == 0x1f || cases[i].code[1] == (char)0xa1 ||
			   cases[i].code[1] == (char)0xa9;
		unsigned w = cases[i].mode == X86_MODE_64   ? 8
			     : cases[i].mode == X86_MODE_32 ? 4
							    : 2;
		fake_reset();
		fake_ctx(&ctx, cases[i].mode);
		ctx.cpl = cases[i].cpl;
		ctx.seg[X86_CS].sel = cases[i].cpl;
		ctx.seg[X86_SS].attr |= (u16)(cases[i].cpl << 5);
		ctx.gdtr = (struct x86_dtr){ .base = GDT, .limit = 0x4f };
		ctx.ldtr = cases[i].ldtr;
		ctx.ldt = (struct x86_dtr){ .base = LDT, .limit = 0x17 };
		ctx.rflags |= RFLAGS_TF;
		/* MOV's operand at [rdi] (16-bit: [bx]); a far pointer 0x11223344:sel there too;
		 * the pops' selector on the stack. */
		ctx.gpr[X86_RDI] = ctx.gpr[X86_RBX] = D;
		ctx.gpr[X86_RSP] = STACK;
		u64 ptr = 0x11223344;
		memcpy(fake.mem + D,
		       cases[i].code[0] == (char)0x8e ? (const void *)&cases[i].sel : &ptr,
		       cases[i].code[0] == (char)0x8e ? 2 : w);
		if (cases[i].code[0] != (char)0x8e)
			memcpy(fake.mem + D + w, &cases[i].sel, 2);
		memcpy(fake.mem + STACK, &cases[i].sel, 2);
		u64 table = (cases[i].sel & 4) ? LDT : GDT;
		memcpy(fake.mem + table + (cases[i].sel & ~7u), &cases[i].desc, 8);
		fake_code(cases[i].code, cases[i].len);
		before = ctx;
		int rc = x86_emulate_at_rip(&ctx, &fake_ops, &in, &res);
		if (rc != cases[i].rc)
			fail_msg("%s: status %d, expected %d", cases[i].name, rc, cases[i].rc);
		if (rc != X86_EMU_OK) {
			assert_memory_equal(&ctx, &before, sizeof(ctx));
			if (rc == X86_EMU_FAULT && (res.fault.vector != cases[i].vector ||
						    res.fault.error_code != cases[i].error))
				fail_msg("%s: fault %u (%u), expected %u (%u)", cases[i].name,
					 res.fault.vector, res.fault.error_code, cases[i].vector,
					 cases[i].error);
			continue;
		}
		const struct x86_seg *sg = &ctx.seg[cases[i].sreg];
		if (res.mov_ss != cases[i].shadow || res.single_step == cases[i].shadow)
			fail_msg("%s: shadow %d, single step %d", cases[i].name, res.mov_ss,
				 res.single_step);
		assert_true(res.seg_loaded);
		assert_int_equal(ctx.rip, FAKE_CODE + cases[i].len);
		assert_int_equal(sg->sel, cases[i].sel);
		if (cases[i].mode == X86_MODE_16)
			assert_int_equal(sg->base, (u64)cases[i].sel << 4);
		else
			assert_true((sg->attr & X86_SEG_P) &&
				    ((sg->attr >> 5) & 3) == cases[i].cpl);
		assert_int_equal(ctx.gpr[X86_RSP], pop ? STACK + w
						   : cases[i].code[0] == (char)0x8e
							   ? STACK
							   : ptr & x86_mask(w));
	}
}

static void test_registers(void **state)
{
	struct x86_emu_ctx ctx;

	(void)state;
	memset(&ctx, 0, sizeof(ctx));
	ctx.gpr[X86_RAX] = 0x1122334455667788;
	assert_int_equal(x86_get_reg(&ctx, X86_RSP, 1, false), 0x77); /* AH */
	assert_int_equal(x86_get_reg(&ctx, X86_RSP, 1, true), 0);     /* SPL */
	x86_set_reg(&ctx, X86_RSP, 1, false, 0xab);
	assert_int_equal(ctx.gpr[X86_RAX], 0x112233445566ab88);
	x86_set_reg(&ctx, X86_RAX, 2, false, 0xcdef);
	assert_int_equal(ctx.gpr[X86_RAX], 0x112233445566cdef);
	x86_set_reg(&ctx, X86_RAX, 4, false, 0x1);
	assert_int_equal(ctx.gpr[X86_RAX], 1);
	x86_set_reg(&ctx, 31, 8, true, 5); /* out of range indexes wrap, never overflow */
	assert_int_equal(ctx.gpr[X86_R15], 5);
}

/* SGDT/SIDT in each mode and operand size, SLDT/STR and MOV from a segment register. */
static void test_system_stores(void **state)
{
	static const struct {
		u8 mode;
		const char *code;
		u8 n;
		const char *want;
		u8 want_n;
	} rows[] = {
		{ X86_MODE_64, "\x0f\x01\x07", 3, "\x7f\x00\xbc\x9a\x78\x56\x34\x12\x00\x00", 10 },
		{ X86_MODE_64, "\x0f\x01\x0f", 3, "\xff\x0f\x00\xf0\xde\xbc\x9a\x78\x56\x34", 10 },
		{ X86_MODE_32, "\x0f\x01\x07", 3, "\x7f\x00\xbc\x9a\x78\x56", 6 },
		{ X86_MODE_32, "\x66\x0f\x01\x07", 4, "\x7f\x00\xbc\x9a\x78\x00", 6 },
		{ X86_MODE_16, "\x0f\x01\x0f", 3, "\xff\x0f\x00\xf0\xde\x00", 6 },
		{ X86_MODE_32, "\x0f\x00\x07", 3, "\x28\x00", 2 },
		{ X86_MODE_32, "\x0f\x00\x0f", 3, "\x30\x00", 2 },
		{ X86_MODE_16, "\x8c\x1f", 2, "\x2b\x00", 2 },
	};
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;
	struct x86_insn in;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		fake_reset();
		fake_ctx(&ctx, rows[i].mode);
		fake_code(rows[i].code, rows[i].n);
		ctx.gdtr = (struct x86_dtr){ .base = 0x123456789abc, .limit = 0x7f };
		ctx.idtr = (struct x86_dtr){ .base = 0x3456789abcdef000, .limit = 0xfff };
		ctx.ldtr = 0x28;
		ctx.tr = 0x30;
		ctx.seg[X86_DS].sel = 0x2b;
		ctx.gpr[X86_RDI] = ctx.gpr[X86_RBX] = 0x2000;
		assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_OK);
		assert_memory_equal(fake.mem + 0x2000, rows[i].want, rows[i].want_n);
		assert_int_equal(fake.mem[0x2000 + rows[i].want_n],
				 fake_pattern(0x2000 + rows[i].want_n));
		assert_int_equal(ctx.rip, FAKE_CODE + rows[i].n);
	}
	/* Register destinations take the operand size: STR EAX zero-extends, MOV AX, DS keeps. */
	fake_ctx(&ctx, X86_MODE_32);
	ctx.tr = 0x30;
	ctx.gpr[X86_RAX] = 0xffffffff;
	fake_code("\x0f\x00\xc8", 3);
	assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_OK);
	assert_int_equal(ctx.gpr[X86_RAX], 0x30);
	fake_ctx(&ctx, X86_MODE_32);
	ctx.seg[X86_DS].sel = 0x2b;
	ctx.gpr[X86_RAX] = 0xffffffff;
	fake_code("\x66\x8c\xd8", 3);
	assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_OK);
	assert_int_equal(ctx.gpr[X86_RAX], 0xffff002b);
}

/*
 * The SSE moves between XMM registers and memory: the bytes that move, a load zeroing the rest
 * of the register, the aligned forms' #GP, #UD without CR4.OSFXSR or with CR0.EM, #NM under
 * CR0.TS, and no XMM change on a fault.
 */
static void test_sse_moves(void **state)
{
	static const struct {
		const char *code;
		u8 n, width, reg;
		bool store, aligned;
	} forms[] = {
		{ "\x0f\x10\x07", 3, 16, 0, false, false },	/* movups xmm0,(rdi) */
		{ "\x0f\x11\x0f", 3, 16, 1, true, false },	/* movups (rdi),xmm1 */
		{ "\x66\x0f\x10\x17", 4, 16, 2, false, false }, /* movupd */
		{ "\x66\x0f\x11\x17", 4, 16, 2, true, false },
		{ "\xf3\x0f\x10\x1f", 4, 4, 3, false, false }, /* movss */
		{ "\xf3\x0f\x11\x1f", 4, 4, 3, true, false },
		{ "\xf2\x0f\x10\x27", 4, 8, 4, false, false }, /* movsd */
		{ "\xf2\x0f\x11\x27", 4, 8, 4, true, false },
		{ "\x0f\x28\x2f", 3, 16, 5, false, true }, /* movaps */
		{ "\x0f\x29\x2f", 3, 16, 5, true, true },
		{ "\x66\x0f\x28\x37", 4, 16, 6, false, true }, /* movapd */
		{ "\x66\x0f\x29\x37", 4, 16, 6, true, true },
		{ "\x0f\x2b\x3f", 3, 16, 7, true, true },      /* movntps */
		{ "\x66\x0f\x2b\x07", 4, 16, 0, true, true },  /* movntpd */
		{ "\x66\x0f\x6f\x07", 4, 16, 0, false, true }, /* movdqa */
		{ "\x66\x0f\x7f\x07", 4, 16, 0, true, true },
		{ "\xf3\x0f\x6f\x07", 4, 16, 0, false, false },	   /* movdqu */
		{ "\xf3\x44\x0f\x7f\x07", 5, 16, 8, true, false }, /* movdqu (rdi),xmm8 */
		{ "\x66\x44\x0f\xe7\x3f", 5, 16, 15, true, true }, /* movntdq (rdi),xmm15 */
		{ "\x66\x0f\x6e\x07", 4, 4, 0, false, false },	   /* movd xmm0,(rdi) */
		{ "\x66\x48\x0f\x6e\x07", 5, 8, 0, false, false }, /* movq xmm0,(rdi) */
		{ "\x66\x0f\x7e\x07", 4, 4, 0, true, false },	   /* movd (rdi),xmm0 */
		{ "\x66\x48\x0f\x7e\x07", 5, 8, 0, true, false },
		{ "\xf3\x0f\x7e\x07", 4, 8, 0, false, false }, /* movq xmm0,(rdi) */
		{ "\x66\x0f\xd6\x07", 4, 8, 0, true, false },  /* movq (rdi),xmm0 */
	};
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;
	struct x86_insn in;
	u8 xmm_before[16][16];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		unsigned w = forms[i].width, r = forms[i].reg;

		for (int misalign = 0; misalign < 2; misalign++) {
			fake_reset();
			fake_ctx(&ctx, X86_MODE_64);
			ctx.cr4 |= CR4_OSFXSR;
			fake_code(forms[i].code, forms[i].n);
			ctx.gpr[X86_RDI] = 0x2000 + 8 * misalign;
			memcpy(xmm_before, fake.xmm, sizeof(xmm_before));
			int rc = x86_emulate_at_rip(&ctx, &fake_ops, &in, &res);
			if (misalign && forms[i].aligned) {
				assert_int_equal(rc, X86_EMU_FAULT);
				assert_int_equal(res.fault.vector, VEC_GP);
				assert_memory_equal(fake.xmm, xmm_before, sizeof(xmm_before));
				continue;
			}
			assert_int_equal(rc, X86_EMU_OK);
			assert_int_equal(ctx.rip, FAKE_CODE + forms[i].n);
			u8 *m = fake.mem + ctx.gpr[X86_RDI];
			if (forms[i].store) {
				assert_memory_equal(m, xmm_before[r], w);
				assert_int_equal(m[w], fake_pattern(ctx.gpr[X86_RDI] + w));
				assert_memory_equal(fake.xmm, xmm_before, sizeof(xmm_before));
				continue;
			}
			for (unsigned b = 0; b < 16; b++)
				assert_int_equal(fake.xmm[r][b],
						 b < w ? fake_pattern(ctx.gpr[X86_RDI] + b) : 0);
			memcpy(xmm_before[r], fake.xmm[r], 16);
			assert_memory_equal(fake.xmm, xmm_before, sizeof(xmm_before));
		}
	}
	/* 32-bit code: MOVDQU to memory. */
	fake_reset();
	fake_ctx(&ctx, X86_MODE_32);
	ctx.cr4 |= CR4_OSFXSR;
	fake_code("\xf3\x0f\x7f\x17", 4);
	ctx.gpr[X86_RDI] = 0x2004;
	assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_OK);
	assert_memory_equal(fake.mem + 0x2004, fake.xmm[2], 16);
	/* CR0.TS: #NM; CR0.EM: #UD; a load from a hole: #PF with the register unchanged. */
	static const struct {
		u64 cr0;
		u8 vector;
		u64 rdi;
	} bad[] = {
		{ CR0_TS, VEC_NM, 0x2000 },
		{ CR0_EM, VEC_UD, 0x2000 },
		{ 0, VEC_PF, FAKE_HOLE },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		fake_reset();
		fake_ctx(&ctx, X86_MODE_64);
		ctx.cr4 |= CR4_OSFXSR;
		ctx.cr0 |= bad[i].cr0;
		ctx.gpr[X86_RDI] = bad[i].rdi;
		fake_code("\xf3\x0f\x6f\x07", 4);
		memcpy(xmm_before, fake.xmm, sizeof(xmm_before));
		assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_FAULT);
		assert_int_equal(res.fault.vector, bad[i].vector);
		assert_int_equal(ctx.rip, FAKE_CODE);
		assert_memory_equal(fake.xmm, xmm_before, sizeof(xmm_before));
	}
	/* Without an xmm callback the moves are not emulated. */
	static const struct x86_emu_ops no_xmm = { .fetch = NULL };
	fake_ctx(&ctx, X86_MODE_64);
	ctx.cr4 |= CR4_OSFXSR;
	fake_code("\xf3\x0f\x6f\x07", 4);
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &res.fault), X86_DEC_OK);
	assert_int_equal(x86_emulate(&ctx, &no_xmm, &in, &res), X86_EMU_UNHANDLED);
}

/* What segs_partial leaves out, as the CPU holds it: the callback's answer. */
static const struct x86_seg held_fs = {
	.base = 0x300, .limit = 0xffffffff, .sel = 0x33, .attr = 0xc093
};
static const struct x86_seg held_gs = {
	.base = 0x600, .limit = 0xffffffff, .sel = 0x3b, .attr = 0xc093
};
static unsigned segment_calls;

static void held_segments(const struct x86_emu_ctx *ctx)
{
	struct x86_emu_ctx *c = (struct x86_emu_ctx *)ctx; /* the caller's own, as in vmm/gmem.c */

	segment_calls++;
	c->seg[X86_FS] = held_fs;
	c->seg[X86_GS] = held_gs;
	c->ldtr = 0x28;
	c->tr = 0x30;
	c->segs_partial = false;
}

/* 64-bit code at FAKE_CODE with [rdi] = D and an FS base the caller did not read. */
static void partial_64(struct x86_emu_ctx *ctx, const char *code, size_t n, u64 stale_fs)
{
	fake_reset();
	fake_ctx(ctx, X86_MODE_64);
	fake_code(code, n);
	ctx->segs_partial = true;
	ctx->seg[X86_FS].base = stale_fs;
	ctx->gpr[X86_RDI] = D;
}

/*
 * A caller that left FS, GS, LDTR and TR in the CPU (SVM's VMLOAD set): the emulator asks for
 * them exactly when an instruction uses one, and then uses what it was given, never the stale
 * copy (whose bases would move every FS/GS access by 0x5000).
 */
static void test_lazy_segments(void **state)
{
	static const struct {
		u8 mode;
		const char *code;
		u8 n;
		unsigned calls;
		u64 at;
		u16 want;
	} rows[] = {
		{ X86_MODE_64, "\x89\x07", 2, 0, D, 0x5678 },		  /* mov [rdi], eax */
		{ X86_MODE_64, "\x64\x89\x07", 3, 1, D + 0x300, 0x5678 }, /* mov fs:[rdi], eax */
		{ X86_MODE_32, "\x65\x89\x07", 3, 1, D + 0x600, 0x5678 }, /* mov gs:[edi], eax */
		{ X86_MODE_32, "\x8c\x1f", 2, 0, D, 0x2b },		  /* mov [edi], ds */
		{ X86_MODE_32, "\x8c\x27", 2, 1, D, 0x33 },		  /* mov [edi], fs */
		{ X86_MODE_32, "\x0f\x00\x07", 3, 1, D, 0x28 },		  /* sldt [edi] */
		{ X86_MODE_32, "\x0f\x00\x0f", 3, 1, D, 0x30 },		  /* str [edi] */
		{ X86_MODE_32, "\x64\xa4", 2, 1, D, 0 },		  /* movsb from fs:[esi] */
		{ X86_MODE_32, "\x8e\xc3", 2, 1, 0, 0 },		  /* mov es, bx: a load */
	};
	struct x86_emu_ops ops = fake_ops;
	struct x86_emu_ctx ctx;
	struct x86_emu_result res;
	struct x86_insn in;

	(void)state;
	ops.segments = held_segments;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		fake_reset();
		fake_ctx(&ctx, rows[i].mode);
		fake_code(rows[i].code, rows[i].n);
		ctx.seg[X86_DS].sel = 0x2b;
		ctx.seg[X86_FS].base = ctx.seg[X86_GS].base = 0x5000;
		ctx.ldtr = ctx.tr = 0xdead;
		ctx.segs_partial = true;
		ctx.gpr[X86_RAX] = 0x5678;
		ctx.gpr[X86_RDI] = D;
		ctx.gpr[X86_RSI] = 0x10;
		fake.mem[0x300 + 0x10] = 0x5a;
		segment_calls = 0;
		assert_int_equal(x86_emulate_at_rip(&ctx, &ops, &in, &res), X86_EMU_OK);
		assert_int_equal(segment_calls, rows[i].calls);
		assert_int_equal(ctx.segs_partial, rows[i].calls == 0);
		if (rows[i].code[1] == '\xa4')
			assert_int_equal(fake.mem[D], 0x5a);
		else if (rows[i].at)
			assert_memory_equal(fake.mem + rows[i].at, &rows[i].want, 2);
		if (res.seg_loaded) /* the caller writes all six back: FS and GS are the CPU's */
			assert_memory_equal(&ctx.seg[X86_FS], &held_fs, sizeof(held_fs));
	}
	/* A decode alone (INVLPG's exit): the operand's linear address takes the held FS base. */
	struct x86_fault f;
	partial_64(&ctx, "\x64\x0f\x01\x3f", 4, 0x5000);
	segment_calls = 0;
	assert_int_equal(x86_decode(&ctx, &ops, &in, &f), X86_DEC_OK);
	assert_int_equal(in.kind, X86_K_INVLPG);
	assert_int_equal(in.mem.linear, D + 0x300);
	assert_int_equal(segment_calls, 1);
	/* No callback (a caller that never leaves them out): the stale copy, and no crash. */
	partial_64(&ctx, "\x64\x89\x07", 3, 0x100);
	assert_int_equal(x86_emulate_at_rip(&ctx, &fake_ops, &in, &res), X86_EMU_OK);
	assert_int_equal(fake.last_lin, D + 0x100);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_system_stores),	   cmocka_unit_test(test_sse_moves),
		cmocka_unit_test(test_rep_resumes),	   cmocka_unit_test(test_unhandled_access),
		cmocka_unit_test(test_expand_down_and_tf), cmocka_unit_test(test_registers),
		cmocka_unit_test(test_mov_to_sreg),	   cmocka_unit_test(test_ss_loads),
		cmocka_unit_test(test_lazy_segments),
	};

	return fake_run_table("emul-emulate", cases, ARRAY_SIZE(cases), sizeof(cases[0]), test_case,
			      fixed, ARRAY_SIZE(fixed));
}
