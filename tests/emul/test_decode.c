/* SPDX-License-Identifier: GPL-2.0-only */
/* Decoder tests: a table of hand-assembled encodings in every mode, fetch paths, limits and mode selection. */
#include <string.h>

#include "tests/emul/fake.h"

#define B(s) .code = s, .n = sizeof(s) - 1
#define MEM(e, s) .mem = 1, .ea = (e), .seg = (s)
#define NOMEM .mem = 2

struct dcase {
	const char *name;
	u8 mode;
	const char *code;
	u8 n;
	int status;
	u8 len;
	u8 opsize, addrsize; /* 0: not checked */
	u8 mem;		     /* 1: memory operand at ea/seg; 2: none; 0: not checked */
	u64 ea;
	u8 seg;
	u64 linear; /* checked when non-zero */
	u8 kind;
	u8 cr, gpr;
	u8 vector; /* X86_DEC_FAULT */
	u8 io_size;
	u16 port;
	u8 reg, rm; /* checked when non-zero */
	s64 imm;    /* checked when non-zero */
};

#define M64 X86_MODE_64
#define M32 X86_MODE_32
#define M16 X86_MODE_16
#define DS X86_DS
#define SS X86_SS

/* clang-format off */
static const struct dcase cases[] = {
	/* 64-bit: operand and address sizes, REX */
	{ "mov r32,(rdi)", M64, B("\x89\x07"), 0, 2, 4, 8, MEM(0x800, DS) },
	{ "rex.w mov", M64, B("\x48\x89\x07"), 0, 3, 8, 8, MEM(0x800, DS) },
	{ "66 mov", M64, B("\x66\x89\x07"), 0, 3, 2, 8, MEM(0x800, DS) },
	{ "67 mov (edi)", M64, B("\x67\x89\x07"), 0, 3, 4, 4, MEM(0x800, DS) },
	{ "rex before 66 ignored", M64, B("\x48\x66\x89\x07"), 0, 4, 2, 8, MEM(0x800, DS) },
	{ "66 then rex.w", M64, B("\x66\x48\x89\x07"), 0, 4, 8, 8, MEM(0x800, DS) },
	{ "two rex: last counts", M64, B("\x48\x41\x89\x07"), 0, 4, 4, 8, MEM(0xd00 + 0x300, DS) },
	{ "mov r15,(rdi)", M64, B("\x4c\x89\x3f"), 0, 3, 8, 8, MEM(0x800, DS), .reg = 15 },
	{ "mov eax,r8d", M64, B("\x41\x89\xc0"), 0, 3, 4, 8, NOMEM, .rm = 8 },
	/* 64-bit: ModRM/SIB forms */
	{ "(rsp) via sib: ss", M64, B("\x89\x04\x24"), 0, 3, 4, 8, MEM(0x500, SS) },
	{ "8(rbp): ss", M64, B("\x89\x45\x08"), 0, 3, 4, 8, MEM(0x608, SS) },
	{ "-0x10(rbx,rcx,4)", M64, B("\x89\x44\x8b\xf0"), 0, 4, 4, 8, MEM(0x400 + 0x800 - 0x10, DS) },
	{ "disp32 no base no index", M64, B("\x89\x04\x25\x78\x56\x34\x12"), 0, 7, 4, 8, MEM(0x12345678, DS) },
	{ "disp32(,index none) scale 2", M64, B("\x89\x04\x65\x00\x01\x00\x00"), 0, 7, 4, 8, MEM(0x100, DS) },
	{ "rex.x r12 index", M64, B("\x42\x89\x04\x27"), 0, 4, 4, 8, MEM(0x800 + 0xd00, DS) },
	{ "rex.b r12 base", M64, B("\x41\x89\x04\x24"), 0, 4, 4, 8, MEM(0xd00, DS) },
	{ "0(r13) needs disp8", M64, B("\x41\x89\x45\x00"), 0, 4, 4, 8, MEM(0xe00, DS) },
	{ "disp32(rsi,rdi,8)", M64, B("\x89\x84\xfe\x00\x00\x01\x00"), 0, 7, 4, 8, MEM(0x700 + 0x4000 + 0x10000, DS) },
	{ "negative disp wraps 64", M64, B("\x48\x89\x87\x00\xf0\xff\xff"), 0, 7, 8, 8, MEM(0x800 - 0x1000, DS) },
	{ "rip-relative", M64, B("\x89\x05\x10\x00\x00\x00"), 0, 6, 4, 8, MEM(0x1000 + 6 + 0x10, DS) },
	{ "rip-relative with imm", M64, B("\xc7\x05\xf0\xff\xff\xff\x01\x00\x00\x00"), 0, 10, 4, 8, MEM(0x1000 + 10 - 0x10, DS), .imm = 1 },
	{ "eip-relative (67)", M64, B("\x67\x89\x05\x10\x00\x00\x00"), 0, 7, 4, 4, MEM(0x1017, DS) },
	{ "67 wraps to 32 bits", M64, B("\x67\x89\x87\x00\xf0\xff\xff"), 0, 7, 4, 4, MEM(0xfffff800, DS) },
	{ "fs override uses base", M64, B("\x64\x89\x07"), 0, 3, 4, 8, MEM(0x800, X86_FS), .linear = 0x7000800 },
	{ "es override ignored base", M64, B("\x26\x89\x07"), 0, 3, 4, 8, MEM(0x800, X86_ES), .linear = 0x800 },
	{ "last segment override wins", M64, B("\x26\x65\x89\x07"), 0, 4, 4, 8, MEM(0x800, X86_GS) },
	/* 64-bit: immediates and moffs */
	{ "mov imm64", M64, B("\x48\xb8\x88\x77\x66\x55\x44\x33\x22\x11"), 0, 10, 8, 8, NOMEM, .imm = 0x1122334455667788 },
	{ "mov imm32", M64, B("\xb8\x78\x56\x34\x12"), 0, 5, 4, 8, NOMEM, .imm = 0x12345678 },
	{ "mov imm16", M64, B("\x66\xb8\x34\x12"), 0, 4, 2, 8, NOMEM, .imm = 0x1234 },
	{ "movabs eax -> moffs64", M64, B("\xa3\x88\x77\x66\x55\x44\x33\x22\x11"), 0, 9, 4, 8, MEM(0x1122334455667788, DS) },
	{ "67 moffs32", M64, B("\x67\xa3\x78\x56\x34\x12"), 0, 6, 4, 4, MEM(0x12345678, DS) },
	{ "movq imm32 sign-extends", M64, B("\x48\xc7\x07\xff\xff\xff\xff"), 0, 7, 8, 8, MEM(0x800, DS), .imm = -1 },
	{ "movw imm16", M64, B("\x66\xc7\x07\x34\x12"), 0, 5, 2, 8, MEM(0x800, DS), .imm = 0x1234 },
	{ "movb imm8", M64, B("\xc6\x07\x12"), 0, 3, 4, 8, MEM(0x800, DS), .imm = 0x12 },
	{ "81 imm32", M64, B("\x81\x07\x01\x00\x00\x00"), 0, 6, 4, 8, MEM(0x800, DS) },
	{ "83 imm8", M64, B("\x83\x07\xff"), 0, 3, 4, 8, MEM(0x800, DS), .imm = -1 },
	{ "testb imm", M64, B("\xf6\x07\x01"), 0, 3, 4, 8, MEM(0x800, DS) },
	{ "testl imm", M64, B("\xf7\x07\x01\x00\x00\x00"), 0, 6, 4, 8, MEM(0x800, DS) },
	{ "testw imm", M64, B("\x66\xf7\x07\x01\x00"), 0, 5, 2, 8, MEM(0x800, DS) },
	{ "notl: no imm", M64, B("\xf7\x17"), 0, 2, 4, 8, MEM(0x800, DS) },
	{ "btsl imm", M64, B("\x0f\xba\x2f\x05"), 0, 4, 4, 8, MEM(0x800, DS), .imm = 5 },
	{ "bts reg", M64, B("\x0f\xab\x07"), 0, 3, 4, 8, MEM(0x800, DS) },
	{ "lock cmpxchg16b", M64, B("\xf0\x48\x0f\xc7\x0f"), 0, 5, 8, 8, MEM(0x800, DS) },
	{ "lock cmpxchg", M64, B("\xf0\x0f\xb1\x17"), 0, 4, 4, 8, MEM(0x800, DS), .reg = 2 },
	{ "rep stosq", M64, B("\xf3\x48\xab"), 0, 3, 8, 8, NOMEM },
	{ "movsxd", M64, B("\x48\x63\x07"), 0, 3, 8, 8, MEM(0x800, DS) },
	/* bad LOCK, sizes, unsupported */
	{ "lock mov: #UD", M64, B("\xf0\x89\x07"), X86_DEC_FAULT, .vector = VEC_UD },
	{ "lock add reg,reg: #UD", M64, B("\xf0\x01\xc0"), X86_DEC_FAULT, .vector = VEC_UD },
	{ "lock cmp: #UD", M64, B("\xf0\x39\x07"), X86_DEC_FAULT, .vector = VEC_UD },
	{ "15 bytes", M64, B("\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x90"), 0, 15 },
	{ "16 bytes: #GP", M64, B("\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x90"), X86_DEC_FAULT, .vector = VEC_GP },
	{ "15 with disp+imm: #GP", M64, B("\x66\x66\x66\x66\x66\x48\xc7\x84\x00\x00\x00\x00\x00\x00\x00\x00\x00"), X86_DEC_FAULT, .vector = VEC_GP },
	{ "truncated", M64, B("\x89"), X86_DEC_UNHANDLED },
	{ "vex", M64, B("\xc5\xf8\x77"), X86_DEC_UNHANDLED },
	{ "pop (rdi) (8f /0)", M64, B("\x8f\x07"), 0, 2, 4, 8, MEM(0x800, DS) },
	{ "xop (8f, reg != 0)", M64, B("\x8f\xe8\x78\xc0\xc0\x00"), X86_DEC_UNHANDLED },
	{ "32: bound", M32, B("\x62\x07"), 0, 2 },
	{ "evex", M64, B("\x62\xf1\x7c\x48\x10\xc1"), X86_DEC_UNHANDLED },
	{ "push es invalid in 64", M64, B("\x06"), X86_DEC_UNHANDLED },
	{ "0f 04 undefined", M64, B("\x0f\x04"), X86_DEC_UNHANDLED },
	/* lengths of instructions that are only decoded */
	{ "ud2", M64, B("\x0f\x0b"), 0, 2 },
	{ "call rel32", M64, B("\xe8\x00\x00\x00\x00"), 0, 5 },
	{ "66 call still rel32 in 64", M64, B("\x66\xe8\x00\x00\x00\x00"), 0, 6 },
	{ "jz rel32", M64, B("\x0f\x84\x00\x00\x00\x00"), 0, 6 },
	{ "jz rel8", M64, B("\x74\x00"), 0, 2 },
	{ "enter", M64, B("\xc8\x10\x00\x01"), 0, 4 },
	{ "imul imm32", M64, B("\x69\xc0\x00\x01\x00\x00"), 0, 6 },
	{ "imul imm8", M64, B("\x6b\xc0\x05"), 0, 3 },
	{ "ret imm16", M64, B("\xc2\x08\x00"), 0, 3 },
	{ "palignr (0f 3a)", M64, B("\x66\x0f\x3a\x0f\xc1\x08"), 0, 6 },
	{ "pshufb (0f 38)", M64, B("\x66\x0f\x38\x00\xc1"), 0, 5 },
	{ "3dnow", M64, B("\x0f\x0f\xc1\xb4"), 0, 4 },
	{ "fld1", M64, B("\xd9\xe8"), 0, 2 },
	{ "nopw long", M64, B("\x66\x2e\x0f\x1f\x84\x00\x00\x00\x00\x00"), 0, 10 },
	{ "shld imm", M64, B("\x0f\xa4\xc0\x03"), 0, 4 },
	{ "int 0x80", M64, B("\xcd\x80"), 0, 2 },
	/* exit-handler helpers */
	{ "mov rax,cr3", M64, B("\x0f\x22\xd8"), 0, 3, 8, .kind = X86_K_MOV_TO_CR, .cr = 3, .gpr = 0 },
	{ "mov cr3,rax", M64, B("\x0f\x20\xd8"), 0, 3, 8, .kind = X86_K_MOV_FROM_CR, .cr = 3, .gpr = 0 },
	{ "mov rax,cr8", M64, B("\x44\x0f\x22\xc0"), 0, 4, 8, .kind = X86_K_MOV_TO_CR, .cr = 8, .gpr = 0 },
	{ "mov r11,cr3", M64, B("\x41\x0f\x22\xdb"), 0, 4, 8, .kind = X86_K_MOV_TO_CR, .cr = 3, .gpr = 11 },
	{ "mov cr0,rcx mod!=3", M64, B("\x0f\x20\x01"), 0, 3, 8, NOMEM, .kind = X86_K_MOV_FROM_CR, .cr = 0, .gpr = 1 },
	{ "mov rax,cr4", M64, B("\x0f\x22\xe0"), 0, 3, 8, .kind = X86_K_MOV_TO_CR, .cr = 4 },
	{ "mov rax,cr5: #UD", M64, B("\x0f\x22\xe8"), X86_DEC_FAULT, .vector = VEC_UD },
	{ "mov rax,cr9: #UD", M64, B("\x44\x0f\x22\xc8"), X86_DEC_FAULT, .vector = VEC_UD },
	{ "invlpg (rax)", M64, B("\x0f\x01\x38"), 0, 3, MEM(0x100, DS), .kind = X86_K_INVLPG, .linear = 0x100 },
	{ "invlpg 8(rsp)", M64, B("\x0f\x01\x7c\x24\x08"), 0, 5, MEM(0x508, SS), .kind = X86_K_INVLPG },
	{ "invlpg gs:(rax)", M64, B("\x65\x0f\x01\x38"), 0, 4, MEM(0x100, X86_GS), .kind = X86_K_INVLPG, .linear = 0x100 + 0x9000000 },
	{ "clts", M64, B("\x0f\x06"), 0, 2, .kind = X86_K_CLTS },
	{ "lmsw ax", M64, B("\x0f\x01\xf0"), 0, 3, .kind = X86_K_LMSW },
	{ "lmsw (rdi)", M64, B("\x0f\x01\x37"), 0, 3, MEM(0x800, DS), .kind = X86_K_LMSW },
	{ "smsw (rdi)", M64, B("\x0f\x01\x27"), 0, 3, MEM(0x800, DS), .kind = X86_K_SMSW },
	{ "smsw rax", M64, B("\x48\x0f\x01\xe0"), 0, 4, 8, .kind = X86_K_SMSW },
	{ "vmcall", M64, B("\x0f\x01\xc1"), 0, 3, .kind = X86_K_VMCALL },
	{ "vmmcall", M64, B("\x0f\x01\xd9"), 0, 3, .kind = X86_K_VMMCALL },
	{ "cpuid", M64, B("\x0f\xa2"), 0, 2, .kind = X86_K_CPUID },
	{ "rdmsr", M64, B("\x0f\x32"), 0, 2, .kind = X86_K_RDMSR },
	{ "wrmsr", M64, B("\x0f\x30"), 0, 2, .kind = X86_K_WRMSR },
	{ "rdtsc", M64, B("\x0f\x31"), 0, 2, .kind = X86_K_RDTSC },
	{ "rdtscp", M64, B("\x0f\x01\xf9"), 0, 3, .kind = X86_K_RDTSCP },
	{ "hlt", M64, B("\xf4"), 0, 1, .kind = X86_K_HLT },
	{ "in al,0x60", M64, B("\xe4\x60"), 0, 2, .kind = X86_K_IN, .io_size = 1, .port = 0x60 },
	{ "in eax,0x71", M64, B("\xe5\x71"), 0, 2, .kind = X86_K_IN, .io_size = 4, .port = 0x71 },
	{ "out 0xf4,al", M64, B("\xe6\xf4"), 0, 2, .kind = X86_K_OUT, .io_size = 1, .port = 0xf4 },
	{ "out 0xf4,eax", M64, B("\xe7\xf4"), 0, 2, .kind = X86_K_OUT, .io_size = 4, .port = 0xf4 },
	{ "in al,dx", M64, B("\xec"), 0, 1, .kind = X86_K_IN, .io_size = 1, .port = 0x300 },
	{ "in eax,dx", M64, B("\xed"), 0, 1, .kind = X86_K_IN, .io_size = 4, .port = 0x300 },
	{ "out dx,al", M64, B("\xee"), 0, 1, .kind = X86_K_OUT, .io_size = 1, .port = 0x300 },
	{ "out dx,ax", M64, B("\x66\xef"), 0, 2, .kind = X86_K_OUT, .io_size = 2, .port = 0x300 },
	{ "rep outsb", M64, B("\xf3\x6e"), 0, 2, .kind = X86_K_OUTS, .io_size = 1, .port = 0x300 },
	{ "insw", M64, B("\x66\x6d"), 0, 2, .kind = X86_K_INS, .io_size = 2, .port = 0x300 },
	{ "rep insd", M64, B("\xf3\x6d"), 0, 2, .kind = X86_K_INS, .io_size = 4 },
	/* 32-bit */
	{ "32: mov (edi)", M32, B("\x89\x07"), 0, 2, 4, 4, MEM(0x800, DS) },
	{ "32: 66", M32, B("\x66\x89\x07"), 0, 3, 2, 4, MEM(0x800, DS) },
	{ "32: 67 is 16-bit (bx)", M32, B("\x67\x89\x07"), 0, 3, 4, 2, MEM(0x400, DS) },
	{ "32: 48 is dec eax", M32, B("\x48\x89\x07"), 0, 1 },
	{ "32: disp32 absolute", M32, B("\x89\x05\x78\x56\x34\x12"), 0, 6, 4, 4, MEM(0x12345678, DS) },
	{ "32: sib disp32(,eax,4)", M32, B("\x89\x04\x85\x00\x10\x00\x00"), 0, 7, 4, 4, MEM(0x1400, DS) },
	{ "32: ea wraps at 4G", M32, B("\x89\x87\x00\xf9\xff\xff"), 0, 6, 4, 4, MEM(0x100, DS) },
	{ "32: moffs32", M32, B("\xa3\x78\x56\x34\x12"), 0, 5, 4, 4, MEM(0x12345678, DS) },
	{ "32: ss override base", M32, B("\x36\x89\x07"), 0, 3, 4, 4, MEM(0x800, SS), .linear = 0x10800 },
	{ "32: linear wraps at 4G", M32, B("\x65\x89\x07"), 0, 3, 4, 4, MEM(0x800, X86_GS), .linear = 0x100 },
	{ "32: far call", M32, B("\x9a\x00\x00\x00\x00\x08\x00"), 0, 7 },
	{ "32: 66 far jmp", M32, B("\x66\xea\x00\x00\x08\x00"), 0, 6 },
	{ "32: les", M32, B("\xc4\x07"), 0, 2 },
	{ "32: vex", M32, B("\xc5\xf8\x77"), X86_DEC_UNHANDLED },
	{ "32: push es", M32, B("\x06"), 0, 1 },
	{ "32: call rel32", M32, B("\xe8\x00\x00\x00\x00"), 0, 5 },
	{ "32: 66 call rel16", M32, B("\x66\xe8\x00\x00"), 0, 4 },
	{ "32: lock mov cr0 = cr8 (AMD)", M32, B("\xf0\x0f\x20\xc0"), 0, 4, 4, .kind = X86_K_MOV_FROM_CR, .cr = 8, .gpr = 0 },
	{ "32: mov eax,cr3", M32, B("\x0f\x22\xd8"), 0, 3, 4, .kind = X86_K_MOV_TO_CR, .cr = 3 },
	{ "32: invlpg (eax)", M32, B("\x0f\x01\x38"), 0, 3, MEM(0x100, DS), .kind = X86_K_INVLPG, .linear = 0x100 },
	{ "32: cmpxchg8b", M32, B("\xf0\x0f\xc7\x0f"), 0, 4, 4, 4, MEM(0x800, DS) },
	/* 16-bit addressing */
	{ "16: (bx,si)", M16, B("\x89\x00"), 0, 2, 2, 2, MEM(0xb00, DS) },
	{ "16: (bx,di)", M16, B("\x89\x01"), 0, 2, 2, 2, MEM(0xc00, DS) },
	{ "16: (bp,si)", M16, B("\x89\x02"), 0, 2, 2, 2, MEM(0xd00, SS) },
	{ "16: (bp,di)", M16, B("\x89\x03"), 0, 2, 2, 2, MEM(0xe00, SS) },
	{ "16: (si)", M16, B("\x89\x04"), 0, 2, 2, 2, MEM(0x700, DS) },
	{ "16: (di)", M16, B("\x89\x05"), 0, 2, 2, 2, MEM(0x800, DS) },
	{ "16: disp16", M16, B("\x89\x06\x34\x12"), 0, 4, 2, 2, MEM(0x1234, DS) },
	{ "16: (bx)", M16, B("\x89\x07"), 0, 2, 2, 2, MEM(0x400, DS) },
	{ "16: -2(bp)", M16, B("\x89\x46\xfe"), 0, 3, 2, 2, MEM(0x5fe, SS) },
	{ "16: disp16(bx)", M16, B("\x89\x87\x00\x10"), 0, 4, 2, 2, MEM(0x1400, DS) },
	{ "16: wraps at 64K", M16, B("\x89\x87\x00\xfd"), 0, 4, 2, 2, MEM(0x100, DS) },
	{ "16: ds:(bp) override", M16, B("\x3e\x89\x46\x00"), 0, 4, 2, 2, MEM(0x600, DS) },
	{ "16: 66 -> 32-bit operand", M16, B("\x66\x89\x07"), 0, 3, 4, 2, MEM(0x400, DS) },
	{ "16: 67 -> (edi)", M16, B("\x67\x89\x07"), 0, 3, 2, 4, MEM(0x800, DS) },
	{ "16: 67 sib", M16, B("\x67\x89\x04\x24"), 0, 4, 2, 4, MEM(0x500, SS) },
	{ "16: movw imm16", M16, B("\xc7\x07\x34\x12"), 0, 4, 2, 2, MEM(0x400, DS), .imm = 0x1234 },
	{ "16: call rel16", M16, B("\xe8\x34\x12"), 0, 3 },
	{ "16: moffs16", M16, B("\xa3\x34\x12"), 0, 3, 2, 2, MEM(0x1234, DS), .linear = 0x21234 },
	{ "16: real-mode ds base", M16, B("\x89\x07"), 0, 2, 2, 2, MEM(0x400, DS), .linear = 0x20400 },
	{ "16: in ax,dx", M16, B("\xed"), 0, 1, .kind = X86_K_IN, .io_size = 2 },
	{ "16: 66 in eax,dx", M16, B("\x66\xed"), 0, 2, .kind = X86_K_IN, .io_size = 4 },
};
/* clang-format on */

static void regs(struct x86_emu_ctx *ctx)
{
	for (int i = 0; i < X86_NR_GPRS; i++)
		ctx->gpr[i] = 0x100 * (i + 1);
}

static void setup(struct x86_emu_ctx *ctx, u8 mode)
{
	fake_ctx(ctx, mode);
	regs(ctx);
	ctx->seg[X86_FS].base = 0x7000000;
	ctx->seg[X86_GS].base = mode == M32 ? 0xfffff900 : 0x9000000;
	ctx->seg[X86_SS].base = mode == M32 ? 0x10000 : 0;
	ctx->seg[X86_DS].base = mode == M16 ? 0x20000 : 0;
}

static void check_case(void **state)
{
	const struct dcase *c = *state;
	struct x86_emu_ctx ctx;
	struct x86_insn in;
	struct x86_fault f;
	int rc;

	setup(&ctx, c->mode);
	rc = x86_decode_bytes(&ctx, (const u8 *)c->code, c->n, &in, &f);
	if (rc != c->status)
		fail_msg("%s: status %d, expected %d", c->name, rc, c->status);
	if (rc == X86_DEC_FAULT) {
		assert_int_equal(f.vector, c->vector);
		return;
	}
	if (rc != X86_DEC_OK)
		return;
	if (in.len != c->len)
		fail_msg("%s: len %u, expected %u", c->name, in.len, c->len);
	if (c->opsize)
		assert_int_equal(in.opsize, c->opsize);
	if (c->addrsize)
		assert_int_equal(in.addrsize, c->addrsize);
	if (c->mem == 1) {
		assert_true(in.has_mem);
		if (in.mem.ea != c->ea)
			fail_msg("%s: ea %#llx, expected %#llx", c->name,
				 (unsigned long long)in.mem.ea, (unsigned long long)c->ea);
		assert_int_equal(in.mem.seg, c->seg);
	} else if (c->mem == 2) {
		assert_false(in.has_mem);
	}
	if (c->linear)
		assert_int_equal(in.mem.linear, c->linear);
	assert_int_equal(in.kind, c->kind);
	if (c->kind == X86_K_MOV_TO_CR || c->kind == X86_K_MOV_FROM_CR) {
		assert_int_equal(in.cr, c->cr);
		assert_int_equal(in.gpr, c->gpr);
	}
	if (c->io_size)
		assert_int_equal(in.io_size, c->io_size);
	if (c->port)
		assert_int_equal(in.port, c->port);
	if (c->reg)
		assert_int_equal(in.reg, c->reg);
	if (c->rm)
		assert_int_equal(in.rm, c->rm);
	if (c->imm)
		assert_int_equal(in.imm, c->imm);
}

/* Decoding through fetch() must give the same as decoding the bytes. */
static void test_fetch_matches_bytes(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct dcase *c = &cases[i];
		struct x86_emu_ctx ctx;
		struct x86_insn a, b;
		struct x86_fault f;
		int ra, rb;

		if (c->status == X86_DEC_UNHANDLED && c->n < 2)
			continue; /* truncation only exists for byte buffers */
		fake_reset();
		fake_code(c->code, c->n);
		setup(&ctx, c->mode);
		ctx.seg[X86_CS].base = 0;
		ra = x86_decode_bytes(&ctx, (const u8 *)c->code, c->n, &a, &f);
		rb = x86_decode(&ctx, &fake_ops, &b, &f);
		if (ra != rb || (ra == X86_DEC_OK && (a.len != b.len || a.mem.ea != b.mem.ea)))
			fail_msg("%s: fetch path differs (%d/%d)", c->name, ra, rb);
	}
}

/*
 * MOV CR has a fast path (mov_cr in decode.c). Every MOV CR encoding in every mode, with and
 * without each REX, with a prefix in front, or one byte changed, decodes exactly as the general
 * decoder does: same status, same fault, same fields when it decoded.
 */
static void check_same(const struct x86_emu_ctx *ctx, const u8 *code, size_t n)
{
	struct x86_insn a, b;
	struct x86_fault fa, fb;
	int ra = x86_decode_bytes_cr(ctx, code, n, &a, &fa);
	int rb = x86_decode_bytes(ctx, code, n, &b, &fb);

	/* A failed decode's fields are nobody's business but a #UD's (the instruction's length). */
	bool fields = ra == X86_DEC_OK || (ra == X86_DEC_FAULT && fa.vector == VEC_UD);

	if (ra != rb || (fields && memcmp(&a, &b, sizeof(a))) ||
	    (ra == X86_DEC_FAULT && memcmp(&fa, &fb, sizeof(fa))))
		fail_msg(
			"mode %u %02x %02x %02x %02x (n=%zu): fast path %d differs from general %d",
			ctx->efer & EFER_LMA ? 64 : 32, code[0], code[1], code[2], code[3], n, ra,
			rb);

	/* The CR exit's read of a few bytes at RIP (vcpu_decode_cr): what it takes, it takes as
	 * the decoder would (the fields the CR handlers read); it declines only what the
	 * decoder's fast path also leaves (another form, a fault) or what n cannot hold. */
	struct x86_insn c;
	bool took = x86_decode_mov_cr_bytes(ctx, code, (unsigned)n, &c);
	if (took && (rb != X86_DEC_OK || c.kind != b.kind || c.cr != b.cr || c.gpr != b.gpr ||
		     c.len != b.len || c.mode != b.mode || c.opsize != b.opsize ||
		     c.addrsize != b.addrsize))
		fail_msg(
			"mode %u %02x %02x %02x %02x (n=%zu): the bytes at RIP read as another insn",
			ctx->efer & EFER_LMA ? 64 : 32, code[0], code[1], code[2], code[3], n);
	bool plain = rb == X86_DEC_OK && b.map == 1 && (b.opcode == 0x20 || b.opcode == 0x22) &&
		     b.mod == 3 && b.len == (b.rex ? 4 : 3) && b.len <= n;
	if (plain && !took)
		fail_msg("mode %u %02x %02x %02x %02x (n=%zu): a plain MOV CR declined",
			 ctx->efer & EFER_LMA ? 64 : 32, code[0], code[1], code[2], code[3], n);
}

static void test_mov_cr_fast_path(void **state)
{
	static const u8 modes[] = { M64, M32, M16 };
	static const u8 prefixes[] = { 0x66, 0x67, 0xf0, 0xf2, 0xf3, 0x2e, 0x26, 0x65 };
	struct x86_emu_ctx ctx;
	struct x86_insn in;
	struct x86_fault f;

	(void)state;
	for (unsigned m = 0; m < ARRAY_SIZE(modes); m++) {
		setup(&ctx, modes[m]);
		for (unsigned op = 0x20; op <= 0x23; op++) {
			for (unsigned modrm = 0; modrm < 256; modrm++) {
				u8 code[8] = { 0x0f, (u8)op, (u8)modrm, 0x90 };
				check_same(&ctx, code, 4);
				check_same(&ctx, code, 2); /* truncated */
				for (unsigned rex = 0x40; rex <= 0x4f; rex++) {
					u8 r[8] = { (u8)rex, 0x0f, (u8)op, (u8)modrm, 0x90 };
					check_same(&ctx, r, 5);
					check_same(&ctx, r, 3);
				}
				for (unsigned p = 0; p < ARRAY_SIZE(prefixes); p++) {
					u8 q[8] = { prefixes[p], 0x0f, (u8)op, (u8)modrm, 0x90 };
					check_same(&ctx, q, 5);
				}
			}
		}
		/* Bytes that only look like the start of one: other 0F opcodes, other first bytes. */
		for (unsigned b0 = 0; b0 < 256; b0++) {
			u8 c[8] = { (u8)b0, 0x22, 0xd8, 0x90 };
			check_same(&ctx, c, 4);
			u8 c2[8] = { 0x0f, (u8)b0, 0xd8, 0x90, 0x90, 0x90, 0x90, 0x90 };
			check_same(&ctx, c2, 8);
		}
	}

	/* What vcpu_cr_access relies on: register and CR numbers, the length, bad CRs fault. */
	setup(&ctx, M64);
	assert_int_equal(x86_decode_bytes_cr(&ctx, (const u8 *)"\x0f\x22\xdf", 3, &in, &f),
			 X86_DEC_OK);
	assert_int_equal(in.kind, X86_K_MOV_TO_CR);
	assert_int_equal(in.cr, 3);
	assert_int_equal(in.gpr, 7);
	assert_int_equal(in.len, 3);
	assert_int_equal(x86_decode_bytes_cr(&ctx, (const u8 *)"\x41\x0f\x22\xdf", 4, &in, &f),
			 X86_DEC_OK);
	assert_int_equal(in.gpr, 15);
	assert_int_equal(in.len, 4);
	/* REX.R names CR11: #UD, as the CPU gives. */
	assert_int_equal(x86_decode_bytes_cr(&ctx, (const u8 *)"\x44\x0f\x22\xd8", 4, &in, &f),
			 X86_DEC_FAULT);
	assert_int_equal(f.vector, VEC_UD);
	/* CR5 is #UD too; an operand-size prefix goes to the general decoder and changes nothing. */
	assert_int_equal(x86_decode_bytes_cr(&ctx, (const u8 *)"\x0f\x22\xe8", 3, &in, &f),
			 X86_DEC_FAULT);
	assert_int_equal(f.vector, VEC_UD);
	assert_int_equal(x86_decode_bytes_cr(&ctx, (const u8 *)"\x66\x0f\x22\xd8", 4, &in, &f),
			 X86_DEC_OK);
	assert_int_equal(in.cr, 3);
	assert_int_equal(in.len, 4);
	/* A REX that a legacy prefix follows does not count. */
	assert_int_equal(x86_decode_bytes_cr(&ctx, (const u8 *)"\x41\x66\x0f\x22\xd8", 5, &in, &f),
			 X86_DEC_OK);
	assert_int_equal(in.gpr, 0);

	/* Through fetch: a MOV CR3 that ends right before a missing page decodes, one that runs
	 * into it faults on the fetch at the page's first byte, and never a byte further. */
	fake_reset();
	fake_ctx(&ctx, M64);
	memcpy(fake.mem + FAKE_HOLE - 3, "\x0f\x22\xd8", 3);
	ctx.rip = FAKE_HOLE - 3;
	assert_int_equal(x86_decode_cr(&ctx, &fake_ops, &in, &f), X86_DEC_OK);
	assert_int_equal(in.len, 3);
	assert_int_equal(in.cr, 3);
	for (unsigned k = 1; k <= 3; k++) {
		memcpy(fake.mem + FAKE_HOLE - k, "\x41\x0f\x22", k);
		ctx.rip = FAKE_HOLE - k;
		assert_int_equal(x86_decode_cr(&ctx, &fake_ops, &in, &f), X86_DEC_FAULT);
		assert_int_equal(f.vector, VEC_PF);
		assert_int_equal(f.addr, FAKE_HOLE);
	}
}

/* The MOV CR the hardware decoded (x86_insn_mov_cr) reads as the decoder's, in every mode. */
static void test_mov_cr_from_hardware(void **state)
{
	static const u8 modes[] = { M64, M32, M16 };
	static const u8 crs[] = { 0, 2, 3, 4, 8 };
	struct x86_emu_ctx ctx;
	struct x86_insn a, b;
	struct x86_fault f;

	(void)state;
	for (unsigned m = 0; m < ARRAY_SIZE(modes); m++) {
		setup(&ctx, modes[m]);
		unsigned gprs = modes[m] == M64 ? 16 : 8;
		for (unsigned c = 0; c < ARRAY_SIZE(crs); c++) {
			for (unsigned g = 0; g < gprs; g++) {
				for (unsigned to = 0; to < 2; to++) {
					u8 rex = 0x40 | (crs[c] & 8 ? 4 : 0) | (g & 8 ? 1 : 0);
					u8 code[4] = { rex, 0x0f, to ? 0x22 : 0x20,
						       (u8)(0xc0 | (crs[c] & 7) << 3 | (g & 7)) };
					const u8 *p = rex == 0x40 ? code + 1 : code;
					size_t n = rex == 0x40 ? 3 : 4;

					if (modes[m] != M64 && rex != 0x40)
						continue;
					assert_int_equal(x86_decode_bytes(&ctx, p, n, &a, &f),
							 X86_DEC_OK);
					x86_insn_mov_cr(&ctx, to, crs[c], (u8)g, (u8)n, &b);
					assert_int_equal(b.kind, a.kind);
					assert_int_equal(b.cr, a.cr);
					assert_int_equal(b.gpr, a.gpr);
					assert_int_equal(b.len, a.len);
					assert_int_equal(b.mode, a.mode);
					assert_int_equal(b.opsize, a.opsize);
					assert_int_equal(x86_next_rip(&ctx, &b),
							 x86_next_rip(&ctx, &a));
				}
			}
		}
	}
}

/* A hypercall exit's skip (vcpu_skip_hypercall) reads the bytes at RIP: what x86_hypercall_len
 * takes is a VMCALL/VMMCALL of that length to the decoder, in every mode, and it takes both
 * plain forms; anything after 0F 01, behind a prefix, or cut short it leaves to the decoder. */
static void test_hypercall_len(void **state)
{
	static const u8 modes[] = { M64, M32, M16 };
	static const u8 prefixes[] = { 0, 0x66, 0x67, 0xf2, 0xf3, 0x2e, 0x65, 0x48 };
	struct x86_emu_ctx ctx;
	struct x86_insn in;
	struct x86_fault f;
	unsigned taken = 0;

	(void)state;
	for (unsigned m = 0; m < ARRAY_SIZE(modes); m++) {
		setup(&ctx, modes[m]);
		for (unsigned p = 0; p < ARRAY_SIZE(prefixes); p++)
			for (unsigned modrm = 0; modrm < 256; modrm++) {
				u8 code[5] = { 0x0f, 0x01, (u8)modrm, 0x90, 0x90 }, *at = code;
				if (prefixes[p]) {
					memmove(code + 1, code, 4);
					code[0] = prefixes[p];
				}
				for (unsigned n = 0; n <= 4; n++) {
					unsigned len = x86_hypercall_len(at, n);
					int rc = x86_decode_bytes(&ctx, at, 5, &in, &f);
					bool plain = !prefixes[p] && n >= 3 &&
						     (modrm == 0xc1 || modrm == 0xd9);
					if (len &&
					    (rc != X86_DEC_OK || in.len != len ||
					     (in.kind != X86_K_VMCALL && in.kind != X86_K_VMMCALL)))
						fail_msg(
							"mode %u %02x %02x %02x %02x (n=%u): read as a "
							"hypercall of %u bytes, decoded %d len %u kind %u",
							modes[m], at[0], at[1], at[2], at[3], n,
							len, rc, in.len, in.kind);
					if (plain != (len != 0))
						fail_msg("mode %u %02x %02x %02x (n=%u): %s",
							 modes[m], at[0], at[1], at[2], n,
							 plain ? "a plain hypercall declined"
							       : "taken, though not plain");
					taken += len != 0;
				}
			}
	}
	assert_int_equal(taken, 3 * 2 * 2); /* 3 modes, 2 forms, n = 3 and 4 */
}

static void test_page_crossing_fetch(void **state)
{
	struct x86_emu_ctx ctx;
	struct x86_insn in;
	struct x86_fault f;

	(void)state;
	fake_reset();
	fake_ctx(&ctx, M64);
	memcpy(fake.mem + 0x1ffe, "\x48\x89\x07", 3);
	ctx.rip = 0x1ffe;
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &f), X86_DEC_OK);
	assert_int_equal(in.len, 3);
	assert_int_equal(fake.fetches, 2);

	/* Ending right before a missing page is fine: nothing is fetched from it. */
	fake_reset();
	memcpy(fake.mem + FAKE_HOLE - 2, "\x89\x07", 2);
	ctx.rip = FAKE_HOLE - 2;
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &f), X86_DEC_OK);
	assert_int_equal(in.len, 2);

	/* Running into it is a #PF on the instruction fetch at the page's first byte. */
	memcpy(fake.mem + FAKE_HOLE - 3, "\x48\xc7\x07", 3);
	ctx.rip = FAKE_HOLE - 3;
	ctx.cpl = 3;
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &f), X86_DEC_FAULT);
	assert_int_equal(f.vector, VEC_PF);
	assert_int_equal(f.addr, FAKE_HOLE);
	assert_int_equal(f.error_code, X86_PF_I | X86_PF_U);

	/* Without NX (and SMEP) the CPU leaves the I bit clear. */
	ctx.efer &= ~EFER_NXE;
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &f), X86_DEC_FAULT);
	assert_int_equal(f.error_code, X86_PF_U);
}

static void test_cs_limit_and_ip_wrap(void **state)
{
	struct x86_emu_ctx ctx;
	struct x86_insn in;
	struct x86_fault f;

	(void)state;
	fake_reset();
	fake_ctx(&ctx, M32);
	fake_code("\x48\x89\x07", 3);
	ctx.seg[X86_CS].limit = FAKE_CODE + 1;
	fake_code("\x89\x07\x90", 3);
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &f), X86_DEC_OK);
	fake_code("\x66\x89\x07", 3);
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &f), X86_DEC_FAULT);
	assert_int_equal(f.vector, VEC_GP);

	/* 16-bit IP wraps to 0 inside the instruction. */
	fake_ctx(&ctx, M16);
	regs(&ctx);
	ctx.rip = 0xffff;
	fake.mem[0xffff] = 0x89;
	fake.mem[0] = 0x07;
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &f), X86_DEC_OK);
	assert_int_equal(in.len, 2);
	assert_int_equal(in.mem.ea, 0x400);
	assert_int_equal(x86_next_rip(&ctx, &in), 1);

	/* 64-bit: a non-canonical RIP is a #GP. */
	fake_ctx(&ctx, M64);
	ctx.rip = 0x0000800000000000ull;
	assert_int_equal(x86_decode(&ctx, &fake_ops, &in, &f), X86_DEC_FAULT);
	assert_int_equal(f.vector, VEC_GP);
}

static void test_modes(void **state)
{
	struct x86_emu_ctx ctx;

	(void)state;
	fake_ctx(&ctx, M16);
	assert_int_equal(x86_ctx_mode(&ctx), X86_MODE_16);
	ctx.seg[X86_CS].attr |= X86_SEG_DB | X86_SEG_L; /* ignored in real mode */
	assert_int_equal(x86_ctx_mode(&ctx), X86_MODE_16);
	fake_ctx(&ctx, M32);
	assert_int_equal(x86_ctx_mode(&ctx), X86_MODE_32);
	ctx.rflags |= RFLAGS_VM;
	assert_int_equal(x86_ctx_mode(&ctx), X86_MODE_16);
	ctx.rflags &= ~RFLAGS_VM;
	ctx.seg[X86_CS].attr &= ~X86_SEG_DB;
	assert_int_equal(x86_ctx_mode(&ctx), X86_MODE_16);
	fake_ctx(&ctx, M64);
	assert_int_equal(x86_ctx_mode(&ctx), X86_MODE_64);
	ctx.seg[X86_CS].attr =
		(ctx.seg[X86_CS].attr & ~X86_SEG_L) | X86_SEG_DB; /* compatibility mode */
	assert_int_equal(x86_ctx_mode(&ctx), X86_MODE_32);
	ctx.seg[X86_CS].attr |= X86_SEG_L;
	ctx.efer &= ~EFER_LMA;
	assert_int_equal(x86_ctx_mode(&ctx), X86_MODE_32);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_fetch_matches_bytes),
		cmocka_unit_test(test_page_crossing_fetch),
		cmocka_unit_test(test_mov_cr_fast_path),
		cmocka_unit_test(test_mov_cr_from_hardware),
		cmocka_unit_test(test_hypercall_len),
		cmocka_unit_test(test_cs_limit_and_ip_wrap),
		cmocka_unit_test(test_modes),
	};

	return fake_run_table("emul-decode", cases, ARRAY_SIZE(cases), sizeof(cases[0]), check_case,
			      fixed, ARRAY_SIZE(fixed));
}
